// Table::render("csv") for pandas (issue 31, part 2): what people read as one cell — "0.7 (0.6, 0.8)",
// "78.25 %", "—" — becomes numbers in columns of their own, so pandas.read_csv gives numeric
// dtypes; csv_long puts several tables into one file with one header.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "records/csv.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

// What the writers print for a value that does not exist: em dash, en dash, a hyphen alone.
bool is_blank(std::string_view cell) { return cell.empty() || cell == "—" || cell == "–" || cell == "-"; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// A decimal number as the writers print it: sign, digits, point, digits, exponent ("1e+103").
bool is_number(std::string_view text) {
  size_t i = 0, digits = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) ++digits;
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) ++digits;
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    const size_t exponent = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == exponent) return false;
  }
  return i == text.size();
}

// A number or a blank inside an interval; the blank as "".
bool number_or_blank(std::string_view text, std::string& out) {
  text = trim(text);
  if (is_blank(text)) {
    out.clear();
    return true;
  }
  if (!is_number(text)) return false;
  out = std::string(text);
  return true;
}

// "(lo, hi)" or "[lo, hi]" at the start of text (CAP's "(88,96)" too); the rest after it in rest.
bool parse_bounds(std::string_view text, std::string& lo, std::string& hi, std::string_view& rest) {
  if (text.empty() || (text.front() != '(' && text.front() != '[')) return false;
  const size_t comma = text.find(','), close = text.find(text.front() == '(' ? ')' : ']');
  if (comma == std::string_view::npos || close == std::string_view::npos || comma > close) return false;
  if (!number_or_blank(text.substr(1, comma - 1), lo) ||
      !number_or_blank(text.substr(comma + 1, close - comma - 1), hi))
    return false;
  rest = trim(text.substr(close + 1));
  return true;
}

struct IntervalCell {
  std::string estimate, lo, hi, flag;
};

// "est (lo, hi)" or "est [lo, hi]" with an optional flag after it ("0.95 (0.90, 1.00) equal ends").
bool parse_interval(std::string_view cell, IntervalCell& out) {
  cell = trim(cell);
  const size_t open = cell.find_first_of("([");
  if (open == std::string_view::npos || open == 0) return false;
  std::string_view rest;
  if (!number_or_blank(cell.substr(0, open), out.estimate)) return false;
  if (!parse_bounds(trim(cell.substr(open)), out.lo, out.hi, rest)) return false;
  out.flag = std::string(rest);
  return true;
}

// "78.25 %" or "78.25%": the number without its unit.
bool parse_percent(std::string_view cell, std::string& out) {
  cell = trim(cell);
  if (cell.empty() || cell.back() != '%') return false;
  cell = trim(cell.substr(0, cell.size() - 1));
  if (!is_number(cell)) return false;
  out = std::string(cell);
  return true;
}

// "3 of 6" (a rank among judges, k of m pairs significant): the two numbers.
bool parse_count_of(std::string_view cell, std::string& count, std::string& of) {
  cell = trim(cell);
  const size_t at = cell.find(" of ");
  if (at == std::string_view::npos) return false;
  const std::string_view k = trim(cell.substr(0, at)), m = trim(cell.substr(at + 4));
  if (!is_number(k) || !is_number(m)) return false;
  count = std::string(k);
  of = std::string(m);
  return true;
}

enum class ColumnKind { kPlain, kInterval, kPercent, kBounds, kCountOf };

ColumnKind column_kind(const std::vector<std::vector<std::string>>& rows, size_t c) {
  size_t intervals = 0, numbers = 0, percents = 0, bounds = 0, count_ofs = 0, others = 0;
  for (const auto& row : rows) {
    if (c >= row.size() || is_blank(trim(row[c]))) continue;
    IntervalCell interval;
    std::string value, lo, hi, of;
    std::string_view rest;
    if (is_number(trim(row[c])))
      ++numbers;
    else if (parse_percent(row[c], value))
      ++percents;
    else if (parse_bounds(trim(row[c]), lo, hi, rest) && rest.empty())
      ++bounds;
    else if (parse_interval(row[c], interval))
      ++intervals;
    else if (parse_count_of(row[c], value, of))
      ++count_ofs;
    else
      ++others;
  }
  if (others > 0) return ColumnKind::kPlain;
  if (count_ofs > 0) return numbers + intervals + percents + bounds == 0 ? ColumnKind::kCountOf : ColumnKind::kPlain;
  if (intervals > 0 && percents + bounds == 0) return ColumnKind::kInterval;  // a point without CI: estimate only
  if (percents > 0 && numbers + intervals + bounds == 0) return ColumnKind::kPercent;
  if (bounds > 0 && numbers + intervals + percents == 0) return ColumnKind::kBounds;
  return ColumnKind::kPlain;
}

