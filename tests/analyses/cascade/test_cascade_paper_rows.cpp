// The JEV cascade rows of issue 30 (JEV §7.1, §7.4, Fig. 5, Tables 4, 5, 28, 36) on a hand-built file of
// 13 items whose answers the test works out by the paper's rules: the paper's confidence bins (q < 0.6
// pooled … [0.9, 0.95), [0.95, 0.99), [0.99, 1), q = 1) with both judges' accuracy, F's errors and
// "right or wrong together"; at a frozen τ both judges' accuracy and agreement on the accepted and the
// escalated items and the latency of each part; the gate against a second run; retained and errors
// caught in the tables; the long CSV; the same replicates at every thread count and chunk size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "judgestat/cascade.hpp"
#include "judgestat/exec_target.hpp"
#include "report/cascade_report.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// One item: F's probability of the gold label A (order 0 only) and whether S answers A.
struct HandItem {
  double p_gold;
  bool fallback_right;
};

const std::vector<HandItem> kItems = {{1.0, true},   {1.0, true},   {1.0, false}, {0.995, true}, {0.97, true},
                                      {0.96, false}, {0.92, true},  {0.04, true}, {0.08, false}, {0.85, true},
                                      {0.3, true},   {0.55, false}, {0.42, false}};

std::string hand_csv(const std::vector<HandItem>& items, const std::vector<int>& skip = {}) {
  std::ostringstream csv;
  csv << "judge,item,cluster,benchmark,order,gold,verdict,p.A,p.B\n";
  for (size_t i = 0; i < items.size(); ++i) {
    if (std::find(skip.begin(), skip.end(), static_cast<int>(i)) != skip.end()) continue;
    const double p = items[i].p_gold;
    csv << "F,it" << i << ",c" << i << ",a,0,A," << (p >= 0.5 ? "A" : "B") << "," << p << "," << 1 - p << "\n";
    csv << "S,it" << i << ",c" << i << ",a,0,A," << (items[i].fallback_right ? "A" : "B") << ",,\n";
  }
  return csv.str();
}

double q_of(const HandItem& item) { return std::max(item.p_gold, 1 - item.p_gold); }
double c1_of(const HandItem& item) { return item.p_gold > 0.5 ? 1.0 : 0.0; }
double c2_of(const HandItem& item) { return item.fallback_right ? 1.0 : 0.0; }

// The paper's bin of q, written out (JEV Fig. 5, §7.4), independent of edge_bin.
std::string paper_bin(double q) {
  if (q == 1.0) return "q = 1";
  if (q >= 0.99) return "[0.99, 1)";
  if (q >= 0.95) return "[0.95, 0.99)";
  if (q >= 0.9) return "[0.9, 0.95)";
  if (q >= 0.8) return "[0.8, 0.9)";
  if (q >= 0.7) return "[0.7, 0.8)";
  if (q >= 0.6) return "[0.6, 0.7)";
  return "[0, 0.6)";
}

struct Sums {
  int n = 0;
  double first = 0, fallback = 0, agree = 0;
  int errors = 0, differ = 0;
  void add(const HandItem& item) {
    ++n;
    first += c1_of(item), fallback += c2_of(item), agree += c1_of(item) == c2_of(item);
    errors += c1_of(item) < 1, differ += c1_of(item) != c2_of(item);
  }
};

CascadeOptions hand_options(uint64_t replicates = 300) {
  CascadeOptions o;
  o.first = "F";
  o.fallback = "S";
  o.select = 0;
  o.bin_edges = parse_bin_edges("paper");
  o.tau = parse_frozen_tau({"0.9"});
  o.fee = {{"F", 0.0}, {"S", 0.01}};
  o.latency = {{"F", 0.2}, {"S", 2.0}};
  o.bootstrap.replicates = replicates;
  return o;
}

const ItemMatrix& hand_matrix() {
  static const ItemMatrix m = load_item_matrix(write_temp("cascade_paper_rows.csv", hand_csv(kItems)));
  return m;
}

TEST(CascadePaperRows, BinEdgesParseAndRefuse) {
  EXPECT_EQ(parse_bin_edges("paper"), (std::vector<double>{0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0}));
  EXPECT_EQ(parse_bin_edges("0.5,0.9,1"), (std::vector<double>{0.5, 0.9, 1.0}));
  for (const char* bad : {"0.9,0.5", "0,0.5", "1.5", "0.5,,0.9", "tenths"}) {
    const std::string message = thrown_message([&] { parse_bin_edges(bad); });
    EXPECT_EQ(message.rfind("bins: ", 0), 0u) << bad << ": " << message;
  }
}

