// An import map's JSON checked whole into an ImportMap (docs/import.md §1) before any input is
// read: every error names the map and the key's path in it.
#include "sources/import_map.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "judgestat/import_map.hpp"
#include "judgestat/records.hpp"
#include "records/input.hpp"
#include "records/json_depth.hpp"
#include "sources/builtin_maps.hpp"
#include "support/text.hpp"

namespace judgestat::mapping {
namespace {

namespace fs = std::filesystem;

std::string shown(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 60) + "…" : text;
}

// Every key of `object` must be one of `allowed`.
void check_keys(const Json& object, const std::string& key, std::initializer_list<const char*> allowed) {
  for (const auto& item : object.items()) {
    // A named reference, not a structured binding: C++17 lambdas (clang) cannot capture bindings.
    const std::string& name = item.key();
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return name == a; })) {
      std::string expected;
      for (const char* a : allowed) expected += std::string(expected.empty() ? "" : ", ") + a;
      throw MapError{key.empty() ? name : key + "." + name, "unknown key; expected one of " + expected};
    }
  }
}

const Json& object_at(const Json& value, const std::string& key) {
  if (!value.is_object()) throw MapError{key, "expected an object, got " + shown(value)};
  return value;
}

std::string string_at(const Json& value, const std::string& key) {
  if (!value.is_string()) throw MapError{key, "expected a string, got " + shown(value)};
  return value.get<std::string>();
}

// A constant (string, number, boolean or null) as docs/import.md §1.4's text.
std::string scalar_at(const Json& value, const std::string& key) {
  const std::optional<std::string> text = value_text(value);
  if (!text) throw MapError{key, "expected a string, number, boolean or null, got " + shown(value)};
  return *text;
}

std::map<std::string, std::string> string_table(const Json& value, const std::string& key) {
  std::map<std::string, std::string> table;
  for (const auto& [from, to] : object_at(value, key).items())
    table[from] = string_at(to, key + "." + Json(from).dump());
  return table;
}

InputKind input_kind(const Json& value, const std::string& key) {
  const std::string text = string_at(value, key);
  if (text == "jsonl") return InputKind::kJsonl;
  if (text == "json") return InputKind::kJson;
  if (text == "csv") return InputKind::kCsv;
  throw MapError{key, "expected \"jsonl\", \"json\" or \"csv\", got \"" + text + "\""};
}

// The joined file's rows: key text → value text (docs/import.md §1.8).
JoinTable read_join(const Json& spec, const std::string& key, const std::string& folder) {
  check_keys(object_at(spec, key), key, {"file", "input", "rows", "key", "value"});
  for (const char* needed : {"file", "key", "value"})
    if (!spec.contains(needed)) throw MapError{key, "missing \"" + std::string(needed) + "\""};
  JoinTable table;
  const fs::path file(string_at(spec["file"], key + ".file"));
  table.file = file.is_absolute() || folder.empty() ? file.string() : (fs::path(folder) / file).string();
  const std::string ext = file.extension().string();
  InputKind kind = ext == ".csv" ? InputKind::kCsv : ext == ".json" ? InputKind::kJson : InputKind::kJsonl;
  if (spec.contains("input"))
    kind = input_kind(spec["input"], key + ".input");
  else if (ext != ".csv" && ext != ".json" && ext != ".jsonl")
    throw MapError{key + ".input", "the file's extension does not say; give \"jsonl\", \"json\" or \"csv\""};
  const bool csv = kind == InputKind::kCsv;
  std::optional<Path> rows;
  if (spec.contains("rows")) rows = parse_path(string_at(spec["rows"], key + ".rows"), false, key + ".rows");
  const Path key_path = parse_path(string_at(spec["key"], key + ".key"), csv, key + ".key");
  const Path value_path = parse_path(string_at(spec["value"], key + ".value"), csv, key + ".value");
  for (const Path* p : {&key_path, &value_path})
    if (p->root != Path::Root::kRow)
      throw MapError{key, "path \"" + p->text + "\": a joined file's path starts at its row"};
  for_each_row(table.file, kind, rows, [&](const Json&, RowPlace& at) {
    Json scratch;
    const Json* k = find_path(key_path, at, scratch);
    const Json* v = find_path(value_path, at, scratch);
    if (!k || !v)
      throw InputError(at.place() + ": joined by " + key + ": path \"" + (k ? value_path : key_path).text +
                       "\" matches nothing");
    const std::optional<std::string> key_text = value_text(*k), value = value_text(*v);
    if (!key_text || !value)
      throw InputError(at.place() + ": joined by " + key + ": expected a string, number, boolean or null");
    const auto [entry, fresh] = table.rows.emplace(*key_text, std::make_pair(*value, at.place()));
    if (!fresh)
      throw InputError(at.place() + ": joined by " + key + ": key \"" + *key_text + "\" is already on " +
                       entry->second.second + "; a joined file gives each key once");
  });
  return table;
}

