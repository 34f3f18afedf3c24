// Reporting layer: docs/statistics.md §4's JSON envelope (numbers with 17 significant digits) and tables for
// people (text, md, csv).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judgestat/report.hpp"

#include "judgestat/bootstrap.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// Appends v exactly as printf's "%.17g" would, a few times faster (std::to_chars, which the
/// standard defines as printf's conversion).
void append_17g(std::string& out, double v);

/// JSON text with every floating-point number printed with 17 significant digits; NaN and
/// infinities print as null.
std::string dump_json(const Json& value, int indent = -1);

/// docs/statistics.md §1: one note per judge none of whose records is valid, naming it with the
/// most common reason; every analysis with judges puts these first in its JSON's notes.
std::vector<std::string> all_invalid_notes(const std::vector<JudgeValidity>& validity);

/// The same notes as lines above a report's tables ("WARNING: …\n") in text and md; csv stays
/// one table that pandas.read_csv loads as is (the notes are in the JSON), so "" there.
std::string all_invalid_warnings(const std::vector<JudgeValidity>& validity, const std::string& format);

/// The envelope's head: tool, version, command, argv, input (path, sha256, records, invalid).
Json json_envelope(const std::string& command, int argc, char** argv, const ItemMatrix& input);

/// docs/statistics.md §4's settings of a bootstrap run, in order: seed, replicates, ci, level, backend,
/// device, strata (null when empty). Each analysis appends its own settings after these.
Json bootstrap_settings_json(uint64_t seed, uint64_t replicates, CiMethod ci, double level,
                             const BootstrapResult& result, const std::string& strata);
inline Json bootstrap_settings_json(const BootstrapOptions& options, const BootstrapResult& result,
                                    const std::string& strata) {
  return bootstrap_settings_json(options.seed, options.replicates, options.ci, options.level, result, strata);
}

/// docs/statistics.md §4's timing object of a bootstrap run (load_s, resample_s, replicates_per_s, summary_s).
Json bootstrap_timing_json(double load_s, const BootstrapResult& result);

/// docs/statistics.md §4 statistics rows from a bootstrap result.
Json statistics_json(const BootstrapResult& result);

/// A table for people: header, rows of cells; `format` is text, md, csv or json (json: not
/// handled here). Text columns are padded; numbers are right-aligned.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;  // printed under the table (why a statistic is left out, …)
  std::string render(const std::string& format) const;

 private:
  std::string render_escaped(const std::string& format) const;  // cells already escaped
};

/// docs/statistics.md §2's thresholds for people: warn below kFewClusters clusters, strongly below
/// kStronglyFewClusters; flag intervals whose replicates take fewer than kFewDistinct values;
/// note cluster sizes whose coefficient of variation reaches kUnequalSizesCv.
inline constexpr int64_t kFewClusters = 50, kStronglyFewClusters = 20, kFewDistinct = 20;
inline constexpr double kUnequalSizesCv = 0.5;

/// A row's caveats ("equal ends", "few values" unless the interval is `t`, which does not read
/// the replicates, "no coverage guarantee" for ece), "; "-joined; empty when there are none.
std::string interval_flag(const StatLabel& label, const Interval& interval, CiMethod method);
/// The notes under a table of the result's intervals: few clusters (naming the better method),
/// unequal cluster sizes, what the flags mean, ece's lack of a guarantee, statistics the
/// studentized method does not apply to, and the diff rows whose p is withheld and why
/// (p_withheld_reason). The few-clusters warning quotes a coverage figure only where
/// measured_coverage has one.
std::vector<std::string> interval_notes(const BootstrapResult& result);

/// Where the few-clusters warning may quote a coverage figure: the mean coverage (%) bench/RESULTS.md
/// measured for this method at exactly this many clusters and level 0.95; nothing elsewhere.
std::optional<double> measured_coverage(CiMethod method, int64_t clusters, double level);

/// "0.7576 (0.6515, 0.8636)" style cell; digits after the point.
std::string estimate_cell(const Interval& interval, int digits = 4);
/// A number for people: fixed with `digits` after the point when |value| < kFixedBelow (small
/// values too: "0.0000"), else %g with max(digits, 1) significant digits ("1e+103"); "—" when not
/// finite.
inline constexpr double kFixedBelow = 1e6;
std::string fixed(double value, int digits = 4);

/// Writes text to FILE ("-" = stdout) atomically (report/atomic_file.hpp: the old file or the
/// whole new one, never a partial one); throws std::runtime_error naming the file on failure.
/// Under MPI only rank 0 writes; the other ranks do nothing.
void write_file(const std::string& path, const std::string& text);

/// Progress on stderr: "replicates 120000/1000000  3.1e5/s  ETA 3s", at most a few times a
/// second, only when the run has taken over a second; silent when quiet and on MPI ranks but 0.
class Progress {
 public:
  Progress(std::string what, bool quiet);
  void operator()(uint64_t done, uint64_t total);
  void finish();

 private:
  std::string what_;
  bool quiet_;
  double start_, last_ = 0;
  bool shown_ = false;
};

}  // namespace judgestat
