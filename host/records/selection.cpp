#include "records/selection.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "records/covariate_bins.hpp"

namespace judgestat {

namespace {

// Indices of `wanted` names in `names`; every name must exist.
std::vector<int32_t> lookup(const std::vector<std::string>& names, const std::vector<std::string>& wanted,
                            const std::string& what) {
  std::vector<int32_t> out;
  for (const auto& name : wanted) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      throw std::invalid_argument(what + ": '" + name + "' does not occur in the data (it has: " + known + ")");
    }
    out.push_back(static_cast<int32_t>(it - names.begin()));
  }
  return out;
}

bool is_covariate_key(const std::string& key) { return key.size() > 2 && key.rfind("x.", 0) == 0; }

void check_grouping(const SelectionOptions& options, size_t n_judges) {
  const std::string& key = options.strata;
  if (!key.empty() && key != "benchmark" && key != "condition" && key != "difficulty" && !is_covariate_key(key))
    throw std::invalid_argument("by: expected benchmark, condition, difficulty or a covariate x.NAME, got '" + key +
                                "'");
  if ((options.difficulty_others || !options.difficulty_bins.empty()) && key != "difficulty")
    throw std::invalid_argument(std::string(options.difficulty_others ? "difficulty_from" : "difficulty_bins") +
                                ": says how --by difficulty counts or groups, but the grouping is '" + key + "'");
  if (!options.bins.empty() && !is_covariate_key(key))
    throw std::invalid_argument("bins: cuts a numeric covariate's values into groups, so it needs --by x.NAME");
  if (key == "difficulty" && n_judges < 2 && !options.difficulty_others)
    throw std::invalid_argument(
        "by: difficulty needs at least two judges (it groups items by how many of them are wrong "
        "in order 0); select more judges or group by benchmark or condition");
  if (!options.strata_mode.empty() && options.strata_mode != "by" && options.strata_mode != "none")
    throw std::invalid_argument("strata: expected by or none, got '" + options.strata_mode + "'");
  if (!options.strata_mode.empty() && key.empty())
    throw std::invalid_argument("strata: '" + options.strata_mode +
                                "' says how groups are resampled, but no grouping is given; "
                                "add by (benchmark, condition or difficulty) or drop strata");
}

/// Per matrix item: how many selected judges are wrong on it in order 0 (docs/statistics.md
/// §7.1 difficulty). A judge's verdict is its order-0 record in the first kept variant (file
/// order) that has one; invalid and tie are wrong; a judge without such a record does not count.
std::vector<int32_t> order0_wrong(const ItemMatrix& m, const Selection& sel, const std::vector<int32_t>& judges) {
  std::vector<int32_t> variants = sel.variants;
  std::sort(variants.begin(), variants.end());
  std::vector<int32_t> wrong(m.n_items(), 0);
  for (int32_t i = 0; i < m.n_items(); ++i)
    for (int32_t j : judges)
      for (int32_t v : variants) {
        if (!m.has_gold(i)) break;  // docs/statistics.md §8.1: wrong needs gold; never `hard`
        const size_t c = m.cell(j, i, 0, v);
        if (!m.present(c)) continue;
        wrong[i] += !m.correct(c, i);
        break;
      }
  return wrong;
}

/// The judges whose order-0 errors make an item's difficulty: the selected ones, or with
/// difficulty_others the file's other judges (JEV Table 11). std::invalid_argument when none.
std::vector<int32_t> difficulty_judges(const ItemMatrix& m, const Selection& sel, const SelectionOptions& options) {
  if (!options.difficulty_others) return sel.judges;
  std::vector<int32_t> others;
  for (int32_t j = 0; j < m.n_judges(); ++j)
    if (std::find(sel.judges.begin(), sel.judges.end(), j) == sel.judges.end()) others.push_back(j);
  if (others.empty())
    throw std::invalid_argument(
        "difficulty_from: 'others' counts the judges of the file that are not analysed, and every judge is; "
        "select the compared judges with --judges");
  return others;
}