// format's template: "{PATH}" parts between literal text ("{{" and "}}" are braces).
void read_format(const std::string& text, Source& source, bool csv) {
  const std::string key = source.key + ".format";
  std::string literal;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    if ((text[pos] == '{' || text[pos] == '}') && pos + 1 < text.size() && text[pos + 1] == text[pos]) {
      literal += text[pos++];
      continue;
    }
    if (text[pos] == '}') throw MapError{key, "a '}' without its '{' (write \"}}\" for a brace)"};
    if (text[pos] != '{') {
      literal += text[pos];
      continue;
    }
    const size_t close = text.find('}', pos);
    if (close == std::string::npos) throw MapError{key, "a '{' without its '}' (write \"{{\" for a brace)"};
    source.parts.emplace_back(literal, parse_path(text.substr(pos + 1, close - pos - 1), csv, key));
    literal.clear();
    pos = close;
  }
  source.parts.emplace_back(literal, std::nullopt);
}

// compare's X or Y: a path, or a JSON number.
void read_operand(const Json& value, const std::string& key, bool csv, Path& path, std::optional<double>& number) {
  if (value.is_number())
    number = value.get<double>();
  else
    path = parse_path(string_at(value, key), csv, key);
}

// format, compare and linear (docs/import.md §1.4).
void read_computed_kind(const Json& spec, Source& source, bool csv) {
  const std::string& key = source.key;
  if (spec.contains("format")) {
    source.kind = Source::Kind::kFormat;
    read_format(string_at(spec["format"], key + ".format"), source, csv);
  }
  if (spec.contains("compare")) {
    const Json& pair = spec["compare"];
    if (!pair.is_array() || pair.size() != 2) throw MapError{key + ".compare", "expected [X, Y], paths or numbers"};
    source.kind = Source::Kind::kCompare;
    read_operand(pair[0], key + ".compare[0]", csv, source.path, source.first_number);
    read_operand(pair[1], key + ".compare[1]", csv, source.second, source.second_number);
    for (const auto& [name, out] : {std::pair<const char*, std::string*>{"greater", &source.greater},
                                    {"less", &source.less},
                                    {"equal", &source.equal}}) {
      if (!spec.contains(name)) throw MapError{key, "a compare needs \"greater\", \"less\" and \"equal\""};
      *out = scalar_at(spec[name], key + "." + name);
    }
  } else if (spec.contains("greater") || spec.contains("less") || spec.contains("equal")) {
    throw MapError{key, "only a compare has greater, less and equal"};
  }
  if (spec.contains("linear")) {
    source.kind = Source::Kind::kLinear;
    source.path = parse_path(string_at(spec["linear"], key + ".linear"), csv, key + ".linear");
    for (const auto& [name, out] :
         {std::pair<const char*, double*>{"scale", &source.scale}, {"offset", &source.offset}})
      if (spec.contains(name)) {
        if (!spec[name].is_number()) throw MapError{key + "." + name, "expected a number"};
        *out = spec[name].get<double>();
      }
  } else if (spec.contains("scale") || spec.contains("offset")) {
    throw MapError{key, "only a linear has scale and offset"};
  }
}

// linear's and sigmoid_margin's "digits": decimals written, where a map must keep a converter's bytes.
void read_digits(const Json& spec, Source& source) {
  if (!spec.contains("digits")) return;
  const std::string key = source.key + ".digits";
  if (!spec.contains("linear") && !spec.contains("sigmoid_margin"))
    throw MapError{key, "only a linear or sigmoid_margin has digits"};
  const Json& digits = spec["digits"];
  if (!digits.is_number_integer() || digits.get<int64_t>() < 0 || digits.get<int64_t>() > 17)
    throw MapError{key, "expected an integer from 0 to 17"};
  source.digits = digits.get<int>();
}

