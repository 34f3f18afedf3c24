// The plotting layer (host/report/plot_axes.hpp) and every report's figures: round ticks with
// the fewest digits, Δ histogram bins aligned to the Δ grid, each figure's CSV equal to the JSON
// statistics it plots, text of at least 11 px that lies inside the canvas, numeric CSV columns;
// and the cascade's per-group risk–coverage rows against a separate run on the group's items.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_detail.hpp"
#include "analyses/cascade/cascade_pool.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/cascade.hpp"
#include "judgestat/label_budget.hpp"
#include "judgestat/metrics.hpp"
#include "report/plot_axes.hpp"
#include "report/report.hpp"
#include "test_support.hpp"

using namespace judgestat;
using namespace judgestat::testing_support;

namespace {

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";
const std::string kFirst = "Skywork_Skywork-Reward-Llama-3.1-8B", kFallback = "o1-mini-2024-09-12";

// ---- a small CSV and SVG reader (string search only) ----

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t column(const std::string& name) const {
    for (size_t c = 0; c < header.size(); ++c)
      if (header[c] == name) return c;
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t n = 0; n < line.size(); ++n) {
    const char ch = line[n];
    if (quoted && ch == '"' && n + 1 < line.size() && line[n + 1] == '"') {
      cells.back() += '"', ++n;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

Csv parse_csv(const std::string& text) {
  Csv csv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (csv.header.empty())
      csv.header = split_csv_line(line);
    else
      csv.rows.push_back(split_csv_line(line));
  }
  return csv;
}

bool parses_as_number(const std::string& cell, double* value = nullptr) {
  if (cell == "nan") {
    if (value) *value = NAN;
    return true;
  }
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (value) *value = v;
  return !cell.empty() && end == cell.c_str() + cell.size();
}

double number(const std::string& cell) {
  double v = NAN;
  EXPECT_TRUE(parses_as_number(cell, &v)) << cell;
  return v;
}

// Every CSV column but the text ones parses as numbers, every row has the header's width.
void expect_numeric_csv(const PlotFile& figure) {
  SCOPED_TRACE(figure.name);
  const Csv csv = parse_csv(figure.csv);
  ASSERT_FALSE(csv.header.empty());
  EXPECT_FALSE(csv.rows.empty());
  const std::set<std::string> text_columns = {"series", "label",   "group",     "benchmark",   "statistic",
                                              "judge",  "variant", "errors_of", "corrected_by"};
  for (const auto& row : csv.rows) {
    ASSERT_EQ(row.size(), csv.header.size());
    for (size_t c = 0; c < row.size(); ++c)
      if (csv.header[c] == "order" && row[c].empty()) {
        continue;  // the order-averaged presentation has no order: a missing number (pandas: NaN)
      } else if (!text_columns.count(csv.header[c])) {
        EXPECT_TRUE(parses_as_number(row[c])) << csv.header[c] << "=" << row[c];
      }
  }
}

std::string attribute(const std::string& tag, const std::string& name) {
  const size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const size_t start = at + name.size() + 3;
  return tag.substr(start, tag.find('"', start) - start);
}

std::string unescape(std::string text) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  return text;
}

size_t code_points(const std::string& text) {
  size_t n = 0;
  for (unsigned char ch : text) n += (ch & 0xC0) != 0x80;
  return n;
}

// Every <text> has font-size >= 11 and, at 0.6 × size per character, lies inside the viewBox
// (rotated axis titles: their centre and extent along the canvas height).
void expect_readable_svg(const PlotFile& figure) {
  SCOPED_TRACE(figure.name);
  const std::string& svg = figure.svg;
  const size_t open_end = svg.find('>');
  ASSERT_NE(open_end, std::string::npos);
  const std::string open = svg.substr(0, open_end);
  std::istringstream view(attribute(open, "viewBox"));
  double vx = 0, vy = 0, width = 0, height = 0;
  view >> vx >> vy >> width >> height;
  ASSERT_GT(width, 0);
  EXPECT_EQ(number(attribute(open, "width")), width);
  int texts = 0;
  for (size_t at = svg.find("<text "); at != std::string::npos; at = svg.find("<text ", at + 1)) {
    ++texts;
    const size_t tag_end = svg.find('>', at), close = svg.find("</text>", at);
    const std::string tag = svg.substr(at, tag_end - at);
    const std::string content = unescape(svg.substr(tag_end + 1, close - tag_end - 1));
    const double size = number(attribute(tag, "font-size"));
    EXPECT_GE(size, 11) << content;
    const double x = number(attribute(tag, "x")), y = number(attribute(tag, "y"));
    const double w = 0.6 * size * static_cast<double>(code_points(content));
    const std::string anchor = attribute(tag, "text-anchor");
    if (!attribute(tag, "transform").empty()) {  // rotated by −90° about (x, y): extent along y
      EXPECT_GE(y - w / 2, 0) << content;
      EXPECT_LE(y + w / 2, height) << content;
      continue;
    }
    const double left = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
    EXPECT_GE(left, -0.5) << content;
    EXPECT_LE(left + w, width + 0.5) << content;
    EXPECT_GE(y - size, -0.5) << content;
    EXPECT_LE(y, height + 0.5) << content;
  }
  EXPECT_GT(texts, 0);
}

void expect_good_figures(const std::vector<PlotFile>& figures) {
  ASSERT_FALSE(figures.empty());
  for (const PlotFile& figure : figures) {
    expect_readable_svg(figure);
    expect_numeric_csv(figure);
  }
}

const PlotFile& figure_named(const std::vector<PlotFile>& figures, const std::string& name) {
  for (const PlotFile& f : figures)
    if (f.name == name) return f;
  ADD_FAILURE() << "no figure " << name;
  return figures.front();
}

// The JSON statistic row with this name, threshold (as its text) and benchmark (empty: none).
const Json* json_row(const Json& statistics, const std::string& name, const std::string& threshold,
                     const std::string& benchmark) {
  for (const Json& row : statistics) {
    if (row["name"] != name) continue;
    if (benchmark.empty() ? !row["benchmark"].is_null() : row["benchmark"] != benchmark) continue;
    const Json& t = row["threshold"];
    std::string text = t.is_string() ? t.get<std::string>() : "";
    if (t.is_number()) {
      double parsed = NAN;
      if (!parses_as_number(threshold, &parsed) || parsed != t.get<double>()) continue;
      text = threshold;
    }
    if (text == threshold) return &row;
  }
  return nullptr;
}

void expect_row_equals_json(const Csv& csv, const std::vector<std::string>& row, const Json* json) {
  ASSERT_NE(json, nullptr);
  EXPECT_EQ(number(row[csv.column("estimate")]), (*json)["estimate"].get<double>());
  EXPECT_EQ(number(row[csv.column("ci_lo")]), (*json)["ci"][0].get<double>());
  EXPECT_EQ(number(row[csv.column("ci_hi")]), (*json)["ci"][1].get<double>());
}

}  // namespace