/// `--difficulty-bins`: "0,1-2,3-5" as ranges [lo, hi] of the wrong count, in the order given.
struct DifficultyBin {
  int32_t lo = 0, hi = 0;
  std::string name;
};

int32_t difficulty_count(const std::string& text, const std::string& bin) {
  size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || value < 0 || !std::isdigit(static_cast<unsigned char>(text[0])))
    throw std::invalid_argument("difficulty_bins: expected bins such as 0,1-2,3-5 (whole counts ≥ 0), got '" + bin +
                                "'");
  return value;
}

std::vector<DifficultyBin> parse_difficulty_bins(const std::string& text) {
  std::vector<DifficultyBin> bins;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string bin = text.substr(start, comma - start);
    const size_t dash = bin.find('-');
    DifficultyBin b{0, 0, bin};
    b.lo = difficulty_count(bin.substr(0, dash), bin);
    b.hi = dash == std::string::npos ? b.lo : difficulty_count(bin.substr(dash + 1), bin);
    if (b.hi < b.lo) throw std::invalid_argument("difficulty_bins: bin '" + bin + "' ends before it starts");
    for (const DifficultyBin& other : bins)
      if (b.lo <= other.hi && other.lo <= b.hi)
        throw std::invalid_argument("difficulty_bins: bins '" + other.name + "' and '" + bin + "' overlap");
    bins.push_back(b);
    start = comma + 1;
  }
  return bins;
}

/// `--by difficulty` groups items by how many judges get them wrong: every selected item needs
/// gold (docs/statistics.md §8.1).
void check_difficulty_has_gold(const ItemMatrix& m, const Selection& sel) {
  int64_t without = 0;
  for (int32_t i : sel.items) without += !m.has_gold(i);
  if (without > 0)
    throw UsageError("--by difficulty groups items by how many judges get them wrong, which needs gold, and " +
                     std::to_string(without) + " of the " + std::to_string(sel.items.size()) +
                     " selected items have none; group --by benchmark or condition, or give those items gold");
}

/// `--by x.NAME` (docs/statistics.md §8.3): per matrix item its group, and the groups' names: the
/// covariate's values (by first appearance), or with --bins its bins (ascending); an item without
/// a value is in a last group "(no value)". `sorted`: the groups are reported in id order.
struct CovariateGroups {
  std::vector<int32_t> item_group;  // per matrix item (selected ones)
  std::vector<std::string> names;   // per group id
  bool sorted = false;
};

const Covariate& covariate_named(const ItemMatrix& m, const std::string& key) {
  try {
    return m.covariate(key);
  } catch (const UsageError& error) {
    throw UsageError(std::string("--by: ") + error.what());
  }
}

/// `--difficulty-bins`: each selected item's bin of its wrong count, the bins in the order given
/// (those with items). UsageError naming the first item whose count no bin holds.
CovariateGroups difficulty_groups(const ItemMatrix& m, const SelectionOptions& options,
                                  const std::vector<int32_t>& wrong, const Selection& sel) {
  const std::vector<DifficultyBin> bins = parse_difficulty_bins(options.difficulty_bins);
  CovariateGroups out;
  out.sorted = true;
  for (const DifficultyBin& bin : bins) out.names.push_back(bin.name);
  out.item_group.assign(m.n_items(), 0);
  for (int32_t i : sel.items) {
    const auto bin = std::find_if(bins.begin(), bins.end(),
                                  [&](const DifficultyBin& b) { return b.lo <= wrong[i] && wrong[i] <= b.hi; });
    if (bin == bins.end())
      throw UsageError("--difficulty-bins " + options.difficulty_bins + ": item '" + m.items[i] + "' has " +
                       std::to_string(wrong[i]) + " judges wrong, which no bin holds; add a bin for it");
    out.item_group[i] = static_cast<int32_t>(bin - bins.begin());
  }
  return out;
}