// The source's kind and what the kind reads.
void read_kind(const Json& spec, Source& source, bool csv, ImportMap& map) {
  static const char* const kKinds[] = {"path",           "const",  "join",    "length",
                                       "sigmoid_margin", "format", "compare", "linear"};
  int kinds = 0;
  for (const char* kind : kKinds) kinds += spec.contains(kind);
  if (kinds != 1)
    throw MapError{source.key,
                   "expected exactly one of path, const, join, length, sigmoid_margin, format, compare, linear"};
  read_computed_kind(spec, source, csv);
  read_digits(spec, source);
  const std::string& key = source.key;
  if (spec.contains("path")) source.path = parse_path(string_at(spec["path"], key + ".path"), csv, key + ".path");
  if (spec.contains("const"))
    source.kind = Source::Kind::kConst, source.constant = scalar_at(spec["const"], key + ".const");
  if (spec.contains("length")) {
    source.kind = Source::Kind::kLength;
    source.path = parse_path(string_at(spec["length"], key + ".length"), csv, key + ".length");
    const std::string unit = spec.contains("unit") ? string_at(spec["unit"], key + ".unit") : "";
    if (unit != "chars" && unit != "tokens") throw MapError{key + ".unit", "expected \"chars\" or \"tokens\""};
    source.tokens = unit == "tokens";
  } else if (spec.contains("unit")) {
    throw MapError{key + ".unit", "only a length has a unit"};
  }
  if (spec.contains("sigmoid_margin")) {
    const Json& pair = spec["sigmoid_margin"];
    if (!pair.is_array() || pair.size() != 2) throw MapError{key + ".sigmoid_margin", "expected two paths [A, B]"};
    source.kind = Source::Kind::kSigmoidMargin;
    source.path = parse_path(string_at(pair[0], key + ".sigmoid_margin[0]"), csv, key + ".sigmoid_margin[0]");
    source.second = parse_path(string_at(pair[1], key + ".sigmoid_margin[1]"), csv, key + ".sigmoid_margin[1]");
  }
  if (spec.contains("join")) {
    source.kind = Source::Kind::kJoin;
    if (!spec.contains("on")) throw MapError{key, "a join needs \"on\", the path of the key in this row"};
    map.joins.push_back(read_join(spec["join"], key + ".join", map.folder));
    source.join = static_cast<int>(map.joins.size()) - 1;
    source.path = parse_path(string_at(spec["on"], key + ".on"), csv, key + ".on");
  } else if (spec.contains("on")) {
    throw MapError{key + ".on", "only a join has \"on\""};
  }
}

// libstdc++'s default regex executor recurses once per character a repetition takes: "^([^-]*)"
// overflowed an 8 MiB stack at 26k characters, a pattern with six nested groups at 3.5k. Its
// breadth-first executor recurses only along a pattern's empty steps (it refuses back-references).
#ifdef __GLIBCXX__
constexpr auto kRegexSyntax = std::regex::ECMAScript | std::regex_constants::__polynomial;
#else
constexpr auto kRegexSyntax = std::regex::ECMAScript;
#endif

// default, replace, regex and values.
void read_modifiers(const Json& spec, Source& source) {
  const std::string& key = source.key;
  if (spec.contains("default")) source.default_text = scalar_at(spec["default"], key + ".default");
  if (spec.contains("replace"))
    for (const auto& [from, to] : string_table(spec["replace"], key + ".replace")) {
      if (from.empty()) throw MapError{key + ".replace", "an empty key"};
      source.replace.emplace_back(from, to);
    }
  if (spec.contains("regex")) {
    source.regex_text = string_at(spec["regex"], key + ".regex");
    try {
      source.regex.emplace(source.regex_text, kRegexSyntax);
    } catch (const std::regex_error& error) {
      throw MapError{key + ".regex", "does not compile (" + std::string(error.what()) + ")"};
    }
    source.regex_has_group = source.regex->mark_count() > 0;
  }
  if (spec.contains("template")) {
    if (!source.regex) throw MapError{key + ".template", "only a regex has a template"};
    source.regex_template = string_at(spec["template"], key + ".template");
  }
  if (spec.contains("values")) {
    source.has_values = true;
    source.values = string_table(spec["values"], key + ".values");
    if (const auto other = source.values.find("*"); other != source.values.end()) {
      source.other_value = other->second;
      source.values.erase(other);
    }
  }
}

}  // namespace

