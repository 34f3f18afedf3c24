// The summary an analysis's section of report.html opens with (issue 31, part 1), read from its
// result JSON (docs/statistics.md §4): judges (or rules, or budgets) as rows, the headline
// statistics as columns, each cell "estimate (lo,hi)" as the papers print them — CAP's
// "92.4 (88,96)" in percent points for shares, JEV Table 1's layout — and the notes that change a
// conclusion beside it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/html_report.hpp"

namespace judgestat {
namespace {

// Statistics that are shares of items: shown in percent points, CAP's layout.
bool is_share(const std::string& name) {
  static const char* const kShares[] = {
      "acc",           "pa",        "bc",        "cons",       "stable_wrong", "jb_score",   "macro_f1", "overall",
      "cascade_acc",   "escalated", "fee_ratio", "oracle_acc", "random_acc",   "loss_share", "power",    "wrong_sign",
      "cascade_delta", "acc_avg",   "order_gain"};
  if (name.size() == 2 && name[0] == 'C' && name[1] >= '1' && name[1] <= '8') return true;
  return std::any_of(std::begin(kShares), std::end(kShares), [&](const char* share) { return name == share; });
}

double number_of(const Json& value) { return value.is_number() ? value.get<double>() : NAN; }

std::string format_number(double value, int digits) {
  if (!std::isfinite(value)) return "—";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return std::string(text) == "-0" || std::string(text) == "-0.0" ? std::string(text + 1) : text;
}

// "92.4 (88,96)" for a share (percent, CI in whole points), "0.623 (0.551,0.701)" otherwise.
std::string interval_cell(double estimate, double lo, double hi, bool share) {
  if (!std::isfinite(estimate)) return "—";
  const double scale = share ? 100 : 1;
  std::string cell = format_number(scale * estimate, share ? 1 : 3);
  if (std::isfinite(lo) || std::isfinite(hi))
    cell += " (" + format_number(scale * lo, share ? 0 : 3) + "," + format_number(scale * hi, share ? 0 : 3) + ")";
  return cell;
}

std::string row_cell(const Json& row) {
  const Json ci = row.contains("ci") ? row["ci"] : Json();
  const bool has_ci = ci.is_array() && ci.size() == 2;
  const std::string name = row.value("name", "");
  const bool share = name == "diff" ? is_share(row.value("of", std::string())) : is_share(name);
  return interval_cell(number_of(row.value("estimate", Json())), has_ci ? number_of(ci[0]) : NAN,
                       has_ci ? number_of(ci[1]) : NAN, share);
}

bool is_null_or_absent(const Json& row, const char* key) { return !row.contains(key) || row[key].is_null(); }

// Rows (first-appearance order) × columns (first-appearance order) of cells.
class Grid {
 public:
  void set(const std::string& row, const std::string& column, const std::string& cell) {
    if (std::find(rows_.begin(), rows_.end(), row) == rows_.end()) rows_.push_back(row);
    if (std::find(columns_.begin(), columns_.end(), column) == columns_.end()) columns_.push_back(column);
    cells_.emplace(std::make_pair(row, column), cell);  // the first row of a key wins
  }
  std::vector<std::vector<std::string>> table(const std::string& corner) const {
    if (rows_.empty()) return {};
    std::vector<std::vector<std::string>> out{{corner}};
    out[0].insert(out[0].end(), columns_.begin(), columns_.end());
    for (const std::string& row : rows_) {
      out.push_back({row});
      for (const std::string& column : columns_) {
        const auto cell = cells_.find({row, column});
        out.back().push_back(cell == cells_.end() ? "" : cell->second);
      }
    }
    return out;
  }

