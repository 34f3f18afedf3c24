// The cascade's and label budget's tables as one CSV that pandas loads (issue 31 part 2): the text
// tables' cells turned into numbers column by column, every table in one long table with a leading
// `table` column, so that a file has one header and numeric columns.
#include <algorithm>
#include <cstdlib>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "report/cascade_report.hpp"
#include "report/plot_axes.hpp"

namespace judgestat {
namespace {

// A number as the tables print it: "93.4", "+0.93", "-1.20", "1e+06"; "12.5 %" sets `percent`.
bool parse_number(std::string cell, double& value, bool& percent) {
  while (!cell.empty() && cell.back() == ' ') cell.pop_back();
  while (!cell.empty() && cell.front() == ' ') cell.erase(0, 1);
  if (cell.size() > 1 && cell.back() == '%') {
    percent = true;
    cell.pop_back();
    while (!cell.empty() && cell.back() == ' ') cell.pop_back();
  }
  if (cell.empty()) return false;
  const char* begin = cell.c_str() + (cell.front() == '+' ? 1 : 0);
  char* end = nullptr;
  value = std::strtod(begin, &end);
  return end != begin && *end == '\0';
}

bool is_missing(const std::string& cell) {
  return cell.empty() || cell == "—" || cell == "–" || cell == "-" || cell == "not given";
}

// "EST [LO, HI]" or "EST (LO, HI)": the three texts.
bool split_interval(const std::string& cell, std::vector<std::string>& parts) {
  static const std::regex pattern(R"(^\s*(\S+)\s*[\[(]\s*([^,\s]+)\s*,\s*([^\])\s]+)\s*[\])]\s*$)");
  std::smatch m;
  if (!std::regex_match(cell, m, pattern)) return false;
  parts = {m[1].str(), m[2].str(), m[3].str()};
  double value = 0;
  bool percent = false;
  for (const std::string& part : parts)
    if (!parse_number(part, value, percent)) return false;
  return true;
}

// "0.12 / 0.30" (latency p50 / p95) or "0.51 → 0.48" (before → after): the parts, when all are numbers.
bool split_parts(const std::string& cell, const std::string& separator, std::vector<std::string>& parts) {
  parts.clear();
  size_t start = 0;
  for (size_t at; (at = cell.find(separator, start)) != std::string::npos; start = at + separator.size())
    parts.push_back(cell.substr(start, at - start));
  parts.push_back(cell.substr(start));
  double value = 0;
  bool percent = false;
  for (const std::string& part : parts)
    if (!parse_number(part, value, percent)) return false;
  return parts.size() > 1;
}

// A header without its interval level ("Δ (pp) [95% CI]" → "Δ (pp)").
std::string base_name(std::string header) {
  const size_t bracket = header.rfind(" [");
  if (bracket != std::string::npos && header.find("CI", bracket) != std::string::npos) header.erase(bracket);
  return header;
}

// Column names of a header split at `separator`: "latency p50 / p95 (s)" → "latency p50 (s)",
// "latency p95 (s)"; "held-out NLL" split at " → " → "held-out NLL before", "… after".
std::vector<std::string> part_names(const std::string& header, const std::string& separator, size_t count) {
  if (separator == " → ") return {header + " before", header + " after"};
  std::vector<std::string> parts;
  split_parts(header, separator, parts);
  std::string unit;
  if (parts.size() == count && !parts.back().empty() && parts.back().back() == ')') {
    const size_t open = parts.back().rfind(" (");
    if (open != std::string::npos) unit = parts.back().substr(open), parts.back().erase(open);
  }
  if (parts.size() != count) {
    std::vector<std::string> out;
    for (size_t k = 0; k < count; ++k) out.push_back(header + " " + std::to_string(k + 1));
    return out;
  }
  const size_t space = parts.front().rfind(' ');
  const std::string prefix = space == std::string::npos ? "" : parts.front().substr(0, space + 1);
  std::vector<std::string> out{parts.front() + unit};
  for (size_t k = 1; k < count; ++k) out.push_back(prefix + parts[k] + unit);
  return out;
}

// One column of a table as named numeric columns: the names and, per row, the cells.
struct NumericColumns {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> cells;  // per row, one per name
};

// The number as the table printed it ("+0.93" → "0.93", "78.46 %" → "78.46"): the digits the
// table chose, not the binary double's seventeen ("78.459999999999994").
std::string number_text(const std::string& cell) {
  double value = 0;
  bool percent = false;
  if (!parse_number(cell, value, percent)) return cell;
  const size_t first = cell.find_first_not_of(" +");
  std::string text = cell.substr(first);
  while (!text.empty() && (text.back() == ' ' || text.back() == '%')) text.pop_back();
  return text;
}

NumericColumns convert_column(const Table& table, size_t c) {
  NumericColumns out;
  const std::string name = base_name(table.header[c]);
  std::vector<std::string> parts;
  std::string separator;
  size_t width = 1;
  bool interval = false, percent = false;
  for (const auto& row : table.rows) {
    if (c >= row.size() || is_missing(row[c])) continue;
    double value = 0;
    if (split_interval(row[c], parts)) interval = true;
    for (const char* sep : {" / ", " → "})
      if (!interval && split_parts(row[c], sep, parts)) separator = sep, width = std::max(width, parts.size());
    parse_number(row[c], value, percent);
  }
  const std::string unit = percent && name.find("(%)") == std::string::npos ? " (%)" : "";
  if (interval)
    out.names = {name + unit, name + unit + "_lo", name + unit + "_hi"};
  else if (!separator.empty())
    out.names = part_names(name, separator, width);
  else
    out.names = {name + unit};
  for (const auto& row : table.rows) {
    std::vector<std::string> cells(out.names.size());
    const std::string cell = c < row.size() ? row[c] : "";
    if (!is_missing(cell)) {
      if (interval && split_interval(cell, parts)) {
        for (size_t k = 0; k < 3; ++k) cells[k] = number_text(parts[k]);
      } else if (!separator.empty() && split_parts(cell, separator, parts) && parts.size() == width) {
        for (size_t k = 0; k < width; ++k) cells[k] = number_text(parts[k]);
      } else {
        cells[0] = number_text(cell);
      }
    }
    out.cells.push_back(cells);
  }
  return out;
}

}  // namespace

std::string numeric_long_csv(const std::vector<std::pair<std::string, Table>>& tables) {
  std::vector<std::string> header{"table"};
  auto column_of = [&](const std::string& name) {
    for (size_t k = 0; k < header.size(); ++k)
      if (header[k] == name) return k;
    header.push_back(name);
    return header.size() - 1;
  };
  std::vector<std::vector<std::pair<size_t, std::string>>> rows;  // per output row: (column, cell)
  for (const auto& [name, table] : tables) {
    std::vector<std::vector<std::pair<size_t, std::string>>> mine(table.rows.size());
    for (auto& row : mine) row.push_back({0, name});
    for (size_t c = 0; c < table.header.size(); ++c) {
      const NumericColumns columns = convert_column(table, c);
      std::vector<size_t> at;
      for (const std::string& column : columns.names) at.push_back(column_of(column));
      for (size_t r = 0; r < table.rows.size(); ++r)
        for (size_t k = 0; k < at.size(); ++k) mine[r].push_back({at[k], columns.cells[r][k]});
    }
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  std::string out;
  for (size_t k = 0; k < header.size(); ++k) out += (k ? "," : "") + csv_field(header[k]);
  out += "\n";
  for (const auto& row : rows) {
    std::vector<std::string> cells(header.size());
    for (const auto& [column, cell] : row) cells[column] = cell;
    for (size_t k = 0; k < cells.size(); ++k) out += (k ? "," : "") + csv_field(cells[k]);
    out += "\n";
  }
  return out;
}

}  // namespace judgestat
