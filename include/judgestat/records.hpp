// Judgment records (docs/statistics.md §1) and the item matrix they pivot into.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace judgestat {

/// Bad input: names the file, line and column and says what was expected. Nothing is computed
/// from a file that raised it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A user request that does not fit the data (unknown judge, empty subset, bad flag value).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

/// One parsed record, in canonical terms, as it stood in the file.
struct Record {
  std::string judge, item, gold, verdict, cluster, benchmark, condition, variant;
  std::string adjudicated;  // docs/statistics.md §7.2: a label, "indecisive" or empty
  std::string item_column;  // the value of LoadOptions::item_column ("" when not asked for or absent)
  int order = 0;
  bool verdict_given = false;            // false: empty or null verdict
  bool adjudicated_given = false;        // the record had an `adjudicated` column or key
  std::vector<std::string> prob_labels;  // labels named by p.<label> / probs keys
  std::vector<double> probs;             // same length; NaN where the field was empty
  bool nan_probability = false;          // a probability was given as NaN: output invalid
  double rationale_ok = kMissing, fee_usd = kMissing, latency_s = kMissing;
  int flag = 0;
  int repeat = 0;  // docs/statistics.md §8.5: the same request run again (0 = the first run)
  /// The record's covariates (docs/statistics.md §8.3): the NAME of each `x.NAME` column or key
  /// and its text, as written ("" when the field is empty).
  std::vector<std::string> covariate_names, covariate_values;
  int64_t line = 0;  // 1-based line in the file (header = line 1 in CSV)
};

/// `--scale LOW:HIGH` (docs/statistics.md §8.2): verdicts and gold are scores in [low, high].
struct ScoreScale {
  double low = 0, high = 0;
};

struct LoadOptions {
  /// --labels; empty: from probability columns and gold labels, and, when some item has no gold,
  /// from verdicts too (docs/statistics.md §1 "Labels", §8.1).
  std::vector<std::string> labels;
  /// An extra item-level column (or JSONL key) to keep, e.g. cascade's --select-column; every
  /// record of an item must carry the same value. "" keeps none.
  std::string item_column;
  /// Show loading progress on stderr when stderr is a terminal (the CLI, unless --quiet).
  bool progress = false;
  /// Score judges (docs/statistics.md §8.2): verdicts and gold are numbers on this scale; the
  /// labels are the distinct scores (ItemMatrix::label_score). Not with `labels`.
  std::optional<ScoreScale> scale;
  /// An import map (docs/import.md): a map file's path or a built-in map's NAME. Each records file
  /// is then read through it (a harness's JSON, JSONL or CSV log) instead of as records; "" reads
  /// records files as they are.
  std::string map;
};

/// A covariate's level of a cell or item besides a level index >= 0 (docs/statistics.md §8.3).
inline constexpr int32_t kNoLevel = -1;      // no value: an absent cell, an empty field
inline constexpr int32_t kMixedLevels = -2;  // the records of one item give different values

/// A record column `x.NAME` (JSONL: a key "x.NAME"): a property of the response or item judged,
/// such as its length or the model that wrote it (docs/statistics.md §8.3).
struct Covariate {
  std::string name;                 // NAME, without "x."
  std::vector<std::string> levels;  // distinct non-empty texts, by first appearance
  std::vector<double> numbers;      // per level: its number, NaN when the text is not a number
  bool numeric = false;             // there is a level and every level is a finite number
  std::vector<int32_t> cell_level;  // per cell (ItemMatrix::cell, repeat 0): level or kNoLevel
  std::vector<int32_t> item_level;  // per item: the level all its records give, kNoLevel, kMixedLevels
  /// The first item whose records differ (record order), for item_levels' message; "" when none.
  std::string mixed_item;
  int64_t mixed_line = 0, first_line = 0;  // the differing record's line, the item's first record's
  std::string mixed_text, first_text;      // their texts
};

/// Verdict codes of a cell besides a label index >= 0.
inline constexpr int16_t kAbsent = -1;   // no record for this (judge, item, order, variant)
inline constexpr int16_t kInvalid = -2;  // record present, output invalid (docs/statistics.md §1 validity)
inline constexpr int16_t kTie = -3;      // valid "tie" on a two-label item: wrong, JudgeBench 0

/// The gold of an item whose records leave `gold` empty or omit it (docs/statistics.md §8.1). Apart
/// from every verdict code, so that correct() is false for it; analyses that need gold leave such
/// items out (ItemMatrix::has_gold).
inline constexpr int32_t kNoGold = -4;

