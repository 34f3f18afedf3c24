// `judgestat coverage` (judgestat/coverage.hpp): the design read from the file, the logit-normal
// simulation, and every CI method run on batches of simulated datasets (datasets as strata of one
// plan, so one bootstrap run serves a batch).
#include "judgestat/coverage.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "analyses/common/judge_validity.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/philox.hpp"
#include "judgestat/plan.hpp"

namespace judgestat {
namespace {

constexpr double kPi = 3.14159265358979323846;

double expit(double x) { return 1 / (1 + std::exp(-x)); }
double logit(double p) { return std::log(p / (1 - p)); }
// p kept half a count away from 0 and 1, so logits and the solved mu stay finite.
double inside(double p, double n) { return std::clamp(p, 0.5 / n, 1 - 0.5 / n); }

/// One-way ANOVA intracluster correlation of values grouped by cluster (groups of one value
/// add nothing within), clamped to [0, 0.95]; 0 when it is undefined.
double anova_icc(const std::vector<std::vector<double>>& groups) {
  double N = 0, total = 0, sum_n2 = 0, k = 0;
  for (const auto& g : groups) {
    if (g.empty()) continue;
    N += g.size(), sum_n2 += double(g.size()) * g.size(), k += 1;
    for (double v : g) total += v;
  }
  if (k < 2 || N <= k) return 0;
  const double mean = total / N;
  double between = 0, within = 0;
  for (const auto& g : groups) {
    if (g.empty()) continue;
    double m = 0;
    for (double v : g) m += v / g.size();
    between += g.size() * (m - mean) * (m - mean);
    for (double v : g) within += (v - m) * (v - m);
  }
  const double msb = between / (k - 1), msw = within / (N - k), n0 = (N - sum_n2 / N) / (k - 1);
  const double denominator = msb + (n0 - 1) * msw;
  if (!(denominator > 0)) return 0;
  return std::clamp((msb - msw) / denominator, 0.0, 0.95);
}

/// The model's accuracy of a judge per order, for its mu, sigma and offsets.
std::vector<double> accuracy_by_order(double mu, double sigma, const std::vector<double>& offset) {
  std::vector<double> out;
  for (double o : offset) out.push_back(normal_expectation([&](double z) { return expit(mu + sigma * z + o); }));
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x / v.size();
  return s;
}

/// mu such that the model's order-averaged accuracy is `accuracy` (bisection; it is monotone).
double solve_mu(double accuracy, double sigma, const std::vector<double>& offset) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mean_of(accuracy_by_order(mid, sigma, offset)) < accuracy ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

struct FileJudge {
  double right = 0, units = 0;
  std::vector<double> right_by_order, units_by_order;
  std::vector<std::vector<double>> by_cluster;  // correctness of its present units per cluster
};

/// One judge's counts on the file (first variant, every order; absent cells skipped).
FileJudge read_judge(const ItemMatrix& m, int32_t j, const std::vector<int32_t>& cluster_of_item, int64_t n_clusters) {
  FileJudge f;
  f.right_by_order.assign(m.orders, 0);
  f.units_by_order.assign(m.orders, 0);
  f.by_cluster.resize(n_clusters);
  for (int32_t i = 0; i < m.n_items(); ++i)
    for (int32_t o = 0; o < m.orders; ++o) {
      const size_t cell = m.cell(j, i, o, 0);
      if (!m.present(cell)) continue;
      const double y = m.correct(cell, i) ? 1.0 : 0.0;
      f.right += y, f.units += 1, f.right_by_order[o] += y, f.units_by_order[o] += 1;
      f.by_cluster[cluster_of_item[i]].push_back(y);
    }
  return f;
}

CoverageJudge model_judge(const std::string& name, const FileJudge& f, int orders, double icc_override) {
  if (f.units == 0) throw UsageError("coverage: judge '" + name + "' has no records in the first variant");
  CoverageJudge judge;
  judge.name = name;
  judge.accuracy = f.right / f.units;
  judge.icc = icc_override >= 0 ? std::min(icc_override, 0.95) : anova_icc(f.by_cluster);
  judge.offset.assign(orders, 0.0);
  if (orders == 2 && f.units_by_order[0] > 0 && f.units_by_order[1] > 0) {
    judge.order_effect = logit(inside(f.right_by_order[1] / f.units_by_order[1], f.units_by_order[1])) -
                         logit(inside(f.right_by_order[0] / f.units_by_order[0], f.units_by_order[0]));
    judge.offset = {-judge.order_effect / 2, judge.order_effect / 2};
  }
  judge.sigma = std::sqrt(judge.icc / (1 - judge.icc) * kPi * kPi / 3);
  judge.mu = solve_mu(inside(judge.accuracy, f.units), judge.sigma, judge.offset);
  judge.truth_by_order = accuracy_by_order(judge.mu, judge.sigma, judge.offset);
  return judge;
}

double truth_of(const CoverageJudge& judge) { return mean_of(judge.truth_by_order); }

}  // namespace

double normal_expectation(const std::function<double(double)>& f) {
  constexpr int kPanels = 20000;
  constexpr double a = -10, b = 10, h = (b - a) / kPanels;
  double sum = 0;
  for (int i = 0; i <= kPanels; ++i) {
    const double z = a + i * h;
    const double w = (i == 0 || i == kPanels) ? 1 : (i % 2 ? 4 : 2);
    sum += w * f(z) * std::exp(-0.5 * z * z);
  }
  return sum * h / 3 / std::sqrt(2 * kPi);
}

int64_t CoverageDesign::n_units() const {
  int64_t items = 0;
  for (int32_t n : cluster_items) items += n;
  return items * orders;
}

CoverageDesign coverage_design(const ItemMatrix& m, const std::vector<std::string>& judges, double icc) {
  if (judges.empty()) throw UsageError("coverage: --judges names the judges to simulate (comma-separated)");
  // Clusters by first appearance; each cluster's benchmark, or one stratum when one spans two.
  std::vector<int32_t> file_cluster_index(m.clusters.size(), -1), cluster_benchmark;
  std::vector<int32_t> order_of_cluster, items_in;
  bool spans = false;
  for (int32_t i = 0; i < m.n_items(); ++i) {
    int32_t& index = file_cluster_index[m.item_cluster[i]];
    if (index < 0) {
      index = static_cast<int32_t>(cluster_benchmark.size());
      cluster_benchmark.push_back(m.item_benchmark[i]);
      items_in.push_back(0);
    }
    spans = spans || cluster_benchmark[index] != m.item_benchmark[i];
    ++items_in[index];
  }
  CoverageDesign design;
  design.orders = m.orders;
  std::map<int32_t, int32_t> stratum_of_benchmark;  // in first-appearance order below
  std::vector<std::vector<int32_t>> members;
  for (size_t c = 0; c < cluster_benchmark.size(); ++c) {
    const int32_t key = spans ? 0 : cluster_benchmark[c];
    if (!stratum_of_benchmark.count(key)) {
      stratum_of_benchmark[key] = static_cast<int32_t>(members.size());
      members.emplace_back();
      design.stratum_names.push_back(spans ? "all" : m.benchmarks[key]);
    }
    members[stratum_of_benchmark[key]].push_back(static_cast<int32_t>(c));
  }
  // Stratum-major cluster numbers for the simulation.
  std::vector<int32_t> simulated(cluster_benchmark.size());
  for (const auto& stratum : members) {
    design.stratum_clusters.push_back(static_cast<int64_t>(stratum.size()));
    for (int32_t c : stratum) {
      simulated[c] = static_cast<int32_t>(design.cluster_items.size());
      design.cluster_items.push_back(items_in[c]);
    }
  }
  std::vector<int32_t> cluster_of_item(m.n_items());
  for (int32_t i = 0; i < m.n_items(); ++i) cluster_of_item[i] = simulated[file_cluster_index[m.item_cluster[i]]];
  for (const std::string& name : judges)
    design.judges.push_back(
        model_judge(name, read_judge(m, m.judge_index(name), cluster_of_item, design.n_clusters()), m.orders, icc));
  return design;
}

std::vector<uint8_t> simulate_dataset(const CoverageDesign& design, uint64_t seed, uint32_t dataset) {
  const PhiloxKey key(seed);
  const int64_t C = design.n_clusters(), U = design.n_units();
  std::vector<double> z(C);
  for (int64_t c = 0; c < C; ++c) {
    const double u1 = (static_cast<double>(draw_word(key, 2 * c, dataset, kCoverageStream)) + 1.0) * 0x1p-32;
    const double u2 = static_cast<double>(draw_word(key, 2 * c + 1, dataset, kCoverageStream)) * 0x1p-32;
    z[c] = std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * kPi * u2);
  }
  std::vector<uint8_t> right(design.judges.size() * U);
  for (size_t j = 0; j < design.judges.size(); ++j) {
    const CoverageJudge& judge = design.judges[j];
    int64_t u = 0;
    for (int64_t c = 0; c < C; ++c)
      for (int32_t item = 0; item < design.cluster_items[c]; ++item)
        for (int32_t o = 0; o < design.orders; ++o, ++u) {
          const double p = expit(judge.mu + judge.sigma * z[c] + judge.offset[o]);
          const uint64_t d = static_cast<uint64_t>(2 * C + static_cast<int64_t>(j) * U + u);
          right[j * U + u] = (static_cast<double>(draw_word(key, d, dataset, kCoverageStream)) + 0.5) * 0x1p-32 < p;
        }
  }
  return right;
}

