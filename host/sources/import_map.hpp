// Import maps (docs/import.md §1): the map file parsed and checked into an ImportMap before any
// input is read (import_map.cpp), paths (map_paths.cpp), and the rows of input files turned into
// judgment records by it (map_rows.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "judgestat/records.hpp"

namespace judgestat::mapping {

using Json = nlohmann::json;

enum class InputKind { kJsonl, kJson, kCsv };

/// One step of a path: a key, or an index (negative: from the end).
struct PathStep {
  bool is_index = false;
  std::string key;
  int64_t index = 0;
};

/// A path of docs/import.md §1.3: where it starts, then its steps.
struct Path {
  enum class Root { kRow, kEach, kIndex, kRowNumber, kLine, kFile };
  Root root = Root::kRow;
  std::vector<PathStep> steps;
  std::string text;  // as written in the map, for messages
};

/// "key path: what" of a map error (docs/import.md §1.9), the map's name added by the caller.
struct MapError {
  std::string key, what;
};

/// `text` as a path; in a CSV input a plain path is one column name. Throws MapError naming `key`.
Path parse_path(const std::string& text, bool csv, const std::string& key);

/// The value a path finds in `row` (and the `each` element), or nullptr when it matches nothing.
/// $index, $row, $line and $file are written into `scratch`, which the result may point to.
struct RowPlace {
  const Json* row = nullptr;
  const Json* element = nullptr;
  int64_t index = 0, row_number = 0, line = 0;
  const std::string* file = nullptr;
  bool json_rows = false;  // a `json` input's row: placed by its index in `rows`
  /// "FILE:LINE" or "FILE: rows[I]", for messages; built only when one is written.
  std::string place() const;
};
const Json* find_path(const Path& path, const RowPlace& at, Json& scratch);

/// docs/import.md §1.4's text of a JSON value; nullopt for an array or object.
std::optional<std::string> value_text(const Json& value);

/// A joined file (docs/import.md §1.8): key text → (value text, place).
struct JoinTable {
  std::string file;
  std::unordered_map<std::string, std::pair<std::string, std::string>> rows;
};

/// A field's source with its modifiers (docs/import.md §1.4).
struct Source {
  enum class Kind { kPath, kConst, kJoin, kLength, kSigmoidMargin, kFormat, kCompare, kLinear };
  Kind kind = Kind::kPath;
  std::string key;  // "fields.verdict", for messages
  Path path;        // path, length, join's `on`, sigmoid_margin's a
  Path second;      // sigmoid_margin's b, compare's Y
  /// format: literal text and paths in turn (a part with a path is replaced by its value).
  std::vector<std::pair<std::string, std::optional<Path>>> parts;
  std::optional<double> first_number, second_number;  // compare's X, Y when given as numbers
  std::string greater, less, equal;                   // compare's results
  double scale = 1, offset = 0;                       // linear
  std::optional<int> digits;  // linear, sigmoid_margin: decimals to write; none: the shortest exact text
  std::string constant;
  int join = -1;  // index into ImportMap::joins
  bool tokens = false;
  std::optional<std::string> default_text;
  std::vector<std::pair<std::string, std::string>> replace;
  std::optional<std::regex> regex;
  std::string regex_text;
  bool regex_has_group = false;
  /// regex's "template": the value is the match written through it ("$1-$2"), not one group.
  std::optional<std::string> regex_template;
  bool has_values = false;
  std::map<std::string, std::string> values;
  std::optional<std::string> other_value;  // the table's "*"
};

/// `swap` (docs/import.md §1.6).
struct Swap {
  Source when;
  std::string equals;
  std::map<std::string, std::string> labels;
  std::vector<std::string> fields{"verdict"};
};

struct ImportMap {
  std::string name;    // the map's path, or "built-in map NAME"
  std::string folder;  // joins' files are relative to it
  InputKind input = InputKind::kJsonl;
  std::optional<Path> rows;
  std::vector<Path> each;  // empty: one record per row
  bool each_is_list = false;
  std::vector<std::pair<std::string, Source>> fields;  // in output order
  std::vector<std::string> columns;
  std::optional<Swap> swap;
  std::vector<JoinTable> joins;
};

/// A field's source (docs/import.md §1.4) at map key `key`; `with_equals`: swap.when's `equals`
/// is allowed beside it. Joined files are read into map.joins. Throws MapError.
Source parse_source(const Json& spec, const std::string& key, bool csv, ImportMap& map, bool with_equals);

/// The map of a path or built-in name, checked whole (docs/import.md §1), joined files read.
/// Throws InputError naming the map and the key path; UsageError for an unknown built-in name.
ImportMap load_import_map(const std::string& map_path_or_name);
/// The same from the map's JSON text; `name` names it in messages, `folder` holds its joins.
ImportMap parse_import_map(const std::string& text, const std::string& name, const std::string& folder);

/// The mapped records of `files` as CSV text: the map's columns as the header, then a row per
/// record, the files' records in the order given (`judgestat import`).
std::string map_files(const ImportMap& map, const std::vector<std::string>& files);

/// One input file's records through the map, each placed at its row's input line, and the file's
/// SHA-256 into `sha256` (the file is read once). A record the CSV reader would refuse in the
/// mapped CSV is refused with the same message, placed at its row ("FILE:LINE (mapped record N)").
std::vector<Record> read_mapped_records(const ImportMap& map, const std::string& file, const std::string& item_column,
                                        std::string& sha256);

/// A field's text for the row at `at` (docs/import.md §1.4): the source, its default when it
/// matches nothing, then the modifiers. Throws InputError naming the row's place, key and path.
std::string evaluate(const ImportMap& map, const Source& source, const RowPlace& at);

/// `text` (one JSONL line) parsed into `row` when it is a plain JSON object (no escapes, only ASCII,
/// integers below 10^18, nested at most kMaxJsonDepth levels), reusing the storage `row` holds from the previous line;
/// false, with `row` left half-written, for any other text, which nlohmann's parser must read (map_scan.cpp).
bool scan_plain_row(std::string_view text, Json& row);

/// The rows of JSONL text `text`, its first line being the file's line `first_line` and its first
/// row (a line not blank) the file's row `first_row` (0-based): a part of a file read on its own.
void for_each_jsonl_row(std::string_view text, const std::string& path, int64_t first_line, int64_t first_row,
                        const std::function<void(const Json& row, RowPlace& place)>& visit);
/// Reads the rows of one file as `input` (docs/import.md §1.2), calling visit(row, place) for each.
void for_each_row(const std::string& path, InputKind input, const std::optional<Path>& rows,
                  const std::function<void(const Json& row, RowPlace& place)>& visit);
/// The same for the file's bytes `text` already read; `path` names it in places and messages.
void for_each_row_in(const std::string& text, const std::string& path, InputKind input, const std::optional<Path>& rows,
                     const std::function<void(const Json& row, RowPlace& place)>& visit);

}  // namespace judgestat::mapping
