// The cascade's own labelled sets and frozen thresholds (docs/statistics.md §7.5, JEV §8–§9): the
// selection part read from an item-level column or a list of item ids instead of the seeded
// split, and a threshold fixed in advance (one, or one per benchmark) as a policy.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyses/cascade/cascade_detail.hpp"
#include "records/fields.hpp"

namespace judgestat {
namespace {

constexpr const char* kSelect = "select";
constexpr const char* kHeldout = "heldout";

// The line of an item's first record (its item-level values are checked to agree there).
int64_t first_line_of(const ItemMatrix& m, int32_t item) {
  int64_t line = std::numeric_limits<int64_t>::max();
  for (int32_t j = 0; j < m.n_judges(); ++j)
    for (int32_t o = 0; o < m.orders; ++o)
      for (int32_t v = 0; v < m.n_variants(); ++v) {
        const size_t c = m.cell(j, item, o, v);
        if (m.present(c)) line = std::min(line, m.line[c]);
      }
  return line;
}

std::string_view trimmed_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text;
}

FrozenThreshold parse_threshold(const std::string& text, const std::string& entry) {
  if (text == "all") return {"all", NAN};
  char* end = nullptr;
  const double value = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
    throw std::invalid_argument("tau: '" + entry +
                                "' is not a threshold (expected a number in [0, 1] or all, as in 0.9 or mmlu=0.9)");
  if (value < 0.0 || value > 1.0)
    throw std::invalid_argument("tau: " + text + " in '" + entry + "' is outside [0, 1]: thresholds are confidences");
  return {text, value};
}

}  // namespace

FrozenTau parse_frozen_tau(const std::vector<std::string>& entries) {
  FrozenTau tau;
  for (const std::string& entry : entries) {
    const size_t equals = entry.find('=');
    if (equals == std::string::npos) {
      if (tau.every)
        throw std::invalid_argument("tau: two thresholds for every benchmark ('" + tau.every->label + "' and '" +
                                    entry + "'); give one, and name benchmarks as mmlu=0.9");
      tau.every = parse_threshold(entry, entry);
      continue;
    }
    const std::string benchmark = entry.substr(0, equals);
    if (benchmark.empty()) throw std::invalid_argument("tau: '" + entry + "' names no benchmark before '='");
    for (const auto& named : tau.per_benchmark)
      if (named.first == benchmark)
        throw std::invalid_argument("tau: benchmark '" + benchmark + "' is given twice; give it one threshold");
    tau.per_benchmark.emplace_back(benchmark, parse_threshold(entry.substr(equals + 1), entry));
  }
  if (tau.empty()) throw std::invalid_argument("tau: give a threshold, e.g. 0.9 or mmlu=0.9,livebench=0.95");
  return tau;
}

std::vector<uint8_t> selection_from_column(const ItemMatrix& m, const CascadePool& pool, const std::string& column) {
  if (m.item_column != column || m.item_column_value.size() != static_cast<size_t>(m.n_items()))
    throw std::invalid_argument("select_column: the records were loaded without the column '" + column +
                                "' (LoadOptions::item_column)");
  for (int32_t i = 0; i < m.n_items(); ++i) {
    const std::string& value = m.item_column_value[i];
    if (value == kSelect || value == kHeldout) continue;
    throw InputError(record_location(m, first_line_of(m, i)) + ": column '" + column + "': item " +
                     loading::shown_text(m.items[i]) + " is marked " +
                     (value.empty() ? std::string("with an empty field") : loading::shown_text(value)) +
                     "; the selection column takes select (the item is labelled and chooses the threshold) or "
                     "heldout (it scores the chosen policy) on every item");
  }
  std::vector<uint8_t> selection(pool.size());
  for (int32_t i = 0; i < pool.size(); ++i) selection[i] = m.item_column_value[pool.item[i]] == kSelect;
  return selection;
}

