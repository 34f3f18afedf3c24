// The rows of input files through an import map into judgment records (docs/import.md §1.2,
// §1.4–§1.7): each field's source evaluated, modified, swapped back, written as a CSV row.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "judgestat/records.hpp"
#include "records/csv.hpp"
#include "records/input.hpp"
#include "records/json_depth.hpp"
#include "sources/import.hpp"
#include "sources/import_map.hpp"

namespace judgestat::mapping {
namespace {

std::string shown(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 60) + "…" : text;
}

[[noreturn]] void fail(const RowPlace& at, const Source& source, const std::string& what) {
  const std::string path = source.path.text.empty() ? "" : " (path \"" + source.path.text + "\")";
  throw InputError(at.place() + ": " + source.key + path + ": " + what);
}

// nlohmann keeps a key's last value; records files refuse a key given twice (docs/statistics.md §1),
// and so do map inputs. A line whose keys outnumber its objects' members is parsed again with this
// check, which names the key (a parse with a callback costs 40% more, so not every line).
class RepeatedKeyCheck {
 public:
  explicit RepeatedKeyCheck(const RowPlace& at) : at_(at) {}
  bool operator()(int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) keys_.emplace_back();
    if (event == Json::parse_event_t::key) keys_.back().push_back(parsed.get<std::string>());
    if (event != Json::parse_event_t::object_end) return true;
    std::vector<std::string>& keys = keys_.back();
    if (keys.size() != parsed.size()) {
      std::sort(keys.begin(), keys.end());
      throw InputError(at_.place() + ": key \"" + *std::adjacent_find(keys.begin(), keys.end()) +
                       "\" occurs twice in one object; give each key once");
    }
    keys_.pop_back();
    return true;
  }

 private:
  const RowPlace& at_;
  std::vector<std::vector<std::string>> keys_;  // per open object
};

// The keys written in `text`, valid JSON: the strings followed by ':'.
size_t keys_written(std::string_view text) {
  size_t keys = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') continue;
    for (++i; text[i] != '"'; ++i) i += text[i] == '\\';
    const size_t next = text.find_first_not_of(" \t\r\n", i + 1);
    keys += next != std::string_view::npos && text[next] == ':';
  }
  return keys;
}

// The members of every object in `value` (nested at most kMaxJsonDepth levels).
size_t keys_held(const Json& value) {
  size_t keys = value.is_object() ? value.size() : 0;
  if (value.is_structured())
    for (const Json& child : value) keys += keys_held(child);
  return keys;
}

// A JSONL line that scan_plain_row leaves to nlohmann: its object, or the error naming the line.
Json parsed_row(std::string_view line_text, const RowPlace& at) {
  Json row;
  try {
    row = Json::parse(line_text);
    if (keys_written(line_text) != keys_held(row)) row = Json::parse(line_text, RepeatedKeyCheck(at));
  } catch (const Json::parse_error& error) {
    throw InputError(at.place() + ": column " + std::to_string(error.byte) +
                     ": malformed JSON; expected one JSON object per line (" + error.what() + ")");
  } catch (const Json::exception& error) {
    throw InputError(at.place() + ": unreadable JSON value (" + std::string(error.what()) + ")");
  }
  if (!row.is_object()) throw InputError(at.place() + ": expected a JSON object, got " + shown(row));
  return row;
}

// A key as the JSON text `quoted` (with its quotes) spells it, escapes read.
std::string key_of(std::string_view quoted) {
  if (quoted.find('\\') == std::string_view::npos) return std::string(quoted.substr(1, quoted.size() - 2));
  return Json::parse(quoted).get<std::string>();
}

// The first key given twice in one object of `text` (a valid JSON document), named with its line:
// a document's rows have no lines of their own, so RepeatedKeyCheck's place would not find it.
void check_repeated_keys(std::string_view text, const std::string& path) {
  std::vector<std::set<std::string>> open;  // per open object or array (an array's stays empty)
  int64_t line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    line += c == '\n';
    if (c == '{' || c == '[') open.emplace_back();
    if ((c == '}' || c == ']') && !open.empty()) open.pop_back();
    if (c != '"') continue;
    const size_t start = i;
    for (++i; text[i] != '"'; ++i) i += text[i] == '\\';  // a JSON string holds no raw line break
    const size_t next = text.find_first_not_of(" \t\r\n", i + 1);
    if (next == std::string_view::npos || text[next] != ':' || open.empty()) continue;
    const std::string key = key_of(text.substr(start, i + 1 - start));
    if (!open.back().insert(key).second)
      throw InputError(path + ":" + std::to_string(line) + ": key \"" + key +
                       "\" occurs twice in one object; give each key once");
  }
}