// ---- ticks ----

TEST(PlotTicks, RoundStepsOfOneTwoTwoAndAHalfOrFive) {
  // A span of 0.186 in about five steps: step 0.05, ticks on its multiples inside the range.
  const NiceTicks accuracy = nice_ticks(0.7371, 0.9234);
  EXPECT_EQ(accuracy.step, 0.05);
  EXPECT_EQ(accuracy.values, (std::vector<double>{0.75, 0.8, 0.85, 0.9}));
  EXPECT_EQ(tick_labels(accuracy.values), (std::vector<std::string>{"0.75", "0.80", "0.85", "0.90"}));
  EXPECT_EQ(nice_range(0.7371, 0.9234), (std::pair<double, double>{0.7, 0.95}));

  EXPECT_EQ(nice_ticks(0, 100).values, (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(tick_labels(nice_ticks(0, 100).values), (std::vector<std::string>{"0", "20", "40", "60", "80", "100"}));
  // Span 1 in four steps: 0.25 (a 2.5 × 10^-1 step), two decimals for every label.
  EXPECT_EQ(nice_ticks(0, 1, 4).values, (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(tick_labels(nice_ticks(0, 1, 4).values),
            (std::vector<std::string>{"0.00", "0.25", "0.50", "0.75", "1.00"}));
  // Negative values (points of Δ) with a typographic minus; zero is a tick.
  EXPECT_EQ(nice_ticks(-3.7, 1.2).values, (std::vector<double>{-3, -2, -1, 0, 1}));
  EXPECT_EQ(tick_labels({-3, -2, -1, 0, 1}), (std::vector<std::string>{"−3", "−2", "−1", "0", "1"}));
  // 5.3 in five steps: 1.06 per step rounds up to 2.
  EXPECT_EQ(nice_ticks(-4.5, 0.8, 5).step, 2.0);
  EXPECT_EQ(nice_ticks(-4.5, 0.8, 5).values, (std::vector<double>{-4, -2, 0}));
  // 1, 2, 2.5 need one decimal; 1.5e-3 steps pick 2 × 10^-3 for a span of 0.0075.
  EXPECT_EQ(tick_labels({1, 2, 2.5}), (std::vector<std::string>{"1.0", "2.0", "2.5"}));
  EXPECT_EQ(nice_ticks(0.0001, 0.0076, 5).step, 0.002);
  EXPECT_EQ(nice_ticks(0.0001, 0.0076, 5).values, (std::vector<double>{0.002, 0.004, 0.006}));
  // A degenerate range still gives ticks around its value.
  EXPECT_FALSE(nice_ticks(0.5, 0.5).values.empty());
}

TEST(PlotTicks, WilsonIntervalOfAShare) {
  // Wilson (1927) with z = 1.96: 8 of 10 → (0.4902, 0.9433), 0 of 20 → (0, 0.1611).
  const auto [lo, hi] = wilson_interval(8, 10);
  EXPECT_NEAR(lo, 0.4902, 5e-5);
  EXPECT_NEAR(hi, 0.9433, 5e-5);
  const auto [lo0, hi0] = wilson_interval(0, 20);
  EXPECT_EQ(lo0, 0.0);
  EXPECT_NEAR(hi0, 0.1611, 5e-5);
}

// ---- Δ histogram bins ----

namespace {

BudgetSummary summary_with(int64_t heldout, const std::map<int64_t, uint64_t>& counts_by_sum_2d) {
  BudgetSummary s;
  s.heldout_items = heldout;
  s.delta_hist.assign(static_cast<size_t>(4 * heldout + 1), 0);
  for (const auto& [sum_2d, count] : counts_by_sum_2d) {
    s.delta_hist[static_cast<size_t>(sum_2d + 2 * heldout)] = count;
    s.draws += count;
  }
  return s;
}

// Edges are whole multiples of the grid step, Δ = 0 is an edge, bins are consecutive, no bin
// strictly between two non-empty bins is empty, and the bins hold every draw.
void expect_aligned(const BudgetSummary& s, const DeltaBins& bins) {
  EXPECT_EQ(bins.step, 1.0 / (2.0 * static_cast<double>(s.heldout_items)));
  uint64_t total = 0;
  for (size_t b = 0; b < bins.bins.size(); ++b) {
    EXPECT_EQ(bins.bins[b].left_steps % bins.width_steps, 0);
    if (b) {
      EXPECT_EQ(bins.bins[b].left_steps, bins.bins[b - 1].left_steps + bins.width_steps);
    }
    total += bins.bins[b].draws;
  }
  EXPECT_EQ(total, s.draws);
  ASSERT_FALSE(bins.bins.empty());
  EXPECT_GT(bins.bins.front().draws, 0u);
  EXPECT_GT(bins.bins.back().draws, 0u);
  for (const DeltaBin& b : bins.bins) EXPECT_GT(b.draws, 0u) << "empty bin at " << b.left_steps;
}

}  // namespace

TEST(PlotDeltaBins, EveryGridValueHitGivesOneStepBins) {
  std::map<int64_t, uint64_t> counts;
  for (int64_t x = -7; x <= 5; ++x) counts[x] = 10 + static_cast<uint64_t>(x * x);
  const BudgetSummary s = summary_with(40, counts);
  const DeltaBins bins = delta_bins(s);
  EXPECT_EQ(bins.width_steps, 1);
  ASSERT_EQ(bins.bins.size(), 13u);
  EXPECT_EQ(bins.bins.front().left_steps, -7);
  EXPECT_EQ(bins.bins.front().draws, 59u);
  expect_aligned(s, bins);
}

TEST(PlotDeltaBins, EvenSumsOnlyGiveTwoStepBinsWithoutPicketFence) {
  // Single-order items: 2d ∈ {−2, 0, 2}, so Σ 2d is even and every odd grid value is empty.
  std::map<int64_t, uint64_t> counts;
  for (int64_t x = -12; x <= 8; x += 2) counts[x] = 3;
  const BudgetSummary s = summary_with(30, counts);
  const DeltaBins bins = delta_bins(s);
  EXPECT_EQ(bins.width_steps, 2);
  EXPECT_EQ(bins.bins.size(), 11u);
  expect_aligned(s, bins);
}

TEST(PlotDeltaBins, ManyValuesMergeWholeStepsUpToSixtyBins) {
  std::map<int64_t, uint64_t> counts;
  for (int64_t x = -400; x <= 400; ++x) counts[x] = 1;  // 801 grid values
  const BudgetSummary s = summary_with(200, counts);
  const DeltaBins bins = delta_bins(s, 60);
  EXPECT_EQ(bins.width_steps, 14);  // ⌈801 / 60⌉
  EXPECT_LE(bins.bins.size(), 60u);
  EXPECT_EQ(bins.bins.front().left_steps, -406);  // ⌊−400 / 14⌋ · 14
  expect_aligned(s, bins);
}

// ---- the reports' figures ----

TEST(PlotFigures, CascadeByBenchmarkCsvEqualsTheJson) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o;
  o.first = kFirst;
  o.fallback = kFallback;
  o.fee = {{kFirst, 0.0}, {kFallback, 0.0076}};
  o.bootstrap.replicates = 200;
  o.by = "benchmark";
  const CascadeReport r = run_cascade(m, o, cpu_target(2));
  const Json json = to_json(r, {});
  const Json& statistics = json["statistics"];
  const std::vector<PlotFile> figures = plot_files(r);
  expect_good_figures(figures);
  ASSERT_EQ(figures.size(), 6u);  // accuracy–fee pooled and per benchmark, reliability, risk–coverage

  for (const std::string& group : {std::string(), std::string("mmlu"), std::string("livebench")}) {
    SCOPED_TRACE(group);
    const PlotFile& fee =
        figure_named(figures, group.empty() ? "cascade_accuracy_fee" : "cascade_accuracy_fee_" + group);
    const Csv csv = parse_csv(fee.csv);
    int cascade_rows = 0, random_rows = 0, fallback_rows = 0, rule_rows = 0;
    for (const auto& row : csv.rows) {
      const std::string series = row[csv.column("series")], label = row[csv.column("label")];
      if (series == "cascade" || series == "fallback_alone" || series == "point_rule" || series == "lower_rule") {
        expect_row_equals_json(csv, row, json_row(statistics, "cascade_acc", label, group));
        const Json* fee_ratio = json_row(statistics, "fee_ratio", label, group);
        ASSERT_NE(fee_ratio, nullptr);
        EXPECT_EQ(number(row[csv.column("x")]), (*fee_ratio)["estimate"].get<double>());
        EXPECT_EQ(number(row[csv.column("x_lo")]), (*fee_ratio)["ci"][0].get<double>());
        cascade_rows += series == "cascade", fallback_rows += series == "fallback_alone";
        rule_rows += series == "point_rule" || series == "lower_rule";
      } else if (series == "random") {
        expect_row_equals_json(csv, row, json_row(statistics, "random_acc", label, group));
        ++random_rows;
      } else if (series == "oracle") {
        expect_row_equals_json(csv, row, json_row(statistics, "oracle_acc", "", group));
      }
    }
    EXPECT_EQ(cascade_rows, o.grid.size());
    EXPECT_EQ(random_rows, o.grid.size() + 1);
    EXPECT_EQ(fallback_rows, 1);
    EXPECT_EQ(rule_rows, 2);  // both rules' pooled τ marked
  }

  const Csv rc = parse_csv(figure_named(figures, "cascade_risk_coverage").csv);
  int curve = 0, at = 0;
  for (const auto& row : rc.rows) {
    const std::string series = row[rc.column("series")], label = row[rc.column("label")];
    if (series == "selective_risk") {
      expect_row_equals_json(rc, row, json_row(statistics, "selective_risk", label, ""));
      ++curve;
    } else if (series == "selective_acc") {
      expect_row_equals_json(rc, row, json_row(statistics, "selective_acc", label, ""));
      ++at;
    } else if (series == "aurc") {
      const Json* aurc = nullptr;
      for (const Json& s : statistics)
        if (s["name"] == "aurc" && s["benchmark"].is_null()) aurc = &s;
      expect_row_equals_json(rc, row, aurc);
    }
  }
  EXPECT_EQ(curve, static_cast<int>(r.sweep.selective.curve.size()));
  EXPECT_GT(curve, 10);
  EXPECT_EQ(at, 3);
  // The curve's coverage is the share of items at or above each threshold, ending at 1.
  EXPECT_EQ(r.sweep.selective.curve_coverage.back(), 1.0);

  const Csv rel = parse_csv(figure_named(figures, "cascade_reliability").csv);
  ASSERT_EQ(rel.rows.size(), 2 * r.sweep.selective.bins.size());
  for (const auto& row : rel.rows)
    expect_row_equals_json(rel, row,
                           json_row(statistics, row[rel.column("series")] == "first" ? "bin_acc" : "fallback_bin_acc",
                                    row[rel.column("label")], ""));
}

// Part 3: each group's AURC and selective accuracy rows equal the pooled rows of a plan over the
// group's items alone, resampled on the group's stratum stream (the sweep's rows do the same).
TEST(PlotFigures, CascadeGroupRiskCoverageRowsEqualASeparatePlanOnTheStratum) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  CascadeOptions o;
  o.first = kFirst;
  o.fallback = kFallback;
  o.select = 0;
  o.bootstrap.replicates = 300;
  o.by = "benchmark";
  const CascadeReport by = run_cascade(m, o, cpu_target(2));
  ASSERT_EQ(by.sweep.group_selective.size(), 3u);
  const Json json = to_json(by, {});
  const std::string text = tables(by, "text");
  for (size_t h = 0; h < 3; ++h) {
    const CascadeSelective& group = by.sweep.group_selective[h];
    const std::string name = *group.group;
    SCOPED_TRACE(name);
    EXPECT_NE(text.find("First-stage risk–coverage, benchmark " + name), std::string::npos);
    int group_rows = 0;  // the JSON names the group's rows by benchmark
    for (const Json& s : json["statistics"])
      group_rows += s["benchmark"] == name &&
                    (s["name"] == "aurc" || s["name"] == "selective_acc" || s["name"] == "selective_coverage");
    EXPECT_EQ(group_rows, 7);
    std::vector<uint8_t> keep(m.n_items());
    for (int32_t i = 0; i < m.n_items(); ++i) keep[i] = m.benchmarks[m.item_benchmark[i]] == name;
    const CascadePool pool = build_cascade_pool(m, kFirst, kFallback, 0, "", {}, {}, keep);
    PoolClusters clusters = number_pool_clusters(m, pool);
    clusters.stratum_offset.assign(h + 1, 0);
    clusters.stratum_offset.push_back(clusters.size());
    clusters.stratum_names.assign(h + 1, "empty");
    CascadePlan plan = build_cascade_plan(pool, clusters, sweep_policies(pool, o.grid), {false, true});
    const CascadeSelective alone = add_cascade_selective(pool, plan.plan);
    auto backend = make_cpu_backend(2);
    const BootstrapResult placed = run_bootstrap(plan.plan, *backend, o.bootstrap);
    EXPECT_EQ(group.n, alone.n);
    auto same = [&](int32_t a, int32_t b) {
      EXPECT_EQ(by.sweep.result.intervals[a].estimate, placed.intervals[b].estimate);
      EXPECT_EQ(by.sweep.result.intervals[a].lo, placed.intervals[b].lo);
      EXPECT_EQ(by.sweep.result.intervals[a].hi, placed.intervals[b].hi);
      EXPECT_EQ(*by.sweep.result.labels[a].benchmark, name);
    };
    same(group.aurc, alone.aurc);
    ASSERT_EQ(group.at.size(), alone.at.size());
    for (size_t c = 0; c < group.at.size(); ++c) {
      EXPECT_EQ(group.at[c].threshold, alone.at[c].threshold);
      same(group.at[c].accuracy, alone.at[c].accuracy);
      same(group.at[c].coverage, alone.at[c].coverage);
    }
    EXPECT_TRUE(group.curve.empty());  // the curve is the pooled scope's
  }
}

TEST(PlotFigures, MetricsForestCsvEqualsTheJsonPerGroup) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  MetricsOptions o;
  o.judges = {kFirst, kFallback, "Skywork_Skywork-Reward-Gemma-2-27B"};
  o.by = "benchmark";
  o.bootstrap.replicates = 200;
  const MetricsReport r = run_metrics(m, o, cpu_target(2));
  const Json json = to_json(r, {});
  const std::vector<PlotFile> all = plot_files(r);
  expect_good_figures(all);
  std::vector<PlotFile> figures;  // the forests; JEV's figures (metrics_paper_*) follow them
  for (const PlotFile& figure : all)
    if (figure.name.rfind("metrics_forest", 0) == 0) figures.push_back(figure);
  ASSERT_EQ(figures.size(), 4u);  // pooled, then mmlu, livebench, livecodebench
  EXPECT_EQ(figures[0].name, "metrics_forest");
  EXPECT_EQ(figures[1].name, "metrics_forest_mmlu");
  const std::set<std::string> family = {"acc", "pa", "bc", "cons", "stable_wrong", "jb_score", "acc_avg"};
  for (const PlotFile& figure : figures) {
    SCOPED_TRACE(figure.name);
    const Csv csv = parse_csv(figure.csv);
    const std::string group =
        figure.name == "metrics_forest" ? "" : figure.name.substr(std::string("metrics_forest_").size());
    std::vector<const Json*> expected;
    for (const Json& s : json["statistics"])
      if (family.count(s["name"].get<std::string>()) &&
          (group.empty() ? s["benchmark"].is_null() && s["condition"].is_null() : s["benchmark"] == group))
        expected.push_back(&s);
    ASSERT_EQ(csv.rows.size(), expected.size());
    for (size_t n = 0; n < expected.size(); ++n) {
      EXPECT_EQ(csv.rows[n][csv.column("label")], (*expected[n])["judge"].get<std::string>());
      expect_row_equals_json(csv, csv.rows[n], expected[n]);
    }
    // The judge names stand whole on the left of the plot area.
    for (const std::string& judge : o.judges) EXPECT_NE(figure.svg.find(">" + judge + "</text>"), std::string::npos);
  }
}

TEST(PlotFigures, BudgetAndCompareCsvEqualTheJson) {
  const ItemMatrix m = load_item_matrix(kJudgeBench);
  BudgetOptions o;
  o.first = kFirst;
  o.fallback = kFallback;
  o.ks = {48, 96};
  o.draws = 4000;
  o.fee_per_call = {{kFirst, 0.0}, {kFallback, 0.0076}};
  const BudgetReport r = run_budget(m, o, cpu_target(2));
  const Json json = to_json(r, {});
  const std::vector<PlotFile> figures = plot_files(r);
  expect_good_figures(figures);
  ASSERT_EQ(figures.size(), 5u);  // four Δ histograms, the loss share
  const Csv loss = parse_csv(figure_named(figures, "budget_loss_share").csv);
  ASSERT_EQ(loss.rows.size(), 4u);
  for (const auto& row : loss.rows) {
    const Json* match = nullptr;
    for (const Json& b : json["budget"])
      if (b["rule"] == row[loss.column("series")] && std::to_string(b["k"].get<int>()) == row[loss.column("k")])
        match = &b;
    ASSERT_NE(match, nullptr);
    const double share = (*match)["loss_share"].get<double>();
    EXPECT_EQ(number(row[loss.column("estimate")]), share);
    const auto [lo, hi] = wilson_interval(std::llround(share * 4000), 4000);
    EXPECT_EQ(number(row[loss.column("ci_lo")]), lo);
    EXPECT_EQ(number(row[loss.column("ci_hi")]), hi);
  }
  for (const BudgetSummary& s : r.summaries) {
    const Csv delta =
        parse_csv(figure_named(figures, "budget_delta_k" + std::to_string(s.k) + "_" + rule_name(s.rule)).csv);
    const double step = 1.0 / (2.0 * static_cast<double>(s.heldout_items));
    uint64_t total = 0;
    for (const auto& row : delta.rows) {
      const double lo = number(row[delta.column("x_lo")]) / step, hi = number(row[delta.column("x_hi")]) / step;
      EXPECT_NEAR(lo, std::round(lo), 1e-6);  // edges on the Δ grid
      EXPECT_NEAR(hi, std::round(hi), 1e-6);
      total += static_cast<uint64_t>(number(row[delta.column("draws")]));
    }
    EXPECT_EQ(total, s.draws);
  }

  BudgetCompareOptions c;
  c.a = "Skywork_Skywork-Reward-Gemma-2-27B";
  c.b = kFallback;
  c.ks = {50, 100, 200};
  c.draws = 3000;
  const BudgetCompareReport cr = run_budget_compare(m, c, cpu_target(2));
  const Json cj = to_json(cr, {});
  const std::vector<PlotFile> power = plot_files(cr);
  expect_good_figures(power);
  const Csv csv = parse_csv(power.front().csv);
  ASSERT_EQ(csv.rows.size(), 6u);  // power and wrong sign per k
  for (const auto& row : csv.rows) {
    const std::string key = row[csv.column("series")] == "power" ? "power" : "wrong_sign";
    bool found = false;
    for (const Json& b : cj["budget"])
      if (std::to_string(b["k"].get<int>()) == row[csv.column("k")]) {
        EXPECT_EQ(number(row[csv.column("estimate")]), b[key].get<double>());
        found = true;
      }
    EXPECT_TRUE(found);
  }
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

// `metrics --plots DIR` and `profile --plots DIR` write each figure's SVG and CSV; the profile's
// forest plot sits beside its radar, and every figure passes the readability checks.
TEST(PlotFigures, MetricsAndProfileCliWriteSvgAndCsv) {
  const std::string dir = ::testing::TempDir() + "judgestat_plot_cli/";
  const CliRun metrics = run_cli("metrics " + kJudgeBench + " --judges " + kFirst + "," + kFallback +
                                 " --replicates 200 --quiet --plots " + dir + "metrics");
  ASSERT_EQ(metrics.status, 0) << metrics.out;
  const CliRun profile = run_cli("profile " + kJudgeBench + " --config " + kRoot +
                                 "/configs/judgebench.json --replicates 200 --quiet --plots " + dir + "profile");
  ASSERT_EQ(profile.status, 0) << profile.out;
  for (const char* stem : {"metrics/metrics_forest", "profile/forest_JudgeBench"}) {
    SCOPED_TRACE(stem);
    const PlotFile figure{stem, read_text(dir + stem + ".svg"), read_text(dir + stem + ".csv")};
    expect_readable_svg(figure);
    expect_numeric_csv(figure);
  }
  const PlotFile radar{"radar", read_text(dir + "profile/radar_JudgeBench.svg"), ""};
  expect_readable_svg(radar);
  // The forest's rows: one per judge and main-table condition, each with its CI around it.
  const Csv forest = parse_csv(read_text(dir + "profile/forest_JudgeBench.csv"));
  ASSERT_FALSE(forest.rows.empty());
  for (const auto& row : forest.rows) {
    EXPECT_LE(number(row[forest.column("ci_lo")]), number(row[forest.column("estimate")]));
    EXPECT_GE(number(row[forest.column("ci_hi")]), number(row[forest.column("estimate")]));
  }
}
