// Reporting: docs/statistics.md §4 JSON (17 significant digits), tables for people, progress on stderr.
#include "report/report.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "records/csv.hpp"
#include "report/atomic_file.hpp"

#include "distributed/distributed.hpp"

namespace judgestat {
namespace {

// Keys and strings: plain printable ASCII is copied between quotes; anything else (escapes,
// control characters, UTF-8, invalid bytes replaced) takes nlohmann's writer.
void dump_string(std::string& out, const std::string& text) {
  bool plain = true;
  for (unsigned char c : text) plain = plain && c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += Json(text).dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

void dump_value(std::string& out, const Json& value, int indent, int depth) {
  const bool pretty = indent >= 0;
  auto new_line = [&](int level) {
    if (!pretty) return;
    out += '\n';
    out.append(static_cast<size_t>(level) * indent, ' ');
  };
  switch (value.type()) {
    case Json::value_t::number_float: {
      const double v = value.get<double>();
      if (!std::isfinite(v)) {
        out += "null";
      } else {
        append_17g(out, v);
      }
      return;
    }
    case Json::value_t::object: {
      if (value.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        new_line(depth + 1);
        dump_string(out, it.key());
        out += pretty ? ": " : ":";
        dump_value(out, it.value(), indent, depth + 1);
      }
      new_line(depth);
      out += '}';
      return;
    }
    case Json::value_t::array: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      // Short arrays of scalars (a CI, quantiles) stay on one line.
      bool scalars = value.size() <= 4;
      for (const auto& element : value) scalars = scalars && element.is_primitive();
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) out += scalars && pretty ? ", " : ",";
        first = false;
        if (!scalars) new_line(depth + 1);
        dump_value(out, element, indent, depth + 1);
      }
      if (!scalars) new_line(depth);
      out += ']';
      return;
    }
    case Json::value_t::string:
      dump_string(out, value.get_ref<const std::string&>());
      return;
    default:
      out += value.dump();
  }
}

Json optional_json(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }

}  // namespace

void append_17g(std::string& out, double v) {
  char buffer[32];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::general, 17);
  out.append(buffer, written.ptr);
}

std::string dump_json(const Json& value, int indent) {
  std::string out;
  dump_value(out, value, indent, 0);
  return out;
}

Json json_envelope(const std::string& command, int argc, char** argv, const ItemMatrix& input) {
  Json envelope;
  envelope["tool"] = "judgestat";
  envelope["version"] = JUDGESTAT_VERSION;
  envelope["command"] = command;
  Json args = Json::array();
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  envelope["argv"] = args;
  envelope["input"] = {
      {"path", input.path}, {"sha256", input.sha256}, {"records", input.records}, {"invalid", input.invalid}};
  return envelope;
}

Json bootstrap_settings_json(uint64_t seed, uint64_t replicates, CiMethod ci, double level,
                             const BootstrapResult& result, const std::string& strata) {
  Json settings;
  settings["seed"] = seed;
  settings["replicates"] = replicates;
  settings["ci"] = to_string(ci);
  settings["level"] = level;
  settings["backend"] = result.backend;
  settings["device"] = result.device;
  settings["strata"] = strata.empty() ? Json(nullptr) : Json(strata);
  return settings;
}

Json bootstrap_timing_json(double load_s, const BootstrapResult& result) {
  const double rate = result.resample_s > 0 ? result.replicates_run / result.resample_s : 0.0;
  return {{"load_s", load_s},
          {"resample_s", result.resample_s},
          {"replicates_per_s", rate},
          {"summary_s", result.summary_s}};
}

Json statistics_json(const BootstrapResult& result) {
  Json rows = Json::array();
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    const Interval& interval = result.intervals[s];
    Json row;
    row["name"] = label.name;
    row["judge"] = label.judge.empty() ? Json(nullptr) : Json(label.judge);
    row["reference"] = optional_json(label.reference);
    row["of"] = optional_json(label.of);
    row["benchmark"] = optional_json(label.benchmark);
    row["condition"] = optional_json(label.condition);
    row["order"] = label.order ? Json(*label.order) : Json(nullptr);
    row["variant"] = optional_json(label.variant);
    if (!label.threshold) {
      row["threshold"] = nullptr;
    } else if (*label.threshold == "all") {
      row["threshold"] = "all";
    } else {
      row["threshold"] = std::stod(*label.threshold);
    }
    row["n"] = label.n;
    row["estimate"] = interval.estimate;
    row["ci"] = Json::array({interval.lo, interval.hi});
    row["se"] = interval.se;
    row["undefined"] = interval.undefined;
    row["clusters"] = interval.clusters;
    row["distinct"] = interval.distinct;
    if (!interval.note.empty()) row["note"] = interval.note;
    rows.push_back(row);
  }
  return rows;
}

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) return "—";
  char buffer[64];
  // Fixed notation below kFixedBelow; past it %g, so 1e103 is "1e+103", not 104 characters.
  // Small values stay fixed ("0.0000"): rounding noise such as an SE of 7e-16 is not news.
  if (std::fabs(value) < kFixedBelow)
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  else
    std::snprintf(buffer, sizeof buffer, "%.*g", std::max(digits, 1), value);
  return buffer;
}