Source parse_source(const Json& spec, const std::string& key, bool csv, ImportMap& map, bool with_equals) {
  Source source;
  source.key = key;
  if (spec.is_string()) {
    source.path = parse_path(spec.get<std::string>(), csv, key);
    return source;
  }
  object_at(spec, key);
  if (with_equals)
    check_keys(spec, key, {"path",    "const",   "join",    "length",   "sigmoid_margin", "format", "compare", "linear",
                           "on",      "unit",    "greater", "less",     "equal",          "scale",  "offset",  "digits",
                           "default", "replace", "regex",   "template", "values",         "equals"});
  else
    check_keys(spec, key, {"path",   "const",  "join",    "length",  "sigmoid_margin", "format",   "compare",
                           "linear", "on",     "unit",    "greater", "less",           "equal",    "scale",
                           "offset", "digits", "default", "replace", "regex",          "template", "values"});
  read_kind(spec, source, csv, map);
  read_modifiers(spec, source);
  return source;
}

namespace {

// docs/import.md §1.7's order of the fields; -1 for a name that is not a record field.
int field_rank(const std::string& name) {
  static const char* const kOrder[] = {"judge",        "item",    "cluster",   "benchmark", "condition",   "variant",
                                       "order",        "repeat",  "gold",      "verdict",   "adjudicated", "p.",
                                       "rationale_ok", "fee_usd", "latency_s", "flag",      "x."};
  for (int rank = 0; rank < static_cast<int>(std::size(kOrder)); ++rank) {
    const std::string field = kOrder[rank];
    const bool prefix = field.back() == '.';
    if (prefix ? name.size() > field.size() && name.compare(0, field.size(), field) == 0 : name == field) return rank;
  }
  return -1;
}

void read_fields(const Json& fields, ImportMap& map) {
  const bool csv = map.input == InputKind::kCsv;
  for (const auto& [name, spec] : object_at(fields, "fields").items()) {
    if (field_rank(name) < 0)
      throw MapError{"fields." + name,
                     "not a record field; expected judge, item, verdict, gold, cluster, benchmark, condition, order, "
                     "variant, repeat, p.LABEL, rationale_ok, fee_usd, latency_s, flag, adjudicated or x.NAME"};
    map.fields.emplace_back(name, parse_source(spec, "fields." + name, csv, map, false));
  }
  for (const char* needed : {"judge", "item", "verdict"})
    if (!fields.contains(needed))
      throw MapError{"fields", "missing \"" + std::string(needed) + "\" (a record needs it)"};
  std::stable_sort(map.fields.begin(), map.fields.end(), [](const auto& a, const auto& b) {
    return std::make_pair(field_rank(a.first), a.first) < std::make_pair(field_rank(b.first), b.first);
  });
}

void read_swap(const Json& spec, ImportMap& map) {
  check_keys(object_at(spec, "swap"), "swap", {"when", "labels", "fields"});
  if (!spec.contains("when") || !spec.contains("labels")) throw MapError{"swap", "needs \"when\" and \"labels\""};
  Swap swap;
  swap.when = parse_source(spec["when"], "swap.when", map.input == InputKind::kCsv, map, true);
  if (!spec["when"].is_object() || !spec["when"].contains("equals"))
    throw MapError{"swap.when", "needs \"equals\", the value that means swapped"};
  swap.equals = scalar_at(spec["when"]["equals"], "swap.when.equals");
  swap.labels = string_table(spec["labels"], "swap.labels");
  std::set<std::string> from, to;
  for (const auto& [a, b] : swap.labels) from.insert(a), to.insert(b);
  if (from != to) throw MapError{"swap.labels", "not a permutation: every label it gives must also be a key"};
  if (spec.contains("fields")) {
    swap.fields.clear();
    const Json& list = spec["fields"];
    if (!list.is_array()) throw MapError{"swap.fields", "expected a list of field names"};
    for (size_t i = 0; i < list.size(); ++i)
      swap.fields.push_back(string_at(list[i], "swap.fields[" + std::to_string(i) + "]"));
  }
  map.swap = std::move(swap);
}

void read_columns(const Json& list, ImportMap& map) {
  if (!list.is_array()) throw MapError{"columns", "expected a list of record field names"};
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string key = "columns[" + std::to_string(i) + "]";
    const std::string name = string_at(list[i], key);
    if (field_rank(name) < 0) throw MapError{key, "\"" + name + "\" is not a record field"};
    if (std::count(map.columns.begin(), map.columns.end(), name)) throw MapError{key, "\"" + name + "\" twice"};
    map.columns.push_back(name);
  }
  for (const auto& [name, source] : map.fields)
    if (std::find(map.columns.begin(), map.columns.end(), name) == map.columns.end())
      throw MapError{"columns", "leaves out the field \"" + name + "\"; list it (nothing is dropped silently)"};
}