std::vector<uint8_t> selection_from_items(const ItemMatrix& m, const CascadePool& pool, const std::string& path,
                                          SelectionSource& source) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::invalid_argument("select_items: cannot read '" + path + "'; give a file with one item id per line");
  std::unordered_map<std::string, int32_t> item_index;
  for (int32_t i = 0; i < m.n_items(); ++i) item_index.emplace(m.items[i], i);
  std::vector<int32_t> pool_position(m.n_items(), -1);
  for (int32_t i = 0; i < pool.size(); ++i) pool_position[pool.item[i]] = i;
  std::vector<uint8_t> selection(pool.size(), 0);
  std::set<int32_t> listed;
  std::string text;
  for (int64_t line = 1; std::getline(in, text); ++line) {
    std::string_view id = trimmed_line(text);
    if (line == 1 && id.substr(0, 3) == "\xEF\xBB\xBF") id.remove_prefix(3);  // a UTF-8 byte-order mark
    if (id.empty()) continue;
    const auto found = item_index.find(std::string(id));
    if (found == item_index.end())
      throw InputError(path + ":" + std::to_string(line) + ": item " + loading::shown_text(id) + " does not occur in " +
                       loading::display_name(m.path) +
                       "; list ids of its item column, one per line (names are case-sensitive)");
    if (!listed.insert(found->second).second) continue;  // listed twice: once is enough
    if (pool_position[found->second] >= 0) {
      selection[pool_position[found->second]] = 1;
    } else {
      ++source.listed_outside;
    }
  }
  source.listed = static_cast<int64_t>(listed.size());
  return selection;
}

int64_t straddling_clusters(const PoolClusters& clusters, const std::vector<uint8_t>& selection) {
  std::vector<uint8_t> parts(clusters.size(), 0);  // bit 0: a selection item, bit 1: a held-out one
  for (size_t i = 0; i < selection.size(); ++i)
    if (clusters.item_cluster[i] >= 0) parts[clusters.item_cluster[i]] |= selection[i] ? 1 : 2;
  return std::count(parts.begin(), parts.end(), 3);
}

CascadePolicy frozen_policy(const ItemMatrix& m, const CascadePool& pool, const FrozenTau& tau,
                            std::vector<std::pair<std::string, FrozenThreshold>>& applied) {
  // Pool benchmarks in first appearance, each with its τ.
  std::vector<int32_t> benchmarks;
  std::vector<int32_t> tau_of_benchmark(m.benchmarks.size(), -2);  // -2: not in the pool
  for (int32_t i = 0; i < pool.size(); ++i) {
    const int32_t b = m.item_benchmark[pool.item[i]];
    if (tau_of_benchmark[b] == -2) tau_of_benchmark[b] = -1, benchmarks.push_back(b);
  }
  std::string present;
  for (int32_t b : benchmarks) present += (present.empty() ? "" : ", ") + m.benchmarks[b];
  for (size_t k = 0; k < tau.per_benchmark.size(); ++k) {
    const std::string& name = tau.per_benchmark[k].first;
    const auto it = std::find(m.benchmarks.begin(), m.benchmarks.end(), name);
    const int32_t b = it == m.benchmarks.end() ? -1 : static_cast<int32_t>(it - m.benchmarks.begin());
    if (b < 0 || tau_of_benchmark[b] == -2)
      throw std::invalid_argument("tau: benchmark '" + name + "' is not among the analysed items' benchmarks (" +
                                  present + ")");
    tau_of_benchmark[b] = static_cast<int32_t>(k);
  }
  applied.clear();
  std::vector<FrozenThreshold> item_tau(m.benchmarks.size());
  for (int32_t b : benchmarks) {
    if (tau_of_benchmark[b] >= 0) {
      item_tau[b] = tau.per_benchmark[tau_of_benchmark[b]].second;
    } else if (tau.every) {
      item_tau[b] = *tau.every;
    } else {
      throw std::invalid_argument("tau: no threshold for benchmark '" + m.benchmarks[b] + "'; name it (" +
                                  m.benchmarks[b] + "=0.9, or " + m.benchmarks[b] +
                                  "=all to escalate it) or give a bare value for every benchmark not named");
    }
    applied.emplace_back(m.benchmarks[b], item_tau[b]);
  }
  CascadePolicy policy;
  if (tau.per_benchmark.empty()) policy.threshold = tau.every->label;
  policy.accepted.assign(pool.size(), 0);
  for (int32_t i = 0; i < pool.size(); ++i) {
    const FrozenThreshold& t = item_tau[m.item_benchmark[pool.item[i]]];
    policy.accepted[i] = !std::isnan(t.value) && pool.gate_ok[i] && pool.q[i] >= t.value;
  }
  return policy;
}

}  // namespace judgestat
