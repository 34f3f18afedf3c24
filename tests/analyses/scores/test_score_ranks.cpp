// Rank statistics of score judges past 32 levels (issue 28 item 2; docs/statistics.md §8.2):
// Spearman's ρ, Kendall's τ_b, ordinal Krippendorff's α and Kendall's W on a 1–100 scale with more
// than 60 distinct scores, each against its plain formula written here, on the data and on
// bootstrap replicates: a replicate's value is the formula on the replicate's reweighted data
// (every item repeated as often as its cluster was drawn), the draws made here from the seed as
// docs/statistics.md §2 defines them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/metrics/metrics_plan.hpp"
#include "analyses/scores/scores_plan.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/metrics.hpp"
#include "judgestat/philox.hpp"
#include "plain_correlations.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// 90 items in 30 clusters of three on a 1–100 scale: gold takes 63 distinct values, judge J rounds
// to fives (20 levels, many ties), judge K adds small noise (79 levels); J and K pooled take 83.
struct Scores {
  std::vector<double> gold, j, k;
};

Scores make_scores() {
  Scores s;
  for (int i = 0; i < 90; ++i) {
    const double g = 1 + ((i * 37) % 98) / 3 * 3 + (i % 2) * 2;  // 63 distinct values
    s.gold.push_back(g);
    s.j.push_back(std::clamp(5 * std::round((g + (i % 11) - 5) / 5), 5.0, 100.0));
    s.k.push_back(std::clamp(g + (i * 13) % 9 - 4, 1.0, 100.0));
  }
  return s;
}

std::string scores_csv(const Scores& s) {
  std::ostringstream csv;
  csv << "judge,item,cluster,gold,verdict\n";
  for (const auto& [judge, scores] : {std::pair{"J", &s.j}, std::pair{"K", &s.k}})
    for (size_t i = 0; i < scores->size(); ++i)
      csv << judge << ",i" << i << ",c" << i / 3 << "," << s.gold[i] << "," << (*scores)[i] << "\n";
  return csv.str();
}

size_t distinct(const std::vector<double>& v) { return std::set<double>(v.begin(), v.end()).size(); }

// ---- Plain formulas on a sample where item i counts w[i] times ----

std::vector<double> repeated(const std::vector<double>& v, const std::vector<int>& w) {
  std::vector<double> out;
  for (size_t i = 0; i < v.size(); ++i) out.insert(out.end(), w[i], v[i]);
  return out;
}

using plain_formulas::average_ranks;
using plain_formulas::pearson;
using plain_formulas::spearman;

// Kendall's τ_b by counting pairs.
double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  double concordant = 0, discordant = 0, tied_x = 0, tied_y = 0, pairs = 0;
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i + 1; j < x.size(); ++j) {
      const double s = (x[i] - x[j]) * (y[i] - y[j]);
      concordant += s > 0, discordant += s < 0, tied_x += x[i] == x[j], tied_y += y[i] == y[j], ++pairs;
    }
  return (concordant - discordant) / std::sqrt((pairs - tied_x) * (pairs - tied_y));
}

// Krippendorff's ordinal α of two raters on every unit, by the coincidence matrix (Krippendorff
// 2011, §C): o_ck counts each unit's ordered pairs of values (m_u − 1 = 1), n_c the values;
// δ_ck = Σ_{g=c..k} n_g − (n_c + n_k)/2; α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck.
double ordinal_alpha(const std::vector<double>& a, const std::vector<double>& b) {
  std::map<std::pair<double, double>, double> o;
  std::map<double, double> n_c;
  for (size_t u = 0; u < a.size(); ++u) ++o[{a[u], b[u]}], ++o[{b[u], a[u]}], ++n_c[a[u]], ++n_c[b[u]];
  auto delta2 = [&](double c, double k) {
    const double lo = std::min(c, k), hi = std::max(c, k);
    double d = -(n_c[lo] + n_c[hi]) / 2;
    for (const auto& [value, count] : n_c)
      if (value >= lo && value <= hi) d += count;
    return d * d;
  };
  const double n = 2.0 * double(a.size());
  double observed = 0, expected = 0;
  for (const auto& [ck, count] : o) observed += count * delta2(ck.first, ck.second);
  for (const auto& [c, nc] : n_c)
    for (const auto& [k, nk] : n_c) expected += nc * nk * delta2(c, k);
  return 1 - (n - 1) * observed / expected;
}

// Kendall's W of m raters with ties: 12 S / (m²(n³ − n) − m Σ (t³ − t)) from average ranks.
double kendall_w(const std::vector<std::vector<double>>& raters) {
  const double m = double(raters.size()), n = double(raters[0].size());
  std::vector<double> rank_sums(raters[0].size(), 0.0);
  double ties = 0;
  for (const auto& rater : raters) {
    const std::vector<double> r = average_ranks(rater);
    for (size_t i = 0; i < r.size(); ++i) rank_sums[i] += r[i];
    std::map<double, double> t;
    for (double v : rater) ++t[v];
    for (const auto& [value, count] : t) ties += count * count * count - count;
  }
  double s = 0;
  for (double r : rank_sums) s += (r - m * (n + 1) / 2) * (r - m * (n + 1) / 2);
  return 12 * s / (m * m * (n * n * n - n) - m * ties);
}

ItemMatrix scored_matrix(const Scores& s) {
  LoadOptions load;
  load.scale = ScoreScale{1, 100};
  return load_item_matrix(write_temp("ranks_1_100.csv", scores_csv(s)), load);
}

