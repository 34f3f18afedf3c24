// JEV's probability-quality figures from the metrics report: Brier, NLL and ECE per judge with
// their CIs (Fig. 20), selective error against coverage (Fig. 21), correct-vs-wrong confidence
// histograms and reliability curves (Fig. 6), flip share by base-order confidence and the share
// of flips made at q >= 0.9 (Fig. 7a–b). The reliability bins, risk–coverage points and flip
// tables are point summaries; where a share is drawn from their counts its whisker is the 95 %
// Wilson interval of those counts (records taken as independent, not clustered), as captions say.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/paper_plots.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace paper_plots {
namespace {

constexpr double kBinWidth = 1.0 / kConfidenceBins;
// Bin b's lower edge, the double nearest b / 10 (0.9, never 0.9000000000000001).
double edge(int b) { return b / static_cast<double>(kConfidenceBins); }
constexpr size_t kMaxCurvePoints = 400;  // vertices per drawn risk–coverage curve

void add_score_forests(const Source& s, std::vector<PlotFile>& out) {
  struct Metric {
    const char* name;
    const char* title;
    const char* what;
  };
  const Metric metrics[] = {{"brier", "Brier score per judge", "Brier score (multiclass sum; lower is better)"},
                            {"nll", "Negative log-likelihood per judge", "NLL (p clipped at 1e-6; lower is better)"},
                            {"ece", "Expected calibration error per judge", "ECE (ten equal-width q bins)"}};
  for (const Metric& m : metrics) {
    const std::string caption = std::string(m.what) + " per judge and presentation with its clustered bootstrap " +
                                s.level() +
                                ", valid records with probabilities only; rows without [order] use order-averaged "
                                "probabilities. Judges without probabilities are not drawn (JEV Fig. 20).";
    if (auto forest = statistic_forest(rows_named(s, {m.name}), s.level(), std::string("metrics_paper_f20_") + m.name,
                                       m.title, m.what, caption))
      out.push_back(std::move(*forest));
  }
}

// Every point of a long curve would only thicken the line: at most kMaxCurvePoints, the last kept.
std::vector<RiskCoveragePoint> thinned(const std::vector<RiskCoveragePoint>& points) {
  if (points.size() <= kMaxCurvePoints) return points;
  std::vector<RiskCoveragePoint> out;
  const size_t step = (points.size() + kMaxCurvePoints - 1) / kMaxCurvePoints;
  for (size_t k = 0; k < points.size(); k += step) out.push_back(points[k]);
  if (out.back().coverage != points.back().coverage) out.push_back(points.back());
  return out;
}

std::optional<PlotFile> risk_coverage_figure(const Source& s) {
  const std::vector<const ProbabilitySummary*> summaries = base_summaries(s, false);
  double lo = INFINITY, hi = -INFINITY, first = 1;
  for (const ProbabilitySummary* p : summaries)
    for (const RiskCoveragePoint& point : p->risk_coverage.points)
      lo = std::min(lo, point.risk), hi = std::max(hi, point.risk), first = std::min(first, point.coverage);
  if (summaries.empty() || !(lo <= hi)) return std::nullopt;
  Figure fig;
  set_x_axis(fig, first, 1);
  set_y_axis(fig, lo, hi);
  fig.x_grid = true;
  fig.title = "Selective error against coverage";
  fig.x_title = "coverage (share of outputs accepted, most confident first)";
  fig.y_title = "selective error";
  std::string csv = "judge,order,q,coverage,risk\n";
  for (const ProbabilitySummary* p : summaries) {
    std::vector<std::pair<double, double>> line;
    for (const RiskCoveragePoint& point : thinned(p->risk_coverage.points))
      line.push_back({fig.frame.px(point.coverage), fig.frame.py(point.risk)});
    fig.body += svg_polyline(line, s.colour(p->judge), 1.8);
    fig.legend.push_back({p->judge + " (AURC " + fixed(p->risk_coverage.aurc, 3) + ")", s.colour(p->judge)});
    for (const RiskCoveragePoint& point : p->risk_coverage.points)
      csv += csv_field(p->judge) + "," + csv_order(p->order) + "," + csv_number(point.q) + "," +
             csv_number(point.coverage) + "," + csv_number(point.risk) + "\n";
  }
  const std::string caption =
      "Error share among the most confident outputs (q = largest label probability, " +
      presentation_text(summaries.front()->order) +
      ") against the share accepted; tied q values take their expected error. Point summaries without an interval "
      "(the CSV holds every point; long curves are drawn through at most 400 of them) (JEV Fig. 21).";
  return PlotFile{"metrics_paper_f21_risk_coverage", with_caption(fig.render(), caption), csv};
}

// A bin's records split by correctness (accuracy is mean correctness, so a tie's half credit
// stays a half).
double correct_in(const ReliabilityBin& bin) { return bin.n > 0 ? bin.accuracy * static_cast<double>(bin.n) : 0; }

// The bins holding records: [first, last].
std::pair<int, int> occupied_bins(const ReliabilityTable& table) {
  int first = kConfidenceBins, last = -1;
  for (int b = 0; b < static_cast<int>(table.bins.size()); ++b)
    if (table.bins[b].n > 0) first = std::min(first, b), last = b;
  return {first, last};
}

std::string histogram_bar(const PlotFrame& f, double x0, double x1, double share, const char* colour) {
  return "<rect x=\"" + svg_number(f.px(x0)) + "\" y=\"" + svg_number(f.py(share)) + "\" width=\"" +
         svg_number(f.px(x1) - f.px(x0)) + "\" height=\"" + svg_number(f.py(0) - f.py(share)) + "\" fill=\"" + colour +
         "\" fill-opacity=\"0.85\"/>\n";
}

std::optional<PlotFile> confidence_histogram(const ProbabilitySummary& p) {
  const ReliabilityTable& t = p.reliability;
  const auto [first, last] = occupied_bins(t);
  double correct = 0, wrong = 0, top = 0;
  for (const ReliabilityBin& bin : t.bins)
    correct += correct_in(bin), wrong += static_cast<double>(bin.n) - correct_in(bin);
  if (last < 0) return std::nullopt;
  auto share = [](double count, double of) { return of > 0 ? count / of : 0.0; };
  for (const ReliabilityBin& bin : t.bins)
    top = std::max({top, share(correct_in(bin), correct), share(static_cast<double>(bin.n) - correct_in(bin), wrong)});
  Figure fig;
  set_x_axis(fig, edge(first), edge(last + 1));
  set_y_axis(fig, 0, top);
  fig.title = p.judge + ": confidence of correct and wrong outputs";
  fig.x_title = "q (largest label probability), bins of 0.1";
  fig.y_title = "share of the class's outputs";
  std::string csv = "judge,order,bin_lo,bin_hi,n,correct,wrong,correct_share,wrong_share\n";
  for (int b = first; b <= last; ++b) {
    const ReliabilityBin& bin = t.bins[b];
    const double lo = edge(b), mid = lo + kBinWidth / 2, right = bin.n - correct_in(bin);
    fig.body += histogram_bar(fig.frame, lo + 0.005, mid, share(correct_in(bin), correct), "#1f77b4");
    fig.body += histogram_bar(fig.frame, mid, lo + kBinWidth - 0.005, share(right, wrong), "#d62728");
    csv += csv_field(p.judge) + "," + csv_order(p.order) + "," + csv_number(lo) + "," + csv_number(edge(b + 1)) + "," +
           std::to_string(bin.n) + "," + csv_number(correct_in(bin)) + "," + csv_number(right) + "," +
           csv_number(share(correct_in(bin), correct)) + "," + csv_number(share(right, wrong)) + "\n";
  }
  fig.legend = {{"correct (" + fixed(correct, 0) + " outputs)", "#1f77b4", LegendMark::kBar},
                {"wrong (" + fixed(wrong, 0) + " outputs)", "#d62728", LegendMark::kBar}};
  const std::string caption = "Distribution of q over " + p.judge + "'s correct and wrong valid outputs (" +
                              presentation_text(p.order) +
                              "), each as a share of its class, from the reliability bins' counts and accuracies "
                              "(JEV Fig. 6, top).";
  return PlotFile{"metrics_paper_f6_confidence_" + safe_plot_name(p.judge), with_caption(fig.render(), caption), csv};
}

// A reliability bin as drawn: its mean q, accuracy and the Wilson interval of its counts.
struct ReliabilityPoint {
  const ProbabilitySummary* summary;
  int bin;
  double lo, hi;
};

std::vector<ReliabilityPoint> reliability_points(const std::vector<const ProbabilitySummary*>& summaries,
                                                 int64_t min_count, int64_t& left_out) {
  std::vector<ReliabilityPoint> points;
  for (const ProbabilitySummary* p : summaries)
    for (int b = 0; b < static_cast<int>(p->reliability.bins.size()); ++b) {
      const ReliabilityBin& bin = p->reliability.bins[b];
      if (bin.n == 0) continue;
      if (bin.n < min_count) {
        ++left_out;
        continue;
      }
      const auto [lo, hi] =
          wilson_interval(static_cast<uint64_t>(std::llround(correct_in(bin))), static_cast<uint64_t>(bin.n));
      points.push_back({p, b, lo, hi});
    }
  return points;
}

std::optional<PlotFile> reliability_figure(const Source& s) {
  const std::vector<const ProbabilitySummary*> summaries = base_summaries(s, false);
  int64_t left_out = 0;
  const std::vector<ReliabilityPoint> points = reliability_points(summaries, s.options.min_bin_count, left_out);
  if (points.empty()) return std::nullopt;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const ReliabilityPoint& r : points) {
    const ReliabilityBin& bin = r.summary->reliability.bins[r.bin];
    xlo = std::min(xlo, bin.mean_q), xhi = std::max(xhi, bin.mean_q);
    ylo = std::min({ylo, r.lo, bin.accuracy}), yhi = std::max({yhi, r.hi, bin.accuracy});
  }
  Figure fig;
  set_x_axis(fig, xlo, xhi);
  set_y_axis(fig, std::min(ylo, fig.frame.x0), std::max(yhi, fig.frame.x1));  // the diagonal in view
  fig.x_grid = true;
  fig.title = "Reliability: accuracy against mean confidence per bin";
  fig.x_title = "mean q in the bin";
  fig.y_title = "accuracy in the bin";
  const PlotFrame& f = fig.frame;
  fig.body +=
      svg_line(f.px(f.x0), f.py(f.x0), f.px(f.x1), f.py(f.x1), "stroke:#444444;stroke-width:1.2;stroke-dasharray:5,4");
  std::string csv = "judge,order,bin_lo,bin_hi,n,mean_q,accuracy,ci_lo,ci_hi\n";
  const ProbabilitySummary* current = nullptr;
  std::vector<std::pair<double, double>> line;
  auto finish_line = [&]() {
    if (current && line.size() > 1) fig.body += svg_polyline(line, s.colour(current->judge), 1.5);
    line.clear();
  };
  for (const ReliabilityPoint& r : points) {
    const ReliabilityBin& bin = r.summary->reliability.bins[r.bin];
    if (r.summary != current) {
      finish_line();
      current = r.summary;
      fig.legend.push_back({current->judge, s.colour(current->judge), LegendMark::kPointWithBar});
    }
    line.push_back({f.px(bin.mean_q), f.py(bin.accuracy)});
    fig.body += svg_error_bar_y(f, bin.mean_q, bin.accuracy, r.lo, r.hi, s.colour(current->judge),
                                current->judge + ": n " + std::to_string(bin.n) + ", accuracy " + fixed(bin.accuracy));
    csv += csv_field(current->judge) + "," + csv_order(current->order) + "," + csv_number(edge(r.bin)) + "," +
           csv_number(edge(r.bin + 1)) + "," + std::to_string(bin.n) + "," + csv_number(bin.mean_q) + "," +
           csv_number(bin.accuracy) + "," + csv_number(r.lo) + "," + csv_number(r.hi) + "\n";
  }
  finish_line();
  fig.legend.push_back({"perfect calibration (accuracy = q)", "#444444", LegendMark::kDashed});
  const std::string caption = "Accuracy against mean q per bin of width 0.1 (" +
                              presentation_text(summaries.front()->order) + "), bins with at least " +
                              std::to_string(s.options.min_bin_count) + " valid outputs; " + std::to_string(left_out) +
                              " sparser bins left out (the JSON keeps every bin). Whiskers: 95% Wilson interval of "
                              "the bin's counts, outputs taken as independent (JEV Fig. 6, bottom).";
  return PlotFile{"metrics_paper_f6_reliability", with_caption(fig.render(), caption), csv};
}

}  // namespace

void add_probability_figures(const Source& s, std::vector<PlotFile>& out) {
  add_score_forests(s, out);
  if (auto curve = risk_coverage_figure(s)) out.push_back(std::move(*curve));
  for (const ProbabilitySummary* p : base_summaries(s, false))
    if (auto histogram = confidence_histogram(*p)) out.push_back(std::move(*histogram));
  if (auto reliability = reliability_figure(s)) out.push_back(std::move(*reliability));
  add_flip_figures(s, out);
}

}  // namespace paper_plots
}  // namespace judgestat
