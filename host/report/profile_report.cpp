// Writers of the profile report (docs/statistics.md §3.6, §4): the JSON, the paper's tables (profile table per
// benchmark, coverage matrix, strict vs pure consistency, supported-correct, Spearman rank
// stability, stress degradation, L1 family distances, bias correction, leave-out sensitivity)
// and the radar chart per benchmark.
#include "report/profile_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "report/plot_axes.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"
#include "support/text.hpp"

namespace judgestat {
namespace {

using Kind = ProfileStat::Kind;

// "(88,96)": CI bounds in whole percent (or points); "(—)" when the CI is undefined.
std::string whole_percent_ci(const Interval& ci) {
  if (!std::isfinite(ci.lo) || !std::isfinite(ci.hi)) return "(—)";
  return "(" + std::to_string(std::lround(100 * ci.lo)) + "," + std::to_string(std::lround(100 * ci.hi)) + ")";
}

// The paper's cell: "92.4 (88,96)" — percent with one decimal, CI in whole percent.
std::string paper_cell(const Interval& ci) {
  if (!std::isfinite(ci.estimate)) return "—";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ", 100 * ci.estimate);
  return text + whole_percent_ci(ci);
}

// A difference in points with its sign: "+37.8 (30,45)".
std::string points_cell(const Interval& ci) {
  if (!std::isfinite(ci.estimate)) return "—";
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f ", 100 * ci.estimate);
  return text + whole_percent_ci(ci);
}

std::string number(double value, const char* format = "%.2f") {
  if (!std::isfinite(value)) return "—";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// p-values: four decimals, or two significant digits below 0.001.
std::string p_value(double p) {
  if (!std::isfinite(p)) return "—";
  return number(p, p < 0.001 ? "%.2g" : "%.4f");
}

std::string header_of(const CellSpec& cell) {
  std::string header = cell.name;
  if (cell.status == Coverage::kApprox) header += "≈";
  if (cell.status == Coverage::kAugmented) header += "aug";
  if (!cell.main_table && cell.status != Coverage::kAugmented) header += "†";
  return header;
}

// The statistics of the JSON's across_judges rows.
bool is_across_judges(Kind kind) {
  return kind == Kind::kSpread || kind == Kind::kDifference || kind == Kind::kMeanAbsDifference ||
         kind == Kind::kJudgeSetMean;
}

std::string coverage_word(const CellSpec& cell) {
  switch (cell.status) {
    case Coverage::kDirect:
      return cell.main_table ? "Direct" : "Direct†";
    case Coverage::kApprox:
      return cell.main_table ? "Approx." : "Approx.†";
    case Coverage::kAugmented:
      return "Aug.";
    case Coverage::kUnavailable:
      return "—";
  }
  return "?";
}

Json interval_json(const Interval& ci, int64_t n) {
  return {{"n", n},
          {"estimate", ci.estimate},
          {"ci", Json::array({ci.lo, ci.hi})},
          {"se", ci.se},
          {"undefined", ci.undefined}};
}

Json optional_number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// A titled block of text: the table, or for md a heading and the table.
std::string titled_block(const std::string& title, const Table& table, const std::string& format) {
  if (table.rows.empty()) return "";
  if (format == "md") return "\n### " + title + "\n\n" + table.render(format);
  return "\n" + title + "\n" + table.render(format);
}

// What every writer step reads, named as the steps use it.
class ProfileWriter {
 public:
  ProfileWriter(const ProfileReport& report, std::string format)
      : options(report.options),
        plan(report.plan),
        result(report.result),
        summary(report.summary),
        I(report.result.intervals),
        B(static_cast<int32_t>(report.plan.benchmarks.size())),
        J(static_cast<int32_t>(report.plan.judges.size())),
        exact_max_n(report.options.exact_max_n),
        format(std::move(format)) {}

  void add_statistics(Json& json) const;
  void add_coverage(Json& json) const;
  void add_spearman(Json& json) const;
  void add_stress(Json& json) const;
  void add_l1(Json& json) const;
  void add_corrections_and_leave_out(Json& json) const;
  void coverage_table(std::string& text) const;
  void benchmark_tables(std::string& text) const;
  void spearman_condition_tables(std::string& text) const;
  void spearman_list(std::string& text) const;
  void spearman_benchmark_tables(std::string& text) const;
  void stress_tables(std::string& text) const;
  void l1_table(std::string& text) const;
  void correction_tables(std::string& text) const;
  void leave_out_tables(std::string& text) const;
  void across_judge_tables(std::string& text) const;
  void rank_tables(std::string& text) const;
  void spearman_summary_table(std::string& text) const;
  void tail(std::string& text) const;
  void add_across_judges(Json& json) const;
  void add_ranks_and_rho_summaries(Json& json) const;
  /// The CSV of every table the steps gave: one long table with a `table` column (pandas reads it).
  std::string csv() const { return csv_long(csv_tables); }

 private:
  // A step's table: text and md get it titled in place; CSV collects it for csv().
  std::string block(const std::string& title, const Table& table, const std::string& /*format*/) const {
    if (format != "csv") return titled_block(title, table, format);
    if (!table.rows.empty()) csv_tables.emplace_back(title, table);
    return "";
  }
  Json across_judge_row(size_t s) const;
  std::string selected_mean_header(int32_t from, int32_t to) const;
  int32_t stat_benchmark(const std::string& name) const {
    for (int32_t b = 0; b < B; ++b)
      if (plan.benchmarks[b].spec.name == name) return b;
    return -1;
  }
  std::string largest_channel(int32_t from, int32_t to, int32_t jj) const;
  std::string cell_header(int32_t b, const std::string& condition) const;
  std::vector<std::string> main_cells(int32_t b) const;
  int32_t stat_of(Kind kind, int32_t b, int32_t jj, const std::string& c, const std::string& group = "",
                  int32_t to = -1) const {
    return plan.find(kind, b, jj, c, group, to);
  }

  const ProfileSettings& options;
  const ProfilePlan& plan;
  const BootstrapResult& result;
  const ProfileSummary& summary;
  const std::vector<Interval>& I;
  const int32_t B, J;
  const int exact_max_n;
  const std::string format;
  mutable std::vector<std::pair<std::string, Table>> csv_tables;
};

// Every statistic with a CI but stress, L1 and leave-out, with its coverage [docs/statistics.md §4].
void ProfileWriter::add_statistics(Json& json) const {
  {
    BootstrapResult rows;
    std::vector<int32_t> kept;
    for (size_t s = 0; s < plan.stats.size(); ++s) {
      const Kind kind = plan.stats[s].kind;
      if (kind == Kind::kCell || kind == Kind::kConsistency || kind == Kind::kStableWrong ||
          kind == Kind::kSupportedCorrect || kind == Kind::kCorrected) {
        rows.labels.push_back(result.labels[s]);
        rows.intervals.push_back(I[s]);
        kept.push_back(static_cast<int32_t>(s));
      }
    }
    Json statistics = statistics_json(rows);
    for (size_t r = 0; r < kept.size(); ++r) {
      const ProfileStat& stat = plan.stats[kept[r]];
      statistics[r]["coverage"] = to_string(stat.status);
      statistics[r]["main_table"] = stat.main_table;
      if (stat.kind == Kind::kCorrected) {
        // Saturated: the corrected point estimate exceeds 1 [CAP App. K].
        statistics[r]["saturated"] = I[kept[r]].estimate > 1.0;
        statistics[r]["ci_above_1"] = I[kept[r]].lo > 1.0;
      }
    }
    json["statistics"] = statistics;
  }
}

// The coverage matrix: per benchmark × condition its status, operator, subset and items.
void ProfileWriter::add_coverage(Json& json) const {
  {
    Json coverage;
    Json names = Json::array();
    for (const auto& b : plan.benchmarks) names.push_back(b.spec.name);
    coverage["benchmarks"] = names;
    coverage["conditions"] = cap_cell_names();
    Json cells = Json::array();
    for (const auto& b : plan.benchmarks)
      for (size_t c = 0; c < b.spec.cells.size(); ++c) {
        const CellSpec& cell = b.spec.cells[c];
        Json row{{"benchmark", b.spec.name}, {"condition", cell.name}, {"status", to_string(cell.status)}};
        if (cell.status != Coverage::kUnavailable) {
          row["operator"] = to_string(cell.op);
          row["main_table"] = cell.main_table;
          row["subset"] = {{"benchmark", cell.subset.benchmarks},
                           {"condition", cell.subset.conditions},
                           {"variant", cell.op == CapOperator::kVariantBc ? cell.variant_pair : cell.subset.variants}};
          row["items"] = b.cell_items[c];
        }
        if (!cell.note.empty()) row["note"] = cell.note;
        cells.push_back(row);
      }
    coverage["cells"] = cells;
    json["coverage"] = coverage;
  }
}

void ProfileWriter::add_spearman(Json& json) const {
  {
    auto entry_json = [&](const SpearmanEntry& e, const char* scope_key) {
      return Json{{scope_key, e.scope},
                  {"a", e.a},
                  {"b", e.b},
                  {"status_a", to_string(e.status_a)},
                  {"status_b", to_string(e.status_b)},
                  {"n", e.result.n},
                  {"rho", optional_number(e.result.rho)},
                  {"p_t", optional_number(e.result.p_t)},
                  {"p_exact", e.result.exact ? optional_number(e.result.p_exact) : Json(nullptr)},
                  {"pearson_r", optional_number(e.pearson_r)},
                  {"pearson_p", optional_number(e.pearson_p)},
                  {"judges", e.judges}};
    };
    Json spearman_json;
    Json between_conditions = Json::array(), between_benchmarks = Json::array(), mean = Json::array();
    for (const auto& e : summary.between_conditions) between_conditions.push_back(entry_json(e, "benchmark"));
    for (const auto& e : summary.between_benchmarks) between_benchmarks.push_back(entry_json(e, "condition"));
    for (const auto& m : summary.mean_rho)
      mean.push_back({{"condition", m.condition}, {"pairs", m.pairs}, {"mean_rho", m.mean}});
    spearman_json["note"] =
        "computed on point estimates (a rank correlation is not a ratio of sums); "
        "average ranks for ties; p_t: t approximation with n − 2 df as "
        "scipy.stats.spearmanr; p_exact: exact two-sided permutation p over all n! "
        "pairings for n <= exact_max_n; mean_rho over direct–direct benchmark pairs";
    spearman_json["between_conditions"] = between_conditions;
    spearman_json["between_benchmarks"] = between_benchmarks;
    spearman_json["mean_rho"] = mean;
    json["spearman"] = spearman_json;
  }
}

// Stress degradation per (from, to) pair: deltas, judge means, condition means.
void ProfileWriter::add_stress(Json& json) const {
  {
    Json stress = Json::array();
    for (const StressSpec& pair : plan.stress) {
      Json block_json{{"from", pair.from}, {"to", pair.to}};
      Json deltas = Json::array(), judge_means = Json::array(), condition_means = Json::array(),
           mean_over = Json::array(), mean_abs = Json::array();
      for (size_t s = 0; s < plan.stats.size(); ++s) {
        const ProfileStat& stat = plan.stats[s];
        if (stat.benchmark < 0 || plan.benchmarks[stat.benchmark].spec.name != pair.from || stat.to < 0 ||
            plan.benchmarks[stat.to].spec.name != pair.to)
          continue;
        Json row = interval_json(I[s], result.labels[s].n);
        if (stat.kind == Kind::kStress) {
          row.update(
              {{"judge", plan.judges[stat.judge]}, {"condition", stat.condition}, {"status", to_string(stat.status)}});
          deltas.push_back(row);
        } else if (stat.kind == Kind::kStressJudgeMean) {
          row.update(
              {{"judge", plan.judges[stat.judge]}, {"status", to_string(stat.status)}, {"conditions", stat.over}});
          judge_means.push_back(row);
        } else if (stat.kind == Kind::kStressConditionMean) {
          row.update({{"condition", stat.condition}, {"status", to_string(stat.status)}});
          condition_means.push_back(row);
        } else if (stat.kind == Kind::kStressSelectedMean) {
          row.update({{"judge", plan.judges[stat.judge]}, {"conditions", stat.over}});
          mean_over.push_back(row);
        } else if (stat.kind == Kind::kStressMeanAbs) {
          mean_abs.push_back(row);
        }
      }
      block_json["deltas"] = deltas;
      block_json["judge_means"] = judge_means;
      block_json["condition_means"] = condition_means;
      block_json["mean_over"] = mean_over;
      block_json["mean_abs"] = mean_abs;
      Json largest = Json::object();
      for (int32_t jj = 0; jj < J; ++jj) {
        const std::string channel = largest_channel(stat_benchmark(pair.from), stat_benchmark(pair.to), jj);
        if (!channel.empty()) largest[plan.judges[jj]] = channel;
      }
      block_json["largest_channel"] = largest;
      stress.push_back(block_json);
    }
    json["stress"] = stress;
  }
}

void ProfileWriter::add_l1(Json& json) const {
  {
    Json l1 = Json::array();
    for (size_t s = 0; s < plan.stats.size(); ++s) {
      const ProfileStat& stat = plan.stats[s];
      if (stat.kind != Kind::kL1) continue;
      const std::string group = stat.group.substr(0, stat.group.rfind('|'));
      Json row = interval_json(I[s], stat.pairs);
      row.update({{"benchmark", plan.benchmarks[stat.benchmark].spec.name},
                  {"status", to_string(stat.status)},
                  {"group", group},
                  {"within_family", group != "cross-family"},
                  {"pairs", stat.pairs},
                  {"conditions", stat.over}});
      l1.push_back(row);
    }
    Json selected = Json::array();
    for (size_t s = 0; s < plan.stats.size(); ++s) {
      const ProfileStat& stat = plan.stats[s];
      if (stat.kind != Kind::kL1Selected) continue;
      Json row = interval_json(I[s], stat.pairs);
      row.update({{"benchmark", plan.benchmarks[stat.benchmark].spec.name},
                  {"group", stat.group},
                  {"within_family", stat.group != "cross-family"},
                  {"pairs", stat.pairs},
                  {"conditions", stat.over}});
      selected.push_back(row);
    }
    Json pairs = Json::array();
    for (const L1Pair& p : summary.l1_pairs)
      pairs.push_back({{"benchmark", p.benchmark},
                       {"status", p.status},
                       {"a", p.judge_a},
                       {"b", p.judge_b},
                       {"family", p.family.empty() ? Json(nullptr) : Json(p.family)},
                       {"distance", p.distance}});
    Json families = Json::object();
    for (const FamilySpec& f : plan.families) families[f.name] = f.members;
    json["l1"] = {{"families", families}, {"means", l1}, {"sum_over_means", selected}, {"pairs", pairs}};
  }
}

void ProfileWriter::add_corrections_and_leave_out(Json& json) const {
  {
    Json corrections = Json::array();
    for (const CorrectionParams& q : plan.corrections)
      corrections.push_back({{"benchmark", plan.benchmarks[q.benchmark].spec.name},
                             {"judge", plan.judges[q.judge]},
                             {"q0", q.q0},
                             {"q1", q.q1},
                             {"se_q0", q.se0},
                             {"se_q1", q.se1},
                             {"n_q0", q.n0},
                             {"n_q1", q.n1}});
    json["bias_correction"] = corrections;
    Json leave_out = Json::array();
    for (size_t s = 0; s < plan.stats.size(); ++s) {
      const ProfileStat& stat = plan.stats[s];
      if (stat.kind != Kind::kLeaveOut) continue;
      Json row = interval_json(I[s], result.labels[s].n);
      row.update({{"benchmark", plan.benchmarks[stat.benchmark].spec.name},
                  {"judge", plan.judges[stat.judge]},
                  {"condition", stat.condition},
                  {"status", to_string(stat.status)}});
      leave_out.push_back(row);
    }
    json["leave_out"] = leave_out;
  }
}

// ------------------------------------------------------------------------------------------
// Tables for people.

void ProfileWriter::coverage_table(std::string& text) const {
  if (format == "csv") {  // one row per cell: the status a word, the items a number
    Table coverage;
    coverage.header = {"condition", "benchmark", "coverage", "items"};
    for (size_t c = 0; c < cap_cell_names().size(); ++c)
      for (const auto& b : plan.benchmarks)
        coverage.rows.push_back(
            {cap_cell_names()[c], b.spec.name, coverage_word(b.spec.cells[c]),
             b.spec.cells[c].status == Coverage::kUnavailable ? "" : std::to_string(b.cell_items[c])});
    text += block("Coverage matrix", coverage, format);
    return;
  }
  {
    Table coverage;
    coverage.header = {"condition"};
    for (const auto& b : plan.benchmarks) coverage.header.push_back(b.spec.name);
    for (size_t c = 0; c < cap_cell_names().size(); ++c) {
      std::vector<std::string> row{cap_cell_names()[c]};
      for (const auto& b : plan.benchmarks) {
        const CellSpec& cell = b.spec.cells[c];
        row.push_back(coverage_word(cell) +
                      (cell.status == Coverage::kUnavailable ? "" : " (" + std::to_string(b.cell_items[c]) + ")"));
      }
      coverage.rows.push_back(row);
    }
    coverage.notes.push_back(
        "cells: coverage status (items in the subset); † computed but not in the main "
        "table (n.r.); approx and augmented cells are never averaged with direct ones");
    text += block("Coverage matrix", coverage, format);
  }
}

// Per benchmark: the profile table, its n, the n.r. cells, strict vs consistency, supported-correct.
void ProfileWriter::benchmark_tables(std::string& text) const {
  for (int32_t b = 0; b < B; ++b) {
    const ProfiledBenchmark& bench = plan.benchmarks[b];
    const std::string& name = bench.spec.name;
    Table table, counts;
    table.header = counts.header = {"judge"};
    for (const CellSpec& cell : bench.spec.cells) {
      table.header.push_back(header_of(cell));
      counts.header.push_back("n_" + cell.name);
    }
    table.header.push_back("clusters");
    std::vector<std::string> unreported;
    for (int32_t jj = 0; jj < J; ++jj) {
      std::vector<std::string> row{plan.judges[jj]}, n_row{plan.judges[jj]};
      int64_t clusters = -1;  // the row's cells resample the benchmark's clusters
      for (const CellSpec& cell : bench.spec.cells) {
        const int32_t s = stat_of(Kind::kCell, b, jj, cell.name);
        if (cell.status == Coverage::kUnavailable) {
          row.push_back("—");
          n_row.push_back("—");
        } else if (s < 0) {
          row.push_back("—");
          n_row.push_back("0");
        } else {
          row.push_back(cell.main_table ? paper_cell(I[s]) : "n.r.");
          n_row.push_back(std::to_string(result.labels[s].n));
          clusters = std::max(clusters, I[s].clusters);
        }
      }
      row.push_back(clusters >= 0 ? std::to_string(clusters) : "—");
      table.rows.push_back(row);
      counts.rows.push_back(n_row);
    }
    for (const CellSpec& cell : bench.spec.cells)
      if (!cell.note.empty() && cell.status != Coverage::kUnavailable)
        table.notes.push_back(header_of(cell) + ": " + cell.note);
    table.notes.push_back("%, estimate (" + number(100 * result.level, "%g") +
                          "% CI); — not measurable; n.r. computed "
                          "but not aggregated (listed below)");
    if (b == 0)
      for (const auto& note : interval_notes(interval_warnings(result))) table.notes.push_back(note);
    text += block("CAP profile — " + name + " (" + std::to_string(bench.items) + " items)", table, format);
    text += block("Per-condition n — " + name, counts, format);

    Table unreported_table;
    unreported_table.header = {"judge", "condition", "status", "value"};
    for (const CellSpec& cell : bench.spec.cells) {
      if (cell.status == Coverage::kUnavailable || cell.main_table) continue;
      for (int32_t jj = 0; jj < J; ++jj) {
        const int32_t s = stat_of(Kind::kCell, b, jj, cell.name);
        if (s >= 0)
          unreported_table.rows.push_back({plan.judges[jj], cell.name, to_string(cell.status), paper_cell(I[s])});
      }
    }
    text += block("Computed but not aggregated (n.r.) — " + name, unreported_table, format);

    // Strict vs pure consistency [CAP App. H].
    Table robust;
    robust.header = {"judge"};
    std::vector<std::string> robust_conditions;
    for (const std::string c : {"C5", "C6", "C7"})
      for (int32_t jj = 0; jj < J; ++jj)
        if (stat_of(Kind::kConsistency, b, jj, c) >= 0) {
          robust_conditions.push_back(c);
          robust.header.insert(robust.header.end(), {c + " strict", c + " cons", c + " Δ"});
          break;
        }
    for (int32_t jj = 0; jj < J && !robust_conditions.empty(); ++jj) {
      std::vector<std::string> row{plan.judges[jj]};
      for (const std::string& c : robust_conditions) {
        const int32_t strict = stat_of(Kind::kCell, b, jj, c), cons = stat_of(Kind::kConsistency, b, jj, c),
                      delta = stat_of(Kind::kStableWrong, b, jj, c);
        row.push_back(strict < 0 ? "—" : paper_cell(I[strict]));
        row.push_back(cons < 0 ? "—" : paper_cell(I[cons]));
        row.push_back(delta < 0 ? "—" : paper_cell(I[delta]));
      }
      robust.rows.push_back(row);
    }
    robust.notes.push_back("Δ = consistency − strict = stable-but-wrong mass");
    text += block("Strict vs pure-consistency robustness — " + name, robust, format);

    Table supported;
    supported.header = {"judge", "overall", "C8", "supported_correct"};
    for (int32_t jj = 0; jj < J; ++jj) {
      const int32_t sc = stat_of(Kind::kSupportedCorrect, b, jj, "supported_correct");
      const int32_t overall = stat_of(Kind::kCell, b, jj, "overall");
      if (overall < 0) continue;
      const int32_t c8 = stat_of(Kind::kCell, b, jj, "C8");
      supported.rows.push_back({plan.judges[jj], paper_cell(I[overall]), c8 < 0 ? "—" : paper_cell(I[c8]),
                                sc < 0 ? "—" : paper_cell(I[sc])});
    }
    supported.notes.push_back("supported_correct = overall × C8 (correct and with a supporting rationale)");
    text += block("Overall and supported-correct — " + name, supported, format);
  }
}

// Spearman between conditions: lower triangle per benchmark.
void ProfileWriter::spearman_condition_tables(std::string& text) const {
  if (format == "csv") return;  // the matrices' numbers are spearman_list's rows
  for (int32_t b = 0; b < B; ++b) {
    std::vector<std::string> measured;
    for (const CellSpec& cell : plan.benchmarks[b].spec.cells)
      if (cell.status != Coverage::kUnavailable) measured.push_back(cell.name);
    if (measured.size() < 2) continue;
    Table matrix;
    matrix.header = {""};
    matrix.header.insert(matrix.header.end(), measured.begin(), measured.end() - 1);
    for (size_t y = 1; y < measured.size(); ++y) {
      std::vector<std::string> row{measured[y]};
      for (size_t x = 0; x + 1 < measured.size(); ++x) {
        std::string cell;
        if (x < y)
          for (const auto& e : summary.between_conditions)
            if (e.scope == plan.benchmarks[b].spec.name && e.a == measured[x] && e.b == measured[y])
              cell = number(e.result.rho) + (e.result.p_t < 0.05 ? "*" : "");
        row.push_back(cell);
      }
      matrix.rows.push_back(row);
    }
    matrix.notes.push_back("Spearman ρ of judge rankings on point estimates; * p_t < 0.05; p-values below");
    text += block("Spearman ρ between conditions — " + plan.benchmarks[b].spec.name, matrix, format);
  }
}

void ProfileWriter::spearman_list(std::string& text) const {
  {
    Table list;
    list.header = {"scope", "a", "b", "n", "ρ", "p_t", "p_exact", "Pearson r", "p_r"};
    for (const auto* entries : {&summary.between_conditions, &summary.between_benchmarks})
      for (const auto& e : *entries)
        list.rows.push_back({e.scope, e.a + (e.status_a == Coverage::kDirect ? "" : " (" + to_string(e.status_a) + ")"),
                             e.b + (e.status_b == Coverage::kDirect ? "" : " (" + to_string(e.status_b) + ")"),
                             std::to_string(e.result.n), number(e.result.rho, "%.3f"), p_value(e.result.p_t),
                             e.result.exact ? p_value(e.result.p_exact) : "n>" + std::to_string(exact_max_n),
                             number(e.pearson_r, "%.3f"), p_value(e.pearson_p)});
    for (const auto& m : summary.mean_rho)
      list.notes.push_back("mean ρ " + m.condition + " over " + std::to_string(m.pairs) +
                           " direct–direct benchmark pairs: " + number(m.mean, "%.3f"));
    list.notes.push_back(
        "between conditions: scope = benchmark; between benchmarks: scope = condition, "
        "over the judges both share; p_exact: exact permutation (all n! pairings); Pearson r on the "
        "same values, p_r with n − 2 df [CAP App. C]");
    text += block("Spearman rank correlations", list, format);
  }
}

// Spearman between benchmarks, one matrix per condition.
void ProfileWriter::spearman_benchmark_tables(std::string& text) const {
  if (B >= 2 && format != "csv") {  // CSV: the matrices' numbers are spearman_list's rows
    for (const std::string& c : cap_cell_names()) {
      std::vector<const SpearmanEntry*> entries;
      for (const auto& e : summary.between_benchmarks)
        if (e.scope == c) entries.push_back(&e);
      if (entries.empty()) continue;
      Table matrix;
      matrix.header = {""};
      for (const auto& bench : plan.benchmarks) matrix.header.push_back(bench.spec.name);
      for (int32_t y = 0; y < B; ++y) {
        std::vector<std::string> row{plan.benchmarks[y].spec.name};
        for (int32_t x = 0; x < B; ++x) {
          std::string cell = x == y ? "—" : "";
          for (const auto* e : entries)
            if (x > y && e->a == plan.benchmarks[y].spec.name && e->b == plan.benchmarks[x].spec.name)
              cell = number(e->result.rho) + (e->result.p_t < 0.05 ? "" : " (ns)");
          row.push_back(cell);
        }
        matrix.rows.push_back(row);
      }
      matrix.notes.push_back("(ns): p_t >= 0.05");
      text += block("Spearman ρ of " + c + " rankings across benchmarks", matrix, format);
    }
  }
}

// Stress degradation [CAP Table 6].
void ProfileWriter::stress_tables(std::string& text) const {
  for (const StressSpec& pair : plan.stress) {
    const int32_t from = [&] {
      for (int32_t b = 0; b < B; ++b)
        if (plan.benchmarks[b].spec.name == pair.from) return b;
      return -1;
    }();
    const int32_t to = [&] {
      for (int32_t b = 0; b < B; ++b)
        if (plan.benchmarks[b].spec.name == pair.to) return b;
      return -1;
    }();
    std::vector<std::string> conditions;
    std::map<std::string, int> per_status;  // conditions per coverage status
    for (const ProfileStat& stat : plan.stats)
      if (stat.kind == Kind::kStressConditionMean && stat.benchmark == from && stat.to == to) {
        conditions.push_back(stat.condition);
        ++per_status[to_string(stat.status)];
      }
    if (conditions.empty()) continue;
    // A judge's mean over one condition is that condition's δ: shown only over two or more.
    std::vector<std::string> statuses;
    for (const auto& [status, count] : per_status)
      if (count > 1) statuses.push_back(status);
    std::sort(conditions.begin(), conditions.end());
    Table table;
    table.header = {"judge"};
    for (const auto& c : conditions)
      table.header.push_back(
          header_of(*std::find_if(plan.benchmarks[from].spec.cells.begin(), plan.benchmarks[from].spec.cells.end(),
                                  [&](const CellSpec& cell) { return cell.name == c; })));
    for (const auto& s : statuses) table.header.push_back("mean (" + s + ")");
    const std::string mean_over = selected_mean_header(from, to);
    if (!mean_over.empty()) table.header.push_back(mean_over);
    table.header.push_back("largest channel");
    for (int32_t jj = 0; jj < J; ++jj) {
      std::vector<std::string> row{plan.judges[jj]};
      bool any = false;
      for (const auto& c : conditions) {
        const int32_t s = stat_of(Kind::kStress, from, jj, c, "", to);
        any = any || s >= 0;
        row.push_back(s < 0 ? "—" : points_cell(I[s]));
      }
      for (const auto& status : statuses) {
        const int32_t s = stat_of(Kind::kStressJudgeMean, from, jj, "", status, to);
        row.push_back(s < 0 ? "—" : points_cell(I[s]));
      }
      if (!mean_over.empty()) {
        const int32_t s = stat_of(Kind::kStressSelectedMean, from, jj, "", "mean_over", to);
        row.push_back(s < 0 ? "—" : points_cell(I[s]));
      }
      const std::string largest = largest_channel(from, to, jj);
      row.push_back(largest.empty() ? "—" : largest);
      if (any) table.rows.push_back(row);
    }
    std::vector<std::string> means{"mean over judges"};
    for (const auto& c : conditions) {
      const int32_t s = stat_of(Kind::kStressConditionMean, from, -1, c, "", to);
      means.push_back(s < 0 ? "—" : points_cell(I[s]));
    }
    for (size_t k = 0; k < statuses.size() + (mean_over.empty() ? 1 : 2); ++k) means.push_back("");
    table.rows.push_back(means);
    table.notes.push_back("δ = CAP(" + pair.from + ") − CAP(" + pair.to +
                          ") in points; positive = worse under stress; "
                          "row means per coverage status (approx never averaged with direct)");
    if (!mean_over.empty())
      table.notes.push_back(mean_over + ": the config's mean_over conditions, whatever their status [CAP Table 6]");
    table.notes.push_back("largest channel: the condition with the largest δ (point estimate)");
    const int32_t mean_abs = stat_of(Kind::kStressMeanAbs, from, -1, "", "mean_abs", to);
    if (mean_abs >= 0)
      table.notes.push_back("mean |δ| over " + std::to_string(result.labels[mean_abs].n) +
                            " judge × condition deltas: " + points_cell(I[mean_abs]) + " [CAP Table 16]");
    text += block("Stress degradation " + pair.from + " → " + pair.to, table, format);
  }
}

// L1 distances [CAP Table 17].
void ProfileWriter::l1_table(std::string& text) const {
  {
    Table table;
    table.header = {"pair"};
    std::vector<std::pair<int32_t, Coverage>> columns;
    for (const ProfileStat& stat : plan.stats)
      if (stat.kind == Kind::kL1 &&
          std::find(columns.begin(), columns.end(), std::make_pair(stat.benchmark, stat.status)) == columns.end())
        columns.push_back({stat.benchmark, stat.status});
    for (const auto& [b, status] : columns)
      table.header.push_back(plan.benchmarks[b].spec.name +
                             (status == Coverage::kDirect ? "" : " (" + to_string(status) + ")"));
    std::vector<int32_t> selected;  // benchmarks with an L1 over the config's sum_over
    for (const ProfileStat& stat : plan.stats)
      if (stat.kind == Kind::kL1Selected &&
          std::find(selected.begin(), selected.end(), stat.benchmark) == selected.end()) {
        selected.push_back(stat.benchmark);
        std::vector<std::string> headers;
        for (const std::string& c : stat.over) headers.push_back(cell_header(stat.benchmark, c));
        table.header.push_back(plan.benchmarks[stat.benchmark].spec.name + " (Σ " + join(headers, " + ") + ")");
      }
    std::vector<std::string> groups;
    for (const FamilySpec& f : plan.families) groups.push_back(f.name);
    groups.push_back("cross-family");
    for (const std::string& group : groups) {
      std::vector<std::string> row{group == "cross-family" ? "Cross-family avg." : group + " (WF)"};
      bool any = false;
      for (const auto& [b, status] : columns) {
        const int32_t s = plan.find_l1(b, group, status);
        any = any || s >= 0;
        if (s < 0) {
          row.push_back("—");
        } else {
          row.push_back(paper_cell(I[s]));
        }
      }
      for (int32_t b : selected) {
        const int32_t s = stat_of(Kind::kL1Selected, b, -1, "", group);
        any = any || s >= 0;
        row.push_back(s < 0 ? "—" : paper_cell(I[s]));
      }
      if (any) table.rows.push_back(row);
    }
    table.notes.push_back(
        "mean L1 = Σ_c |CAP_c(j1) − CAP_c(j2)| in points over the benchmark's main-table "
        "conditions of one coverage status, within each family (WF) and across families");
    if (!selected.empty())
      table.notes.push_back(
          "Σ columns: summed over the config's families.sum_over conditions, whatever their status "
          "[CAP Table 17]");
    if (!columns.empty() || !selected.empty()) text += block("L1 profile distance", table, format);
  }
}

// Bias correction [CAP Table 18].
void ProfileWriter::correction_tables(std::string& text) const {
  for (int32_t b = 0; b < B; ++b) {
    Table table;
    table.header = {"judge", "q0", "q1"};
    std::vector<std::string> corrected;
    for (const std::string& c :
         {std::string("overall"), std::string("C1"), std::string("C2"), std::string("C3"), std::string("C4")})
      for (int32_t jj = 0; jj < J; ++jj)
        if (stat_of(Kind::kCorrected, b, jj, c) >= 0) {
          corrected.push_back(c);
          if (format == "csv") table.header.push_back(c + "_raw");  // CSV: raw and corrected in own columns
          table.header.push_back(c);
          break;
        }
    for (const CorrectionParams& q : plan.corrections) {
      if (q.benchmark != b) continue;
      std::vector<std::string> row{plan.judges[q.judge], number(q.q0), number(q.q1)};
      for (const std::string& c : corrected) {
        const int32_t raw = stat_of(Kind::kCell, b, q.judge, c), s = stat_of(Kind::kCorrected, b, q.judge, c);
        if (raw < 0 || s < 0) {
          row.push_back("—");
          if (format == "csv") row.push_back("—");
          continue;
        }
        if (format == "csv") {
          row.push_back(number(I[raw].estimate));
          row.push_back(number(I[s].estimate) + " [" + number(I[s].lo) + "," + number(I[s].hi) + "]");
          continue;
        }
        row.push_back(number(I[raw].estimate) + "→" + number(I[s].estimate) + (I[s].estimate > 1 ? "†" : "") + " [" +
                      number(I[s].lo) + "," + number(I[s].hi) + "]");
      }
      table.rows.push_back(row);
    }
    table.notes.push_back(
        "raw → (raw + q0 − 1)/(q0 + q1 − 1) with joint-bootstrap CI (items × normal draws of "
        "q0, q1); q1/q0 = accuracy with the gold response shown first/second; † saturated (> 1)");
    int cells = 0, saturated = 0, above = 0;  // CAP App. K: "30 of 35 exceed 1.0, 28 with the CI above"
    for (size_t k = 0; k < plan.stats.size(); ++k)
      if (plan.stats[k].kind == Kind::kCorrected && plan.stats[k].benchmark == b) {
        ++cells;
        saturated += I[k].estimate > 1.0;
        above += I[k].lo > 1.0;
      }
    table.notes.push_back(std::to_string(saturated) + " of " + std::to_string(cells) +
                          " corrected cells saturated (> 1); " + std::to_string(above) + " with the whole CI above 1");
    text += block("Bias-corrected values — " + plan.benchmarks[b].spec.name, table, format);
  }
}

// Leave-out sensitivity [CAP Table 10].
void ProfileWriter::leave_out_tables(std::string& text) const {
  for (int32_t b = 0; b < B; ++b) {
    if (!plan.benchmarks[b].has_flagged || !options.leave_out) continue;
    Table table;
    table.header = {"judge"};
    std::vector<std::string> cells;
    for (const CellSpec& cell : plan.benchmarks[b].spec.cells)
      if (cell.status != Coverage::kUnavailable) {
        cells.push_back(cell.name);
        table.header.push_back(cell.name);
      }
    for (int32_t jj = 0; jj < J; ++jj) {
      std::vector<std::string> row{plan.judges[jj]};
      for (const auto& c : cells) {
        const int32_t s = stat_of(Kind::kLeaveOut, b, jj, c);
        row.push_back(s < 0 ? "—" : points_cell(I[s]));
      }
      table.rows.push_back(row);
    }
    table.notes.push_back(
        "change in points when flag = 1 items (and their variants) are left out; positive = "
        "the value rises");
    text += block("Leave-out sensitivity — " + plan.benchmarks[b].spec.name, table, format);
  }
}

std::string ProfileWriter::cell_header(int32_t b, const std::string& condition) const {
  for (const CellSpec& cell : plan.benchmarks[b].spec.cells)
    if (cell.name == condition) return header_of(cell);
  return condition;
}

std::vector<std::string> ProfileWriter::main_cells(int32_t b) const {
  std::vector<std::string> cells;
  for (const CellSpec& cell : plan.benchmarks[b].spec.cells)
    if (cell.status != Coverage::kUnavailable && cell.main_table) cells.push_back(cell.name);
  return cells;
}

// "Mean (C1≈, C2≈, C7)": the config's mean_over as the stress pair computed it; empty when none.
std::string ProfileWriter::selected_mean_header(int32_t from, int32_t to) const {
  for (const ProfileStat& stat : plan.stats)
    if (stat.kind == Kind::kStressSelectedMean && stat.benchmark == from && stat.to == to) {
      std::vector<std::string> headers;
      for (const std::string& c : stat.over) headers.push_back(cell_header(from, c));
      return "Mean (" + join(headers) + ")";
    }
  return "";
}

// The condition with the judge's largest δ (point estimate) [CAP Table 6's dominant channel].
std::string ProfileWriter::largest_channel(int32_t from, int32_t to, int32_t jj) const {
  std::string best;
  double largest = -INFINITY;
  for (size_t s = 0; s < plan.stats.size(); ++s) {
    const ProfileStat& stat = plan.stats[s];
    if (stat.kind != Kind::kStress || stat.benchmark != from || stat.to != to || stat.judge != jj) continue;
    if (std::isfinite(I[s].estimate) && I[s].estimate > largest) {
      largest = I[s].estimate;
      best = cell_header(from, stat.condition);
    }
  }
  return best;
}

// Cross-judge spread, differences to the reference with mean |Δ|, and judge-set means, each with
// its CI [CAP §4.1, §5, Tables 16 and 19].
void ProfileWriter::across_judge_tables(std::string& text) const {
  for (int32_t b = 0; b < B; ++b) {
    const std::string& name = plan.benchmarks[b].spec.name;
    const std::vector<std::string> cells = main_cells(b);
    Table across;
    across.header = {""};
    for (const std::string& c : cells) across.header.push_back(cell_header(b, c));
    auto add_row = [&](const std::string& title, Kind kind, const std::string& group, bool points) {
      std::vector<std::string> row{title};
      bool any = false;
      for (const std::string& c : cells) {
        const int32_t s = stat_of(kind, b, -1, c, group);
        any = any || s >= 0;
        row.push_back(s < 0 ? "—" : points ? points_cell(I[s]) : paper_cell(I[s]));
      }
      if (any) across.rows.push_back(row);
    };
    add_row("spread (max − min)", Kind::kSpread, "", false);
    for (const JudgeSetSpec& set : plan.judge_sets)
      add_row("mean of " + set.name, Kind::kJudgeSetMean, set.name, false);
    if (!plan.reference.empty()) add_row("mean |Δ| vs " + plan.reference, Kind::kMeanAbsDifference, "", false);
    across.notes.push_back(
        "spread = max − min over the judges with the cell [CAP §4.1]; CIs from the same joint bootstrap");
    for (const JudgeSetSpec& set : plan.judge_sets)
      across.notes.push_back(set.name + " = " + join(set.members) + " [CAP Table 19]");
    text += block("Across judges — " + name, across, format);
    if (plan.reference.empty()) continue;
    Table diffs;
    diffs.header = across.header;
    diffs.header[0] = "judge";
    for (int32_t jj = 0; jj < J; ++jj) {
      std::vector<std::string> row{plan.judges[jj]};
      bool any = false;
      for (const std::string& c : cells) {
        const int32_t s = stat_of(Kind::kDifference, b, jj, c);
        any = any || s >= 0;
        row.push_back(s < 0 ? "—" : points_cell(I[s]));
      }
      if (any) diffs.rows.push_back(row);
    }
    diffs.notes.push_back("Δ = judge − " + plan.reference + " in points, per cell [CAP §5]");
    text += block("Differences to " + plan.reference + " — " + name, diffs, format);
  }
}

// Each judge's rank per main-table cell [CAP Table 19: GPT-4o 6th of 7 overall].
void ProfileWriter::rank_tables(std::string& text) const {
  for (int32_t b = 0; b < B; ++b) {
    const std::vector<std::string> cells = main_cells(b);
    Table table;
    table.header = {"judge"};
    for (const std::string& c : cells) table.header.push_back(cell_header(b, c));
    for (int32_t jj = 0; jj < J; ++jj) {
      std::vector<std::string> row{plan.judges[jj]};
      for (const std::string& c : cells) {
        std::string cell = "—";
        for (const CellRank& r : summary.ranks)
          if (r.benchmark == plan.benchmarks[b].spec.name && r.condition == c && r.judge == plan.judges[jj])
            cell = std::to_string(r.rank) + " of " + std::to_string(r.of);
        row.push_back(cell);
      }
      table.rows.push_back(row);
    }
    table.notes.push_back("rank by point estimate, 1 = highest; ties share the best rank");
    if (J >= 2) text += block("Ranks — " + plan.benchmarks[b].spec.name, table, format);
  }
}

// Mean |ρ| and negative pairs between conditions [CAP Table 14]; the range and "k of m significant"
// between benchmarks [CAP Table 13].
void ProfileWriter::spearman_summary_table(std::string& text) const {
  Table table;
  table.header = {"scope", "pairs", "mean |ρ|", "negative", "range", "significant"};
  for (const ConditionRhoSummary& row : summary.condition_rho)
    table.rows.push_back({row.benchmark + " (between conditions)", std::to_string(row.pairs),
                          number(row.mean_abs_rho, "%.3f"),
                          std::to_string(row.negative) + " of " + std::to_string(row.pairs), "", ""});
  for (const BenchmarkRhoSummary& row : summary.benchmark_rho)
    table.rows.push_back({row.condition + " (between benchmarks)", std::to_string(row.pairs), "", "",
                          "[" + number(row.min_rho) + ", " + number(row.max_rho) + "]",
                          std::to_string(row.significant) + " of " + std::to_string(row.pairs)});
  table.notes.push_back("between conditions: C1–C8 pairs (overall left out); significant: p_t < 0.05");
  text += block("Spearman summaries", table, format);
}

Json ProfileWriter::across_judge_row(size_t s) const {
  const ProfileStat& stat = plan.stats[s];
  Json row = interval_json(I[s], result.labels[s].n);
  row.update({{"statistic", result.labels[s].name},
              {"benchmark", plan.benchmarks[stat.benchmark].spec.name},
              {"condition", stat.condition},
              {"status", to_string(stat.status)},
              {"judge", stat.judge >= 0 ? Json(plan.judges[stat.judge]) : Json(nullptr)},
              {"set", stat.kind == Kind::kJudgeSetMean ? Json(stat.group) : Json(nullptr)},
              {"judges", stat.over}});
  return row;
}

void ProfileWriter::add_across_judges(Json& json) const {
  Json rows = Json::array();
  for (size_t s = 0; s < plan.stats.size(); ++s)
    if (is_across_judges(plan.stats[s].kind)) rows.push_back(across_judge_row(s));
  Json sets = Json::object();
  for (const JudgeSetSpec& set : plan.judge_sets) sets[set.name] = set.members;
  json["across_judges"] = {{"reference", plan.reference.empty() ? Json(nullptr) : Json(plan.reference)},
                           {"judge_sets", sets},
                           {"rows", rows}};
}

void ProfileWriter::add_ranks_and_rho_summaries(Json& json) const {
  Json ranks = Json::array();
  for (const CellRank& r : summary.ranks)
    ranks.push_back(
        {{"benchmark", r.benchmark}, {"condition", r.condition}, {"judge", r.judge}, {"rank", r.rank}, {"of", r.of}});
  json["ranks"] = ranks;
  Json conditions = Json::array(), benchmarks = Json::array();
  for (const ConditionRhoSummary& r : summary.condition_rho)
    conditions.push_back(
        {{"benchmark", r.benchmark}, {"pairs", r.pairs}, {"mean_abs_rho", r.mean_abs_rho}, {"negative", r.negative}});
  for (const BenchmarkRhoSummary& r : summary.benchmark_rho)
    benchmarks.push_back({{"condition", r.condition},
                          {"pairs", r.pairs},
                          {"min_rho", r.min_rho},
                          {"max_rho", r.max_rho},
                          {"significant", r.significant}});
  json["spearman"]["condition_summary"] = conditions;
  json["spearman"]["benchmark_summary"] = benchmarks;
}

// Notes and the run's one-line summary (text and md).
void ProfileWriter::tail(std::string& text) const {
  if (format == "text" || format == "md") {
    std::string tail = "\n";
    for (const auto& note : plan.notes) tail += "note: " + note + "\n";
    char summary_line[256];
    std::snprintf(summary_line, sizeof summary_line,
                  "%llu replicates, %s CI, seed %llu, %lld clusters stratified by benchmark, %zu statistics, "
                  "backend %s (%s), %.2fs",
                  static_cast<unsigned long long>(result.replicates_run), to_string(result.ci).c_str(),
                  static_cast<unsigned long long>(result.seed), static_cast<long long>(result.n_clusters),
                  plan.stats.size(), result.backend.c_str(), result.device.c_str(), result.resample_s);
    text += tail + summary_line + "\n";
  }
}

const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

PlotFile forest_figure(const ProfilePlan& plan, const BootstrapResult& result, int32_t b, const std::string& name);

// A judge's CI on every radar axis: a whisker along the axis from lo to hi, offset sideways by
// judge so that the judges' whiskers stay apart.
template <typename Point>
std::string radial_whiskers(const ProfilePlan& plan, const BootstrapResult& result, int32_t b, int32_t jj,
                            const std::vector<const CellSpec*>& axes, const Point& point, const std::string& colour) {
  std::string svg;
  for (size_t a = 0; a < axes.size(); ++a) {
    const int32_t s = plan.find(Kind::kCell, b, jj, axes[a]->name);
    if (s < 0) continue;
    const Interval& ci = result.intervals[s];
    if (!std::isfinite(ci.lo) || !std::isfinite(ci.hi)) continue;
    const auto [x1, y1] = point(a, std::clamp(ci.lo, 0.0, 1.0));
    const auto [x2, y2] = point(a, std::clamp(ci.hi, 0.0, 1.0));
    const double length = std::hypot(x2 - x1, y2 - y1), shift = 3.0 * (jj % 5 - 2);
    const double nx = length > 0 ? -(y2 - y1) / length : 0, ny = length > 0 ? (x2 - x1) / length : 0;
    const std::string style = "stroke:" + colour + ";stroke-width:1.5;opacity:0.7";
    svg += svg_line(x1 + nx * shift, y1 + ny * shift, x2 + nx * shift, y2 + ny * shift, style.c_str());
  }
  return svg;
}

// Radar chart of one benchmark's main-table conditions [CAP Fig. 3]: one polygon per judge, each
// cell's CI a whisker along its axis; below three axes the dot-and-whisker profile instead.
std::string radar_svg(const ProfilePlan& plan, const BootstrapResult& result, int32_t b) {
  const BenchmarkSpec& spec = plan.benchmarks[b].spec;
  std::vector<const CellSpec*> axes;
  for (const CellSpec& cell : spec.cells)
    if (cell.name != "overall" && cell.status != Coverage::kUnavailable && cell.main_table) axes.push_back(&cell);
  PlotFrame frame;
  frame.width = 760;
  for (const std::string& judge : plan.judges)  // the legend's longest name inside the canvas
    frame.width = std::max(frame.width, 566 + text_width(judge, 11) + 12);
  frame.height = 560;
  const double cx = 280, cy = 300, radius = 200;
  std::string svg = svg_open(frame, "CAP profile — " + spec.name);
  if (axes.size() < 3)  // a radar of one or two axes shows nothing: the dot-and-whisker profile instead
    return forest_figure(plan, result, b, spec.name).svg;
  const double pi = 3.14159265358979323846;
  auto point = [&](size_t axis, double value) {
    const double angle = -pi / 2 + 2 * pi * static_cast<double>(axis) / static_cast<double>(axes.size());
    return std::make_pair(cx + radius * value * std::cos(angle), cy + radius * value * std::sin(angle));
  };
  for (double ring : {0.25, 0.5, 0.75, 1.0}) {
    std::vector<std::pair<double, double>> points;
    for (size_t a = 0; a <= axes.size(); ++a) points.push_back(point(a % axes.size(), ring));
    svg += svg_polyline(points, "#ddd", 1.0);
    svg += svg_text(cx + 4, cy - radius * ring + 12, number(100 * ring, "%.0f"), "start", kNoteSize);
  }
  svg += svg_text(cx, frame.height - 12, "lines along the axes: each cell's bootstrap CI", "middle", kNoteSize);
  for (size_t a = 0; a < axes.size(); ++a) {
    const auto [x, y] = point(a, 1.0);
    svg += svg_line(cx, cy, x, y, "stroke:#bbb;stroke-width:1");
    const auto [lx, ly] = point(a, 1.12);
    svg += svg_text(lx, ly + 4, header_of(*axes[a]), "middle", 12);
  }
  for (size_t jj = 0; jj < plan.judges.size(); ++jj) {
    std::vector<std::pair<double, double>> points;
    bool complete = true;
    for (size_t a = 0; a <= axes.size(); ++a) {
      const int32_t s = plan.find(Kind::kCell, b, static_cast<int32_t>(jj), axes[a % axes.size()]->name);
      const double value = s < 0 ? NAN : result.intervals[s].estimate;
      if (!std::isfinite(value)) {
        complete = false;
        break;
      }
      points.push_back(point(a % axes.size(), std::clamp(value, 0.0, 1.0)));
    }
    const std::string colour = kPalette[jj % std::size(kPalette)];
    if (complete) svg += svg_polyline(points, colour, 2.0, jj >= std::size(kPalette) ? "5,3" : "");
    if (complete) svg += radial_whiskers(plan, result, b, static_cast<int32_t>(jj), axes, point, colour);
    if (jj < 30)
      svg += svg_legend_entry(540, 70 + 16 * static_cast<double>(jj), colour, plan.judges[jj],
                              jj >= std::size(kPalette) ? "5,3" : "");
  }
  return svg + "</svg>\n";
}

// Forest plot of one benchmark's main-table conditions (C1–C8): a section per condition, the
// judges inside, each cell's estimate with its CI in percent as the profile table prints it; the
// CSV one row per cell (shares, as the JSON gives them).
PlotFile forest_figure(const ProfilePlan& plan, const BootstrapResult& result, int32_t b, const std::string& name) {
  const BenchmarkSpec& spec = plan.benchmarks[b].spec;
  std::vector<ForestSection> sections;
  std::string csv = "series,label,benchmark,estimate,ci_lo,ci_hi\n";
  for (const CellSpec& cell : spec.cells) {
    if (cell.name == "overall" || cell.status == Coverage::kUnavailable || !cell.main_table) continue;
    ForestSection section{header_of(cell), {}};
    for (size_t jj = 0; jj < plan.judges.size(); ++jj) {
      const int32_t s = plan.find(Kind::kCell, b, static_cast<int32_t>(jj), cell.name);
      if (s < 0) continue;
      const Interval& v = result.intervals[s];
      section.rows.push_back({plan.judges[jj], 100 * v.estimate, 100 * v.lo, 100 * v.hi,
                              plan.judges[jj] + " " + header_of(cell) + ": " + number(100 * v.estimate, "%.1f") + " (" +
                                  number(100 * v.lo, "%.1f") + ", " + number(100 * v.hi, "%.1f") + ")"});
      csv += csv_field(cell.name) + "," + csv_field(plan.judges[jj]) + "," + csv_field(spec.name) + "," +
             csv_number(v.estimate) + "," + csv_number(v.lo) + "," + csv_number(v.hi) + "\n";
    }
    if (!section.rows.empty()) sections.push_back(section);
  }
  return {"forest_" + name,
          forest_svg("CAP profile — " + spec.name + ": cells per judge", "score (%)", sections,
                     "estimate with its clustered bootstrap CI"),
          csv};
}

std::string safe_file_name(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

}  // namespace

void set_profile_inputs(Json& envelope, const std::vector<InputFile>& files) {
  if (files.size() == 1) {
    envelope["input"]["path"] = files[0].path;
    return;
  }
  Json inputs = Json::array();
  for (const InputFile& file : files)
    inputs.push_back(
        {{"path", file.path}, {"sha256", file.sha256}, {"records", file.records}, {"invalid", file.invalid}});
  envelope["input"] = inputs;
}

Json to_json(const ProfileReport& report, const ReportHead& head) {
  const ProfileSettings& options = report.options;
  const BootstrapResult& result = report.result;
  Json json = head.envelope;
  Json& settings = json["settings"];
  settings = bootstrap_settings_json(result, "benchmark");  // the run's settings, as the result ran them
  settings["config"] = options.config.source;
  settings["config_description"] = options.config.description;
  settings["invalid_match"] = options.invalid_match;
  settings["exact_max_n"] = options.exact_max_n;
  settings["hard"] = options.hard || options.config.hard;  // the Hard-Empirical subset [CAP Table 3]
  settings["invalid"] = options.config.invalid.empty() ? "wrong" : options.config.invalid;
  const ProfileWriter writer(report, "json");
  writer.add_statistics(json);
  writer.add_coverage(json);
  writer.add_spearman(json);
  writer.add_stress(json);
  writer.add_l1(json);
  writer.add_corrections_and_leave_out(json);
  writer.add_across_judges(json);
  writer.add_ranks_and_rho_summaries(json);
  std::vector<std::string> notes = all_invalid_notes(report.validity);
  notes.insert(notes.end(), report.plan.notes.begin(), report.plan.notes.end());
  json["notes"] = notes;
  json["timing"] = bootstrap_timing_json(head.load_s + report.plan_s, result);
  return json;
}

std::string tables(const ProfileReport& report, const std::string& format) {
  const ProfileWriter writer(report, format);
  std::string text = all_invalid_warnings(report.validity, format);
  writer.coverage_table(text);
  writer.benchmark_tables(text);
  writer.spearman_condition_tables(text);
  writer.spearman_list(text);
  writer.spearman_benchmark_tables(text);
  writer.spearman_summary_table(text);
  writer.stress_tables(text);
  writer.l1_table(text);
  writer.correction_tables(text);
  writer.leave_out_tables(text);
  writer.across_judge_tables(text);
  writer.rank_tables(text);
  writer.tail(text);
  return format == "csv" ? writer.csv() : text;
}

std::vector<PlotFile> plot_files(const ProfileReport& report) {
  std::vector<PlotFile> figures;
  for (int32_t b = 0; b < static_cast<int32_t>(report.plan.benchmarks.size()); ++b) {
    const std::string name = safe_file_name(report.plan.benchmarks[b].spec.name);
    figures.push_back({"radar_" + name, radar_svg(report.plan, report.result, b), ""});
    figures.push_back(forest_figure(report.plan, report.result, b, name));
  }
  return figures;
}

void plots(const ProfileReport& report, const std::string& dir) { write_plots(plot_files(report), dir); }

}  // namespace judgestat