MetricsOptions rank_options() {
  MetricsOptions options;
  options.raters = {"J", "K"};
  options.scores.alpha_level = AlphaLevel::kOrdinal;
  return options;
}

int32_t statistic(const Plan& plan, const std::string& name, const std::string& judge) {
  for (size_t s = 0; s < plan.statistics.size(); ++s)
    if (plan.statistics[s].label.name == name && plan.statistics[s].label.judge == judge &&
        !plan.statistics[s].label.of)
      return static_cast<int32_t>(s);
  ADD_FAILURE() << "no " << name << " of " << judge;
  return -1;
}

// The plain formulas of the five statistics on the items weighted by `w`.
std::map<std::string, double> formulas(const Scores& s, const std::vector<int>& w) {
  const std::vector<double> gold = repeated(s.gold, w), j = repeated(s.j, w), k = repeated(s.k, w);
  return {{"spearman J", spearman(gold, j)},
          {"spearman K", spearman(gold, k)},
          {"kendall_tau_b J", kendall_tau_b(gold, j)},
          {"kendall_tau_b K", kendall_tau_b(gold, k)},
          {"krippendorff_alpha J,K", ordinal_alpha(j, k)},
          {"kendall_w J,K", kendall_w({j, k})}};
}

const std::vector<std::pair<std::string, std::string>> kChecked = {{"spearman", "J"},
                                                                   {"spearman", "K"},
                                                                   {"kendall_tau_b", "J"},
                                                                   {"kendall_tau_b", "K"},
                                                                   {"krippendorff_alpha", "J,K"},
                                                                   {"kendall_w", "J,K"}};

}  // namespace

TEST(ScoreRanks, SixtyAndMoreLevelsMatchThePlainFormulas) {
  const Scores s = make_scores();
  ASSERT_GE(distinct(s.gold), 60u);
  ASSERT_LT(distinct(s.j), distinct(s.gold));  // ρ's rank terms on the judge's side for J, on gold's for K
  ASSERT_GT(distinct(s.k), distinct(s.gold));
  const ItemMatrix m = scored_matrix(s);
  const MetricsPlan built = build_scores_run_plan(m, select_records(m, SelectionOptions{}), rank_options());
  for (const std::string& note : built.notes) EXPECT_EQ(note.find("left out"), std::string::npos) << note;
  const std::vector<double> point = point_estimates(built.plan);
  const std::map<std::string, double> want = formulas(s, std::vector<int>(s.gold.size(), 1));
  for (const auto& [name, judge] : kChecked) {
    const int32_t k = statistic(built.plan, name, judge);
    ASSERT_GE(k, 0);
    EXPECT_NEAR(point[k], want.at(name + " " + judge), 1e-12) << name << " " << judge;
  }
}

// Each replicate re-ranks its own sample: on 20 replicates the statistics equal the formulas on
// the items repeated by their cluster's multiplicity (stratum h, draw d of replicate r picks
// cluster offset_h + scale_to(word(seed; d, r, h), size_h)).
TEST(ScoreRanks, AReplicateIsTheFormulaOnItsReweightedData) {
  const Scores s = make_scores();
  const ItemMatrix m = scored_matrix(s);
  const MetricsPlan built = build_scores_run_plan(m, select_records(m, SelectionOptions{}), rank_options());
  const CompiledPlan compiled = compile(built.plan);
  const int B = 20, S = compiled.n_statistics;
  const uint64_t seed = 2028;
  std::vector<double> got(static_cast<size_t>(B) * S);
  make_cpu_backend(2)->run_replicates(compiled, seed, 0, B, got.data());
  for (int r = 0; r < B; ++r) {
    std::vector<int> cluster_draws(compiled.n_clusters, 0);
    for (int h = 0; h < compiled.n_strata(); ++h) {
      const int64_t offset = compiled.stratum_offset[h];
      const auto size = static_cast<uint32_t>(compiled.stratum_offset[h + 1] - offset);
      for (uint32_t d = 0; d < size; ++d) ++cluster_draws[offset + scale_to(draw_word(PhiloxKey(seed), d, r, h), size)];
    }
    std::vector<int> w(s.gold.size(), 0);
    for (size_t u = 0; u < built.units.size(); ++u) {
      const std::string& item = m.items[built.units[u].item];
      w[std::stoul(item.substr(1))] = cluster_draws[built.plan.unit_cluster[u]];
    }
    const std::map<std::string, double> want = formulas(s, w);
    for (const auto& [name, judge] : kChecked) {
      const int32_t k = statistic(built.plan, name, judge);
      ASSERT_GE(k, 0);
      EXPECT_NEAR(got[size_t(r) * S + k], want.at(name + " " + judge), 1e-12)
          << name << " " << judge << ", replicate " << r;
    }
  }
}

// Same seed, one or three threads: the replicates of the rank statistics are bit-identical.
TEST(ScoreRanks, SameSeedIsBitIdenticalAcrossThreads) {
  const Scores s = make_scores();
  const ItemMatrix m = scored_matrix(s);
  const CompiledPlan compiled =
      compile(build_scores_run_plan(m, select_records(m, SelectionOptions{}), rank_options()).plan);
  const int B = 64;
  std::vector<double> one(static_cast<size_t>(B) * compiled.n_statistics), three(one.size());
  make_cpu_backend(1)->run_replicates(compiled, 7, 0, B, one.data());
  make_cpu_backend(3, 5)->run_replicates(compiled, 7, 0, B, three.data());
  EXPECT_EQ(0, std::memcmp(one.data(), three.data(), one.size() * sizeof(double)));
}
