// Writers of probability quality (docs/statistics.md §3.2, §4): the JSON of the point summaries
// and the text tables for people (the point summaries, the reliability table and the flip rate
// by confidence), as `judgestat metrics` and `judgestat cascade` give them after their
// statistics.
#include "report/probability_report.hpp"

#include <cmath>
#include <cstdio>

#include "analyses/probability/probability_quality.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string percent(double share) { return std::isfinite(share) ? fixed(100.0 * share, 1) + " %" : "—"; }

std::string count_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

void put_group(Json& row, const std::string& strata, const std::optional<std::string>& group) {
  row["benchmark"] = strata == "benchmark" && group ? Json(*group) : Json(nullptr);
  row["condition"] = strata == "condition" && group ? Json(*group) : Json(nullptr);
}

}  // namespace

Json reliability_json(const ReliabilityTable& table) {
  Json bins = Json::array();
  for (int b = 0; b < kConfidenceBins; ++b) {
    const ReliabilityBin& bin = table.bins[b];
    bins.push_back({{"bin", confidence_bin_name(b)},
                    {"lo", static_cast<double>(b) / kConfidenceBins},
                    {"hi", static_cast<double>(b + 1) / kConfidenceBins},
                    {"n", bin.n},
                    {"mean_q", bin.mean_q},
                    {"accuracy", bin.accuracy}});
  }
  Json out;
  out["n"] = table.n;
  out["errors"] = table.errors;
  out["ece"] = table.ece;
  out["bins"] = bins;
  out["high_confidence"] = {{"q_at_least", kHighConfidence},
                            {"n", table.n_high},
                            {"errors", table.errors_high},
                            {"error_rate", table.error_rate_high()},
                            {"error_share", table.error_share_high()},
                            // JEV Table 30: invalid outputs count among all errors.
                            {"invalid", table.invalid},
                            {"error_share_with_invalid", table.error_share_high_with_invalid()}};
  return out;
}

Json risk_coverage_json(const RiskCoverage& curve) {
  // Curves run to one point per distinct confidence (tens of thousands): built in place and
  // moved, never copied.
  Json points = Json::array();
  points.get_ref<Json::array_t&>().reserve(curve.points.size());
  for (const auto& point : curve.points)
    points.push_back({{"q", point.q}, {"coverage", point.coverage}, {"risk", point.risk}});
  Json out;
  out["aurc"] = curve.aurc;
  out["points"] = std::move(points);
  return out;
}

void add_probability_json(const ProbabilityQuality& quality, Json& json) {
  if (quality.empty()) return;
  Json reliability = Json::array(), curves = Json::array(), flips = Json::array();
  for (const auto& s : quality.summaries) {
    Json head;
    head["judge"] = s.judge;
    put_group(head, quality.strata, s.group);
    head["order"] = s.order ? Json(*s.order) : Json(nullptr);
    Json table = head, curve = std::move(head);
    table.update(reliability_json(s.reliability));
    Json risk_coverage = risk_coverage_json(s.risk_coverage);
    for (auto& [key, value] : risk_coverage.items()) curve[key] = std::move(value);
    reliability.push_back(std::move(table));
    curves.push_back(std::move(curve));
  }
  for (const auto& f : quality.flips) {
    Json row;
    row["judge"] = f.judge;
    put_group(row, quality.strata, f.group);
    row["order"] = 0;  // bins are on the base order's confidence
    row["items"] = f.table.total_items;
    row["flips"] = f.table.total_flips;
    row["flips_at_q_at_least_0.9"] = f.table.flips_high;
    row["share_of_flips_at_q_at_least_0.9"] =
        f.table.total_flips ? static_cast<double>(f.table.flips_high) / static_cast<double>(f.table.total_flips) : NAN;
    Json bins = Json::array();
    for (int b = 0; b < kConfidenceBins; ++b)
      bins.push_back(
          {{"bin", confidence_bin_name(b)},
           {"items", f.table.items[b]},
           {"flips", f.table.flips[b]},
           {"rate",
            f.table.items[b] ? static_cast<double>(f.table.flips[b]) / static_cast<double>(f.table.items[b]) : NAN}});
    row["bins"] = bins;
    flips.push_back(row);
  }
  if (!json.contains("notes")) json["notes"] = Json::array();
  for (const auto& note : quality.notes) json["notes"].push_back(note);
  json["reliability"] = std::move(reliability);
  json["risk_coverage"] = std::move(curves);
  if (!flips.empty()) json["flip_by_confidence"] = std::move(flips);
}