std::string estimate_cell(const Interval& interval, int digits) {
  if (!std::isfinite(interval.estimate)) return "—";
  return fixed(interval.estimate, digits) + " (" + fixed(interval.lo, digits) + ", " + fixed(interval.hi, digits) + ")";
}

namespace {
// Few distinct replicate values make an interval coarse only when it is read off the replicates.
bool few_values(const Interval& interval, CiMethod method) {
  return method != CiMethod::kT && interval.distinct > 0 && interval.distinct < kFewDistinct;
}
}  // namespace

std::string interval_flag(const StatLabel& label, const Interval& interval, CiMethod method) {
  std::vector<std::string> flags;
  const bool has_interval = std::isfinite(interval.lo) && std::isfinite(interval.hi);
  if (has_interval && interval.lo == interval.hi) flags.push_back("equal ends");
  if (few_values(interval, method)) flags.push_back("few values");
  if (label.name == "ece") flags.push_back("no coverage guarantee");
  std::string out;
  for (const std::string& flag : flags) out += (out.empty() ? "" : "; ") + flag;
  return out;
}

namespace {

// The statistic names (deduplicated, in order) of the rows that satisfy `pick`.
template <typename Pick>
std::string names_where(const BootstrapResult& result, const Pick& pick) {
  std::vector<std::string> names;
  for (size_t s = 0; s < result.labels.size(); ++s)
    if (pick(result.labels[s], result.intervals[s]) &&
        std::find(names.begin(), names.end(), result.labels[s].name) == names.end())
      names.push_back(result.labels[s].name);
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::optional<double> measured_coverage(CiMethod method, int64_t clusters, double level) {
  // bench/RESULTS.md, "Coverage of the CI methods by number of clusters": mean coverage (%) of
  // nominal 95% intervals over acc J1, acc J2 and diff J2 − J1, 300 simulated data sets each.
  struct Cell {
    CiMethod method;
    int64_t clusters;
    double percent;
  };
  static const Cell cells[] = {{CiMethod::kPercentile, 10, 89.3},  {CiMethod::kPercentile, 20, 91.8},
                               {CiMethod::kBasic, 10, 87.6},       {CiMethod::kBasic, 20, 91.4},
                               {CiMethod::kBca, 10, 90.1},         {CiMethod::kBca, 20, 93.0},
                               {CiMethod::kT, 10, 94.7},           {CiMethod::kT, 20, 93.4},
                               {CiMethod::kStudentized, 10, 94.1}, {CiMethod::kStudentized, 20, 94.2}};
  if (level != 0.95) return std::nullopt;
  for (const Cell& cell : cells)
    if (cell.method == method && cell.clusters == clusters) return cell.percent;
  return std::nullopt;
}

namespace {

// " (measured: 89.3% for a nominal 95% at 10 clusters, bench/RESULTS.md's simulation)" where
// that method, cluster count and level were measured; "" elsewhere.
std::string measured_clause(const BootstrapResult& result, int64_t clusters) {
  const std::optional<double> percent = measured_coverage(result.ci, clusters, result.level);
  if (!percent) return "";
  return " (measured: " + fixed(*percent, 1) + "% for a nominal 95% at " + std::to_string(clusters) +
         " clusters in bench/RESULTS.md's simulation)";
}

// The few-clusters warning: a coverage figure only where one was measured.
void add_few_clusters_note(const BootstrapResult& result, int64_t fewest, std::vector<std::string>& notes) {
  const bool honest = result.ci == CiMethod::kStudentized || result.ci == CiMethod::kT;
  const std::string better =
      "--ci studentized (ratios and their differences) or --ci t; check your design with "
      "`judgestat coverage`";
  const std::string method = to_string(result.ci), measured = measured_clause(result, fewest);
  if (fewest > 0 && fewest < kStronglyFewClusters)
    notes.push_back(
        "WARNING: as few as " + std::to_string(fewest) + " clusters (< 20): " +
        (honest ? "even " + method + " intervals can under-cover here" + measured + "; check with `judgestat coverage`"
                : method + " intervals can under-cover badly" + measured + "; use " + better));
  else if (fewest > 0 && fewest < kFewClusters)
    notes.push_back("warning: as few as " + std::to_string(fewest) + " clusters (< 50): " +
                    (honest ? method + " intervals hold near nominal here" + measured
                            : method + " intervals may under-cover" + measured + "; " + better + " hold better"));
}

// Which diff rows' p is withheld and why (docs/statistics.md §7.3), one clause per reason.
void add_withheld_p_note(const BootstrapResult& result, std::vector<std::string>& notes) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
  for (size_t s = 0; s < result.labels.size(); ++s) {
    const StatLabel& label = result.labels[s];
    if (label.name != "diff") continue;
    const std::string reason = p_withheld_reason(result.intervals[s], result.replicates_run);
    if (reason.empty()) continue;
    auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& r) { return r.first == reason; });
    if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {reason, {}});
    const std::string name = label.of ? *label.of : label.name;
    if (std::find(it->second.begin(), it->second.end(), name) == it->second.end()) it->second.push_back(name);
  }
  if (by_reason.empty()) return;
  std::string clauses;
  for (const auto& [reason, names] : by_reason) {
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
    clauses += (clauses.empty() ? "" : "; ") + reason + " (diff of " + list + ")";
  }
  notes.push_back("note: p is left out (—) where the replicates cannot support it: " + clauses +
                  "; Holm and BH adjust over the other differences");
}

}  // namespace