void read_json_rows(const std::string& text, const std::string& path, const std::optional<Path>& rows,
                    const std::function<void(const Json&, RowPlace&)>& visit) {
  check_json_depth(text, path);
  Json document;
  try {
    document = Json::parse(text);
  } catch (const Json::exception& error) {
    throw InputError(path + ": malformed JSON (" + std::string(error.what()) + ")");
  }
  // nlohmann keeps a repeated key's last value; as in JSONL rows, a key given twice is refused.
  if (keys_written(text) != keys_held(document)) check_repeated_keys(text, path);
  RowPlace at;
  at.file = &path;
  at.json_rows = true;
  Json scratch;
  const Json* list = rows ? find_path(*rows, RowPlace{&document}, scratch) : &document;
  if (list == nullptr || !(list->is_array() || (!rows && list->is_object())))
    throw InputError(path + ": rows (path \"" + (rows ? rows->text : std::string()) + "\"): expected an array of rows");
  if (list->is_object()) {
    at.row = list;
    return visit(*list, at);
  }
  for (size_t i = 0; i < list->size(); ++i) {
    at.row = &(*list)[i];
    at.line = at.row_number = static_cast<int64_t>(i);
    visit(*at.row, at);
  }
}

void read_csv_rows(const std::string& text, const std::string& path,
                   const std::function<void(const Json&, RowPlace&)>& visit) {
  CsvReader reader(text, path);
  std::vector<std::string_view> fields;
  int64_t line = 0;
  if (!reader.next_row(fields, line)) throw InputError(path + ":1: no header row; expected CSV with a header");
  const std::vector<std::string> header(fields.begin(), fields.end());
  RowPlace at;
  at.file = &path;
  Json row = Json::object();
  while (reader.next_row(fields, line)) {
    at.line = line;
    if (fields.size() != header.size())
      throw InputError(at.place() + ": " + std::to_string(fields.size()) + " fields, but the header has " +
                       std::to_string(header.size()));
    for (size_t c = 0; c < header.size(); ++c) row[header[c]] = std::string(fields[c]);
    at.row = &row;
    visit(row, at);
    ++at.row_number;
  }
}

}  // namespace

void for_each_jsonl_row(std::string_view text, const std::string& path, int64_t first_line, int64_t first_row,
                        const std::function<void(const Json& row, RowPlace& place)>& visit) {
  RowPlace at;
  at.file = &path;
  at.row_number = first_row;
  size_t pos = 0;
  Json row;  // kept from line to line: scan_plain_row reuses its storage
  for (int64_t line = first_line; pos < text.size(); ++line) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line_text = text.substr(pos, end - pos);
    pos = end + 1;
    if (line_text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    at.line = line;
    if (!scan_plain_row(line_text, row)) {  // nests at most kMaxJsonDepth when it reads the line
      check_json_depth(line_text, path, line);
      row = parsed_row(line_text, at);
    }
    at.row = &row;
    visit(row, at);
    ++at.row_number;
  }
}

void for_each_row(const std::string& path, InputKind input, const std::optional<Path>& rows,
                  const std::function<void(const Json& row, RowPlace& place)>& visit) {
  for_each_row_in(loading::read_bytes(path), path, input, rows, visit);
}

void for_each_row_in(const std::string& text, const std::string& path, InputKind input, const std::optional<Path>& rows,
                     const std::function<void(const Json& row, RowPlace& place)>& visit) {
  if (input == InputKind::kJsonl) return for_each_jsonl_row(text, path, 1, 0, visit);
  if (input == InputKind::kJson) return read_json_rows(text, path, rows, visit);
  read_csv_rows(text, path, visit);
}

namespace {

double number_of(const Json& value, const RowPlace& at, const Source& source) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    char* end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == '\0' && std::isfinite(number)) return number;
  }
  fail(at, source, "expected a number, got " + shown(value));
}