/// An item's human adjudication besides a label index >= 0 (docs/statistics.md §7.2).
inline constexpr int32_t kNotAdjudicated = -1;
inline constexpr int32_t kIndecisive = -2;

/// Records pivoted into dense judges x items x orders x variants cells.
/// Items, clusters, benchmarks, conditions, variants and judges are numbered by first appearance
/// in the file; analyses renumber clusters after their own filters (docs/statistics.md §2) from `line`.
struct ItemMatrix {
  std::string path;     // as given by the user
  std::string sha256;   // of the file's bytes
  int64_t records = 0;  // records read
  int64_t invalid = 0;  // records whose output is invalid
  std::vector<std::string> judges, items, labels, clusters, benchmarks, conditions, variants;
  int orders = 1;  // 1 + the largest order index
  bool has_probs = false, has_fee = false, has_latency = false, has_rationale = false;
  bool has_adjudicated = false;       // some record had an `adjudicated` column or key
  int64_t items_without_gold = 0;     // items whose gold is kNoGold (docs/statistics.md §8.1)
  std::vector<Covariate> covariates;  // the x.NAME columns, by first appearance

  // Score judges (LoadOptions::scale; docs/statistics.md §8.2): the labels are the distinct scores,
  // written in their shortest form ("7" and "7.0" are one label) and sorted ascending; verdict codes
  // stay label indices, so exact agreement is the categorical accuracy.
  bool scored = false;
  ScoreScale scale;
  std::vector<double> label_score;  // per label its number (empty unless scored)

  // Repeats (docs/statistics.md §8.5): the cell arrays above hold repeat 0, which every other
  // analysis reads; repeats 1..repeats-1 are held alongside in the same cell layout.
  int32_t repeats = 1;                  // 1 + the largest repeat
  int64_t repeat_records = 0;           // records with repeat >= 1
  std::vector<int16_t> repeat_verdict;  // (repeats-1) x cells: repeat r's verdict code at (r-1)·cells + c
  std::vector<int64_t> repeat_line;     // same layout: file line, 0 when absent
  std::vector<double> repeat_prob;      // (repeats-1) x cells x labels; NaN where not given

  // Per item.
  std::vector<int32_t> gold;            // label index, or kNoGold
  std::vector<int32_t> item_cluster;    // index into clusters
  std::vector<int32_t> item_benchmark;  // index into benchmarks ("default" when empty)
  std::vector<int32_t> item_condition;  // index into conditions ("" when empty)
  std::vector<uint8_t> item_flag;       // 1 when any record of the item had flag = 1
  /// Label index, kNotAdjudicated or kIndecisive; empty when !has_adjudicated.
  std::vector<int32_t> item_adjudicated;
  /// LoadOptions::item_column (its name) and its value per item; empty when not asked for.
  std::string item_column;
  std::vector<std::string> item_column_value;

  // Per cell, index cell(j, i, o, v).
  std::vector<int16_t> verdict;                    // label index, kAbsent, kInvalid or kTie
  std::vector<int64_t> line;                       // file line of the cell's record (0 when absent)
  std::vector<double> prob;                        // cells x labels; NaN where not given
  std::vector<double> fee, latency, rationale_ok;  // NaN where not given
  /// What made each invalid cell invalid, e.g. "verdict 'C'" or "no verdict" (distinct texts,
  /// first appearance), and per invalid cell its text's index, sorted by cell: the most common
  /// invalid value of a judge is named above the tables (docs/statistics.md §1 "Validity").
  std::vector<std::string> invalid_values;
  struct InvalidCell {
    size_t cell;
    int32_t value;  // index into invalid_values
  };
  std::vector<InvalidCell> invalid_cells;

  /// Several files loaded as one (load_item_matrix of several paths): `line` runs on from file to
  /// file; per file its name and the offset added to its own lines (offsets ascend from 0). Empty
  /// for one file, whose lines are its own. record_location turns a line back into FILE:LINE.
  std::vector<std::string> line_files;
  std::vector<int64_t> line_offsets;