/// The bins' edges over the selected items' values; UsageError naming --bins for a covariate
/// that is not numeric.
std::vector<double> covariate_edges(const ItemMatrix& m, const Covariate& covariate, const std::vector<int32_t>& level,
                                    const std::string& bins, const Selection& sel) {
  if (!covariate.numeric) {
    const auto text = std::find_if(covariate.levels.begin(), covariate.levels.end(), [&](const std::string& t) {
      return !std::isfinite(covariate.numbers[&t - covariate.levels.data()]);
    });
    throw UsageError(
        "--bins: x." + covariate.name + " is not numeric" +
        (text == covariate.levels.end() ? std::string(" (it has no values)") : " (it has '" + *text + "')") + " in " +
        m.path + "; drop --bins to group by its values");
  }
  const BinSpec spec = parse_bins(bins, "--bins");
  std::vector<double> values;
  for (int32_t i : sel.items)
    if (level[i] >= 0) values.push_back(covariate.numbers[level[i]]);
  return bin_edges(spec, values);
}

CovariateGroups covariate_groups(const ItemMatrix& m, const SelectionOptions& options, Selection& sel) {
  const std::string& key = options.strata;
  const Covariate& covariate = covariate_named(m, key);
  const std::vector<int32_t>& level = m.item_levels(key, "--by " + key);
  CovariateGroups out;
  out.item_group.assign(m.n_items(), -1);
  if (options.bins.empty()) {
    out.names = covariate.levels;
    out.names.push_back("(no value)");
    for (int32_t i : sel.items)
      out.item_group[i] = level[i] >= 0 ? level[i] : static_cast<int32_t>(covariate.levels.size());
    return out;
  }
  sel.bin_edges = covariate_edges(m, covariate, level, options.bins, sel);
  const auto n_bins = static_cast<int32_t>(sel.bin_edges.size()) - 1;
  for (int32_t k = 0; k < n_bins; ++k) out.names.push_back(bin_text(sel.bin_edges, k));
  out.names.push_back("(no value)");
  out.sorted = true;
  for (int32_t i : sel.items) {
    if (level[i] < 0) {
      out.item_group[i] = std::max(n_bins, 0);
      continue;
    }
    out.item_group[i] = bin_of(sel.bin_edges, covariate.numbers[level[i]]);
    if (out.item_group[i] < 0)
      throw UsageError("--bins: item '" + m.items[i] + "' has " + key + " = " + covariate.levels[level[i]] +
                       ", outside the edges " + number_text(sel.bin_edges.front()) + " to " +
                       number_text(sel.bin_edges.back()) + "; widen them (inf and -inf are allowed)");
  }
  return out;
}

/// Items that pass the filters, by first appearance among their kept records; counts the kept
/// records and orders. `keep`: per matrix item, whether the item filters let it through.
void select_items(const ItemMatrix& m, const std::vector<uint8_t>& keep, Selection& sel) {
  const int64_t never = INT64_MAX;
  std::vector<int64_t> first_line(m.n_items(), never);
  for (int32_t i = 0; i < m.n_items(); ++i) {
    if (!keep[i]) continue;
    for (int32_t j : sel.judges)
      for (int32_t o = 0; o < m.orders; ++o)
        for (int32_t v : sel.variants) {
          const size_t c = m.cell(j, i, o, v);
          if (!m.present(c)) continue;
          first_line[i] = std::min(first_line[i], m.line[c]);
          sel.orders = std::max(sel.orders, o + 1);
          ++sel.records;
          sel.invalid += m.verdict[c] == kInvalid;
        }
  }
  for (int32_t i = 0; i < m.n_items(); ++i)
    if (first_line[i] != never) sel.items.push_back(i);
  std::stable_sort(sel.items.begin(), sel.items.end(),
                   [&](int32_t a, int32_t b) { return first_line[a] < first_line[b]; });
}