TEST(CascadePaperRows, PaperBinsHoldBothJudgesErrorsAndAgreement) {
  const CascadeReport r = run_cascade(hand_matrix(), hand_options(), cpu_target(2));
  std::map<std::string, Sums> expected;
  for (const HandItem& item : kItems) expected[paper_bin(q_of(item))].add(item);
  const auto& iv = r.sweep.result.intervals;
  ASSERT_EQ(r.sweep.selective.bins.size(), expected.size());  // empty bins ([0.6, 0.7)) left out
  for (const ConfidenceBinAccuracy& b : r.sweep.selective.bins) {
    const std::string name = r.sweep.result.labels[b.first].threshold.value_or("");
    ASSERT_TRUE(expected.count(name)) << name;
    const Sums& e = expected[name];
    EXPECT_EQ(b.n, e.n) << name;
    EXPECT_DOUBLE_EQ(iv[b.first].estimate, e.first / e.n) << name;
    EXPECT_DOUBLE_EQ(iv[b.fallback].estimate, e.fallback / e.n) << name;
    EXPECT_DOUBLE_EQ(iv[b.agree].estimate, e.agree / e.n) << name;
    EXPECT_EQ(b.first_errors, e.errors) << name;
    EXPECT_EQ(b.disagree, e.differ) << name;
  }
  // JEV §7.1's "right or wrong together at q = 1": 2 of the 3 items here.
  EXPECT_EQ(expected["q = 1"].n, 3);
  EXPECT_DOUBLE_EQ(expected["q = 1"].agree, 2.0);
  const std::string text = tables(r, "text");
  EXPECT_TRUE(contains(text, "q = 1")) << text;
  EXPECT_TRUE(contains(text, "[0.95, 0.99)")) << text;
  EXPECT_TRUE(contains(text, "right or wrong together")) << text;
}

TEST(CascadePaperRows, FrozenTauSplitsAcceptedAndEscalatedItems) {
  const CascadeReport r = run_cascade(hand_matrix(), hand_options(), cpu_target(2));
  ASSERT_TRUE(r.frozen.has_value());
  Sums accepted, escalated;
  for (const HandItem& item : kItems) (q_of(item) >= 0.9 ? accepted : escalated).add(item);
  ASSERT_EQ(accepted.n, 9);
  const CascadeScope& scope = r.frozen->scopes.front();
  const PolicyStatistics& s = scope.policies[0];
  const auto& iv = r.frozen->result.intervals;
  EXPECT_DOUBLE_EQ(iv[s.accepted_first_acc].estimate, accepted.first / accepted.n);
  EXPECT_DOUBLE_EQ(iv[s.accepted_fallback_acc].estimate, accepted.fallback / accepted.n);
  EXPECT_DOUBLE_EQ(iv[s.accepted_agree].estimate, accepted.agree / accepted.n);
  EXPECT_DOUBLE_EQ(iv[s.escalated_first_acc].estimate, escalated.first / escalated.n);
  EXPECT_DOUBLE_EQ(iv[s.escalated_fallback_acc].estimate, escalated.fallback / escalated.n);
  EXPECT_DOUBLE_EQ(iv[s.escalated_agree].estimate, escalated.agree / escalated.n);
  for (int32_t index : {s.accepted_first_acc, s.escalated_first_acc}) EXPECT_LE(iv[index].lo, iv[index].hi);
  // Latency: F's 0.2 s on accepted items, F's + S's 2.2 s on escalated ones.
  EXPECT_DOUBLE_EQ(scope.accepted_latencies[0].p50, 0.2);
  EXPECT_DOUBLE_EQ(scope.escalated_latencies[0].p95, 2.2);
  // JEV Tables 4/5: errors caught = F's errors escalated; retained = cascade ÷ fallback.
  int first_errors = 0, caught = 0;
  double cascade = 0, fallback = 0;
  for (const HandItem& item : kItems) {
    first_errors += c1_of(item) < 1;
    caught += c1_of(item) < 1 && q_of(item) < 0.9;
    cascade += q_of(item) >= 0.9 ? c1_of(item) : c2_of(item);
    fallback += c2_of(item);
  }
  EXPECT_DOUBLE_EQ(iv[s.errors_escalated].estimate, static_cast<double>(caught) / first_errors);
  const std::string text = tables(r, "text");
  EXPECT_TRUE(contains(text, fixed(100.0 * cascade / fallback, 1))) << text;
  EXPECT_TRUE(contains(text, "first-stage errors caught (%) [95% CI]")) << text;
  EXPECT_TRUE(contains(text, "accepted and escalated items")) << text;
}

