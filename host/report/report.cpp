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
  // docs/statistics.md §8.1: added only when some item has no gold, so files with gold keep their bytes.
  if (input.items_without_gold > 0) {
    envelope["input"]["items"] = input.n_items();
    envelope["input"]["items_without_gold"] = input.items_without_gold;
  }
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
    row["undefined_share"] = std::isfinite(interval.undefined_share) ? Json(interval.undefined_share) : Json(nullptr);
    if (interval.clipped) row["clipped"] = true;
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

std::string interval_flag(const StatLabel& label, const Interval& interval, CiMethod method) {
  std::vector<std::string> flags;
  const bool has_interval = std::isfinite(interval.lo) && std::isfinite(interval.hi);
  if (has_interval && interval.lo == interval.hi) flags.push_back("equal ends");
  if (few_distinct_values(interval, method)) flags.push_back("few values");
  if (label.name == "ece") flags.push_back("no coverage guarantee");
  std::string out;
  for (const std::string& flag : flags) out += (out.empty() ? "" : "; ") + flag;
  return out;
}

namespace {

std::string comma_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The CLI flags that ask for `methods` ("--ci studentized or --ci t"); `explain` says what
// studentized applies to.
std::string ci_flags(const std::vector<CiMethod>& methods, bool explain) {
  std::string out;
  for (CiMethod method : methods)
    out += (out.empty() ? "--ci " : " or --ci ") + to_string(method) +
           (explain && method == CiMethod::kStudentized ? " (ratios and their differences)" : "");
  return out;
}

std::string count_text(double value) { return std::to_string(static_cast<int64_t>(value)); }

// kVeryFewClusters / kFewClusters: a method suited to few clusters (nothing suggested) is told how
// it holds; the others are told which to use. A coverage figure only where one was measured.
std::string few_clusters_note(const IntervalWarning& w) {
  const std::string clusters = count_text(w.observed), method = to_string(w.method);
  const bool suited = w.suggested_methods.empty();
  const std::string better = ci_flags(w.suggested_methods, true) + "; check your design with `judgestat coverage`";
  const std::string measured = w.measured_coverage
                                   ? " (measured: " + fixed(*w.measured_coverage, 1) + "% for a nominal 95% at " +
                                         clusters + " clusters in bench/RESULTS.md's simulation)"
                                   : "";
  const std::string head = "as few as " + clusters + " clusters (< " + count_text(w.threshold) + "): ";
  if (w.kind == IntervalWarningKind::kVeryFewClusters)
    return "WARNING: " + head +
           (suited
                ? "even " + method + " intervals can under-cover here" + measured + "; check with `judgestat coverage`"
                : method + " intervals can under-cover badly" + measured + "; use " + better);
  return "warning: " + head +
         (suited ? method + " intervals hold near nominal here" + measured
                 : method + " intervals may under-cover" + measured + "; " + better + " hold better");
}

// Every kPWithheld warning in one note: "reason (diff of a, b); …".
std::string withheld_p_note(const std::vector<IntervalWarning>& warnings) {
  std::string clauses;
  for (const IntervalWarning& w : warnings)
    if (w.kind == IntervalWarningKind::kPWithheld)
      clauses += (clauses.empty() ? "" : "; ") + w.reason + " (diff of " + comma_list(w.statistics) + ")";
  return "note: p is left out (—) where the replicates cannot support it: " + clauses +
         "; Holm and BH adjust over the other differences";
}

std::string interval_note(const IntervalWarning& w) {
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", w.threshold);
  switch (w.kind) {
    case IntervalWarningKind::kVeryFewClusters:
    case IntervalWarningKind::kFewClusters:
      return few_clusters_note(w);
    case IntervalWarningKind::kUnequalClusterSizes:
      return "note: unequal cluster sizes (coefficient of variation up to " + fixed(w.observed, 2) +
             " >= " + threshold + ") in " + comma_list(w.statistics) +
             ": percentile intervals of ratios can miss on one side; " + ci_flags(w.suggested_methods, false) +
             " holds better";
    case IntervalWarningKind::kCoarseIntervals:
      return "note: flagged intervals (" + comma_list(w.statistics) +
             "): 'few values' = the replicates take fewer than " + count_text(w.threshold) +
             " distinct values, 'equal ends' = both endpoints are equal; such an interval understates its uncertainty";
    case IntervalWarningKind::kNoCoverageGuarantee:
      return "note: " + comma_list(w.statistics) +
             " has no coverage guarantee: it is biased upward in small samples and near 0 its bootstrap interval "
             "rarely covers the truth";
    case IntervalWarningKind::kMethodNotApplicable:
      return "note: no " + to_string(w.method) + " interval for " + comma_list(w.statistics) +
             (w.method == CiMethod::kStudentized ? " (it applies to ratios and differences of two ratios only)" : "") +
             "; use " + ci_flags(w.suggested_methods, false) + " for these";
    case IntervalWarningKind::kManyUndefined:
      return "note: up to " + fixed(100 * w.observed, 1) + "% of the replicates are undefined in " +
             comma_list(w.statistics) + " (more than " + fixed(100 * w.threshold, 0) +
             "%): their intervals describe the replicates that defined them, a selected subset; the " +
             "row's undefined_share says how many";
    case IntervalWarningKind::kClippedToRange:
      return "note: " + comma_list(w.statistics) + ": the estimate is on a bound of its range, where the " +
             to_string(w.method) + " interval's transformed scale has no room; its original-scale ends " +
             "were clipped onto the range (clipped = true in the JSON)";
    case IntervalWarningKind::kPWithheld:
      break;
  }
  return "";
}

}  // namespace

