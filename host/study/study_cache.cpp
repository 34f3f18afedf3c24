#include "study/study_cache.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "records/json_depth.hpp"
#include "records/sha256.hpp"
#include "report/report.hpp"
#include "report/report_from_json.hpp"
#include "study/atomic_file.hpp"

namespace judgestat::study {
namespace {

// The plot writer's vocabulary (report/svg.cpp, report/plot_axes.cpp): shapes, text and titles.
// Absent on purpose: script, style, foreignObject, a, use, image, animate* and set.
const char* const kSvgElements[] = {"svg",    "g",       "rect", "line", "polyline", "polygon",
                                    "circle", "ellipse", "path", "text", "tspan",    "title"};

bool is_svg_element(const std::string& name) {
  return std::any_of(std::begin(kSvgElements), std::end(kSvgElements),
                     [&](const char* element) { return name == element; });
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Why an attribute is not one the plot writer could have written, or "".
std::string foreign_attribute(const std::string& name, const std::string& value) {
  const std::string lower = lowercase(name);
  if (lower.rfind("on", 0) == 0) return "event attribute '" + name + "'";
  if (lower.find(':') != std::string::npos || lower.find("href") != std::string::npos || lower == "src")
    return "reference attribute '" + name + "'";
  if (lower == "xmlns") return value == "http://www.w3.org/2000/svg" ? "" : "namespace '" + value + "'";
  const std::string lower_value = lowercase(value);
  for (const char* banned : {"url(", "expression", "javascript:", "@import", "\\"})
    if (lower_value.find(banned) != std::string::npos) return "'" + std::string(banned) + "' in '" + name + "'";
  for (size_t at = value.find('&'); at != std::string::npos; at = value.find('&', at + 1)) {
    static const char* const kEntities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    const bool named = std::any_of(std::begin(kEntities), std::end(kEntities), [&](const char* entity) {
      return value.compare(at, std::strlen(entity), entity) == 0;
    });
    if (!named) return "a character reference in '" + name + "'";
  }
  return "";
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.';
}

// Checks one tag starting at svg[at] == '<'; advances `at` past it. Returns why it is foreign, or "".
std::string foreign_tag(const std::string& svg, size_t& at) {
  size_t i = at + 1;
  const bool closing = i < svg.size() && svg[i] == '/';
  if (closing) ++i;
  const size_t name_start = i;
  while (i < svg.size() && is_name_char(svg[i])) ++i;
  const std::string name = svg.substr(name_start, i - name_start);
  if (!is_svg_element(name)) return "element <" + (name.empty() ? svg.substr(at + 1, 8) : name) + ">";
  while (true) {
    while (i < svg.size() && std::isspace(static_cast<unsigned char>(svg[i]))) ++i;
    if (i >= svg.size()) return "an unterminated <" + name + ">";
    if (svg[i] == '>' || (svg[i] == '/' && i + 1 < svg.size() && svg[i + 1] == '>')) {
      at = i + (svg[i] == '>' ? 1 : 2);
      return "";
    }
    if (closing) return "attributes on </" + name + ">";
    const size_t attribute_start = i;
    while (i < svg.size() && is_name_char(svg[i])) ++i;
    const std::string attribute = svg.substr(attribute_start, i - attribute_start);
    if (attribute.empty() || i + 1 >= svg.size() || svg[i] != '=' || (svg[i + 1] != '"' && svg[i + 1] != '\''))
      return "an attribute in <" + name + "> that is not NAME=\"VALUE\"";
    const char quote = svg[i + 1];
    const size_t value_end = svg.find(quote, i + 2);
    if (value_end == std::string::npos) return "an unterminated attribute in <" + name + ">";
    const std::string why = foreign_attribute(attribute, svg.substr(i + 2, value_end - i - 2));
    if (!why.empty()) return why;
    i = value_end + 1;
  }
}

}  // namespace

bool is_plain_file_name(const std::string& name, size_t max_bytes) {
  return !name.empty() && name.size() <= max_bytes && name != "." && name != ".." &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
             std::string::npos;
}

std::string foreign_svg_markup(const std::string& svg) {
  size_t at = 0;
  // An XML declaration may come first; nothing else before <svg.
  if (svg.compare(0, 5, "<?xml") == 0) {
    at = svg.find("?>");
    if (at == std::string::npos || svg.find('<', 1) < at) return "a malformed XML declaration";
    at += 2;
  }
  while (at < svg.size() && std::isspace(static_cast<unsigned char>(svg[at]))) ++at;
  if (svg.compare(at, 4, "<svg") != 0) return "no <svg> at the start";
  while (at < svg.size()) {
    const size_t tag = svg.find('<', at);
    if (tag == std::string::npos) break;
    at = tag;
    const std::string why = foreign_tag(svg, at);
    if (!why.empty()) return why;
  }
  return "";
}

std::string entry_digest(Json entry) {
  entry.erase("digest");
  return sha256_hex(dump_json(entry));
}

std::string entry_text(const CacheEntry& entry, const std::string& name, const std::string& command) {
  Json json = {{"key", entry.key},    {"format", kEntryFormat},   {"name", name},
               {"analysis", command}, {"seconds", entry.seconds}, {"result", entry.result.json}};
  if (!entry.result.render.is_null()) json["render"] = entry.result.render;
  json["digest"] = entry_digest(json);
  return dump_json(json) + "\n";
}

namespace {

// What an entry holds (entry_text): anything else, such as the tables and figures entries of
// format 3 kept for cascade, is refused rather than ignored.
const char* const kEntryKeys[] = {"key", "format", "name", "analysis", "seconds", "result", "render", "digest"};

// Why the rendered figures could not be written as DIR/NAME/FIGURE.svg (study_run checks the
// same of a computed result): a name that is not a plain file name, or one that repeats; or "".
std::string figure_names_problem(const std::vector<PlotFile>& plots) {
  std::vector<std::string> names;
  for (const PlotFile& plot : plots) {
    if (!is_plain_file_name(plot.name, kMaxFigureNameBytes))
      return "its report renders a figure named '" + plot.name.substr(0, 64) + "', not a plain file name";
    names.push_back(plot.name);
  }
  std::sort(names.begin(), names.end());
  const auto repeat = std::adjacent_find(names.begin(), names.end());
  if (repeat != names.end()) return "its report renders two figures named '" + *repeat + "'";
  return "";
}

// The tables and figures rendered from the result; "" or why its report cannot be read back.
std::string render_outputs(const std::string& command, AnalysisResult& result) {
  if (!renders_from_json(command, result.json))
    return "its result cannot be read back as a report (not a result of '" + command + "')";
  try {
    RenderedReport rendered = render_from_json(command, result.json, result.render);
    result.text = std::move(rendered.text);
    result.csv = std::move(rendered.csv);
    result.md = std::move(rendered.md);
    result.plots = std::move(rendered.plots);
    return figure_names_problem(result.plots);
  } catch (const std::exception& failure) {
    return std::string("its result cannot be read back as a report (") + failure.what() + ")";
  }
}

}  // namespace

EntryState read_entry(const std::string& path, const std::string& key, const std::string& command, CacheEntry& entry,
                      std::string& why) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return EntryState::kMissing;
  try {
    if (!std::filesystem::is_regular_file(path)) throw std::runtime_error("not a regular file");
    if (std::filesystem::file_size(path) > kMaxEntryBytes) {
      why = "it is larger than " + std::to_string(kMaxEntryBytes >> 20) + " MiB, more than any entry the cache writes";
      return EntryState::kRejected;
    }
    // Bounded before parsing: entry_digest copies and dumps the document recursively.
    const std::string text = read_file(path);
    check_json_depth(text, path);
    const Json json = Json::parse(text);
    if (!json.is_object() || !json.contains("key") || json["key"] != key) {
      why = "it holds another key";
      return EntryState::kRejected;
    }
    if (!json.contains("digest") || json["digest"] != entry_digest(json)) {
      why = "its digest does not match its contents (edited or damaged)";
      return EntryState::kRejected;
    }
    if (!json.contains("format") || json["format"] != kEntryFormat) {
      why = "it is not in the cache's format " + std::to_string(kEntryFormat);
      return EntryState::kRejected;
    }
    for (auto it = json.begin(); it != json.end(); ++it)
      if (std::find(std::begin(kEntryKeys), std::end(kEntryKeys), it.key()) == std::end(kEntryKeys)) {
        why = "it holds '" + it.key() + "', which the cache does not write (tables and figures are rendered)";
        return EntryState::kRejected;
      }
    CacheEntry read;
    read.key = key;
    read.seconds = json.at("seconds").get<double>();
    read.result.json = json.at("result");
    if (json.contains("render")) read.result.render = json["render"];
    why = render_outputs(command, read.result);
    if (!why.empty()) return EntryState::kRejected;
    entry = std::move(read);
    return EntryState::kValid;
  } catch (const std::exception& failure) {
    why = std::string("it cannot be read as an entry (") + failure.what() + ")";
    return EntryState::kRejected;
  }
}

bool is_entry_file_name(const std::string& name) {
  if (name.size() < 69 || name.compare(64, 5, ".json") != 0) return false;
  if (name.find_first_not_of("0123456789abcdef") < 64) return false;
  return name.size() == 69 || (name.compare(69, 5, ".tmp-") == 0 && name.size() == 80);
}

}  // namespace judgestat::study
