// Text tables of probability quality (docs/statistics.md §3.2) for people: the point summaries,
// the reliability table and the flip rate by confidence, as `judgestat metrics` and `judgestat
// cascade` print them after their statistics.
#include "report/probability_report.hpp"

#include <cmath>
#include <cstdio>

#include "analyses/probability.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

std::string percent(double share) {
  return std::isfinite(share) ? fixed(100.0 * share, 1) + " %" : "—";
}

std::string count_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

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
  for (const char* h : {"probabilities", "n", "error rate at q ≥ 0.9", "share of errors at q ≥ 0.9", "AURC"})
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
    row.push_back(percent(t.error_rate_high()) + " (" + count_text(t.errors_high) + " of " + std::to_string(t.n_high) + ")");
    row.push_back(percent(t.error_share_high()));
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
          row.push_back(f.table.items[b] ? percent(static_cast<double>(f.table.flips[b]) / static_cast<double>(f.table.items[b])) +
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
