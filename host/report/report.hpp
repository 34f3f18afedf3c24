// Reporting layer: docs/statistics.md §4's JSON envelope (numbers with 17 significant digits) and tables for
// people (text, md, csv).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "judgestat/report.hpp"

#include "judgestat/bootstrap.hpp"
#include "judgestat/records.hpp"

namespace judgestat {

/// Appends v exactly as printf's "%.17g" would, a few times faster (std::to_chars, which the
/// standard defines as printf's conversion).
void append_17g(std::string& out, double v);

/// docs/statistics.md §1: one note per judge none of whose records is valid, naming it with the
/// most common reason, then many_invalid_note per judge, no_gold_note (§8.1) and repeats_note (§8.5)
/// of the first entry; every analysis with judges puts these first in its JSON's notes.
std::vector<std::string> all_invalid_notes(const std::vector<JudgeValidity>& validity);

/// The JSON `validity` rows (judge, records, invalid) of metrics, repeats and systems.
Json validity_json(const std::vector<JudgeValidity>& validity);

/// The JSON `notes`: the validity notes (all_invalid_notes), then the analysis's own.
std::vector<std::string> notes_after_validity(const std::vector<JudgeValidity>& validity,
                                              const std::vector<std::string>& notes);

/// A judge with more than kManyInvalidPercent of its records invalid, not all: "J: 53 of 192
/// records invalid (28%), most often verdict 'C' (40)"; nothing when the value is unknown.
inline constexpr double kManyInvalidPercent = 5.0;
std::optional<std::string> many_invalid_note(const JudgeValidity& validity);

/// docs/statistics.md §8.1: how many of the analysed items have no gold and what that leaves out.
std::optional<std::string> no_gold_note(const JudgeValidity& validity);

/// docs/statistics.md §8.5: how many records of repeat >= 1 the analysis did not use.
std::optional<std::string> repeats_note(const JudgeValidity& validity);

/// The same notes as lines above a report's tables ("WARNING: …\n") in text and md; csv stays
/// one table that pandas.read_csv loads as is (the notes are in the JSON), so "" there.
std::string all_invalid_warnings(const std::vector<JudgeValidity>& validity, const std::string& format);

/// docs/statistics.md §4's settings of a bootstrap run, in order: seed, replicates, ci, level, backend,
/// device, strata (null when empty). Each analysis appends its own settings after these.
Json bootstrap_settings_json(uint64_t seed, uint64_t replicates, CiMethod ci, double level,
                             const BootstrapResult& result, const std::string& strata);
inline Json bootstrap_settings_json(const BootstrapOptions& options, const BootstrapResult& result,
                                    const std::string& strata) {
  return bootstrap_settings_json(options.seed, options.replicates, options.ci, options.level, result, strata);
}
/// The same settings as the result ran them (its seed, replicates_run, ci, level).
inline Json bootstrap_settings_json(const BootstrapResult& result, const std::string& strata) {
  return bootstrap_settings_json(result.seed, result.replicates_run, result.ci, result.level, result, strata);
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

/// A row's caveats ("equal ends", "few values" where few_distinct_values, "no coverage
/// guarantee" for ece), "; "-joined; empty when there are none.
std::string interval_flag(const StatLabel& label, const Interval& interval, CiMethod method);
/// The table as pandas.read_csv loads it with numeric dtypes (issue 31): a column of "est (lo, hi)"
/// cells (CAP's "92.4 (88,96)" too; a plain number is an estimate without CI) becomes NAME, NAME_lo,
/// NAME_hi, and NAME_flag when some cell carries words after its interval ("equal ends"); a column of
/// "(lo, hi)" cells NAME_lo, NAME_hi (a header "95% CI" is named ci); a column of "78.25 %" cells
/// NAME_pct holding the number in percent points; "—", "–" and "-" become empty fields. A column
/// with any other text stays as it is. NAME is the header without a "(… CI)" part, spaces as '_'.
Table csv_ready(const Table& table);
/// csv_ready(table) as RFC 4180 text with one header line; Table::render("csv") is this.
std::string render_csv(const Table& table);
/// Several tables as one long CSV with one header: a leading `table` column naming each row's
/// table, then the union of the csv_ready columns in first-appearance order, empty where a table
/// has no such column.
std::string csv_long(const std::vector<std::pair<std::string, Table>>& tables);

/// The notes under a table of intervals, one per warning (interval_warnings(result)) and one for
/// all kPWithheld warnings together, in their order: the words people read, naming the CLI's
/// flags (--ci) and commands (`judgestat coverage`) where a warning suggests a method.
std::vector<std::string> interval_notes(const std::vector<IntervalWarning>& warnings);

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
