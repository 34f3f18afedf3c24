// The per-item table of judgestat/items.hpp (docs/statistics.md §7.4): per (item, variant) unit
// of the selection, the item's fields and each judge's facts from judge_units (the same
// correctness, pa and consistency the accuracy family sums), plus order-averaged confidence.
#include "judgestat/items.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/probability/probability_quality.hpp"
#include "records/selection.hpp"

namespace judgestat {

int32_t ItemsReport::column(const std::string& name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  return it == columns.end() ? -1 : static_cast<int32_t>(it - columns.begin());
}

namespace {

const ItemsValue kNull{};

ItemsValue text_or_null(const std::string& text) { return text.empty() ? kNull : ItemsValue(text); }

std::string verdict_text(const ItemMatrix& m, int16_t verdict) {
  if (verdict >= 0) return m.labels[verdict];
  return verdict == kTie ? "tie" : "invalid";
}

ItemsValue adjudicated_value(const ItemMatrix& m, int32_t item) {
  const int32_t decision = m.item_adjudicated[item];
  if (decision >= 0) return m.labels[decision];
  return decision == kIndecisive ? ItemsValue(std::string("indecisive")) : kNull;
}

// JEV Eq. 1: each label's probability averaged over the unit's valid orders that carry
// probabilities (a label not given reads 0); q = the largest average. NaN when no order has any.
double order_averaged_q(const ItemMatrix& m, int32_t j, const AccuracyUnit& unit, int orders) {
  const int32_t L = m.n_labels();
  std::vector<double> mean(L, 0.0);
  int used = 0;
  for (int o = 0; o < orders; ++o) {
    const size_t c = m.cell(j, unit.item, o, unit.variant);
    if (!m.present(c) || !m.valid(c)) continue;
    const double* p = m.probs_of(c);
    if (std::all_of(p, p + L, [](double v) { return std::isnan(v); })) continue;
    for (int32_t l = 0; l < L; ++l) mean[l] += std::isnan(p[l]) ? 0.0 : p[l];
    ++used;
  }
  if (used == 0) return NAN;
  for (double& value : mean) value /= used;
  // q does not depend on gold; an item without gold (§8.1) has no gold label to score against.
  if (!m.has_gold(unit.item)) return *std::max_element(mean.begin(), mean.end());
  return score_probabilities(mean.data(), L, m.gold[unit.item]).q;
}

// Order-0 verdicts differ among the judges that have one: two or more such judges, and either
// two different verdicts or an invalid one (which matches nothing, as in `cons`).
bool order0_disagree(const std::vector<const JudgeUnits*>& facts, size_t u) {
  int present = 0;
  bool invalid = false, differ = false;
  int32_t first = kAbsent;
  for (const JudgeUnits* f : facts) {
    if (!f->present[0][u]) continue;
    const int32_t verdict = f->verdict0[u];
    if (present++ == 0) first = verdict;
    invalid = invalid || verdict == kInvalid;
    differ = differ || verdict != first;
  }
  return present >= 2 && (differ || invalid);
}

// One judge's facts on a block of units, with its q per unit (all NaN without probabilities);
// has_q: whether any unit of the whole table has a q (the judge then has a `.q` column).
struct JudgeColumns {
  int32_t judge;
  bool has_q = false;
  JudgeUnits facts;
  std::vector<double> q;
};

// Units per block: the judges' facts are about eleven doubles per unit each, so a block bounds
// them to a few MB whatever the table's size.
constexpr size_t kBlockUnits = 4096;

class ItemsTableBuilder {
 public:
  ItemsTableBuilder(const ItemMatrix& m, const Selection& sel) : m_(m), sel_(sel) {}

  int64_t stream(bool disagree_only, ItemsSink& sink) {
    Plan scratch;  // accuracy_units records clusters in a plan; the table needs none
    units_ = accuracy_units(m_, sel_, scratch);
    orders_ = sel_.orders;
    with_variant_ = sel_.variants.size() >= 2;
    with_adjudicated_ = m_.has_adjudicated;
    if (with_adjudicated_ && m_.item_adjudicated.size() != m_.items.size())
      throw std::logic_error("run_items: the matrix has an adjudicated column but no decision per item");
    for (int32_t j : sel_.judges) judges_.push_back({j, any_q(j), {}, {}});
    sink.columns(column_names());
    int64_t disagreeing = 0;
    std::vector<ItemsValue> values;
    for (size_t first = 0; first < units_.size(); first += kBlockUnits) {
      const std::vector<AccuracyUnit> block(units_.begin() + first,
                                            units_.begin() + std::min(first + kBlockUnits, units_.size()));
      // Pointers, not copies: each judge's facts are about eleven doubles per unit.
      std::vector<const JudgeUnits*> facts;
      for (JudgeColumns& judge : judges_) {
        fill_block(judge, block);
        facts.push_back(&judge.facts);
      }
      for (size_t u = 0; u < block.size(); ++u) {
        const bool disagree = order0_disagree(facts, u);
        disagreeing += disagree;
        if (disagree_only && !disagree) continue;
        row(block, u, values);
        sink.row(values);
      }
    }
    return disagreeing;
  }

