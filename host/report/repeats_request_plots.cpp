// The per-request figures of the repeat statistics (judgestat/repeats.hpp, repeats_request_plot_files):
// JEV Fig. 17 (each request's probability variation, per judge and family), Fig. 7c (a request's
// confidence range against its mean, crosses where the verdict changes) and Figs. 18–19 (each
// request's probability of the gold label across its members). Each with a CSV of what it draws.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "judgestat/repeats.hpp"
#include "report/plot_axes.hpp"
#include "report/repeat_request_words.hpp"
#include "report/report.hpp"

namespace judgestat {
namespace {

// The requests of one judge and family, in the report's order.
struct RequestGroup {
  std::string judge, family;
  std::vector<const RepeatRequest*> requests;
};

std::vector<RequestGroup> request_groups(const RepeatsReport& report) {
  std::vector<RequestGroup> groups;
  for (const RepeatRequest& r : report.requests) {
    if (groups.empty() || groups.back().judge != r.judge || groups.back().family != r.family)
      groups.push_back({r.judge, r.family, {}});
    groups.back().requests.push_back(&r);
  }
  return groups;
}

// ---- JEV Fig. 17: the spread of each request's probability variation ----

constexpr double kLinearUpTo = 0.02;  // "linear near zero and logarithmic above 0.02" [JEV Fig. 17]

// Fig. 17's horizontal scale: [0, 0.02] onto [0, 1] linearly, then one unit per decade.
double variation_scale(double tv) { return tv <= kLinearUpTo ? tv / kLinearUpTo : 1 + std::log10(tv / kLinearUpTo); }

// The k-th dot's vertical offset in [-0.5, 0.5): a golden-ratio sequence, so dots at one value
// spread out and every run draws the same figure.
double jitter(size_t k) { return std::fmod(0.5 + 0.6180339887498949 * static_cast<double>(k), 1.0) - 0.5; }

// The judge's `<family>_tv` interval over all analysed requests (no group, no variant), if reported.
const Interval* mean_variation(const RepeatsReport& report, const RequestGroup& g) {
  const BootstrapResult& s = report.statistics;
  for (size_t k = 0; k < s.labels.size(); ++k) {
    const StatLabel& l = s.labels[k];
    if (l.judge == g.judge && l.name == g.family + "_tv" && !l.benchmark && !l.condition && !l.variant)
      return &s.intervals[k];
  }
  return nullptr;
}

// The axis ends on the first of 0.02, 0.05, 0.1, 0.2, 0.5, 1 at or above the largest value.
void set_variation_axis(Figure& fig, double largest) {
  const double ticks[] = {0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1};
  double end = 1;
  for (double t : ticks)
    if (t >= kLinearUpTo && t >= largest) {
      end = t;
      break;
    }
  std::vector<double> values;
  for (double t : ticks)
    if (t <= end) values.push_back(t), fig.x_ticks.push_back(variation_scale(t));
  fig.x_labels = tick_labels(values);
  fig.frame.x0 = 0;
  fig.frame.x1 = variation_scale(end);
}

std::optional<PlotFile> variation_spread_figure(const RepeatsReport& report, const std::vector<RequestGroup>& groups) {
  constexpr double kRow = 30;
  struct Strip {
    const RequestGroup* group;
    std::string label;
    const Interval* mean;  // `<family>_tv`, when reported
  };
  std::vector<Strip> strips;  // the groups with some variation
  double label_width = 0, largest = 0;
  for (const RequestGroup& g : groups) {
    size_t n = 0;
    for (const RepeatRequest* r : g.requests)
      if (std::isfinite(r->tv_mean)) ++n, largest = std::max(largest, r->tv_mean);
    if (n == 0) continue;
    const Interval* mean = mean_variation(report, g);
    if (mean && std::isfinite(mean->hi)) largest = std::max(largest, mean->hi);
    strips.push_back({&g, g.judge + " · " + g.family + " (" + std::to_string(n) + ")", mean});
    label_width = std::max(label_width, text_width(strips.back().label, kTickSize));
  }
  if (strips.empty()) return std::nullopt;
  Figure fig;
  fig.frame.left = label_width + 24;
  fig.frame.width = std::max(640.0, fig.frame.left + 380);
  fig.frame.right = 32;
  fig.frame.height = fig.frame.top + kRow * static_cast<double>(strips.size()) + 8 + fig.frame.bottom;
  fig.frame.y0 = 0;
  fig.frame.y1 = 1;
  set_variation_axis(fig, largest);
  fig.x_grid = true;
  fig.title = "Probability variation per request (JEV Fig. 17)";
  fig.x_title = "mean total-variation distance within a request (linear to 0.02, log above)";
  const PlotFrame& f = fig.frame;
  const std::string level = fixed(100 * report.statistics.level, 0) + "% CI";
  std::string csv = "series,judge,family,item,order,variant,value,ci_lo,ci_hi\n";
  for (size_t s = 0; s < strips.size(); ++s) {
    const RequestGroup& g = *strips[s].group;
    const double mid = f.top + kRow * (static_cast<double>(s) + 0.5);
    fig.body += svg_text(f.left - 8, mid + 4, strips[s].label, "end", kTickSize);
    size_t k = 0;
    for (const RepeatRequest* r : g.requests) {
      if (!std::isfinite(r->tv_mean)) continue;
      fig.body += svg_circle(f.px(variation_scale(r->tv_mean)), mid + 0.6 * kRow * jitter(k++), 2.5, "#9e9e9e",
                             request_words(*r) + ": " + fixed(r->tv_mean, 4));
      csv += "request," + request_csv_fields(*r) + "," + csv_number(r->tv_mean) + ",,\n";
    }
    if (const Interval* mean = strips[s].mean) {
      fig.body +=
          svg_error_bar_x(f, mid, variation_scale(mean->estimate), variation_scale(mean->lo), variation_scale(mean->hi),
                          palette_colour(s), g.family + "_tv: " + fixed(mean->estimate, 4) + " (" + level + ")");
      csv += "mean," + csv_field(g.judge) + "," + g.family + ",,,," + csv_number(mean->estimate) + "," +
             csv_number(mean->lo) + "," + csv_number(mean->hi) + "\n";
    }
  }
  fig.legend.push_back({"one request", "#9e9e9e", LegendMark::kPoint});
  fig.legend.push_back({"<family>_tv: mean with " + level, "#444444", LegendMark::kPointWithBar});
  return PlotFile{"repeats_variation_spread", fig.render(), csv};
}

// ---- JEV Fig. 7c: a request's confidence range against its mean ----

std::optional<PlotFile> confidence_range_figure(const RequestGroup& g) {
  double x_lo = 1, x_hi = 0, y_hi = 0;
  int64_t agree = 0, change = 0;
  for (const RepeatRequest* r : g.requests) {
    if (!std::isfinite(r->q_range)) continue;
    x_lo = std::min(x_lo, r->q_mean), x_hi = std::max(x_hi, r->q_mean), y_hi = std::max(y_hi, r->q_range);
    (r->all_agree ? agree : change) += 1;
  }
  if (agree + change == 0) return std::nullopt;
  Figure fig;
  set_x_axis(fig, x_lo, x_hi);
  set_y_axis(fig, 0, std::max(y_hi, 0.01));
  fig.x_grid = true;
  fig.title = g.judge + ": confidence across " + g.family + " members (JEV Fig. 7c)";
  fig.x_title = "mean confidence q over the request's members";
  fig.y_title = "range of q (max − min)";
  const PlotFrame& f = fig.frame;
  std::string csv = "judge,family,item,order,variant,q_mean,q_range,all_agree\n";
  for (const RepeatRequest* r : g.requests) {
    if (!std::isfinite(r->q_range)) continue;
    const std::string tip = request_words(*r) + ": mean q " + fixed(r->q_mean, 3) + ", range " + fixed(r->q_range, 3);
    fig.body += r->all_agree ? svg_circle(f.px(r->q_mean), f.py(r->q_range), 3, palette_colour(0), tip)
                             : svg_cross(f.px(r->q_mean), f.py(r->q_range), 4, palette_colour(1), tip);
    csv += request_csv_fields(*r) + "," + csv_number(r->q_mean) + "," + csv_number(r->q_range) + "," +
           (r->all_agree ? "1" : "0") + "\n";
  }
  fig.legend.push_back({"verdicts agree (" + std::to_string(agree) + ")", palette_colour(0), LegendMark::kPoint});
  fig.legend.push_back({"verdict changes (" + std::to_string(change) + ")", palette_colour(1), LegendMark::kCross});
  return PlotFile{"repeats_confidence_range_" + safe_plot_name(g.judge) + "_" + g.family, fig.render(), csv};
}

// ---- JEV Figs. 18–19: each request's probability of the gold label across its members ----

// The members on the x axis in their repeat, order or variant number's order (requests list theirs
// in that order, but the first request need not have every member).
std::vector<std::string> member_names(const RequestGroup& g) {
  std::map<int32_t, std::string> by_index;
  for (const RepeatRequest* r : g.requests)
    for (const RepeatRequestMember& m : r->members) by_index.emplace(m.index, m.member);
  std::vector<std::string> names;
  for (const auto& [index, name] : by_index) names.push_back(name);
  return names;
}

std::vector<std::string> gold_labels(const RequestGroup& g) {
  std::vector<std::string> golds;
  for (const RepeatRequest* r : g.requests)
    if (std::find(golds.begin(), golds.end(), r->gold) == golds.end()) golds.push_back(r->gold);
  return golds;
}

// A point of a request's trajectory: circles for the first gold label, crosses for the next, …
std::string member_mark(const PlotFrame& f, double x, double y, size_t gold, const std::string& tip) {
  const std::string colour = palette_colour(gold);
  return gold % 2 == 0 ? svg_circle(f.px(x), f.py(y), 3, colour, tip) : svg_cross(f.px(x), f.py(y), 3.5, colour, tip);
}

std::optional<PlotFile> members_figure(const RequestGroup& g) {
  const std::vector<std::string> names = member_names(g), golds = gold_labels(g);
  double y_lo = 1, y_hi = 0;
  for (const RepeatRequest* r : g.requests)
    for (const RepeatRequestMember& m : r->members)
      if (std::isfinite(m.p_gold)) y_lo = std::min(y_lo, m.p_gold), y_hi = std::max(y_hi, m.p_gold);
  if (y_lo > y_hi) return std::nullopt;
  const bool any_gold = std::any_of(golds.begin(), golds.end(), [](const std::string& s) { return !s.empty(); });
  Figure fig;
  fig.frame.x0 = -0.5;
  fig.frame.x1 = static_cast<double>(names.size()) - 0.5;
  for (size_t k = 0; k < names.size(); ++k) fig.x_ticks.push_back(static_cast<double>(k));
  fig.x_labels = names;
  if (y_hi - y_lo < 0.01) y_lo = std::max(0.0, y_hi - 0.01);  // a flat set: a short axis ending at its value
  set_y_axis(fig, y_lo, std::max(y_hi, y_lo + 0.01));
  fig.title = g.judge + ": each request across its " + g.family + " members (JEV Figs. 18–19)";
  fig.x_title = g.family == "variant" ? "variant" : g.family == "repeat" ? "repeat" : "order";
  fig.y_title = any_gold ? "probability of the gold label" : "probability of the first label";
  const PlotFrame& f = fig.frame;
  std::string csv = "judge,family,item,order,variant,gold,member,verdict,q,p_gold\n";
  for (const RepeatRequest* r : g.requests) {
    const size_t gold = std::find(golds.begin(), golds.end(), r->gold) - golds.begin();
    std::vector<std::pair<double, double>> line;
    std::string marks;
    for (const RepeatRequestMember& m : r->members) {
      csv += request_csv_fields(*r) + "," + csv_field(r->gold) + "," + csv_field(m.member) + "," +
             csv_field(m.verdict) + "," + csv_number(m.q) + "," + csv_number(m.p_gold) + "\n";
      if (!std::isfinite(m.p_gold)) continue;
      const double x = static_cast<double>(std::find(names.begin(), names.end(), m.member) - names.begin());
      line.push_back({f.px(x), f.py(m.p_gold)});
      marks += member_mark(f, x, m.p_gold, gold, request_words(*r) + ", " + m.member + ": " + fixed(m.p_gold, 3));
    }
    fig.body += svg_polyline(line, palette_colour(gold), 1.0) + marks;
  }
  for (size_t k = 0; k < golds.size(); ++k)
    fig.legend.push_back({golds[k].empty() ? "no gold" : "gold " + golds[k], palette_colour(k),
                          k % 2 == 0 ? LegendMark::kPoint : LegendMark::kCross});
  return PlotFile{"repeats_members_" + safe_plot_name(g.judge) + "_" + g.family, fig.render(), csv};
}

}  // namespace

std::vector<PlotFile> repeats_request_plot_files(const RepeatsReport& report) {
  std::vector<PlotFile> out;
  const std::vector<RequestGroup> groups = request_groups(report);
  if (auto spread = variation_spread_figure(report, groups)) out.push_back(std::move(*spread));
  for (const RequestGroup& g : groups) {
    if (auto range = confidence_range_figure(g)) out.push_back(std::move(*range));
    if (auto members = members_figure(g)) out.push_back(std::move(*members));
  }
  return out;
}

}  // namespace judgestat
