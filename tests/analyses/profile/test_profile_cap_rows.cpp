// The CAP rows of issue 30 on a hand-built file whose answers this test computes by the paper's
// rules: Table 6's Mean over C1≈, C2≈, C7 and the largest channel, Table 17's L1 summed over the
// same cells, §4.1's cross-judge spread, §5's per-cell differences and Table 16's mean |Δ|,
// Table 19's judge-set mean and ranks, Tables 13/14's ρ summaries, App. C's Pearson r, the
// Hard-Empirical subset (Table 3), `invalid: exclude` (Table 20) and the radar's CIs; every new
// statistic has the same replicates on one thread as on several with small chunks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analyses/profile/profile_detail.hpp"
#include "analyses/profile/spearman.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/bootstrap.hpp"
#include "judgestat/exec_target.hpp"
#include "judgestat/profile.hpp"
#include "report/report_from_json.hpp"
#include "test_support.hpp"

using namespace judgestat;
using judgestat::testing_support::write_temp;
using Kind = ProfileStat::Kind;

namespace {

const std::vector<std::string> kJudges{"J1", "J2", "J3", "J4"};
const std::vector<std::string> kBenchmarks{"JB", "JBP"};
constexpr int kItems = 12;  // per benchmark: items 0–5 factual, 6–11 logical

// Whether judge j is correct on item i of benchmark b in order o: a fixed pattern that gives the
// judges different profiles on the two benchmarks.
bool correct(int j, int b, int i, int o) { return ((i * 7 + j * 3 + b * 5 + o * 2 + i * j * (b + 1)) % (4 + b)) < 3; }

std::string hand_csv(bool with_invalid) {
  std::ostringstream csv;
  csv << "judge,item,gold,verdict,order,variant,benchmark,condition\n";
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < kItems; ++i)
        for (int o = 0; o < 2; ++o) {
          const char* gold = i % 2 ? "B" : "A";
          const char* wrong = i % 2 ? "A" : "B";
          // With invalid: J1's order-1 verdict on JB item 0 is empty (a failed call).
          const bool invalid = with_invalid && b == 0 && j == 0 && i == 0 && o == 1;
          csv << kJudges[j] << "," << kBenchmarks[b] << i << "," << gold << ","
              << (invalid               ? ""
                  : correct(j, b, i, o) ? gold
                                        : wrong)
              << "," << o << ",plain," << kBenchmarks[b] << "," << (i < 6 ? "factual" : "logical") << "\n";
        }
  return csv.str();
}

const char* kConfig = R"({"benchmarks": [
  {"name": "JB", "records": {"benchmark": "JB"}, "conditions": {
    "C1": {"status": "approx", "condition": "factual"}, "C2": {"status": "approx", "condition": "logical"},
    "C7": {"status": "direct"}}},
  {"name": "JBP", "records": {"benchmark": "JBP"}, "conditions": {
    "C1": {"status": "approx", "condition": "factual"}, "C2": {"status": "approx", "condition": "logical"},
    "C7": {"status": "direct"}}}],
  "families": {"F": ["J1", "J2"], "G": ["J3", "J4"], "sum_over": ["C1", "C2", "C7"]},
  "stress": [{"from": "JB", "to": "JBP", "mean_over": ["C1", "C2", "C7"]}],
  "differences": {"reference": "J1"},
  "judge_sets": {"S": ["J2", "J3", "J4"]},
  "bias_correction": []})";

// The paper's rules on the pattern: PA over the subset's items (C1 factual, C2 logical, overall
// all), both-correct over the orders (C7). NaN for an unknown cell.
double by_paper(int j, int b, const std::string& cell, bool hard = false) {
  double sum = 0;
  int n = 0;
  for (int i = 0; i < kItems; ++i) {
    if (cell == "C1" && i >= 6) continue;
    if (cell == "C2" && i < 6) continue;
    if (hard) {  // Hard-Empirical: some judge wrong in order 0
      bool any_wrong = false;
      for (int k = 0; k < 4; ++k) any_wrong = any_wrong || !correct(k, b, i, 0);
      if (!any_wrong) continue;
    }
    sum +=
        cell == "C7" ? (correct(j, b, i, 0) && correct(j, b, i, 1)) : (correct(j, b, i, 0) + correct(j, b, i, 1)) / 2.0;
    ++n;
  }
  return sum / n;
}

ProfileReport run_hand(const std::string& csv_name, bool with_invalid, const std::string& config_text,
                       ProfileOptions options = {}) {
  const ItemMatrix m = load_item_matrix(write_temp(csv_name, hand_csv(with_invalid)));
  options.config = parse_profile_config(config_text, "inline");
  options.bootstrap.replicates = 200;
  options.bootstrap.seed = 3;
  ExecTarget target;
  target.kind = ExecTarget::Kind::kCpu;
  target.threads = 1;
  return run_profile(m, options, target);
}