std::vector<std::string> interval_notes(const std::vector<IntervalWarning>& warnings) {
  std::vector<std::string> notes;
  bool withheld_listed = false;
  for (const IntervalWarning& w : warnings) {
    if (w.kind != IntervalWarningKind::kPWithheld) {
      notes.push_back(interval_note(w));
    } else if (!withheld_listed) {
      notes.push_back(withheld_p_note(warnings));
      withheld_listed = true;
    }
  }
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
  if (format == "csv") return render_csv(*this);  // CSV quotes what it must; numbers split out (table_csv.cpp)
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
  for (const auto& v : validity)
    if (auto note = many_invalid_note(v)) notes.push_back(std::move(*note));
  if (!validity.empty())
    if (auto note = no_gold_note(validity.front())) notes.push_back(std::move(*note));
  if (!validity.empty())
    if (auto note = repeats_note(validity.front())) notes.push_back(std::move(*note));
  return notes;
}

// docs/statistics.md §1: a share of invalid records that changes the statistics (a placeholder
// gold or label set that the verdicts do not use) is told above the tables, not only in the
// validity footer. The value is known only as computed (not read back from JSON).
std::optional<std::string> many_invalid_note(const JudgeValidity& v) {
  if (v.records == 0 || v.invalid == v.records || v.common_invalid_value.empty()) return std::nullopt;
  const double percent = 100.0 * static_cast<double>(v.invalid) / static_cast<double>(v.records);
  if (percent <= kManyInvalidPercent) return std::nullopt;
  char share[32];
  std::snprintf(share, sizeof share, percent < 10 ? "%.1f%%" : "%.0f%%", percent);
  return v.judge + ": " + std::to_string(v.invalid) + " of " + std::to_string(v.records) + " records invalid (" +
         share + "), most often " + v.common_invalid_value + " (" + std::to_string(v.common_invalid_count) + ")";
}

// docs/statistics.md §8.1: items without gold are not invalid; the statistics that need gold
// leave them out, and say so once per analysis.
std::optional<std::string> no_gold_note(const JudgeValidity& v) {
  if (v.items_without_gold <= 0) return std::nullopt;
  const int64_t with_gold = v.items - v.items_without_gold;
  auto items = [](int64_t n) { return std::to_string(n) + (n == 1 ? " item" : " items"); };
  const std::string head = std::to_string(v.items_without_gold) + " of " + items(v.items) +
                           (v.items_without_gold == 1 ? " has" : " have") + " no gold";
  if (v.gold_statistics.empty())
    return head + " and " + (v.items_without_gold == 1 ? "is" : "are") +
           " left out: every statistic of this analysis needs gold, so it is over the " + items(with_gold) +
           " with gold";
  if (with_gold == 0)
    return head + ": " + v.gold_statistics + " need gold and are left out (undefined); the other statistics are " +
           "over all " + items(v.items);
  return head + ": " + v.gold_statistics + " are over the " + items(with_gold) +
         " with gold; the other statistics over all " + std::to_string(v.items);
}

// docs/statistics.md §8.5: records of repeat >= 1 enter only `repeats`; every other analysis says
// how many it left out, so that a repeated run is never read as ignored silently.
std::optional<std::string> repeats_note(const JudgeValidity& v) {
  if (v.repeat_records <= 0) return std::nullopt;
  return std::to_string(v.repeat_records) + (v.repeat_records == 1 ? " record" : " records") + " of repeat >= 1 " +
         (v.repeat_records == 1 ? "is" : "are") +
         " not used here: this analysis reads repeat 0 only (judgestat repeats compares the runs)";
}

std::string all_invalid_warnings(const std::vector<JudgeValidity>& validity, const std::string& format) {
  if (format == "csv") return "";
  std::string out;
  for (const auto& note : all_invalid_notes(validity)) out += "WARNING: " + note + "\n";
  return out;
}

Json validity_json(const std::vector<JudgeValidity>& validity) {
  Json rows = Json::array();
  for (const auto& v : validity) rows.push_back({{"judge", v.judge}, {"records", v.records}, {"invalid", v.invalid}});
  return rows;
}

std::vector<std::string> notes_after_validity(const std::vector<JudgeValidity>& validity,
                                              const std::vector<std::string>& notes) {
  std::vector<std::string> all = all_invalid_notes(validity);
  all.insert(all.end(), notes.begin(), notes.end());
  return all;
}

}  // namespace judgestat