/// Per matrix item, whether the benchmark, condition and hard filters keep it.
std::vector<uint8_t> kept_items(const ItemMatrix& m, const SelectionOptions& options,
                                const std::vector<int32_t>& wrong) {
  std::vector<uint8_t> benchmark_ok(m.benchmarks.size(), options.benchmarks.empty());
  for (int32_t b : lookup(m.benchmarks, options.benchmarks, "benchmarks")) benchmark_ok[b] = 1;
  std::vector<uint8_t> condition_ok(m.conditions.size(), options.conditions.empty());
  for (int32_t c : lookup(m.conditions, options.conditions, "conditions")) condition_ok[c] = 1;
  std::vector<uint8_t> keep(m.n_items());
  for (int32_t i = 0; i < m.n_items(); ++i)
    keep[i] =
        benchmark_ok[m.item_benchmark[i]] && condition_ok[m.item_condition[i]] && (!options.hard_only || wrong[i] > 0);
  return keep;
}

/// A cluster with items in two groups (stratum indices), the first one met in item order.
struct SpanningCluster {
  int32_t cluster = -1, group_a = -1, group_b = -1;
};

/// Reporting groups by first appearance (item_stratum, stratum_names); the first spanning cluster.
SpanningCluster assign_groups(const ItemMatrix& m, const SelectionOptions& options, const std::vector<int32_t>& wrong,
                              const CovariateGroups& covariate, Selection& sel) {
  auto group_of = [&](int32_t item) {
    if (!covariate.item_group.empty()) return covariate.item_group[item];
    if (options.strata == "benchmark") return m.item_benchmark[item];
    if (options.strata == "condition") return m.item_condition[item];
    if (options.strata == "difficulty") return wrong[item];
    return 0;
  };
  auto group_name = [&](int32_t group) {
    if (!covariate.item_group.empty()) return covariate.names[group];
    if (options.strata == "benchmark") return m.benchmarks[group];
    if (options.strata == "condition") return m.conditions[group];
    if (options.strata == "difficulty") return std::to_string(group);
    return std::string("all");
  };
  std::map<int32_t, int32_t> stratum_of_group;
  std::map<int32_t, int32_t> cluster_stratum;  // matrix cluster → its first item's stratum
  SpanningCluster spanning;
  sel.item_stratum.assign(m.n_items(), -1);
  if (covariate.sorted) {  // bins in ascending order, the ones with items only
    std::vector<uint8_t> used(covariate.names.size(), 0);
    for (int32_t i : sel.items) used[covariate.item_group[i]] = 1;
    for (size_t g = 0; g < used.size(); ++g)
      if (used[g]) {
        stratum_of_group.emplace(static_cast<int32_t>(g), sel.n_strata());
        sel.stratum_names.push_back(covariate.names[g]);
      }
  }
  for (int32_t i : sel.items) {
    const int32_t group = group_of(i);
    auto [found, added] = stratum_of_group.emplace(group, sel.n_strata());
    if (added) sel.stratum_names.push_back(group_name(group));
    const int32_t h = found->second;
    sel.item_stratum[i] = h;
    const auto [first, new_cluster] = cluster_stratum.emplace(m.item_cluster[i], h);
    if (!new_cluster && first->second != h && spanning.cluster < 0) spanning = {first->first, first->second, h};
  }
  return spanning;
}

/// Plan clusters by first appearance: within each reporting group when stratified, over all
/// selected items in domain mode (one stratum).
void number_clusters(const ItemMatrix& m, Selection& sel) {
  const int32_t n_strata = sel.domain ? 1 : sel.n_strata();
  std::vector<std::vector<int32_t>> stratum_clusters(n_strata);  // matrix clusters per stratum
  std::vector<int32_t> plan_cluster(m.clusters.size(), -1);
  for (int32_t i : sel.items) {
    const int32_t cluster = m.item_cluster[i];
    if (plan_cluster[cluster] >= 0) continue;
    plan_cluster[cluster] = 0;
    stratum_clusters[sel.domain ? 0 : sel.item_stratum[i]].push_back(cluster);
  }
  sel.stratum_offset.push_back(0);
  for (const auto& clusters : stratum_clusters) {
    for (int32_t c : clusters) {
      plan_cluster[c] = static_cast<int32_t>(sel.cluster_names.size());
      sel.cluster_names.push_back(m.clusters[c]);
    }
    sel.stratum_offset.push_back(static_cast<int64_t>(sel.cluster_names.size()));
  }
  sel.item_cluster.assign(m.n_items(), -1);
  for (int32_t i : sel.items) sel.item_cluster[i] = plan_cluster[m.item_cluster[i]];
}

