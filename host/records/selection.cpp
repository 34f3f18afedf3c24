#include "records/selection.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

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
  std::vector<uint8_t> benchmark_ok(m.benchmarks.size(), options.benchmarks.empty());
  for (int32_t b : lookup(m.benchmarks, options.benchmarks, "benchmarks")) benchmark_ok[b] = 1;
  std::vector<uint8_t> condition_ok(m.conditions.size(), options.conditions.empty());
  for (int32_t c : lookup(m.conditions, options.conditions, "conditions")) condition_ok[c] = 1;

  // First appearance of each item among the records kept.
  const int64_t never = INT64_MAX;
  std::vector<int64_t> first_line(m.n_items(), never);
  for (int32_t i = 0; i < m.n_items(); ++i) {
    if (!benchmark_ok[m.item_benchmark[i]] || !condition_ok[m.item_condition[i]]) continue;
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
  if (sel.items.empty())
    throw UsageError(
        "the selected subset is empty: no records match the judge, benchmark, "
        "condition and variant filters; widen them");
  std::stable_sort(sel.items.begin(), sel.items.end(),
                   [&](int32_t a, int32_t b) { return first_line[a] < first_line[b]; });

  // Strata by first appearance; clusters by first appearance within their stratum.
  sel.strata = options.strata;
  if (!options.strata.empty() && options.strata != "benchmark" && options.strata != "condition")
    throw std::invalid_argument("by: expected benchmark or condition, got '" + options.strata + "'");
  auto group_of = [&](int32_t item) {
    if (options.strata == "benchmark") return m.item_benchmark[item];
    if (options.strata == "condition") return m.item_condition[item];
    return 0;
  };
  const std::vector<std::string>& group_names = options.strata == "benchmark"   ? m.benchmarks
                                                : options.strata == "condition" ? m.conditions
                                                                                : std::vector<std::string>{"all"};
  std::map<int32_t, int32_t> stratum_of_group;
  std::vector<std::vector<int32_t>> stratum_clusters;  // matrix cluster ids per stratum
  std::map<int32_t, int32_t> cluster_stratum;          // matrix cluster → stratum
  for (int32_t i : sel.items) {
    const int32_t group = group_of(i);
    auto [git, new_group] = stratum_of_group.emplace(group, static_cast<int32_t>(stratum_clusters.size()));
    if (new_group) {
      stratum_clusters.emplace_back();
      sel.stratum_names.push_back(group_names.empty() ? "all" : group_names[group]);
    }
    const int32_t h = git->second;
    const int32_t cluster = m.item_cluster[i];
    auto [cit, new_cluster] = cluster_stratum.emplace(cluster, h);
    if (new_cluster) {
      stratum_clusters[h].push_back(cluster);
    } else if (cit->second != h) {
      throw UsageError("cluster '" + m.clusters[cluster] + "' has items in two " + options.strata + " groups ('" +
                       sel.stratum_names[cit->second] + "' and '" + sel.stratum_names[h] +
                       "'); a stratified bootstrap needs each cluster "
                       "inside one group");
    }
  }
  std::map<int32_t, int32_t> plan_cluster;
  sel.stratum_offset.push_back(0);
  for (const auto& clusters : stratum_clusters) {
    for (int32_t c : clusters) {
      plan_cluster[c] = static_cast<int32_t>(sel.cluster_names.size());
      sel.cluster_names.push_back(m.clusters[c]);
    }
    sel.stratum_offset.push_back(static_cast<int64_t>(sel.cluster_names.size()));
  }
  sel.item_cluster.assign(m.n_items(), -1);
  sel.item_stratum.assign(m.n_items(), -1);
  for (int32_t i : sel.items) {
    sel.item_cluster[i] = plan_cluster[m.item_cluster[i]];
    sel.item_stratum[i] = stratum_of_group[group_of(i)];
  }
  return sel;
}

Plan plan_for(const Selection& selection) {
  Plan plan;
  plan.stratum_offset = selection.stratum_offset;
  plan.stratum_names = selection.stratum_names;
  plan.cluster_names = selection.cluster_names;
  return plan;
}

}  // namespace judgestat
