// The pivot in three steps: resolve the label set (and the label index of every distinct gold,
// verdict and probability label), the items' own columns (pass 1 over the records), the cells
// (pass 2). Errors are raised in the order the single pass of each step meets them.
#include "records/pivot.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "records/fields.hpp"
#include "records/memory.hpp"
#include "records/validity.hpp"

namespace judgestat::loading {
namespace {

// A dense matrix above this size must have cells for at least one record in kMaxCellsPerRecord.
constexpr double kSparseMatrixBytes = 256.0 * (1 << 20);
constexpr double kMaxCellsPerRecord = 64;

/// "FILE:LINE" of a record's line; with several files loaded as one, the file it came from and
/// the line there (numbered.file_lines), not the run-on line.
std::string place_text(const NumberedRecords& numbered, const std::string& file, int64_t line) {
  if (numbered.file_lines.files.empty()) return file + ":" + std::to_string(line);
  const auto [name, own] = numbered.file_lines.place(line);
  return *name + ":" + std::to_string(own);
}

/// "line N" of a record named in another's message; "line N of FILE" with several files.
std::string line_text(const NumberedRecords& numbered, int64_t line) {
  if (numbered.file_lines.files.empty()) return "line " + std::to_string(line);
  const auto [name, own] = numbered.file_lines.place(line);
  return "line " + std::to_string(own) + " of " + *name;
}

/// fail() at the record's place (place_text).
[[noreturn]] void fail_at(const NumberedRecords& numbered, const std::string& file, int64_t line,
                          std::string_view column, const std::string& what) {
  if (numbered.file_lines.files.empty()) fail(file, line, column, what);
  const auto [name, own] = numbered.file_lines.place(line);
  fail(*name, own, column, what);
}

/// The label set and the label index of each distinct text and label list, computed once
/// rather than per record.
struct LabelIndex {
  bool explicit_labels = false;                     // from LoadOptions::labels
  std::vector<int32_t> gold_label;                  // per distinct gold text, -1 outside the set
  std::vector<VerdictMeaning> verdict_meaning;      // per distinct verdict text
  std::vector<std::vector<int32_t>> slots_of_list;  // label index of each listed label, or -1
  // Per distinct adjudicated text: label index, kNotAdjudicated, kIndecisive or kNotALabel.
  std::vector<int32_t> adjudicated_code;
  // Score judges (docs/statistics.md §8.2): per distinct verdict text, 1 when it is no score on
  // the scale (an error at its first record); a gold that is none is kNotAScore in gold_label.
  std::vector<uint8_t> bad_score;
};

constexpr int32_t kNotAScore = -5;  // a gold text that is no score on LoadOptions::scale

constexpr int32_t kNotALabel = -3;  // an adjudicated text that is no label of the set

/// docs/statistics.md §7.2: empty = not adjudicated, "indecisive", else a label of the set.
int32_t adjudicated_code(std::string_view text, int32_t label) {
  if (text.empty()) return kNotAdjudicated;
  if (text == "indecisive") return kIndecisive;
  return label >= 0 ? label : kNotALabel;
}

/// Whether some record leaves `gold` empty: then some item has no gold (docs/statistics.md §8.1),
/// as the gold of an item is the same in all its records.
bool some_item_without_gold(const NumberedRecords& numbered) {
  for (size_t g = 0; g < numbered.golds.size(); ++g)
    if (numbered.golds.name(static_cast<int32_t>(g)).empty()) return true;
  return false;
}

/// `text` as a score on `scale`, or NaN when it is not a number or lies outside the scale.
double score_of(std::string_view text, const ScoreScale& scale) {
  double value;
  if (!parse_double(text, value) || !(value >= scale.low && value <= scale.high)) return kMissing;
  return value;
}

/// A score's label: its shortest decimal form, so that "7", "7.0" and "07" are one label.
std::string score_label(double value) {
  char text[32];
  const auto written = std::to_chars(text, text + sizeof text, value);
  return std::string(text, written.ptr);
}

std::string scale_text(const ScoreScale& scale) { return score_label(scale.low) + ":" + score_label(scale.high); }

/// The label index of a probability label or adjudicated text of a scored matrix: the score's
/// label (p.7.0 is the probability of score 7), or -1.
int32_t score_label_of(std::string_view text, const ItemMatrix& m) {
  const double score = score_of(text, m.scale);
  const auto found = std::lower_bound(m.label_score.begin(), m.label_score.end(), score);
  return std::isnan(score) || found == m.label_score.end() || *found != score
             ? -1
             : static_cast<int32_t>(found - m.label_score.begin());
}

/// A score judge's probability lists and adjudications (docs/statistics.md §8.2, §7.2).
void finish_label_index(const NumberedRecords& numbered, const ItemMatrix& m, LabelIndex& index) {
  for (const auto& labels : numbered.prob_label_lists) {
    std::vector<int32_t>& slots = index.slots_of_list.emplace_back();
    for (const std::string& label : labels) slots.push_back(score_label_of(label, m));
  }
  for (size_t a = 0; a < numbered.adjudications.size(); ++a) {
    const std::string_view text = numbered.adjudications.name(static_cast<int32_t>(a));
    index.adjudicated_code.push_back(adjudicated_code(text, score_label_of(text, m)));
  }
}

/// Score judges (docs/statistics.md §8.2): the labels are the distinct scores of gold and verdicts,
/// ascending; texts that are no score on the scale are marked for an error at their first record.
LabelIndex resolve_score_labels(const NumberedRecords& numbered, const ScoreScale& scale, ItemMatrix& m) {
  LabelIndex index;
  std::vector<double> gold_scores(numbered.golds.size()), verdict_scores(numbered.verdicts.size());
  std::vector<double> scores;
  for (size_t g = 0; g < gold_scores.size(); ++g) {
    const std::string_view text = numbered.golds.name(static_cast<int32_t>(g));
    gold_scores[g] = text.empty() ? kMissing : score_of(text, scale);
    if (!std::isnan(gold_scores[g])) scores.push_back(gold_scores[g]);
  }
  for (size_t v = 0; v < verdict_scores.size(); ++v) {
    verdict_scores[v] = score_of(numbered.verdicts.name(static_cast<int32_t>(v)), scale);
    if (!std::isnan(verdict_scores[v])) scores.push_back(verdict_scores[v]);
  }
  std::sort(scores.begin(), scores.end());
  scores.erase(std::unique(scores.begin(), scores.end()), scores.end());
  m.scored = true;
  m.scale = scale;
  m.label_score = scores;
  for (const double score : scores) m.labels.push_back(score_label(score));
  const auto label_of = [&](double score) {
    return static_cast<int32_t>(std::lower_bound(scores.begin(), scores.end(), score) - scores.begin());
  };
  for (size_t g = 0; g < gold_scores.size(); ++g) {
    const bool empty = numbered.golds.name(static_cast<int32_t>(g)).empty();
    index.gold_label.push_back(empty ? kNoGold : std::isnan(gold_scores[g]) ? kNotAScore : label_of(gold_scores[g]));
  }
  for (size_t v = 0; v < verdict_scores.size(); ++v) {
    const bool bad = std::isnan(verdict_scores[v]);
    index.verdict_meaning.push_back({bad ? -1 : label_of(verdict_scores[v]), false});
    index.bad_score.push_back(bad ? 1 : 0);
  }
  return index;
}

/// Label set: --labels, else probability labels (first appearance) then gold labels, then, when
/// some item has no gold, verdict texts other than "tie" (docs/statistics.md §1 "Labels"): a
/// gold-free file still has labels. Fills m.labels.
LabelIndex resolve_labels(const NumberedRecords& numbered, const std::string& file, const LoadOptions& options,
                          ItemMatrix& m) {
  if (options.scale) {
    if (!options.labels.empty())
      throw std::invalid_argument("--scale and --labels: give one of the two (with --scale the labels are the scores)");
    if (!(options.scale->low < options.scale->high) || !std::isfinite(options.scale->low) ||
        !std::isfinite(options.scale->high))
      throw std::invalid_argument("--scale: expected LOW:HIGH with finite LOW < HIGH, as in 1:10");
    LabelIndex index = resolve_score_labels(numbered, *options.scale, m);
    if (m.labels.size() > static_cast<size_t>(INT16_MAX)) {
      throw InputError(file + ": column 'verdict': expected at most " + std::to_string(INT16_MAX) +
                       " distinct scores, got " + std::to_string(m.labels.size()));
    }
    finish_label_index(numbered, m, index);
    return index;
  }
  LabelIndex index;
  std::unordered_map<std::string, int32_t> label_ids;
  auto add_label = [&](std::string_view label) {
    if (label_ids.try_emplace(std::string(label), static_cast<int32_t>(m.labels.size())).second) {
      m.labels.emplace_back(label);
    }
  };
  index.explicit_labels = !options.labels.empty();
  if (index.explicit_labels) {
    for (const std::string& label : options.labels) {
      if (label.empty()) throw std::invalid_argument("labels: holds an empty label; list labels like A,B");
      if (label_ids.count(label)) {
        throw std::invalid_argument("labels: names '" + label + "' twice; list each label once");
      }
      add_label(label);
    }
  } else {
    // Distinct lists and golds in order of first appearance add the labels in the order that
    // going through the records would.
    for (const auto& labels : numbered.prob_label_lists) {
      for (const std::string& label : labels) add_label(label);
    }
    for (size_t g = 0; g < numbered.golds.size(); ++g)
      if (!numbered.golds.name(g).empty()) add_label(numbered.golds.name(g));
    if (some_item_without_gold(numbered))
      for (size_t v = 0; v < numbered.verdicts.size(); ++v)
        if (numbered.verdicts.name(v) != "tie") add_label(numbered.verdicts.name(v));
  }
  if (m.labels.size() > static_cast<size_t>(INT16_MAX)) {
    throw InputError(file + ": column 'gold': expected at most " + std::to_string(INT16_MAX) + " labels, got " +
                     std::to_string(m.labels.size()));
  }
  auto label_of = [&](std::string_view text) {
    auto found = label_ids.find(std::string(text));
    return found == label_ids.end() ? -1 : found->second;
  };
  index.gold_label.resize(numbered.golds.size());
  for (size_t g = 0; g < index.gold_label.size(); ++g) {
    const std::string_view gold = numbered.golds.name(g);
    index.gold_label[g] = gold.empty() ? kNoGold : label_of(gold);
  }
  index.verdict_meaning.resize(numbered.verdicts.size());
  for (size_t v = 0; v < index.verdict_meaning.size(); ++v) {
    const std::string_view text = numbered.verdicts.name(v);
    index.verdict_meaning[v] = {label_of(text), text == "tie"};
  }
  for (const auto& labels : numbered.prob_label_lists) {
    std::vector<int32_t>& slots = index.slots_of_list.emplace_back();
    for (const std::string& label : labels) slots.push_back(label_of(label));
  }
  for (size_t a = 0; a < numbered.adjudications.size(); ++a) {
    const std::string_view text = numbered.adjudications.name(static_cast<int32_t>(a));
    index.adjudicated_code.push_back(adjudicated_code(text, label_of(text)));
  }
  return index;
}

/// gold and cluster are item-level by docs/statistics.md §1, adjudicated by §7.2; benchmark and
/// condition describe the item too (subset filters select items), so they must agree as well
/// between a record and its item's first record; so must LoadOptions::item_column. Numbering kept
/// the first record that does not (NumberedRecords::mismatch); this names it.
[[noreturn]] void fail_item_mismatch(const NumberedRecords& numbered, const std::string& file,
                                     const NumberedRecord& record, const std::string& item_column) {
  const ItemMismatch& mismatch = numbered.mismatch;
  const ItemColumns& first = numbered.item_columns[record.item];
  // The column's name and its texts' numbering.
  const auto [column, texts] = [&]() -> std::pair<std::string, const Numbering*> {
    switch (mismatch.column) {
      case ItemColumn::kGold:
        return {"gold", &numbered.golds};
      case ItemColumn::kCluster:
        return {"cluster", &numbered.clusters};
      case ItemColumn::kBenchmark:
        return {"benchmark", &numbered.benchmarks};
      case ItemColumn::kCondition:
        return {"condition", &numbered.conditions};
      case ItemColumn::kAdjudicated:
        return {"adjudicated", &numbered.adjudications};
      case ItemColumn::kItemColumn:
        break;
    }
    return {item_column, &numbered.item_column_values};
  }();
  // An empty gold is no gold (docs/statistics.md §8.1): an item has gold in all its records or in none.
  const bool gold = mismatch.column == ItemColumn::kGold;
  const std::string_view here = texts->name(mismatch.here), there = texts->name(mismatch.there);
  const std::string here_shown = gold && here.empty() ? "no gold" : column + " " + shown_text(here);
  const std::string there_shown = gold && there.empty()  ? "no gold"
                                  : gold && here.empty() ? "gold " + shown_text(there)
                                                         : shown_text(there);
  fail_at(numbered, file, record.line, column,
          "item " + shown_text(numbered.items.name(record.item)) + " has " + here_shown + " here but " + there_shown +
              " on " + line_text(numbered, numbered.records[first.first_record].line) +
              "; every record of an item must carry the same " + column + ", so correct one of the two lines");
}

/// The item's adjudication from its first record: a label of the set, `indecisive` or empty.
int32_t item_adjudication(const NumberedRecords& numbered, const LabelIndex& index, const std::string& file,
                          const NumberedRecord& record, const ItemMatrix& m) {
  const int32_t adjudicated = numbered.item_columns[record.item].adjudicated;
  const int32_t code = index.adjudicated_code[adjudicated];
  if (code == kNotALabel) {
    fail_at(numbered, file, record.line, "adjudicated",
            "expected a label of the label set (" + join(m.labels, ",") +
                "), 'indecisive' or an empty field (not adjudicated), got " +
                shown_text(numbered.adjudications.name(adjudicated)) +
                "; correct the adjudicated label or add it to --labels");
  }
  return code;
}

/// With --labels, a record may give probabilities only for labels in the set.
void check_probability_labels(const NumberedRecords& numbered, const LabelIndex& index, const std::string& file,
                              const NumberedRecord& record, const double* probs, const ItemMatrix& m) {
  const std::vector<std::string>& labels = numbered.prob_label_lists[record.prob_labels];
  const std::vector<int32_t>& slots = index.slots_of_list[record.prob_labels];
  for (size_t k = 0; k < labels.size(); ++k) {
    if (slots[k] < 0 && (!std::isnan(probs[k]) || record.nan_probability)) {
      fail_at(numbered, file, record.line, "p." + labels[k],
              "expected probabilities for the --labels (" + join(m.labels, ",") + ") only, got one for " +
                  shown_text(labels[k]) + "; add it to --labels or drop the column");
    }
  }
}

/// Pass 1: the items' own columns; item-level columns must agree between the records of an
/// item. Also fills the names and the number of orders.
void fill_item_columns(const NumberedRecords& numbered, const LabelIndex& index, const std::string& file,
                       const LoadOptions& options, ItemMatrix& m) {
  const std::vector<NumberedRecord>& records = numbered.records;
  int max_order = 0, max_repeat = 0;
  size_t first_prob = 0;  // the record's probabilities in numbered.probs
  m.has_adjudicated = numbered.adjudicated_column;
  for (size_t k = 0; k < records.size(); ++k) {
    const NumberedRecord& record = records[k];
    if (record.order < 0 || record.order > kMaxOrder) {
      fail_at(numbered, file, record.line, "order",
              "expected a presentation index from 0 to " + std::to_string(kMaxOrder) + ", got " +
                  std::to_string(record.order));
    }
    max_order = std::max(max_order, record.order);
    max_repeat = std::max(max_repeat, record.repeat);

    const ItemColumns& item = numbered.item_columns[record.item];
    if (item.first_record == k) {
      if (index.gold_label[item.gold] == kNoGold) {
        ++m.items_without_gold;
      } else if (index.gold_label[item.gold] == kNotAScore) {
        fail_at(numbered, file, record.line, "gold",
                "expected a score from " + score_label(m.scale.low) + " to " + score_label(m.scale.high) +
                    " (--scale " + scale_text(m.scale) + ") or an empty field, got " +
                    shown_text(numbered.golds.name(item.gold)));
      } else if (index.gold_label[item.gold] < 0) {
        fail_at(numbered, file, record.line, "gold",
                "expected one of the --labels (" + join(m.labels, ",") + "), got " +
                    shown_text(numbered.golds.name(item.gold)) + "; add it to --labels or correct the gold label");
      }
      m.gold.push_back(index.gold_label[item.gold]);
      m.item_cluster.push_back(item.cluster);
      m.item_benchmark.push_back(item.benchmark);
      m.item_condition.push_back(item.condition);
      m.item_flag.push_back(0);
      if (m.has_adjudicated) m.item_adjudicated.push_back(item_adjudication(numbered, index, file, record, m));
      if (!options.item_column.empty())
        m.item_column_value.emplace_back(numbered.item_column_values.name(item.item_column));
    } else if (numbered.mismatch.record == k) {
      fail_item_mismatch(numbered, file, record, options.item_column);
    }
    if (index.explicit_labels)
      check_probability_labels(numbered, index, file, record, numbered.probs.data() + first_prob, m);
    first_prob += numbered.prob_label_lists[record.prob_labels].size();
  }
  // Every record agreed with its item's first record, so the numbering of all records gives
  // clusters, benchmarks and conditions in the order the items' first records name them.
  m.judges = numbered.judges.names();
  m.items = numbered.items.names();
  m.variants = numbered.variants.names();
  m.clusters = numbered.clusters.names();
  m.benchmarks = numbered.benchmarks.names();
  m.conditions = numbered.conditions.names();
  m.orders = max_order + 1;
  m.repeats = max_repeat + 1;
}

/// The matrix is dense (judges × items × orders × variants cells, × labels probabilities): refuse
/// up front, with the numbers, one that would not fit the memory budget beside the records
/// already held, or that is mostly empty cells a file of few records asks for (a stray order
/// 1023, judges on disjoint items), rather than fail an allocation or be killed part-way.
void check_cells_fit(const ItemMatrix& m, const std::string& file, const NumberedRecord& highest_order,
                     const NumberedRecord& highest_repeat, double held_bytes, const MemoryBudget& budget) {
  // Repeats 1.. are held as dense cells too (docs/statistics.md §8.5): a stray repeat 1023
  // multiplies the matrix as a stray order does.
  const double cells = static_cast<double>(m.judges.size()) * static_cast<double>(m.items.size()) * m.orders *
                       static_cast<double>(m.variants.size()) * m.repeats;
  const double bytes = cells * matrix_cell_bytes(m.labels.size());
  const bool too_big = budget.bytes > 0 && held_bytes + bytes > budget.bytes;
  const bool mostly_empty = bytes > kSparseMatrixBytes && cells > kMaxCellsPerRecord * static_cast<double>(m.records);
  if (!too_big && !mostly_empty) return;
  const std::string repeats = m.repeats > 1 ? " x " + std::to_string(m.repeats) + " repeats" : std::string();
  const std::string check_repeat = m.repeats > 1
                                       ? ", the repeat column (the largest, " + std::to_string(m.repeats - 1) +
                                             ", is on line " + std::to_string(highest_repeat.line) + ")"
                                       : std::string();
  char text[1024];
  std::snprintf(text, sizeof text,
                "%s: %zu judges x %zu items x %d orders x %zu variants%s = %.4g cells (%.1f GB with %zu labels) for "
                "%lld records; %s. The matrix holds every (judge, item, order, variant%s): check the order column "
                "(the largest, %d, is on line %lld)%s and the variant column, or split the file by judge or "
                "benchmark.",
                file.c_str(), m.judges.size(), m.items.size(), m.orders, m.variants.size(), repeats.c_str(), cells,
                bytes / 1e9, m.labels.size(), static_cast<long long>(m.records),
                too_big ? ("with the " + gigabytes(held_bytes) + " its records hold, loading needs about " +
                           gigabytes(held_bytes + bytes) + " but " + gigabytes(budget.bytes) + " is available (" +
                           budget.source + ")")
                              .c_str()
                        : "almost all of them would be empty",
                m.repeats > 1 ? ", repeat" : "", m.orders - 1, static_cast<long long>(highest_order.line),
                check_repeat.c_str());
  throw InputError(text);
}

/// Every cell absent, its values missing.
void allocate_cells(ItemMatrix& m) {
  const size_t n_cells =
      static_cast<size_t>(m.judges.size()) * m.items.size() * static_cast<size_t>(m.orders) * m.variants.size();
  const size_t n_labels = m.labels.size();
  m.verdict.assign(n_cells, kAbsent);
  m.line.assign(n_cells, 0);
  m.prob.assign(n_cells * n_labels, kMissing);
  m.fee.assign(n_cells, kMissing);
  m.latency.assign(n_cells, kMissing);
  m.rationale_ok.assign(n_cells, kMissing);
  const size_t repeat_cells = n_cells * static_cast<size_t>(m.repeats - 1);
  m.repeat_verdict.assign(repeat_cells, kAbsent);
  m.repeat_line.assign(repeat_cells, 0);
  m.repeat_prob.assign(repeat_cells * n_labels, kMissing);
}

[[noreturn]] void fail_second_record(const NumberedRecords& numbered, const std::string& file,
                                     const NumberedRecord& record, int64_t first_line) {
  const std::string repeat = record.repeat > 0 ? ", repeat " + std::to_string(record.repeat) : "";
  throw InputError(place_text(numbered, file, record.line) + ": columns 'judge','item','order','variant" +
                   (repeat.empty() ? "'" : "','repeat'") + ": judge " + shown_text(numbered.judges.name(record.judge)) +
                   ", item " + shown_text(numbered.items.name(record.item)) + ", order " +
                   std::to_string(record.order) + ", variant " + shown_text(numbered.variants.name(record.variant)) +
                   repeat + " already occurs on " + line_text(numbered, first_line) +
                   "; each (judge, item, order, variant" + (repeat.empty() ? "" : ", repeat") +
                   ") may occur once, so remove or renumber one (the same request judged again is a new 'repeat')");
}

/// docs/statistics.md §8.2: a verdict of a score judge must be a score on the scale.
void check_score(const NumberedRecords& numbered, const LabelIndex& index, const std::string& file,
                 const NumberedRecord& record, const ItemMatrix& m) {
  if (index.bad_score.empty() || record.verdict < 0 || !index.bad_score[record.verdict]) return;
  fail_at(numbered, file, record.line, "verdict",
          "expected a score from " + score_label(m.scale.low) + " to " + score_label(m.scale.high) + " (--scale " +
              scale_text(m.scale) + ") or an empty field, got " + shown_text(numbered.verdicts.name(record.verdict)));
}

/// A record of repeat r >= 1 (docs/statistics.md §8.5): its verdict and probabilities in the
/// repeat cells; fees, latencies and flags are repeat 0's.
void fill_repeat_cell(const NumberedRecords& numbered, const LabelIndex& index, const std::string& file,
                      const NumberedRecord& record, const double* probs, ItemMatrix& m) {
  const size_t n_labels = m.labels.size();
  const size_t c = (static_cast<size_t>(record.repeat) - 1) * m.verdict.size() +
                   m.cell(record.judge, record.item, record.order, record.variant);
  if (m.repeat_verdict[c] != kAbsent) fail_second_record(numbered, file, record, m.repeat_line[c]);
  const std::vector<int32_t>& slots = index.slots_of_list[record.prob_labels];
  m.repeat_verdict[c] = verdict_code(record, probs, slots,
                                     record.verdict >= 0 ? &index.verdict_meaning[record.verdict] : nullptr, n_labels);
  m.repeat_line[c] = record.line;
  for (size_t k = 0; k < slots.size(); ++k) {
    if (std::isnan(probs[k]) && !record.nan_probability) continue;
    m.has_probs = true;
    if (slots[k] >= 0) m.repeat_prob[c * n_labels + slots[k]] = probs[k];
  }
  if (record.nan_probability) m.has_probs = true;
  ++m.repeat_records;
}

/// Fee ratios and dollar-matched baselines divide sums of fees: a judge's fees must sum to a
/// finite number, or every ratio would be silently undefined.
void add_fee(double& total, double fee, const NumberedRecords& numbered, const std::string& file,
             const NumberedRecord& record) {
  total += fee;
  if (std::isfinite(total)) return;
  fail_at(numbered, file, record.line, "fee_usd",
          "the fees of judge " + shown_text(numbered.judges.name(record.judge)) +
              " sum past the largest number a double holds (1.8e308) here; give each call's fee in USD "
              "(e.g. 0.002)");
}

/// Keeps what made cell `c`'s record invalid (ItemMatrix::invalid_values), numbered on arrival.
void note_invalid_value(const NumberedRecords& numbered, const NumberedRecord& record, const double* probs,
                        const std::vector<int32_t>& slots, const LabelIndex& index, size_t c,
                        std::unordered_map<std::string, int32_t>& ids, ItemMatrix& m) {
  const bool given = record.verdict >= 0;
  std::string value = invalid_value(record, probs, slots, given ? &index.verdict_meaning[record.verdict] : nullptr,
                                    given ? numbered.verdicts.name(record.verdict) : std::string_view());
  const auto [found, added] = ids.try_emplace(std::move(value), static_cast<int32_t>(m.invalid_values.size()));
  if (added) m.invalid_values.push_back(found->first);
  m.invalid_cells.push_back({c, found->second});
}

/// Pass 2: fill the cells, rejecting a second record for one cell, and apply validity.
void fill_cells(const NumberedRecords& numbered, const LabelIndex& index, const std::string& file, ItemMatrix& m) {
  const size_t n_labels = m.labels.size();
  std::vector<double> judge_fees(m.judges.size(), 0.0);
  std::unordered_map<std::string, int32_t> invalid_ids;
  size_t first_prob = 0;  // the record's probabilities in numbered.probs
  for (size_t k = 0; k < numbered.records.size(); ++k) {
    const NumberedRecord& record = numbered.records[k];
    check_score(numbered, index, file, record, m);
    const std::vector<int32_t>& slots = index.slots_of_list[record.prob_labels];
    const double* probs = numbered.probs.data() + first_prob;
    first_prob += slots.size();
    if (record.repeat > 0) {
      fill_repeat_cell(numbered, index, file, record, probs, m);
      const size_t c = m.cell(record.judge, record.item, record.order, record.variant);
      // Its invalid value at r · cells + c, past repeat 0's cells: `repeats` counts every repeat (§8.5).
      if (m.verdict_at(c, record.repeat) == kInvalid)
        note_invalid_value(numbered, record, probs, slots, index, static_cast<size_t>(record.repeat) * m.n_cells() + c,
                           invalid_ids, m);
      continue;
    }
    const size_t c = m.cell(record.judge, record.item, record.order, record.variant);
    if (m.verdict[c] != kAbsent) fail_second_record(numbered, file, record, m.line[c]);
    m.verdict[c] = verdict_code(record, probs, slots,
                                record.verdict >= 0 ? &index.verdict_meaning[record.verdict] : nullptr, n_labels);
    if (m.verdict[c] == kInvalid) {
      ++m.invalid;
      note_invalid_value(numbered, record, probs, slots, index, c, invalid_ids, m);
    }
    m.line[c] = record.line;
    for (size_t k = 0; k < slots.size(); ++k) {
      if (std::isnan(probs[k]) && !record.nan_probability) continue;
      m.has_probs = true;
      if (slots[k] >= 0) m.prob[c * n_labels + slots[k]] = probs[k];
    }
    if (record.nan_probability) m.has_probs = true;
    const double fee = numbered.fee_usd.at(k), latency = numbered.latency_s.at(k);
    const double rationale_ok = numbered.rationale_ok.at(k);
    m.fee[c] = fee;
    if (!std::isnan(fee)) add_fee(judge_fees[record.judge], fee, numbered, file, record);
    m.latency[c] = latency;
    m.rationale_ok[c] = rationale_ok;
    m.has_fee |= !std::isnan(fee);
    m.has_latency |= !std::isnan(latency);
    m.has_rationale |= !std::isnan(rationale_ok);
    if (record.flagged) m.item_flag[record.item] = 1;
  }
  std::sort(m.invalid_cells.begin(), m.invalid_cells.end(),
            [](const ItemMatrix::InvalidCell& a, const ItemMatrix::InvalidCell& b) { return a.cell < b.cell; });
}

/// One x.<name> column's levels, per cell (repeat 0) and per item (docs/statistics.md §8.3): an
/// empty field gives no value; the records of an item that give values must agree for the item
/// to have one (else kMixedLevels, and the first such item is kept for ItemMatrix::item_levels).
Covariate pivot_covariate(const NumberedRecords& numbered, const CovariateColumn& column, const ItemMatrix& m) {
  Covariate covariate;
  covariate.name = column.name;
  std::vector<int32_t> level_of_id(column.values.size(), kNoLevel);
  for (size_t id = 0; id < column.values.size(); ++id) {
    const std::string_view text = column.values.name(static_cast<int32_t>(id));
    if (text.empty()) continue;
    level_of_id[id] = static_cast<int32_t>(covariate.levels.size());
    covariate.levels.emplace_back(text);
    double number;
    covariate.numbers.push_back(parse_double(text, number) ? number : kMissing);
  }
  covariate.numeric = !covariate.levels.empty() && std::all_of(covariate.numbers.begin(), covariate.numbers.end(),
                                                               [](double number) { return std::isfinite(number); });
  covariate.cell_level.assign(m.verdict.size(), kNoLevel);
  covariate.item_level.assign(m.items.size(), kNoLevel);
  std::vector<int64_t> first_line(m.items.size(), 0);
  for (size_t k = 0; k < numbered.records.size(); ++k) {
    const NumberedRecord& record = numbered.records[k];
    const int32_t id = column.value(k);
    const int32_t level = id < 0 ? kNoLevel : level_of_id[id];
    if (level == kNoLevel) continue;
    if (record.repeat == 0)
      covariate.cell_level[m.cell(record.judge, record.item, record.order, record.variant)] = level;
    int32_t& item_level = covariate.item_level[record.item];
    if (item_level == kNoLevel) {
      item_level = level;
      first_line[record.item] = record.line;
    } else if (item_level >= 0 && item_level != level) {
      if (covariate.mixed_item.empty()) {
        covariate.mixed_item = m.items[record.item];
        covariate.mixed_line = record.line;
        covariate.first_line = first_line[record.item];
        covariate.mixed_text = covariate.levels[level];
        covariate.first_text = covariate.levels[item_level];
      }
      item_level = kMixedLevels;
    }
  }
  return covariate;
}

void fill_covariates(const NumberedRecords& numbered, ItemMatrix& m) {
  for (const CovariateColumn& column : numbered.covariates)
    m.covariates.push_back(pivot_covariate(numbered, column, m));
}

/// The first record with the largest value of `field` (order or repeat), for check_cells_fit's message.
const NumberedRecord& highest(const NumberedRecords& numbered, int32_t NumberedRecord::*field) {
  const NumberedRecord* found = &numbered.records.front();
  for (const NumberedRecord& record : numbered.records)
    if (record.*field > found->*field) found = &record;
  return *found;
}

}  // namespace

ItemMatrix pivot(const NumberedRecords& numbered, const std::string& path, const LoadOptions& options,
                 const MemoryBudget* budget) {
  const std::string file = display_name(path);
  if (numbered.records.empty()) {
    throw InputError(file + ": no records; give a file with at least one record");
  }
  ItemMatrix m;
  m.path = path;
  m.records = static_cast<int64_t>(numbered.records.size());
  const LabelIndex index = resolve_labels(numbered, file, options, m);
  m.item_column = options.item_column;
  fill_item_columns(numbered, index, file, options, m);
  check_cells_fit(m, file, highest(numbered, &NumberedRecord::order), highest(numbered, &NumberedRecord::repeat),
                  numbered.bytes(), budget ? *budget : memory_budget());
  allocate_cells(m);
  fill_cells(numbered, index, file, m);
  fill_covariates(numbered, m);
  m.line_files = numbered.file_lines.files;
  m.line_offsets = numbered.file_lines.offsets;
  return m;
}

}  // namespace judgestat::loading