double value(const ProfileReport& r, Kind kind, int32_t b, int32_t judge, const std::string& c,
             const std::string& group = "", int32_t to = -1) {
  const int32_t s = r.plan.find(kind, b, judge, c, group, to);
  return s < 0 ? NAN : r.result.intervals[s].estimate;
}

}  // namespace

TEST(ProfileCapRows, StressMeanOverMixedCellsAndLargestChannel) {
  const ProfileReport r = run_hand("cap_rows.csv", false, kConfig);
  for (int j = 0; j < 4; ++j) {
    double mean = 0, largest = -1;
    std::string channel;
    for (const std::string c : {"C1", "C2", "C7"}) {
      const double delta = by_paper(j, 0, c) - by_paper(j, 1, c);
      EXPECT_NEAR(value(r, Kind::kStress, 0, j, c, "", 1), delta, 1e-12) << kJudges[j] << c;
      mean += delta / 3;
      if (delta > largest) largest = delta, channel = c;
    }
    EXPECT_NEAR(value(r, Kind::kStressSelectedMean, 0, j, "", "mean_over", 1), mean, 1e-12) << kJudges[j];
    const std::string text = tables(r, "text");
    EXPECT_NE(text.find("Mean (C1≈, C2≈, C7)"), std::string::npos);
  }
  double mean_abs = 0;
  for (int j = 0; j < 4; ++j)
    for (const std::string c : {"C1", "C2", "C7"}) mean_abs += std::fabs(by_paper(j, 0, c) - by_paper(j, 1, c)) / 12;
  EXPECT_NEAR(value(r, Kind::kStressMeanAbs, 0, -1, "", "mean_abs", 1), mean_abs, 1e-12);
  const nlohmann::json json = nlohmann::json::parse(to_json(r, ReportHead{}).dump());
  ASSERT_EQ(json["stress"][0]["mean_over"].size(), 4u);
  EXPECT_EQ(json["stress"][0]["mean_over"][0]["conditions"], nlohmann::json({"C1", "C2", "C7"}));
  // The largest channel by hand for J1.
  double best = -1;
  std::string channel;
  for (const std::string c : {"C1", "C2", "C7"})
    if (by_paper(0, 0, c) - by_paper(0, 1, c) > best) best = by_paper(0, 0, c) - by_paper(0, 1, c), channel = c;
  EXPECT_EQ(json["stress"][0]["largest_channel"]["J1"], channel + (channel == "C7" ? "" : "≈"));
}

TEST(ProfileCapRows, L1SummedOverMixedCells) {
  const ProfileReport r = run_hand("cap_rows.csv", false, kConfig);
  for (int b = 0; b < 2; ++b) {
    auto l1 = [&](int x, int y) {
      double d = 0;
      for (const std::string c : {"C1", "C2", "C7"}) d += std::fabs(by_paper(x, b, c) - by_paper(y, b, c));
      return d;
    };
    EXPECT_NEAR(value(r, Kind::kL1Selected, b, -1, "", "F"), l1(0, 1), 1e-12);
    EXPECT_NEAR(value(r, Kind::kL1Selected, b, -1, "", "G"), l1(2, 3), 1e-12);
    EXPECT_NEAR(value(r, Kind::kL1Selected, b, -1, "", "cross-family"), (l1(0, 2) + l1(0, 3) + l1(1, 2) + l1(1, 3)) / 4,
                1e-12);
  }
}

TEST(ProfileCapRows, SpreadDifferencesSetMeansAndRanks) {
  const ProfileReport r = run_hand("cap_rows.csv", false, kConfig);
  for (int b = 0; b < 2; ++b)
    for (const std::string c : {"C1", "C2", "C7", "overall"}) {
      double hi = -1, lo = 2, mean_abs = 0;
      for (int j = 0; j < 4; ++j) {
        hi = std::max(hi, by_paper(j, b, c));
        lo = std::min(lo, by_paper(j, b, c));
      }
      EXPECT_NEAR(value(r, Kind::kSpread, b, -1, c), hi - lo, 1e-12) << b << c;
      for (int j = 1; j < 4; ++j) {
        const double diff = by_paper(j, b, c) - by_paper(0, b, c);
        EXPECT_NEAR(value(r, Kind::kDifference, b, j, c), diff, 1e-12);
        mean_abs += std::fabs(diff) / 3;
      }
      EXPECT_NEAR(value(r, Kind::kMeanAbsDifference, b, -1, c), mean_abs, 1e-12);
      EXPECT_NEAR(value(r, Kind::kJudgeSetMean, b, -1, c, "S"),
                  (by_paper(1, b, c) + by_paper(2, b, c) + by_paper(3, b, c)) / 3, 1e-12);
      for (const CellRank& rank : r.summary.ranks) {
        if (rank.benchmark != kBenchmarks[b] || rank.condition != c) continue;
        const int j = static_cast<int>(std::find(kJudges.begin(), kJudges.end(), rank.judge) - kJudges.begin());
        int higher = 0;
        for (int k = 0; k < 4; ++k) higher += by_paper(k, b, c) > by_paper(j, b, c);
        EXPECT_EQ(rank.rank, higher + 1);
        EXPECT_EQ(rank.of, 4);
      }
    }
  const int32_t spread = r.plan.find(Kind::kSpread, 0, -1, "C7");
  ASSERT_GE(spread, 0);
  EXPECT_LE(r.result.intervals[spread].lo, r.result.intervals[spread].estimate);
  const std::string text = tables(r, "text");
  for (const char* title : {"Across judges — JB", "Differences to J1 — JB", "Ranks — JB", "Spearman summaries"})
    EXPECT_NE(text.find(title), std::string::npos) << title;
}

