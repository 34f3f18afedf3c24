// cascade --other-gate-orders (JEV §9 Figure 9: the deployed two-order gate and the gate that reads
// the base order alone, in one figure) on a hand-built file of 12 items in two benchmarks, two of them
// without F's second order: the second gate's sweep worked out here by its rule (accept iff F's order-0
// confidence q0 ≥ τ), and equal, bit for bit, to the sweep of a run with --gate-orders 1; both curves in
// the accuracy–fee and accuracy–latency figures and their CSVs; the JSON read back renders the run's
// bytes; the same replicates at every thread count; the usage errors name the flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../metrics/replicates_identical.hpp"
#include "judgestat/analysis.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/exec_target.hpp"
#include "report/cascade_report.hpp"
#include "report/render_support.hpp"
#include "requests/text_lists.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

// One item: F's probability of the gold label A in order 0 and in order 1 (NaN: no order-1 record),
// and whether S answers A.
struct GateItem {
  double p0, p1;
  bool fallback_right;
};

const std::vector<GateItem> kItems = {{0.95, 0.9, true},   {0.92, 0.6, false}, {0.55, 0.8, true},  {0.3, 0.2, true},
                                      {0.97, 0.95, false}, {0.85, 0.7, true},  {0.65, 0.4, true},  {0.1, 0.2, false},
                                      {0.99, 0.98, true},  {0.75, NAN, true},  {0.88, NAN, false}, {0.6, 0.65, true}};

constexpr double kFeeF = 0.001, kFeeS = 0.01, kLatencyF = 0.5, kLatencyS = 2.0;

std::string gate_csv() {
  std::ostringstream csv;
  csv << "judge,item,cluster,benchmark,order,gold,verdict,p.A,p.B\n";
  for (size_t i = 0; i < kItems.size(); ++i) {
    // Clusters of two items within a benchmark: a0 = {0, 2}, b0 = {1, 3}, a1 = {4, 6}, …
    const std::string benchmark = i % 2 ? "b" : "a";
    const std::string where = "," + benchmark + std::to_string(i / 4) + "," + benchmark + ",";
    const double probs[2] = {kItems[i].p0, kItems[i].p1};
    for (int order = 0; order < 2; ++order) {
      const double p = probs[order];
      if (std::isnan(p)) continue;
      csv << "F,it" << i << where << order << ",A," << (p > 0.5 ? "A" : "B") << "," << p << "," << 1 - p << "\n";
    }
    csv << "S,it" << i << where << "0,A," << (kItems[i].fallback_right ? "A" : "B") << ",,\n";
  }
  return csv.str();
}

const std::string& gate_file() {
  static const std::string path = write_temp("cascade_compare_gates.csv", gate_csv());
  return path;
}

const ItemMatrix& gate_matrix() {
  static const ItemMatrix m = load_item_matrix(gate_file());
  return m;
}

// The run's gate: both orders required (items 9 and 10 escalate); compared with order 0 alone.
CascadeOptions two_gates(uint64_t replicates = 300) {
  CascadeOptions o;
  o.first = "F";
  o.fallback = "S";
  o.grid = parse_grid("0.6,0.8,0.9");
  o.gate_orders = 2;
  o.other_gate_orders = 1;
  o.select = 0;
  o.tau = parse_frozen_tau({"0.8"});
  o.fee = {{"F", kFeeF}, {"S", kFeeS}};
  o.latency = {{"F", kLatencyF}, {"S", kLatencyS}};
  o.bootstrap.replicates = replicates;
  return o;
}

// The order-0 gate at τ worked out by its rule: accuracy, escalated share, fee ratio (F runs one order;
// S on the escalated items, against S on every item) and mean latency (F's, plus S's when escalated).
struct GateSums {
  double accuracy = 0, escalated = 0, fee_ratio = 0, latency = 0;
};

GateSums order0_gate(double tau) {
  GateSums sums;
  double fee = 0;
  for (const GateItem& item : kItems) {
    const double q0 = std::max(item.p0, 1 - item.p0);
    const bool accepted = !std::isnan(tau) && q0 >= tau;
    sums.accuracy += accepted ? (item.p0 > 0.5 ? 1.0 : 0.0) : (item.fallback_right ? 1.0 : 0.0);
    sums.escalated += !accepted;
    fee += kFeeF + (accepted ? 0.0 : kFeeS);
    sums.latency += kLatencyF + (accepted ? 0.0 : kLatencyS);
  }
  const double n = static_cast<double>(kItems.size());
  sums.accuracy /= n, sums.escalated /= n, sums.latency /= n;
  sums.fee_ratio = fee / (kFeeS * n);
  return sums;
}