/// Stratified or domain estimation (docs/statistics.md §2), with the note that says why.
void choose_resampling(const ItemMatrix& m, const SelectionOptions& options, const SpanningCluster& spanning,
                       Selection& sel) {
  if (sel.strata.empty()) return;
  std::string spans;
  if (spanning.cluster >= 0)
    spans = "cluster '" + m.clusters[spanning.cluster] + "' has items in two " + sel.strata + " groups ('" +
            sel.stratum_names[spanning.group_a] + "' and '" + sel.stratum_names[spanning.group_b] + "')";
  const std::string domain_estimates = "clusters are resampled over all analysed data (one stratum) and each " +
                                       sel.strata +
                                       " group's statistic is a domain estimate on these unstratified replicates";
  if (options.strata_mode == "none") {
    sel.domain = true;
    sel.strata_note =
        "--strata none asked for domain estimation: " + domain_estimates + (spans.empty() ? "" : " (" + spans + ")");
  } else if (spanning.cluster >= 0) {
    if (options.strata_mode == "by")
      throw UsageError(spans +
                       "; --strata by resamples within groups and needs each cluster inside one group; "
                       "use --strata none (or leave --strata out) to run domain estimation");
    sel.domain = true;
    sel.strata_note = spans + ", so " + domain_estimates;
  }
}

}  // namespace

Selection select_records(const ItemMatrix& m, const SelectionOptions& options) {
  Selection sel;
  if (options.judges.empty()) {
    sel.judges.resize(m.n_judges());
    std::iota(sel.judges.begin(), sel.judges.end(), 0);
  } else {
    for (const auto& name : options.judges) sel.judges.push_back(m.judge_index(name));
  }
  if (options.variants.empty()) {
    sel.variants.resize(m.n_variants());
    std::iota(sel.variants.begin(), sel.variants.end(), 0);
  } else {
    sel.variants = lookup(m.variants, options.variants, "variants");
  }
  check_grouping(options, sel.judges.size());
  const bool need_wrong = options.hard_only || options.strata == "difficulty";
  // `hard` counts the selected judges; difficulty the judges difficulty_judges names.
  const std::vector<int32_t> wrong = need_wrong ? order0_wrong(m, sel, sel.judges) : std::vector<int32_t>();
  const std::vector<int32_t> difficulty =
      options.strata == "difficulty" ? order0_wrong(m, sel, difficulty_judges(m, sel, options)) : wrong;
  select_items(m, kept_items(m, options, wrong), sel);
  if (sel.items.empty()) {
    const std::string filters = options.hard_only ? "condition and variant filters and the hard filter (items some "
                                                    "selected judge gets wrong in order 0); widen them or drop hard"
                                                  : "condition and variant filters; widen them";
    throw UsageError("the selected subset is empty: no records match the judge, benchmark, " + filters);
  }
  if (options.strata == "difficulty") check_difficulty_has_gold(m, sel);
  sel.strata = options.strata;
  const CovariateGroups covariate = is_covariate_key(options.strata)   ? covariate_groups(m, options, sel)
                                    : !options.difficulty_bins.empty() ? difficulty_groups(m, options, difficulty, sel)
                                                                       : CovariateGroups{};
  const SpanningCluster spanning = assign_groups(m, options, difficulty, covariate, sel);
  choose_resampling(m, options, spanning, sel);
  number_clusters(m, sel);
  return sel;
}

Plan plan_for(const Selection& selection) {
  Plan plan;
  plan.stratum_offset = selection.stratum_offset;
  // The resampling strata: the groups when stratified, one stratum in domain mode.
  plan.stratum_names = selection.domain ? std::vector<std::string>{"all"} : selection.stratum_names;
  plan.cluster_names = selection.cluster_names;
  return plan;
}

std::string strata_setting(const Selection& selection) {
  if (selection.strata.empty()) return "";
  return selection.domain ? "none" : selection.strata;
}

}  // namespace judgestat