TEST(ProfileCapRows, RhoSummariesAndPearson) {
  const ProfileReport r = run_hand("cap_rows.csv", false, kConfig);
  // Table 14 by hand from the between-condition entries: C1–C8 pairs only.
  for (const ConditionRhoSummary& row : r.summary.condition_rho) {
    double sum = 0;
    int pairs = 0, negative = 0;
    for (const SpearmanEntry& e : r.summary.between_conditions)
      if (e.scope == row.benchmark && e.a != "overall" && e.b != "overall" && !std::isnan(e.result.rho)) {
        sum += std::fabs(e.result.rho);
        ++pairs;
        negative += e.result.rho < 0;
      }
    EXPECT_EQ(row.pairs, pairs);
    EXPECT_EQ(row.negative, negative);
    EXPECT_NEAR(row.mean_abs_rho, sum / pairs, 1e-15);
  }
  // Pearson r of overall against C7 across the four judges, by the textbook formula.
  std::vector<double> x, y;
  for (int j = 0; j < 4; ++j) {
    x.push_back(by_paper(j, 0, "C7"));
    y.push_back(by_paper(j, 0, "overall"));
  }
  const double mx = (x[0] + x[1] + x[2] + x[3]) / 4, my = (y[0] + y[1] + y[2] + y[3]) / 4;
  double sxy = 0, sxx = 0, syy = 0;
  for (int j = 0; j < 4; ++j) {
    sxy += (x[j] - mx) * (y[j] - my);
    sxx += (x[j] - mx) * (x[j] - mx);
    syy += (y[j] - my) * (y[j] - my);
  }
  bool found = false;
  for (const SpearmanEntry& e : r.summary.between_conditions)
    if (e.scope == "JB" && e.a == "C7" && e.b == "overall") {
      found = true;
      EXPECT_NEAR(e.pearson_r, sxy / std::sqrt(sxx * syy), 1e-12);
    }
  EXPECT_TRUE(found);
  // p of r = 0.5 with n = 4 (t = 0.8165, 2 df): scipy.stats.pearsonr gives 0.5 exactly.
  EXPECT_NEAR(correlation_p(0.5, 4), 0.5, 1e-12);
  // Table 13: range and significant count between the two benchmarks.
  for (const BenchmarkRhoSummary& row : r.summary.benchmark_rho) {
    EXPECT_EQ(row.pairs, 1);
    for (const SpearmanEntry& e : r.summary.between_benchmarks)
      if (e.scope == row.condition) {
        EXPECT_EQ(row.min_rho, e.result.rho);
        EXPECT_EQ(row.max_rho, e.result.rho);
        EXPECT_EQ(row.significant, e.result.p_t < 0.05 ? 1 : 0);
      }
  }
}

TEST(ProfileCapRows, HardSubsetIsMetricsHardRule) {
  ProfileOptions options;
  options.hard = true;
  const ProfileReport r = run_hand("cap_rows.csv", false, kConfig, options);
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 4; ++j)
      for (const std::string c : {"C1", "C2", "C7", "overall"})
        EXPECT_NEAR(value(r, Kind::kCell, b, j, c), by_paper(j, b, c, true), 1e-12) << b << j << c;
  // The config key does the same.
  std::string config = kConfig;
  config.insert(config.rfind('}'), ", \"hard\": true");
  const ProfileReport by_config = run_hand("cap_rows.csv", false, config);
  EXPECT_EQ(value(by_config, Kind::kCell, 1, 2, "C7"), value(r, Kind::kCell, 1, 2, "C7"));
}