std::vector<std::string> interval_notes(const BootstrapResult& result) {
  std::vector<std::string> notes;
  int64_t fewest = 0;
  double widest_cv = 0;
  for (const Interval& interval : result.intervals) {
    if (interval.clusters > 0 && (fewest == 0 || interval.clusters < fewest)) fewest = interval.clusters;
    if (std::isfinite(interval.size_cv)) widest_cv = std::max(widest_cv, interval.size_cv);
  }
  add_few_clusters_note(result, fewest, notes);
  if (widest_cv >= kUnequalSizesCv)
    notes.push_back("note: unequal cluster sizes (coefficient of variation up to " + fixed(widest_cv, 2) +
                    " >= 0.5) in " +
                    names_where(result,
                                [](const StatLabel&, const Interval& i) {
                                  return std::isfinite(i.size_cv) && i.size_cv >= kUnequalSizesCv;
                                }) +
                    ": percentile intervals of ratios can miss on one side; --ci studentized holds better");
  const std::string coarse = names_where(result, [&](const StatLabel&, const Interval& i) {
    return few_values(i, result.ci) || (std::isfinite(i.lo) && i.lo == i.hi);
  });
  if (!coarse.empty())
    notes.push_back("note: flagged intervals (" + coarse +
                    "): 'few values' = the replicates take fewer than 20 distinct values, 'equal ends' = both "
                    "endpoints are equal; such an interval understates its uncertainty");
  if (!names_where(result, [](const StatLabel& l, const Interval&) { return l.name == "ece"; }).empty())
    notes.push_back(
        "note: ece has no coverage guarantee: it is biased upward in small samples and near 0 its "
        "bootstrap interval rarely covers the truth");
  const std::string not_studentized =
      names_where(result, [](const StatLabel&, const Interval& i) { return !i.note.empty(); });
  if (!not_studentized.empty())
    notes.push_back("note: no studentized interval for " + not_studentized +
                    " (it applies to ratios and differences of two ratios only); use --ci t for these");
  add_withheld_p_note(result, notes);
  return notes;
}

namespace {

size_t display_width(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;  // count UTF-8 code points
  return width;
}

bool looks_numeric(const std::string& text) {
  return !text.empty() &&
         (std::isdigit(static_cast<unsigned char>(text[0])) ||
          ((text[0] == '-' || text[0] == '+') && text.size() > 1 && std::isdigit(static_cast<unsigned char>(text[1]))));
}

}  // namespace

namespace {
// A name from the data (a judge, a benchmark) may hold a newline or, in md, a '|': written as
// "\n" and "\|" so each row stays one line and each cell one cell.
std::string table_cell(const std::string& text, bool md) {
  if (text.find_first_of(md ? "|\n\r\t" : "\n\r\t") == std::string::npos) return text;
  std::string out;
  for (char ch : text) {
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\r')
      out += "\\r";
    else if (ch == '\t')
      out += md ? "\\t" : " ";
    else if (ch == '|' && md)
      out += "\\|";
    else
      out += ch;
  }
  return out;
}

std::vector<std::string> table_cells(const std::vector<std::string>& cells, bool md) {
  std::vector<std::string> out;
  out.reserve(cells.size());
  for (const auto& cell : cells) out.push_back(table_cell(cell, md));
  return out;
}
}  // namespace