 private:
  // Whether judge j has a q on any unit: the first one found decides (no probabilities: none).
  bool any_q(int32_t j) const {
    if (!m_.has_probs) return false;
    return std::any_of(units_.begin(), units_.end(),
                       [&](const AccuracyUnit& unit) { return !std::isnan(order_averaged_q(m_, j, unit, orders_)); });
  }

  void fill_block(JudgeColumns& judge, const std::vector<AccuracyUnit>& block) const {
    judge.facts = judge_units(m_, judge.judge, block, orders_, false);
    judge.q.assign(block.size(), NAN);
    if (!judge.has_q) return;
    for (size_t u = 0; u < block.size(); ++u) judge.q[u] = order_averaged_q(m_, judge.judge, block[u], orders_);
  }

  std::vector<std::string> column_names() const {
    std::vector<std::string> c{"item"};
    if (with_variant_) c.push_back("variant");
    c.insert(c.end(), {"cluster", "benchmark", "condition", "gold"});
    if (with_adjudicated_) c.push_back("adjudicated");
    for (const JudgeColumns& judge : judges_) {
      const std::string& name = m_.judges[judge.judge];
      for (int o = 0; o < orders_; ++o) {
        c.push_back(name + ".verdict" + std::to_string(o));
        c.push_back(name + ".correct" + std::to_string(o));
      }
      c.push_back(name + ".pa");
      if (judge.has_q) c.push_back(name + ".q");
      if (orders_ >= 2) c.push_back(name + ".consistent");
    }
    c.push_back("wrong0");
    return c;
  }

  // Row of unit u of the block into `out` (reused between rows).
  void row(const std::vector<AccuracyUnit>& block, size_t u, std::vector<ItemsValue>& out) const {
    const int32_t i = block[u].item;
    out.assign({m_.items[i]});
    if (with_variant_) out.push_back(m_.variants[block[u].variant]);
    out.insert(out.end(), {m_.clusters[m_.item_cluster[i]], m_.benchmarks[m_.item_benchmark[i]],
                           text_or_null(m_.conditions[m_.item_condition[i]])});
    // docs/statistics.md §8.1: an item without gold has null gold, correctness, pa and wrong0.
    const bool gold = m_.has_gold(i);
    out.push_back(gold ? ItemsValue(m_.labels[m_.gold[i]]) : kNull);
    if (with_adjudicated_) out.push_back(adjudicated_value(m_, i));
    int wrong0 = 0;
    for (const JudgeColumns& judge : judges_) {
      const JudgeUnits& f = judge.facts;
      for (int o = 0; o < orders_; ++o) {
        const size_t c = m_.cell(judge.judge, i, o, block[u].variant);
        const bool present = f.present[o][u] > 0;
        out.push_back(present ? ItemsValue(verdict_text(m_, m_.verdict[c])) : kNull);
        out.push_back(present && gold ? ItemsValue(f.correct[o][u]) : kNull);
      }
      out.push_back(f.any_present[u] > 0 && gold ? ItemsValue(f.order_mean[u]) : kNull);
      if (judge.has_q) out.push_back(std::isnan(judge.q[u]) ? kNull : ItemsValue(judge.q[u]));
      if (orders_ >= 2) out.push_back(f.complete[u] > 0 ? ItemsValue(f.consistent[u]) : kNull);
      wrong0 += f.present[0][u] > 0 && f.correct[0][u] == 0;
    }
    out.push_back(gold ? ItemsValue(static_cast<double>(wrong0)) : kNull);
  }

  const ItemMatrix& m_;
  const Selection& sel_;
  std::vector<AccuracyUnit> units_;
  std::vector<JudgeColumns> judges_;
  int orders_ = 1;
  bool with_variant_ = false, with_adjudicated_ = false;
};

// Keeps the streamed table: run_items's report.
class ItemsCollector : public ItemsSink {
 public:
  explicit ItemsCollector(ItemsReport& report) : report_(report) {}
  void columns(const std::vector<std::string>& names) override { report_.columns = names; }
  void row(const std::vector<ItemsValue>& values) override { report_.rows.push_back(values); }

 private:
  ItemsReport& report_;
};

// The selection of the options, with run_items's checks of the names and of `disagree`.
Selection items_selection(const ItemMatrix& matrix, const ItemsOptions& options) {
  std::set<std::string> named;
  for (const std::string& judge : options.judges)
    if (!named.insert(judge).second)
      throw std::invalid_argument("judges: '" + judge + "' is named twice; name each judge once");
  SelectionOptions select;
  select.judges = options.judges;
  select.benchmarks = options.benchmarks;
  select.conditions = options.conditions;
  select.variants = options.variants;
  Selection selection = select_records(matrix, select);
  if (options.disagree && selection.judges.size() < 2)
    throw std::invalid_argument("disagree: needs at least two judges to compare order-0 verdicts, and " +
                                std::to_string(selection.judges.size()) + " is selected; select two or more judges");
  return selection;
}

}  // namespace

int64_t stream_items(const ItemMatrix& matrix, const ItemsOptions& options, ItemsSink& sink) {
  const Selection selection = items_selection(matrix, options);
  return ItemsTableBuilder(matrix, selection).stream(options.disagree, sink);
}

ItemsReport run_items(const ItemMatrix& matrix, const ItemsOptions& options) {
  ItemsReport report;
  ItemsCollector collector(report);
  report.disagreeing = stream_items(matrix, options, collector);
  return report;
}

}  // namespace judgestat