TEST(ProfileCapRows, InvalidExcludeLeavesN) {
  std::string config = kConfig;
  const ProfileReport wrong = run_hand("cap_rows_invalid.csv", true, config);
  config.insert(config.rfind('}'), ", \"invalid\": \"exclude\"");
  const ProfileReport excluded = run_hand("cap_rows_invalid.csv", true, config);
  const int32_t s_wrong = wrong.plan.find(Kind::kCell, 0, 0, "C7");
  const int32_t s_excluded = excluded.plan.find(Kind::kCell, 0, 0, "C7");
  ASSERT_GE(s_wrong, 0);
  ASSERT_GE(s_excluded, 0);
  // "wrong": item 0 counts as not both-correct in n = 12; "exclude": item 0 has one order only,
  // so it leaves C7's n (11 items) and its PA cells use order 0 alone.
  EXPECT_EQ(wrong.result.labels[s_wrong].n, 12);
  EXPECT_EQ(excluded.result.labels[s_excluded].n, 11);
  double both = 0;
  for (int i = 1; i < kItems; ++i) both += correct(0, 0, i, 0) && correct(0, 0, i, 1);
  EXPECT_NEAR(excluded.result.intervals[s_excluded].estimate, both / 11, 1e-12);
  EXPECT_NEAR(wrong.result.intervals[s_wrong].estimate, both / 12, 1e-12);  // item 0: both right, one a failure
  bool noted = false;
  for (const std::string& note : excluded.plan.notes)
    noted = noted || note.find(
                         "excluded from n as CAP does (config invalid: exclude; App. L Table 20): 1 record(s) "
                         "(J1 1)") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_THROW(parse_profile_config(R"({"benchmarks": [{"name": "b"}], "invalid": "drop"})", "inline"), UsageError);
}

TEST(ProfileCapRows, NewStatisticsSameBitsOnOneThreadAndMany) {
  const ItemMatrix m = load_item_matrix(write_temp("cap_rows.csv", hand_csv(false)));
  ProfileOptions options;
  options.config = parse_profile_config(kConfig, "inline");
  const ProfilePlan plan = build_profile_plan(m, options.config, options);
  const CompiledPlan compiled = compile(plan.plan);
  const uint64_t count = 1500;
  std::vector<double> one(count * compiled.n_statistics), many(one.size(), -1.0);
  make_cpu_backend(1)->run_replicates(compiled, 11, 0, count, one.data());
  make_cpu_backend(4, 64)->run_replicates(compiled, 11, 0, count, many.data());
  int fresh = 0;
  for (int32_t s = 0; s < compiled.n_statistics; ++s) {
    const Kind k = plan.stats[s].kind;
    if (k < Kind::kStressSelectedMean) continue;
    ++fresh;
    for (uint64_t r = 0; r < count; ++r)
      ASSERT_EQ(0,
                std::memcmp(&one[r * compiled.n_statistics + s], &many[r * compiled.n_statistics + s], sizeof(double)))
          << plan.plan.statistics[s].label.name << " replicate " << r;
  }
  EXPECT_GT(fresh, 40);
}

TEST(ProfileCapRows, JsonReadBackRendersTheSameTables) {
  const ProfileReport r = run_hand("cap_rows.csv", false, kConfig);
  const Json json = to_json(r, ReportHead{});
  const ProfileReport back = profile_report_from_json(json, render_state(r));
  EXPECT_EQ(tables(back, "text"), tables(r, "text"));
  Json again = to_json(back, ReportHead{}), first = json;
  again.erase("timing");  // the load and plan seconds are the run's, not the result's
  first.erase("timing");
  EXPECT_EQ(again.dump(), first.dump());
}

TEST(ProfileCapRows, RadarCarriesCIsOrGivesWayToDotAndWhisker) {
  const ProfileReport r = run_hand("cap_rows.csv", false, kConfig);
  for (const PlotFile& figure : plot_files(r)) {
    if (figure.name.rfind("radar_", 0) != 0) continue;
    // Three conditions (C1≈, C2≈, C7): a radar with a CI whisker per judge and axis.
    EXPECT_NE(figure.svg.find("each cell's bootstrap CI"), std::string::npos);
    EXPECT_EQ(figure.svg.find("no radar"), std::string::npos);
  }
  std::string two = kConfig;
  const std::string c7 = R"("C7": {"status": "direct"}}})";
  for (size_t at = two.find(c7); at != std::string::npos; at = two.find(c7))
    two.replace(at, c7.size(), R"("C7": {"status": "unavailable"}}})");
  const ProfileReport narrow = run_hand("cap_rows.csv", false, two);
  for (const PlotFile& figure : plot_files(narrow)) {
    if (figure.name.rfind("radar_", 0) == 0) {
      EXPECT_NE(figure.svg.find("cells per judge"), std::string::npos);
    }
  }
}