namespace {

/// Datasets [first, first + K) as strata-blocks of one plan: dataset k owns strata
/// [k·H, (k + 1)·H) and its own count and correctness columns; per dataset the statistics are
/// acc per judge, then diff of each later judge against the first.
Plan batch_plan(const CoverageDesign& design, const std::vector<std::vector<uint8_t>>& data) {
  const int64_t C = design.n_clusters(), U = design.n_units();
  const auto J = static_cast<int32_t>(design.judges.size());
  Plan plan;
  plan.stratum_offset = {0};
  plan.stratum_names.clear();
  for (size_t k = 0; k < data.size(); ++k)
    for (size_t h = 0; h < design.stratum_clusters.size(); ++h) {
      plan.stratum_offset.push_back(plan.stratum_offset.back() + design.stratum_clusters[h]);
      plan.stratum_names.push_back(std::to_string(k) + "/" + design.stratum_names[h]);
    }
  for (size_t k = 0; k < data.size(); ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int32_t n = 0; n < design.cluster_items[c] * design.orders; ++n)
        plan.unit_cluster.push_back(static_cast<int32_t>(k * C + c));
  for (size_t k = 0; k < data.size(); ++k) {
    const int32_t count = plan.add_column("n" + std::to_string(k));
    std::vector<int32_t> right(J);
    for (int32_t j = 0; j < J; ++j) right[j] = plan.add_column("r" + std::to_string(k) + "_" + std::to_string(j));
    for (int64_t u = 0; u < U; ++u) {
      plan.columns[count].set(k * U + u, 1);
      for (int32_t j = 0; j < J; ++j) plan.columns[right[j]].set(k * U + u, data[k][j * U + u]);
    }
    for (int32_t j = 0; j < J; ++j)
      plan.statistics.push_back({{"acc", design.judges[j].name}, ratio_program(right[j], count)});
    for (int32_t j = 1; j < J; ++j) {
      StatisticDef diff{{"diff", design.judges[j].name},
                        difference_program(ratio_program(right[j], count), ratio_program(right[0], count))};
      diff.label.reference = design.judges[0].name;
      plan.statistics.push_back(diff);
    }
  }
  return plan;
}

// Datasets per plan. A replicate adds every column for every drawn cluster, so a batch of K costs
// K² per replicate where K separate runs cost K: a few datasets share a run's fixed costs (and a
// device's launch), and the plan's columns (K² · U · (J + 1) values) stay within 8 million. The
// size depends on the design only, so every backend draws the same replicates.
uint64_t batch_size(const CoverageDesign& design, uint64_t datasets) {
  constexpr uint64_t kMaxBatch = 4;
  const double per = static_cast<double>(design.n_units()) * (design.judges.size() + 1);
  const uint64_t fits = static_cast<uint64_t>(std::sqrt(8e6 / per));
  return std::clamp<uint64_t>(std::min(fits, kMaxBatch), 1, std::max<uint64_t>(datasets, 1));
}

}  // namespace