 private:
  std::vector<std::string> rows_, columns_;
  std::map<std::pair<std::string, std::string>, std::string> cells_;
};

// metrics: per judge, overall scope, the accuracy family, macro F1, κ between orders and the
// paired differences against the reference.
std::vector<std::vector<std::string>> metrics_summary(const Json& statistics) {
  static const char* const kHeadline[] = {"acc", "pa", "bc", "cons", "jb_score", "macro_f1", "kappa", "diff"};
  Grid grid;
  for (const Json& row : statistics) {
    const std::string name = row.value("name", "");
    if (std::find(std::begin(kHeadline), std::end(kHeadline), name) == std::end(kHeadline)) continue;
    if (!is_null_or_absent(row, "benchmark") || !is_null_or_absent(row, "condition") ||
        !is_null_or_absent(row, "label") || !is_null_or_absent(row, "position") || !is_null_or_absent(row, "variant"))
      continue;
    const bool diff = name == "diff";
    if (!diff && !is_null_or_absent(row, "reference")) continue;  // κ between judges: in the details
    // order_gain is a judge against itself (both orders minus order 0, JEV Table 25): one column.
    const bool own = diff && row.value("of", std::string()) == "order_gain";
    std::string column = own ? "order gain" : diff ? "Δ" + row.value("of", std::string()) : name;
    if (row.contains("order") && row["order"].is_number()) column += " [order " + row["order"].dump() + "]";
    if (diff && !own) column += " vs " + row.value("reference", std::string());
    grid.set(row["judge"].is_string() ? row["judge"].get<std::string>() : "all", column, row_cell(row));
  }
  return grid.table("judge");
}

// profile: per judge the main table's C1 … C8 and overall, per benchmark when there are several.
std::vector<std::vector<std::string>> profile_summary(const Json& statistics) {
  std::vector<std::string> benchmarks;
  for (const Json& row : statistics)
    if (row.contains("benchmark") && row["benchmark"].is_string() &&
        std::find(benchmarks.begin(), benchmarks.end(), row["benchmark"].get<std::string>()) == benchmarks.end())
      benchmarks.push_back(row["benchmark"].get<std::string>());
  Grid grid;
  for (const Json& row : statistics) {
    const std::string name = row.value("name", "");
    const bool condition = name.size() == 2 && name[0] == 'C';
    if ((!condition && name != "overall") || !row["judge"].is_string()) continue;
    if (row.contains("main_table") && row["main_table"].is_boolean() && !row["main_table"].get<bool>()) continue;
    std::string column = name;
    if (benchmarks.size() > 1 && row.contains("benchmark") && row["benchmark"].is_string())
      column += " " + row["benchmark"].get<std::string>();
    grid.set(row["judge"].get<std::string>(), column, row_cell(row));
  }
  return grid.table("judge");
}

// cascade: per threshold rule its held-out accuracy, Δ against the fallback, escalation and fee.
std::vector<std::vector<std::string>> cascade_summary(const Json& rules) {
  static const char* const kHeadline[] = {"cascade_acc", "cascade_delta", "escalated", "fee_ratio"};
  Grid grid;
  for (const Json& rule : rules) {
    if (!rule.is_object() || !rule.contains("heldout") || !rule["heldout"].contains("statistics")) continue;
    std::string name = rule.value("rule", std::string("rule"));
    if (rule.contains("per_stratum") && rule["per_stratum"].is_boolean() && rule["per_stratum"].get<bool>())
      name += " (per stratum)";
    for (const Json& row : rule["heldout"]["statistics"]) {
      const std::string statistic = row.value("name", "");
      if (std::find(std::begin(kHeadline), std::end(kHeadline), statistic) == std::end(kHeadline)) continue;
      if (!is_null_or_absent(row, "benchmark") || !is_null_or_absent(row, "condition")) continue;
      grid.set(name, statistic, row_cell(row));
    }
  }
  return grid.table("rule (held-out)");
}

// A median with its quantiles: QUANTILES holds [2.5 %, 50 %, 97.5 %] or only the two ends.
std::string quantile_cell(const Json& row, const char* median, const char* quantiles) {
  const Json q = row.contains(quantiles) ? row[quantiles] : Json();
  const bool three = q.is_array() && q.size() == 3, two = q.is_array() && q.size() == 2;
  const double mid = row.contains(median) ? number_of(row[median]) : three ? number_of(q[1]) : NAN;
  return interval_cell(mid, three || two ? number_of(q[0]) : NAN,
                       three ? number_of(q[2])
                       : two ? number_of(q[1])
                             : NAN,
                       true);
}

// budget: per k (and rule) the share of draws that lose, the held-out Δ and the fee ratio; with
// --compare per k the power and the wrong-sign share.
std::vector<std::vector<std::string>> budget_summary(const Json& budget) {
  Grid grid;
  for (const Json& row : budget) {
    if (!row.is_object()) continue;
    std::string key = "k = " + (row.contains("k") ? row["k"].dump() : std::string("?"));
    if (row.contains("rule") && row["rule"].is_string()) key += ", " + row["rule"].get<std::string>();
    if (row.contains("power")) {
      grid.set(key, "power", interval_cell(number_of(row["power"]), NAN, NAN, true));
      if (row.contains("wrong_sign"))
        grid.set(key, "wrong sign", interval_cell(number_of(row["wrong_sign"]), NAN, NAN, true));
      grid.set(key, "difference, median (2.5%,97.5%)", quantile_cell(row, "d_median", "d_q"));
      continue;
    }
    if (row.contains("loss_share"))
      grid.set(key, "losing draws", interval_cell(number_of(row["loss_share"]), NAN, NAN, true));
    grid.set(key, "Δ median (2.5%,97.5%)", quantile_cell(row, "delta_median", "delta_q"));
    if (row.contains("fee_ratio_median"))
      grid.set(key, "fee ratio, median (2.5%,97.5%)", quantile_cell(row, "fee_ratio_median", "fee_ratio_q"));
  }
  return grid.table("budget");
}

bool array_at(const Json& result, const char* key) { return result.contains(key) && result[key].is_array(); }

// Notes that change a conclusion: the result's notes, and the judges with invalid records.
std::vector<std::string> summary_notes(const Json& result) {
  std::vector<std::string> notes;
  if (array_at(result, "notes"))
    for (const Json& note : result["notes"])
      if (note.is_string()) notes.push_back(note.get<std::string>());
  if (array_at(result, "validity"))
    for (const Json& v : result["validity"])
      if (v.is_object() && v.value("invalid", int64_t{0}) > 0)
        notes.push_back(v.value("judge", std::string()) + ": " + std::to_string(v.value("invalid", int64_t{0})) +
                        " of " + std::to_string(v.value("records", int64_t{0})) + " records invalid, left out");
  std::vector<std::string> unique;  // in their order: validity notes come first
  for (const std::string& note : notes)
    if (std::find(unique.begin(), unique.end(), note) == unique.end()) unique.push_back(note);
  return unique;
}

}  // namespace

HtmlSummary analysis_summary(const std::string& command, const Json& result) {
  HtmlSummary summary;
  if (!result.is_object()) return summary;
  if (command == "metrics" && array_at(result, "statistics")) {
    summary.rows = metrics_summary(result["statistics"]);
    summary.caption = "Per judge over all items: shares in percent (95% CI in whole points), κ and others as is";
  } else if (command == "profile" && array_at(result, "statistics")) {
    summary.rows = profile_summary(result["statistics"]);
    summary.caption = "CAP conditional accuracy profile: accuracy in percent (CI in whole points) per condition";
  } else if (command == "cascade" && array_at(result, "rules")) {
    summary.rows = cascade_summary(result["rules"]);
    summary.caption = "Threshold rules scored on the held-out clusters, in percent (CI in whole points)";
  } else if (command == "budget" && array_at(result, "budget")) {
    summary.rows = budget_summary(result["budget"]);
    summary.caption = "Label-budget draws: shares and Δ in percent points, median with the 2.5% and 97.5% quantiles";
  }
  summary.notes = summary_notes(result);
  return summary;
}

}  // namespace judgestat