// A header without what the split columns now say: "acc (95% CI)" and "acc [95% CI]" → "acc", "95% CI" → "ci",
// "fail %" → "fail"; spaces inside become '_' so the name is one word in pandas.
std::string base_name(const std::string& header) {
  std::string name(trim(header));
  const size_t open = name.find_last_of("([");
  if (open != std::string::npos && name.find("CI", open) != std::string::npos)
    name = std::string(trim(name.substr(0, open)));
  if (name.find("CI") != std::string::npos && name.find('%') != std::string::npos) return "ci";
  name.erase(std::remove(name.begin(), name.end(), '%'), name.end());
  name = std::string(trim(name));
  if (name.size() >= 2 && name.front() == '(' && name.back() == ')') name = name.substr(1, name.size() - 2);
  for (char& ch : name)
    if (ch == ' ') ch = '_';
  return name.empty() ? "value" : name;
}

// One column of the source as the columns it becomes: their names and, per row, their cells.
struct SplitColumn {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> cells;  // [row][part]
};

SplitColumn split_interval_column(const std::vector<std::vector<std::string>>& rows, size_t c,
                                  const std::string& name) {
  SplitColumn out{{name, name + "_lo", name + "_hi"}, {}};
  bool flagged = false;
  for (const auto& row : rows) {
    IntervalCell cell;
    const std::string text = c < row.size() ? std::string(trim(row[c])) : "";
    if (is_number(text))
      cell.estimate = text;
    else if (!is_blank(text))
      parse_interval(text, cell);
    flagged = flagged || !cell.flag.empty();
    out.cells.push_back({cell.estimate, cell.lo, cell.hi, cell.flag});
  }
  if (flagged)
    out.names.push_back(name + "_flag");
  else
    for (auto& cells : out.cells) cells.pop_back();
  return out;
}

SplitColumn split_column(const std::vector<std::vector<std::string>>& rows, size_t c, const std::string& header) {
  const std::string name = base_name(header);
  switch (column_kind(rows, c)) {
    case ColumnKind::kInterval:
      return split_interval_column(rows, c, name);
    case ColumnKind::kPercent: {
      SplitColumn out{{name + "_pct"}, {}};
      for (const auto& row : rows) {
        std::string value;
        if (c < row.size()) parse_percent(row[c], value);
        out.cells.push_back({value});
      }
      return out;
    }
    case ColumnKind::kBounds: {
      SplitColumn out{{name + "_lo", name + "_hi"}, {}};
      for (const auto& row : rows) {
        std::string lo, hi;
        std::string_view rest;
        if (c < row.size() && !is_blank(trim(row[c]))) parse_bounds(trim(row[c]), lo, hi, rest);
        out.cells.push_back({lo, hi});
      }
      return out;
    }
    case ColumnKind::kCountOf: {
      SplitColumn out{{name, name + "_of"}, {}};
      for (const auto& row : rows) {
        std::string count, of;
        if (c < row.size()) parse_count_of(row[c], count, of);
        out.cells.push_back({count, of});
      }
      return out;
    }
    case ColumnKind::kPlain:
      break;
  }
  SplitColumn out{{header}, {}};
  for (const auto& row : rows) {
    const std::string text = c < row.size() ? row[c] : "";
    out.cells.push_back({is_blank(trim(text)) ? "" : text});
  }
  return out;
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_field(cells[c]);
  return out + "\n";
}

}  // namespace

Table csv_ready(const Table& table) {
  Table out;
  out.rows.resize(table.rows.size());
  for (size_t c = 0; c < table.header.size(); ++c) {
    // A matrix's empty corner names its row labels; pandas would call an empty name "Unnamed: N".
    const std::string name = !table.header[c].empty() ? table.header[c]
                             : c == 0                 ? "row"
                                                      : "column_" + std::to_string(c + 1);
    const SplitColumn split = split_column(table.rows, c, name);
    out.header.insert(out.header.end(), split.names.begin(), split.names.end());
    for (size_t r = 0; r < table.rows.size(); ++r)
      out.rows[r].insert(out.rows[r].end(), split.cells[r].begin(), split.cells[r].end());
  }
  return out;
}

std::string render_csv(const Table& table) {
  const Table ready = csv_ready(table);
  std::string out = csv_line(ready.header);
  for (const auto& row : ready.rows) out += csv_line(row);
  return out;
}

std::string csv_long(const std::vector<std::pair<std::string, Table>>& tables) {
  std::vector<std::string> columns{"table"};
  std::vector<std::pair<std::string, Table>> ready;
  for (const auto& [name, table] : tables) {
    ready.emplace_back(name, csv_ready(table));
    for (const std::string& column : ready.back().second.header)
      if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
  }
  std::string out = csv_line(columns);
  for (const auto& [name, table] : ready)
    for (const auto& row : table.rows) {
      std::vector<std::string> cells(columns.size());
      cells[0] = name;
      for (size_t c = 0; c < table.header.size() && c < row.size(); ++c) {
        const size_t at =
            static_cast<size_t>(std::find(columns.begin(), columns.end(), table.header[c]) - columns.begin());
        cells[at] = row[c];
      }
      out += csv_line(cells);
    }
  return out;
}

}  // namespace judgestat