void read_rows_and_each(const Json& spec, ImportMap& map) {
  const bool csv = map.input == InputKind::kCsv;
  if (spec.contains("rows")) {
    if (map.input != InputKind::kJson) throw MapError{"rows", "only a \"json\" input has rows"};
    map.rows = parse_path(string_at(spec["rows"], "rows"), false, "rows");
  }
  if (!spec.contains("each")) return;
  const Json& each = spec["each"];
  map.each_is_list = each.is_array();
  if (each.is_string())
    map.each.push_back(parse_path(each.get<std::string>(), csv, "each"));
  else if (!each.is_array() || each.empty())
    throw MapError{"each", "expected a path or a non-empty list of paths"};
  for (size_t i = 0; map.each_is_list && i < each.size(); ++i) {
    const std::string key = "each[" + std::to_string(i) + "]";
    map.each.push_back(parse_path(string_at(each[i], key), csv, key));
  }
}

}  // namespace

ImportMap parse_import_map(const std::string& text, const std::string& name, const std::string& folder) {
  ImportMap map;
  map.name = name;
  map.folder = folder;
  check_json_depth(text, name);
  Json spec;
  try {
    spec = Json::parse(text);
  } catch (const Json::exception& error) {
    throw InputError(name + ": not a JSON map (" + std::string(error.what()) + ")");
  }
  try {
    check_keys(object_at(spec, "(the map)"), "", {"description", "input", "rows", "each", "fields", "swap", "columns"});
    if (!spec.contains("input")) throw MapError{"input", "missing; expected \"jsonl\", \"json\" or \"csv\""};
    if (!spec.contains("fields")) throw MapError{"fields", "missing; the map says where each record field comes from"};
    if (spec.contains("description")) string_at(spec["description"], "description");
    map.input = input_kind(spec["input"], "input");
    read_rows_and_each(spec, map);
    read_fields(spec["fields"], map);
    if (spec.contains("swap")) read_swap(spec["swap"], map);
    if (spec.contains("columns"))
      read_columns(spec["columns"], map);
    else
      for (const auto& [field, source] : map.fields) map.columns.push_back(field);
  } catch (const MapError& error) {
    throw InputError(name + ": " + error.key + ": " + error.what);
  }
  return map;
}

namespace {

// A map file's path has a '/' or ends in .json; any other word names a built-in map.
bool names_map_file(const std::string& arg) {
  return arg.find('/') != std::string::npos || (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json");
}

}  // namespace

ImportMap load_import_map(const std::string& map_path_or_name) {
  const std::string& arg = map_path_or_name;
  const std::string text = import_map_text(arg);
  if (names_map_file(arg)) return parse_import_map(text, arg, fs::path(arg).parent_path().string());
  return parse_import_map(text, "built-in map " + arg, "");
}

}  // namespace judgestat::mapping

namespace judgestat {

std::string import_map_text(const std::string& map_path_or_name) {
  const std::string& arg = map_path_or_name;
  if (mapping::names_map_file(arg)) return loading::read_bytes(arg);
  for (const auto& [name, text] : builtin_import_maps())
    if (name == arg) return text;
  throw UsageError("map '" + arg + "': not a built-in map (" + join(builtin_map_names(), ", ") +
                   "); a map file's path has a '/' or ends in .json");
}

std::vector<std::string> builtin_map_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : builtin_import_maps()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace judgestat
