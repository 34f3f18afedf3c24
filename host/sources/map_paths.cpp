// Paths of import maps (docs/import.md §1.3) and the text of the values they find (§1.4).
#include <cmath>
#include <cstdlib>

#include "sources/import_map.hpp"

namespace judgestat::mapping {
namespace {

// `[...]` at text[pos] (pos at '['): an index or a JSON string key; pos moves past ']'.
PathStep bracket_step(const std::string& text, size_t& pos, const std::string& key) {
  const size_t close = text[pos + 1] == '"' ? text.find("\"]", pos + 2) : text.find(']', pos);
  if (close == std::string::npos) throw MapError{key, "path \"" + text + "\": '[' without its ']'"};
  PathStep step;
  if (text[pos + 1] == '"') {
    try {
      step.key = Json::parse(text.substr(pos + 1, close + 1 - (pos + 1))).get<std::string>();
    } catch (const Json::exception&) {
      throw MapError{key, "path \"" + text + "\": a quoted key must be a JSON string, as [\"swap = True\"]"};
    }
    pos = close + 2;
    return step;
  }
  const std::string digits = text.substr(pos + 1, close - pos - 1);
  char* end = nullptr;
  step.index = std::strtoll(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || digits.find_first_of(" +") != std::string::npos)
    throw MapError{key, "path \"" + text + "\": [" + digits + "] is not an index; expected [N], [-N] or [\"key\"]"};
  step.is_index = true;
  pos = close + 1;
  return step;
}

// The steps of `text` from `pos`: keys separated by '.', and bracketed steps.
std::vector<PathStep> parse_steps(const std::string& text, size_t pos, const std::string& key) {
  std::vector<PathStep> steps;
  bool need_key = pos == 0;  // a row path starts with a key; after '@' a '.' or '[' follows
  while (pos < text.size()) {
    if (text[pos] == '[') {
      steps.push_back(bracket_step(text, pos, key));
      need_key = false;
      continue;
    }
    if (!need_key) {
      if (text[pos] != '.')
        throw MapError{key, "path \"" + text + "\": expected '.' or '[' at character " + std::to_string(pos + 1)};
      ++pos;
    }
    const size_t end = text.find_first_of(".[", pos);
    const std::string name = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (name.empty())
      throw MapError{key, "path \"" + text + "\": an empty key at character " + std::to_string(pos + 1)};
    steps.push_back(PathStep{false, name, 0});
    pos = end == std::string::npos ? text.size() : end;
    need_key = false;
  }
  return steps;
}

}  // namespace

Path parse_path(const std::string& text, bool csv, const std::string& key) {
  Path path;
  path.text = text;
  if (text.empty()) throw MapError{key, "an empty path"};
  if (text[0] == '$') {
    static const std::pair<const char*, Path::Root> kSpecial[] = {{"$index", Path::Root::kIndex},
                                                                  {"$row", Path::Root::kRowNumber},
                                                                  {"$line", Path::Root::kLine},
                                                                  {"$file", Path::Root::kFile}};
    for (const auto& [name, root] : kSpecial)
      if (text == name) {
        path.root = root;
        return path;
      }
    throw MapError{key, "path \"" + text + "\": expected $index, $row, $line or $file"};
  }
  if (text[0] == '@') {
    path.root = Path::Root::kEach;
    path.steps = parse_steps(text, 1, key);
    return path;
  }
  if (csv) {
    path.steps = {PathStep{false, text, 0}};
    return path;
  }
  path.steps = parse_steps(text, 0, key);
  return path;
}

const Json* find_path(const Path& path, const RowPlace& at, Json& scratch) {
  switch (path.root) {
    case Path::Root::kIndex:
      return &(scratch = at.index);
    case Path::Root::kRowNumber:
      return &(scratch = at.row_number);
    case Path::Root::kLine:
      return &(scratch = at.line);
    case Path::Root::kFile:
      return &(scratch = at.file ? *at.file : std::string());
    default:
      break;
  }
  const Json* value = path.root == Path::Root::kEach ? at.element : at.row;
  for (const PathStep& step : path.steps) {
    if (value == nullptr) return nullptr;
    if (step.is_index) {
      if (!value->is_array()) return nullptr;
      const int64_t size = static_cast<int64_t>(value->size());
      const int64_t i = step.index < 0 ? size + step.index : step.index;
      if (i < 0 || i >= size) return nullptr;
      value = &(*value)[static_cast<size_t>(i)];
    } else {
      if (!value->is_object()) return nullptr;
      const auto found = value->find(step.key);
      if (found == value->end()) return nullptr;
      value = &*found;
    }
  }
  return value;
}

std::string RowPlace::place() const {
  const std::string name = file ? *file : std::string();
  return json_rows ? name + ": rows[" + std::to_string(line) + "]" : name + ":" + std::to_string(line);
}

std::optional<std::string> value_text(const Json& value) {
  switch (value.type()) {
    case Json::value_t::string:
      return value.get_ref<const std::string&>();
    case Json::value_t::null:
      return std::string();
    case Json::value_t::boolean:
      return std::string(value.get<bool>() ? "1" : "0");
    case Json::value_t::number_integer:
      return std::to_string(value.get<int64_t>());  // as dump() writes it, without its serializer
    case Json::value_t::number_unsigned:
      return std::to_string(value.get<uint64_t>());
    case Json::value_t::number_float: {
      // An integer-valued number is written as an integer (3.0 → "3"), as ids often are.
      const double number = value.get<double>();
      if (number == std::floor(number) && std::fabs(number) < 1e15)
        return std::to_string(static_cast<long long>(number));
      return value.dump();
    }
    default:
      return std::nullopt;
  }
}

}  // namespace judgestat::mapping