std::vector<StatLabel> coverage_labels(const CoverageDesign& design, size_t datasets) {
  const auto J = static_cast<int32_t>(design.judges.size());
  std::vector<StatLabel> labels;
  for (size_t k = 0; k < datasets; ++k)
    for (int32_t s = 0; s < 2 * J - 1; ++s) {
      StatLabel label;
      label.name = s < J ? "acc" : "diff";
      label.judge = design.judges[s < J ? s : s - J + 1].name;
      if (s >= J) {
        label.reference = design.judges[0].name;
        label.of = "acc";
      }
      labels.push_back(label);
    }
  return labels;
}

CoverageReport run_coverage(const ItemMatrix& input, const CoverageOptions& options, const ExecTarget& target) {
  // docs/statistics.md §8.1: coverage needs gold; items without it are left out, with a note.
  int64_t items_analysed = 0, without_gold = 0;
  const std::optional<ItemMatrix> gold_only = gold_items_for(input, "coverage", items_analysed, without_gold);
  const ItemMatrix& matrix = gold_only ? *gold_only : input;
  if (options.datasets < 1) throw std::invalid_argument("datasets: need at least 1");
  if (options.methods.empty()) throw std::invalid_argument("methods: name at least one CI method");
  const auto start = std::chrono::steady_clock::now();
  CoverageReport report;
  report.options = options;
  report.design = coverage_design(matrix, options.judges, options.icc);
  const CoverageDesign& design = report.design;
  for (const CoverageJudge& judge : design.judges)
    report.validity.push_back(judge_validity(matrix, {matrix.judge_index(judge.name)}).front());
  set_gold_counts(report.validity, items_analysed, without_gold, "");
  const auto J = static_cast<int32_t>(design.judges.size());
  const int32_t per_dataset = 2 * J - 1;
  std::vector<double> truth;
  for (int32_t j = 0; j < J; ++j) truth.push_back(truth_of(design.judges[j]));
  for (int32_t j = 1; j < J; ++j) truth.push_back(truth_of(design.judges[j]) - truth_of(design.judges[0]));
  for (int32_t s = 0; s < per_dataset; ++s)
    for (CiMethod method : options.methods) {
      CoverageCell cell;
      cell.statistic = s < J ? "acc" : "diff";
      cell.judge = design.judges[s < J ? s : s - J + 1].name;
      if (s >= J) cell.reference = design.judges[0].name;
      cell.method = method;
      cell.truth = truth[s];
      report.cells.push_back(cell);
    }
  std::vector<double> width_sum(report.cells.size(), 0.0);

  auto backend = make_backend(target);
  report.backend = backend->name();
  report.device = backend->device();
  const uint64_t K = batch_size(design, options.datasets);
  for (uint64_t first = 0, batch = 0; first < options.datasets; first += K, ++batch) {
    std::vector<std::vector<uint8_t>> data;
    for (uint64_t k = first; k < std::min(options.datasets, first + K); ++k)
      data.push_back(simulate_dataset(design, options.bootstrap.seed, static_cast<uint32_t>(k)));
    const CompiledPlan plan = compile(batch_plan(design, data));
    const std::vector<StatLabel> labels = coverage_labels(design, data.size());
    for (size_t m = 0; m < options.methods.size(); ++m) {
      BootstrapOptions boot = options.bootstrap;
      boot.ci = options.methods[m];
      boot.keep_replicates = false;
      boot.progress = nullptr;
      // Batches draw their bootstrap from different keys, so datasets k and k + K share no draws.
      boot.seed = options.bootstrap.seed + 0x9E3779B97F4A7C15ull * (batch + 1);
      const BootstrapResult result = run_bootstrap(plan, labels, *backend, boot);
      for (size_t k = 0; k < data.size(); ++k)
        for (int32_t s = 0; s < per_dataset; ++s) {
          const size_t at = static_cast<size_t>(s) * options.methods.size() + m;
          const Interval& interval = result.intervals[k * per_dataset + s];
          CoverageCell& cell = report.cells[at];
          ++cell.datasets;
          if (!(std::isfinite(interval.lo) && std::isfinite(interval.hi))) {
            ++cell.null_intervals;
            continue;
          }
          cell.covered += interval.lo <= cell.truth && cell.truth <= interval.hi;
          width_sum[at] += interval.hi - interval.lo;
        }
    }
    if (options.bootstrap.progress) options.bootstrap.progress(first + data.size(), options.datasets);
  }
  for (size_t i = 0; i < report.cells.size(); ++i) {
    CoverageCell& cell = report.cells[i];
    const double n = static_cast<double>(cell.datasets);
    cell.coverage = cell.covered / n;
    cell.mc_se = std::sqrt(cell.coverage * (1 - cell.coverage) / n);
    const double defined = n - static_cast<double>(cell.null_intervals);
    cell.mean_width = defined > 0 ? width_sum[i] / defined : std::numeric_limits<double>::quiet_NaN();
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace judgestat