std::string row_key(const StatLabel& l) {
  return l.name + "|" + l.threshold.value_or("") + "|" + l.benchmark.value_or("");
}

int count_lines_starting(const std::string& text, const std::string& start) {
  int count = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) count += line.rfind(start, 0) == 0;
  return count;
}

}  // namespace

TEST(CascadeCompareGates, SecondSweepIsTheOrderZeroGateByItsRule) {
  const CascadeReport r = run_cascade(gate_matrix(), two_gates(), cpu_target(2));
  ASSERT_TRUE(r.other_gate.has_value());
  const OtherGateSweep& g = *r.other_gate;
  EXPECT_EQ(g.gate_orders, 1);
  EXPECT_EQ(g.items, 12);
  EXPECT_EQ(g.first_orders, 1);
  EXPECT_EQ(r.first_orders, 2);
  const CascadeScope& scope = g.scopes.front();
  ASSERT_EQ(scope.policies.size(), 4u);  // 0.6, 0.8, 0.9, all
  const auto& iv = g.result.intervals;
  for (size_t p = 0; p < scope.policies.size(); ++p) {
    const double tau = p < 3 ? r.options.grid.values[p] : NAN;
    const GateSums e = order0_gate(tau);
    const PolicyStatistics& s = scope.policies[p];
    EXPECT_NEAR(iv[s.cascade_acc].estimate, e.accuracy, 1e-12) << p;
    EXPECT_NEAR(iv[s.escalated].estimate, e.escalated, 1e-12) << p;
    EXPECT_NEAR(iv[s.fee_ratio].estimate, e.fee_ratio, 1e-12) << p;
    EXPECT_NEAR(scope.latencies[p].mean, e.latency, 1e-12) << p;
    EXPECT_LE(iv[s.cascade_acc].lo, iv[s.cascade_acc].estimate) << p;
    EXPECT_GE(iv[s.cascade_acc].hi, iv[s.cascade_acc].estimate) << p;
  }
  // The gates differ here: at τ = 0.8 order 0 keeps items 0, 1, 4, 5, 7, 8, 10 (7 of 12), both orders
  // only 0, 4, 7, 8 (items 1 and 5 average below 0.8; 9 and 10 lack order 1).
  EXPECT_NEAR(order0_gate(0.8).escalated, 5.0 / 12, 1e-12);
  const auto& mine = r.sweep.result.intervals;
  EXPECT_NEAR(mine[r.sweep.pooled().policies[1].escalated].estimate, 8.0 / 12, 1e-12);
}

// The second sweep is the sweep of a run with --gate-orders 1: every row it has, with the same
// estimate, interval and SE (same seed, replicates and grid), and the same point summaries.
TEST(CascadeCompareGates, SecondSweepEqualsTheOneGateRun) {
  CascadeOptions o = two_gates();
  o.by = "benchmark";
  const CascadeReport both = run_cascade(gate_matrix(), o, cpu_target(2));
  CascadeOptions one_gate = o;
  one_gate.gate_orders = 1;
  one_gate.other_gate_orders = 0;
  const CascadeReport single = run_cascade(gate_matrix(), one_gate, cpu_target(2));
  ASSERT_TRUE(both.other_gate.has_value());
  EXPECT_FALSE(single.other_gate.has_value());
  const BootstrapResult& other = both.other_gate->result;
  const BootstrapResult& own = single.sweep.result;
  size_t matched = 0;
  for (size_t k = 0; k < other.labels.size(); ++k) {
    const std::string key = row_key(other.labels[k]);
    for (size_t m = 0; m < own.labels.size(); ++m) {
      if (row_key(own.labels[m]) != key) continue;
      ++matched;
      EXPECT_EQ(other.intervals[k].estimate, own.intervals[m].estimate) << key;
      EXPECT_EQ(other.intervals[k].lo, own.intervals[m].lo) << key;
      EXPECT_EQ(other.intervals[k].hi, own.intervals[m].hi) << key;
      EXPECT_EQ(other.intervals[k].se, own.intervals[m].se) << key;
      break;
    }
  }
  EXPECT_EQ(matched, other.labels.size());
  ASSERT_EQ(both.other_gate->scopes.size(), single.sweep.scopes.size());  // pooled, a, b
  for (size_t k = 0; k < single.sweep.scopes.size(); ++k) {
    const CascadeScope &a = both.other_gate->scopes[k], &b = single.sweep.scopes[k];
    EXPECT_EQ(a.group, b.group);
    EXPECT_EQ(a.items, b.items);
    EXPECT_EQ(a.first_alone, b.first_alone);
    for (size_t p = 0; p < b.policies.size(); ++p) EXPECT_EQ(a.latencies[p].mean, b.latencies[p].mean) << p;
  }
  // The run's own sweep is the --gate-orders 2 run's, untouched by the second one.
  CascadeOptions plain = o;
  plain.other_gate_orders = 0;
  const CascadeReport alone = run_cascade(gate_matrix(), plain, cpu_target(2));
  ASSERT_EQ(alone.sweep.result.intervals.size(), both.sweep.result.intervals.size());
  for (size_t k = 0; k < alone.sweep.result.intervals.size(); ++k)
    EXPECT_EQ(alone.sweep.result.intervals[k].hi, both.sweep.result.intervals[k].hi) << k;
}