size_t length_of(const std::string& text, bool tokens) {
  size_t count = 0;
  if (!tokens) {
    for (const char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // UTF-8 lead bytes
    return count;
  }
  bool in_token = false;
  for (const char c : text) {
    const bool space = std::strchr(" \t\r\n\v\f", c) != nullptr && c != '\0';
    count += !space && !in_token;
    in_token = !space;
  }
  return count;
}

std::optional<std::string> joined_text(const ImportMap& map, const Source& source, const RowPlace& at, Json& scratch) {
  const Json* on = find_path(source.path, at, scratch);
  if (on == nullptr) return std::nullopt;
  const std::optional<std::string> key = value_text(*on);
  if (!key) fail(at, source, "the join key is " + shown(*on) + "; expected a string or number");
  const JoinTable& table = map.joins[source.join];
  const auto found = table.rows.find(*key);
  if (found != table.rows.end()) return found->second.first;
  if (source.default_text) return source.default_text;
  fail(at, source, "key \"" + *key + "\" is not in the joined file " + table.file);
}

// format's text: the literal parts and each path's value; nullopt when a path matches nothing.
std::optional<std::string> formatted_text(const Source& source, const RowPlace& at) {
  std::string text;
  Json scratch;
  for (const auto& [literal, path] : source.parts) {
    text += literal;
    if (!path) continue;
    const Json* value = find_path(*path, at, scratch);
    if (value == nullptr) return std::nullopt;
    const std::optional<std::string> part = value_text(*value);
    if (!part) fail(at, source, "{" + path->text + "} is " + shown(*value) + "; expected a string, number or boolean");
    text += *part;
  }
  return text;
}

// linear's and sigmoid_margin's number: `digits` decimals when the map gives them, else the shortest
// text that reads back as the same double (six decimals made a reward margin of 15 p = 1.000000).
std::string number_text(double x, const std::optional<int>& digits) {
  char buffer[64];
  if (digits) {
    std::snprintf(buffer, sizeof buffer, "%.*f", *digits, x);
    return buffer;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  return buffer;
}

// compare's result, or linear's number; nullopt when a path matches nothing.
std::optional<std::string> computed_text(const Source& source, const RowPlace& at) {
  Json scratch, second_scratch;
  const Json* x = source.first_number ? nullptr : find_path(source.path, at, scratch);
  if (!source.first_number && x == nullptr) return std::nullopt;
  const double a = source.first_number ? *source.first_number : number_of(*x, at, source);
  if (source.kind == Source::Kind::kLinear) return number_text(source.scale * a + source.offset, source.digits);
  const Json* y = source.second_number ? nullptr : find_path(source.second, at, second_scratch);
  if (!source.second_number && y == nullptr) return std::nullopt;
  const double b = source.second_number ? *source.second_number : number_of(*y, at, source);
  return a > b ? source.greater : a < b ? source.less : source.equal;
}

// The source's value as text; nullopt when its path matches nothing.
std::optional<std::string> source_text(const ImportMap& map, const Source& source, const RowPlace& at) {
  Json scratch, second_scratch;
  switch (source.kind) {
    case Source::Kind::kConst:
      return source.constant;
    case Source::Kind::kJoin:
      return joined_text(map, source, at, scratch);
    case Source::Kind::kSigmoidMargin: {
      const Json* a = find_path(source.path, at, scratch);
      const Json* b = find_path(source.second, at, second_scratch);
      if (!a || !b) return std::nullopt;
      return number_text(reward_probability(number_of(*a, at, source), number_of(*b, at, source)), source.digits);
    }
    case Source::Kind::kFormat:
      return formatted_text(source, at);
    case Source::Kind::kCompare:
    case Source::Kind::kLinear:
      return computed_text(source, at);
    default:
      break;
  }
  const Json* value = find_path(source.path, at, scratch);
  if (value == nullptr) return std::nullopt;
  if (source.kind == Source::Kind::kLength && value->is_array()) return std::to_string(value->size());
  const std::optional<std::string> text = value_text(*value);
  if (!text) fail(at, source, "expected a string, number, boolean or null, got " + shown(*value));
  return source.kind == Source::Kind::kLength ? std::to_string(length_of(*text, source.tokens)) : *text;
}

// A regex reads texts of at most this many bytes (docs/import.md §1.4): its time grows with the
// text times the pattern, and a library without a non-recursive executor needs stack per byte.
constexpr size_t kMaxRegexText = 16384;

// The first 80 bytes of `text`, cut before a UTF-8 continuation byte, with "…" when cut.
std::string text_start(const std::string& text) {
  if (text.size() <= 80) return text;
  size_t cut = 80;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

std::string modified(const Source& source, std::string text, const RowPlace& at) {
  for (const auto& [from, to] : source.replace)
    for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
      text.replace(pos, from.size(), to);
  if (source.regex) {
    if (text.size() > kMaxRegexText)
      fail(at, source,
           "the text is " + std::to_string(text.size()) + " bytes long; regex reads at most " +
               std::to_string(kMaxRegexText) + " bytes (\"" + text_start(text) + "\")");
    std::smatch match;
    if (!std::regex_search(text, match, *source.regex))
      fail(at, source, "regex \"" + source.regex_text + "\" does not match \"" + text_start(text) + "\"");
    text = source.regex_template ? match.format(*source.regex_template) : match[source.regex_has_group ? 1 : 0].str();
  }
  if (!source.has_values) return text;
  const auto entry = source.values.find(text);
  if (entry != source.values.end()) return entry->second;
  if (source.other_value) return *source.other_value;
  fail(at, source, "\"" + text + "\" has no entry in " + source.key + ".values (and no \"*\")");
}

}  // namespace

std::string evaluate(const ImportMap& map, const Source& source, const RowPlace& at) {
  std::optional<std::string> text = source_text(map, source, at);
  if (!text && !source.default_text) fail(at, source, "matches nothing");
  return modified(source, text ? std::move(*text) : *source.default_text, at);
}

}  // namespace judgestat::mapping