// JEV Table 36: a second run that escalates item 6, accepts item 9 and lacks item 12.
TEST(CascadePaperRows, GateAgreementAgainstASecondRun) {
  std::vector<HandItem> rerun = kItems;
  rerun[6].p_gold = 0.85;
  rerun[9].p_gold = 0.93;
  const ItemMatrix second = load_item_matrix(write_temp("cascade_paper_rerun.csv", hand_csv(rerun, {12})));
  CascadeOptions o = hand_options();
  o.compare_gate = "rerun.csv";
  o.compare_gate_items = gate_outcomes(second, o);
  const CascadeReport r = run_cascade(hand_matrix(), o, cpu_target(2));
  ASSERT_TRUE(r.frozen->gate_comparison.has_value());
  const GateComparison& g = *r.frozen->gate_comparison;
  int common = 0, alike = 0, both_accept = 0;
  for (size_t i = 0; i + 1 < kItems.size(); ++i) {
    const bool here = q_of(kItems[i]) >= 0.9, there = q_of(rerun[i]) >= 0.9;
    ++common, alike += here == there, both_accept += here && there;
  }
  EXPECT_EQ(g.common, common);
  EXPECT_EQ(g.only_here, 1);
  EXPECT_EQ(g.both_accept, both_accept);
  EXPECT_EQ(g.accepted_here_only, 1);
  EXPECT_EQ(g.accepted_there_only, 1);
  const int32_t k = r.frozen->scopes.front().policies[0].gate_agreement;
  ASSERT_GE(k, 0);
  EXPECT_DOUBLE_EQ(r.frozen->result.intervals[k].estimate, static_cast<double>(alike) / common);
  EXPECT_TRUE(contains(tables(r, "text"), "gated alike")) << tables(r, "text");
  CascadeOptions without_tau = o;
  without_tau.tau.reset();
  EXPECT_EQ(thrown_message([&] { run_cascade(hand_matrix(), without_tau, cpu_target(2)); }).rfind("compare_gate: ", 0),
            0u);
}

// Every new statistic (bins, split, gate agreement) on the same replicates at any thread count and chunk.
TEST(CascadePaperRows, SameReplicatesAtEveryThreadCountAndChunk) {
  std::vector<HandItem> rerun = kItems;
  rerun[6].p_gold = 0.85;
  CascadeOptions o = hand_options(500);
  o.compare_gate_items = gate_outcomes(load_item_matrix(write_temp("cascade_paper_rerun2.csv", hand_csv(rerun))), o);
  o.compare_gate = "rerun2.csv";
  const CascadeReport one = run_cascade(hand_matrix(), o, cpu_target(1));
  for (const auto& [threads, chunk] : std::vector<std::pair<int, uint64_t>>{{3, 0}, {2, 37}}) {
    ExecTarget target = cpu_target(threads);
    target.chunk = chunk;
    const CascadeReport other = run_cascade(hand_matrix(), o, target);
    for (const auto* results : {&one.sweep.result, &one.frozen->result}) {
      const BootstrapResult& mine = results == &one.sweep.result ? other.sweep.result : other.frozen->result;
      ASSERT_EQ(results->intervals.size(), mine.intervals.size());
      for (size_t k = 0; k < mine.intervals.size(); ++k) {
        EXPECT_EQ(results->intervals[k].lo, mine.intervals[k].lo) << results->labels[k].name;
        EXPECT_EQ(results->intervals[k].hi, mine.intervals[k].hi) << results->labels[k].name;
        EXPECT_EQ(results->intervals[k].se, mine.intervals[k].se) << results->labels[k].name;
      }
    }
  }
}

// Fields of one CSV line (quotes honoured).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
      out.back() += '"', ++i;
    else if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// issue 31: one header, the same width on every line, estimates and CI ends as numbers.
TEST(CascadePaperRows, CsvIsOneLongNumericTable) {
  const CascadeReport r = run_cascade(hand_matrix(), hand_options(), cpu_target(2));
  const std::string csv = tables(r, "csv");
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = csv_fields(line);
  ASSERT_EQ(header.front(), "table");
  std::map<std::string, size_t> column;
  for (size_t k = 0; k < header.size(); ++k) column[header[k]] = k;
  for (const char* name : {"cascade acc (%)", "cascade acc (%)_lo", "cascade acc (%)_hi", "retained (%)"})
    ASSERT_TRUE(column.count(name)) << name << " in " << line;
  int rows = 0, sweep_rows = 0;
  while (std::getline(lines, line)) {
    const std::vector<std::string> f = csv_fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    EXPECT_NE(f[0], "table") << "a second header";
    ++rows;
    if (f[0] != "sweep") continue;
    ++sweep_rows;
    for (const char* name : {"cascade acc (%)", "retained (%)"}) {
      char* end = nullptr;
      std::strtod(f[column[name]].c_str(), &end);
      EXPECT_TRUE(f[column[name]].empty() || *end == '\0') << name << ": " << f[column[name]];
    }
  }
  EXPECT_EQ(sweep_rows, r.options.grid.size() + 1 + 3);  // grid, all, first alone, fallback alone, oracle
  EXPECT_GT(rows, sweep_rows);
}

}  // namespace