TEST(CascadeCompareGates, FiguresOverlayBothGatesWithTheirRows) {
  const CascadeReport r = run_cascade(gate_matrix(), two_gates(), cpu_target(2));
  const std::vector<PlotFile> figures = plot_files(r);
  const auto& iv = r.other_gate->result.intervals;
  const CascadeScope& other = r.other_gate->scopes.front();
  int seen = 0;
  for (const PlotFile& figure : figures) {
    if (figure.name != "cascade_accuracy_fee" && figure.name != "cascade_accuracy_latency") continue;
    ++seen;
    EXPECT_TRUE(contains(figure.svg, "cascade per τ (gate: both orders)")) << figure.name;
    EXPECT_TRUE(contains(figure.svg, "cascade per τ (gate: order 0 only)")) << figure.name;
    EXPECT_TRUE(contains(figure.svg, "gate: order 0 only, τ = 0.8: ")) << figure.name;
    EXPECT_EQ(count_lines_starting(figure.csv, "cascade_gate_orders_1,"), 4) << figure.csv;
    EXPECT_GE(count_lines_starting(figure.csv, "cascade,"), 3) << figure.csv;
    // The τ = 0.8 row: x = fee ratio (or mean latency), then the accuracy as the JSON gives it.
    std::istringstream lines(figure.csv);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("cascade_gate_orders_1,0.8,", 0) != 0) continue;
      std::vector<double> fields;
      std::istringstream cells(line.substr(std::string("cascade_gate_orders_1,0.8,").size()));
      for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(std::stod(cell));
      ASSERT_EQ(fields.size(), 6u) << line;
      const GateSums e = order0_gate(0.8);
      EXPECT_NEAR(fields[0], figure.name == "cascade_accuracy_fee" ? e.fee_ratio : e.latency, 1e-12) << line;
      EXPECT_NEAR(fields[3], e.accuracy, 1e-12) << line;
      EXPECT_NEAR(fields[4], iv[other.policies[1].cascade_acc].lo, 1e-12) << line;
    }
  }
  EXPECT_EQ(seen, 2);
  // Without the option the figures name no gate.
  CascadeOptions plain = two_gates();
  plain.other_gate_orders = 0;
  for (const PlotFile& figure : plot_files(run_cascade(gate_matrix(), plain, cpu_target(2)))) {
    EXPECT_FALSE(contains(figure.svg, "gate: ")) << figure.name;
    EXPECT_EQ(count_lines_starting(figure.csv, "cascade_gate_orders_"), 0) << figure.name;
  }
}

// The tables lead with the answer at the frozen τ, then list the second gate's sweep.
TEST(CascadeCompareGates, TablesLeadWithBothGatesAtTheFrozenTau) {
  const CascadeReport r = run_cascade(gate_matrix(), two_gates(), cpu_target(2));
  const std::string text = tables(r, "text");
  const size_t section = text.find("Threshold sweep under the other gate (--other-gate-orders 1, JEV Fig. 9)");
  ASSERT_NE(section, std::string::npos) << text;
  const std::string next_line = text.substr(text.find('\n', section) + 1, 120);
  EXPECT_EQ(next_line.rfind("gate: order 0 only against gate: both orders at τ = 0.8 (frozen): accuracy (%) ", 0), 0u)
      << next_line;
  const GateSums e = order0_gate(0.8);
  EXPECT_TRUE(contains(text, "accuracy (%) " + fixed(100 * e.accuracy, 1) + " [")) << text;
  EXPECT_TRUE(contains(text, "fee ratio " + fixed(e.fee_ratio, 3) + " against")) << text;
  EXPECT_TRUE(contains(tables(r, "md"), "**Threshold sweep under the other gate")) << tables(r, "md");
  EXPECT_TRUE(contains(tables(r, "csv"), "other_gate,")) << tables(r, "csv");
}