std::string Table::render(const std::string& format) const {
  if (format == "csv") return render_escaped(format);  // CSV quotes what it must
  const bool md = format == "md";
  Table escaped{table_cells(header, md), {}, notes};
  for (const auto& row : rows) escaped.rows.push_back(table_cells(row, md));
  return escaped.render_escaped(format);
}

std::string Table::render_escaped(const std::string& format) const {
  std::ostringstream out;
  if (format == "csv") {
    for (size_t c = 0; c < header.size(); ++c) out << (c ? "," : "") << csv_field(header[c]);
    out << "\n";
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_field(row[c]);
      out << "\n";
    }
    return out.str();
  }
  if (format == "md") {
    out << "|";
    for (const auto& h : header) out << " " << h << " |";
    out << "\n|";
    for (size_t c = 0; c < header.size(); ++c) out << "---|";
    out << "\n";
    for (const auto& row : rows) {
      out << "|";
      for (const auto& cell : row) out << " " << cell << " |";
      out << "\n";
    }
    for (const auto& note : notes) out << "\n" << note << "\n";
    return out.str();
  }
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c) width[c] = display_width(header[c]);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  auto line = [&](const std::vector<std::string>& cells, bool is_header) {
    for (size_t c = 0; c < cells.size() && c < width.size(); ++c) {
      const size_t fill = width[c] - display_width(cells[c]);
      const bool right = !is_header && c > 0 && looks_numeric(cells[c]);
      if (c) out << "  ";
      if (right)
        out << std::string(fill, ' ') << cells[c];
      else
        out << cells[c] << (c + 1 < cells.size() ? std::string(fill, ' ') : "");
    }
    out << "\n";
  };
  line(header, true);
  size_t total = 0;
  for (size_t w : width) total += w;
  out << std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') << "\n";
  for (const auto& row : rows) line(row, false);
  for (const auto& note : notes) out << note << "\n";
  return out.str();
}

void write_file(const std::string& path, const std::string& text) {
  if (!distributed::is_root()) return;  // under MPI, rank 0 writes the run's files
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

void write_plots(const std::vector<PlotFile>& figures, const std::string& dir) {
  if (!distributed::is_root()) return;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw std::runtime_error("plots: cannot create directory '" + dir + "': " + error.message());
  for (const auto& figure : figures) {
    write_file(dir + "/" + figure.name + ".svg", figure.svg);
    if (!figure.csv.empty()) write_file(dir + "/" + figure.name + ".csv", figure.csv);
  }
}

namespace {
double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

// Under MPI only rank 0 shows progress (its share stands for the run's; see run_progress).
Progress::Progress(std::string what, bool quiet)
    : what_(std::move(what)), quiet_(quiet || !distributed::is_root()), start_(now_s()) {}

void Progress::operator()(uint64_t done, uint64_t total) {
  if (quiet_) return;
  const double now = now_s(), elapsed = now - start_;
  if (elapsed < 1.0 || (now - last_ < 0.5 && done < total)) return;
  last_ = now;
  shown_ = true;
  const double rate = done / std::max(elapsed, 1e-9);
  const double eta = rate > 0 ? (total - done) / rate : 0;
  std::fprintf(stderr, "\r%s %llu/%llu  %.3g/s  ETA %.0fs   ", what_.c_str(), static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total), rate, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (shown_ && !quiet_) std::fprintf(stderr, "\n");
  shown_ = false;
}

// docs/statistics.md §1: a judge none of whose records is valid gets no probability metrics and
// every accuracy-type statistic at 0; named above the tables (and in the JSON's notes) with the
// most common reason, so that a file written in percent is not read as a judge that is always wrong.
std::vector<std::string> all_invalid_notes(const std::vector<JudgeValidity>& validity) {
  std::vector<std::string> notes;
  for (const auto& v : validity)
    if (v.records > 0 && v.invalid == v.records)
      notes.push_back("every record of judge " + v.judge + " is invalid (" + std::to_string(v.invalid) + " of " +
                      std::to_string(v.records) + "), most often " + v.invalid_reason +
                      "; its accuracy-type statistics count each as an error and it has no probability metrics");
  return notes;
}

std::string all_invalid_warnings(const std::vector<JudgeValidity>& validity, const std::string& format) {
  if (format == "csv") return "";
  std::string out;
  for (const auto& note : all_invalid_notes(validity)) out += "WARNING: " + note + "\n";
  return out;
}

}  // namespace judgestat