std::string probability_tables_text(const ProbabilityQuality& quality, const std::string& format) {
  if (quality.empty() || format == "csv" || format == "json") return "";
  const bool grouped = !quality.strata.empty();
  auto heading = [&](const std::string& title) {
    return format == "md" ? "\n**" + title + "**\n\n" : "\n" + title + "\n";
  };
  auto lead = [&](const std::string& judge, const std::optional<std::string>& group) {
    std::vector<std::string> row{judge};
    if (grouped) row.push_back(group ? *group : "all");
    return row;
  };
  std::vector<std::string> lead_header{"judge"};
  if (grouped) lead_header.push_back(quality.strata);

  // Bins that hold outputs anywhere, so binary data shows [0.5, 1.0] only.
  std::vector<uint8_t> used(kConfidenceBins, 0);
  for (const auto& s : quality.summaries)
    for (int b = 0; b < kConfidenceBins; ++b) used[b] = used[b] || s.reliability.bins[b].n > 0;

  Table summary, reliability;
  summary.header = lead_header;
  for (const char* h :
       {"probabilities", "n", "error rate at q ≥ 0.9", "share of errors at q ≥ 0.9", "with invalid (JEV T30)", "AURC"})
    summary.header.push_back(h);
  reliability.header = lead_header;
  reliability.header.push_back("probabilities");
  for (int b = 0; b < kConfidenceBins; ++b)
    if (used[b]) reliability.header.push_back(confidence_bin_name(b));
  for (const auto& s : quality.summaries) {
    const ReliabilityTable& t = s.reliability;
    std::vector<std::string> row = lead(s.judge, s.group);
    row.push_back(presentation_name(s.order));
    row.push_back(std::to_string(t.n));
    row.push_back(percent(t.error_rate_high()) + " (" + count_text(t.errors_high) + " of " + std::to_string(t.n_high) +
                  ")");
    row.push_back(percent(t.error_share_high()));
    row.push_back(percent(t.error_share_high_with_invalid()) + " (" + std::to_string(t.invalid) + " invalid)");
    row.push_back(fixed(s.risk_coverage.aurc));
    summary.rows.push_back(row);
    std::vector<std::string> cells = lead(s.judge, s.group);
    cells.push_back(presentation_name(s.order));
    for (int b = 0; b < kConfidenceBins; ++b)
      if (used[b])
        cells.push_back(t.bins[b].n ? fixed(t.bins[b].accuracy, 3) + " (" + std::to_string(t.bins[b].n) + ")" : "—");
    reliability.rows.push_back(cells);
  }
  reliability.notes.push_back("cells: accuracy (n) per confidence bin; mean q per bin in the JSON (`reliability`)");

  std::string text = heading("Probability quality, point estimates (no CI):") + summary.render(format) +
                     heading("Reliability (10 equal-width bins on q):") + reliability.render(format);
  if (!quality.flips.empty()) {
    std::vector<uint8_t> flip_used(kConfidenceBins, 0);
    for (const auto& f : quality.flips)
      for (int b = 0; b < kConfidenceBins; ++b) flip_used[b] = flip_used[b] || f.table.items[b] > 0;
    Table flips;
    flips.header = lead_header;
    for (const char* h : {"items", "flips", "flip rate"}) flips.header.push_back(h);
    for (int b = 0; b < kConfidenceBins; ++b)
      if (flip_used[b]) flips.header.push_back(confidence_bin_name(b));
    flips.header.push_back("flips at q ≥ 0.9");
    for (const auto& f : quality.flips) {
      std::vector<std::string> row = lead(f.judge, f.group);
      row.push_back(std::to_string(f.table.total_items));
      row.push_back(std::to_string(f.table.total_flips));
      row.push_back(percent(static_cast<double>(f.table.total_flips) / static_cast<double>(f.table.total_items)));
      for (int b = 0; b < kConfidenceBins; ++b)
        if (flip_used[b])
          row.push_back(f.table.items[b]
                            ? percent(static_cast<double>(f.table.flips[b]) / static_cast<double>(f.table.items[b])) +
                                  " (" + std::to_string(f.table.items[b]) + ")"
                            : "—");
      row.push_back(std::to_string(f.table.flips_high) + " of " + std::to_string(f.table.total_flips));
      flips.rows.push_back(row);
    }
    flips.notes.push_back("bins on the base order's confidence; cells: flip rate (items)");
    text += heading("Flip rate by base-order confidence:") + flips.render(format);
  }
  return text;
}

}  // namespace judgestat