TEST(CascadeCompareGates, JsonReadsBackAndRendersTheRun) {
  const std::vector<std::string> args{"--first",
                                      "F",
                                      "--fallback",
                                      "S",
                                      "--gate-orders",
                                      "2",
                                      "--other-gate-orders",
                                      "1",
                                      "--grid",
                                      "0.6,0.8,0.9",
                                      "--select",
                                      "0.5",
                                      "--tau",
                                      "0.8",
                                      "--fee",
                                      "F=0.001",
                                      "--fee",
                                      "S=0.01",
                                      "--latency",
                                      "F=0.5",
                                      "--latency",
                                      "S=2",
                                      "--replicates",
                                      "200",
                                      "--by",
                                      "benchmark"};
  const AnalysisResult run = render_support::run_on(gate_file(), {"cascade", args});
  EXPECT_EQ(run.json["settings"]["other_gate_orders"], 1);
  ASSERT_TRUE(run.json["other_gate"].is_object());
  EXPECT_EQ(run.json["other_gate"]["gate_orders"], 1);
  EXPECT_EQ(run.json["other_gate"]["pool"]["items"], 12);
  EXPECT_TRUE(run.json["other_gate"]["latency"]["groups"].is_array());
  render_support::expect_renders_the_run("cascade", run);
  // Its rows are the sweep's: cascade_acc at τ = 0.8 is the order-0 gate's accuracy.
  bool found = false;
  for (const Json& row : run.json["other_gate"]["statistics"])
    if (row["name"] == "cascade_acc" && row["threshold"] == 0.8 && row.value("benchmark", Json()).is_null()) {
      EXPECT_NEAR(row["estimate"].get<double>(), order0_gate(0.8).accuracy, 1e-12);
      found = true;
    }
  EXPECT_TRUE(found);
  Json without = render_support::stored(run.json);
  without.erase("other_gate");
  EXPECT_TRUE(contains(thrown_message<std::invalid_argument>(
                           [&] { render_from_json("cascade", without, render_support::stored(run.render)); }),
                       "other_gate: missing"));
  // Without the option the JSON has neither key.
  const AnalysisResult plain = render_support::run_on(gate_file(), {"cascade", {"--first", "F", "--fallback", "S"}});
  EXPECT_FALSE(plain.json["settings"].contains("other_gate_orders"));
  EXPECT_FALSE(plain.json.contains("other_gate"));
}

TEST(CascadeCompareGates, SameReplicatesAtEveryThreadCount) {
  CascadeOptions o = two_gates(200);
  o.bootstrap.keep_replicates = true;
  o.by = "benchmark";
  const CascadeReport one = run_cascade(gate_matrix(), o, cpu_target(1));
  ExecTarget three = cpu_target(3);
  three.chunk = 7;
  const CascadeReport other = run_cascade(gate_matrix(), o, three);
  ASSERT_FALSE(one.other_gate->result.replicates.empty());
  EXPECT_EQ(one.other_gate->result.replicates.size(), 200 * one.other_gate->result.intervals.size());
  expect_same_replicates(one.other_gate->result.replicates, other.other_gate->result.replicates);
  expect_same_replicates(one.sweep.result.replicates, other.sweep.result.replicates);
}