  int32_t n_judges() const { return static_cast<int32_t>(judges.size()); }
  int32_t n_items() const { return static_cast<int32_t>(items.size()); }
  int32_t n_labels() const { return static_cast<int32_t>(labels.size()); }
  int32_t n_variants() const { return static_cast<int32_t>(variants.size()); }
  size_t cell(int32_t j, int32_t i, int32_t o, int32_t v) const {
    return ((static_cast<size_t>(j) * items.size() + i) * orders + o) * variants.size() + v;
  }
  bool present(size_t c) const { return verdict[c] != kAbsent; }
  bool valid(size_t c) const { return verdict[c] >= 0 || verdict[c] == kTie; }
  bool has_gold(int32_t item) const { return gold[item] != kNoGold; }
  /// False for an item without gold (kNoGold equals no verdict code).
  bool correct(size_t c, int32_t item) const { return verdict[c] == gold[item]; }
  /// invalid_values' index of an invalid cell's value; -1 for a cell that is not invalid.
  int32_t invalid_value_of(size_t c) const;
  const double* probs_of(size_t c) const { return prob.data() + c * labels.size(); }

  size_t n_cells() const { return verdict.size(); }
  /// Cell c's verdict code in repeat r (r = 0: verdict[c]).
  int16_t verdict_at(size_t c, int32_t r) const {
    return r == 0 ? verdict[c] : repeat_verdict[(r - 1) * n_cells() + c];
  }
  /// Cell c's probabilities in repeat r (r = 0: probs_of(c)).
  const double* probs_at(size_t c, int32_t r) const {
    return r == 0 ? probs_of(c) : repeat_prob.data() + ((r - 1) * n_cells() + c) * labels.size();
  }
  /// The covariate `name` ("x.NAME" or "NAME"); UsageError naming the x.* columns there are.
  const Covariate& covariate(const std::string& name) const;
  /// The covariate's item_level, or InputError naming the file, the lines and the column of the
  /// first item whose records differ, saying that `why` (e.g. "--length") needs one value per item.
  const std::vector<int32_t>& item_levels(const std::string& name, const std::string& why) const;

  int32_t judge_index(const std::string& name) const;    // UsageError naming the judges when absent
  int32_t variant_index(const std::string& name) const;  // -1 when absent
};

/// "FILE:LINE" of the record on (run-on) line `line` of `m` (ItemMatrix::line): the file it came
/// from and its line there when several files were loaded as one, else the matrix's file.
std::string record_location(const ItemMatrix& m, int64_t line);

/// Parses CSV (header row) or JSONL by extension; "-" reads CSV from stdin. Throws InputError.
/// `item_column` (LoadOptions::item_column) names a further column whose text each record keeps.
std::vector<Record> read_records(const std::string& path, std::string* sha256_out = nullptr,
                                 const std::string& item_column = "");

/// Applies docs/statistics.md §1's consistency checks and validity rule and pivots. Throws InputError.
ItemMatrix build_item_matrix(const std::vector<Record>& records, const std::string& path,
                             const LoadOptions& options = {});

/// read_records + build_item_matrix, planned before it is read: a folder, FIFO or device is
/// refused, and so is a line longer than 16 MiB; the memory the load needs (the file's text, its
/// records, then the matrix) is checked against the memory available when the load starts
/// (MemAvailable, a cgroup limit, or JUDGESTAT_MEMORY_LIMIT in bytes when set) before each step
/// allocates it, and a load that would not fit is refused with the figures. Throws InputError.
ItemMatrix load_item_matrix(const std::string& path, const LoadOptions& options = {});

/// Several record files as one matrix: their records concatenated, so records of different judges
/// for the same items merge (the same record in two files is a duplicate). Each file is first
/// checked on its own (errors name the file and line); the combined matrix's `path` is the paths
/// joined with ", ", its lines run on from file to file, and its `sha256` is the file's own for
/// one file, else the SHA-256 of the files' digests, one per line. `file_sha256`, when given,
/// receives each file's digest. One path is load_item_matrix(path, options).
ItemMatrix load_item_matrix(const std::vector<std::string>& paths, const LoadOptions& options,
                            std::vector<std::string>* file_sha256 = nullptr);

/// The items of `matrix` that have gold, with their cells, for the analyses that need gold
/// (docs/statistics.md §8.1): names, clusters, benchmarks and conditions stay as numbered (the
/// analyses renumber what they select). UsageError naming `analysis` when no item has gold.
ItemMatrix items_with_gold(const ItemMatrix& matrix, const std::string& analysis);

/// `--gold adjudicated` (docs/statistics.md §7.2): every item with a decisive adjudicated label
/// takes it as gold; the others keep theirs. Returns how many items' gold changed. Throws
/// UsageError when the file has no `adjudicated` column.
int64_t use_adjudicated_gold(ItemMatrix& matrix);

}  // namespace judgestat