TEST(CascadeCompareGates, UsageErrorsNameTheFlag) {
  const std::string base = "cascade " + gate_file() + " --first F --fallback S --replicates 20 --quiet ";
  const CliRun three = run_cli(base + "--other-gate-orders 3");
  EXPECT_EQ(three.status, 2) << three.out;
  EXPECT_TRUE(contains(three.out, "--other-gate-orders: expected 1 (order 0) or 2 (every order)")) << three.out;
  const CliRun word = run_cli(base + "--other-gate-orders present");
  EXPECT_EQ(word.status, 2) << word.out;
  EXPECT_TRUE(contains(word.out, "--other-gate-orders: 'present' is not a valid value")) << word.out;
  const CliRun same = run_cli(base + "--gate-orders 2 --other-gate-orders 2");
  EXPECT_EQ(same.status, 2) << same.out;
  EXPECT_TRUE(contains(same.out, "--other-gate-orders: 2 is the run's own gate (--gate-orders)")) << same.out;
  EXPECT_EQ(run_cli(base + "--other-gate-orders 2").status, 0);  // present against every order
  // 0 is the default, off: the same output as without the flag, up to the last line's timing.
  const auto untimed = [](const std::string& out) { return out.substr(0, out.rfind(", backend")); };
  const CliRun off = run_cli(base + "--other-gate-orders 0"), without = run_cli(base);
  EXPECT_EQ(off.status, 0) << off.out;
  EXPECT_NE(off.out.rfind(", backend"), std::string::npos);
  EXPECT_EQ(untimed(off.out), untimed(without.out));

  CascadeOptions o = two_gates();
  o.other_gate_orders = 3;
  EXPECT_EQ(thrown_message([&] { check_cascade_options(o); }).rfind("other_gate_orders: ", 0), 0u);
  // A first stage without probabilities fails the cascade with or without the flag, and the message
  // is the cascade's own, the same either way (the flag is not what is wrong).
  const ItemMatrix no_probs = load_item_matrix(write_temp(
      "cascade_compare_gates_no_probs.csv", "judge,item,gold,verdict\nF,i1,A,A\nS,i1,A,B\nF,i2,A,B\nS,i2,A,A\n"));
  CascadeOptions one_gate = two_gates();
  one_gate.other_gate_orders = 0;
  const std::string alone = thrown_message([&] { run_cascade(no_probs, one_gate, cpu_target(1)); });
  EXPECT_FALSE(alone.empty());
  EXPECT_EQ(thrown_message([&] { run_cascade(no_probs, two_gates(), cpu_target(1)); }), alone);
}

// The notes say when the two sweeps are not on the same items (gate 1 leaves out an item F saw in
// order 1 only), when they cannot differ (one order), and how many items gate 2 escalates for a
// missing order; each gate's words then carry its item count.
TEST(CascadeCompareGates, NotesSayWhetherTheGatesSeeTheSameItems) {
  const auto has_note = [](const CascadeReport& r, const std::string& part) {
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return contains(n, part); });
  };
  CascadeOptions o = two_gates(50);
  o.gate_orders = 0;  // present: the orders each item has
  o.tau = {};
  const ItemMatrix order_1_only = load_item_matrix(
      write_temp("cascade_compare_gates_order1.csv",
                 "judge,item,order,gold,verdict,p.A,p.B\nF,i1,0,A,A,0.9,0.1\nF,i1,1,A,A,0.8,0.2\nF,i2,1,A,B,0.3,0.7\n"
                 "S,i1,0,A,A,,\nS,i2,0,A,A,,\n"));
  const CascadeReport differ = run_cascade(order_1_only, o, cpu_target(1));
  EXPECT_EQ(differ.items, 2);
  EXPECT_EQ(differ.other_gate->items, 1);
  EXPECT_TRUE(has_note(differ, "covers 1 items under that gate and 2 under the run's")) << differ.notes.size();
  EXPECT_TRUE(contains(tables(differ, "text"), "gate: order 0 only (1 items) against")) << tables(differ, "text");

  const ItemMatrix one_order = load_item_matrix(
      write_temp("cascade_compare_gates_one_order.csv",
                 "judge,item,gold,verdict,p.A,p.B\nF,i1,A,A,0.9,0.1\nF,i2,A,B,0.3,0.7\nS,i1,A,A,,\nS,i2,A,B,,\n"));
  const CascadeReport same = run_cascade(one_order, o, cpu_target(1));
  EXPECT_TRUE(has_note(same, "both gates read the same orders on every item (the first stage has one order)"));
  EXPECT_FALSE(has_note(same, "not on the same items"));

  o.other_gate_orders = 2;
  const CascadeReport missing = run_cascade(gate_matrix(), o, cpu_target(1));
  EXPECT_TRUE(has_note(missing, ": 2 items always escalate under that gate only because an order is missing"));
  EXPECT_FALSE(has_note(missing, "the two sweeps are the same"));  // items 9 and 10 lack order 1
}
