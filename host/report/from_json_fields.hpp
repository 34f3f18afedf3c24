// The field readers every *_report_from_json shares (report/report_from_json.cpp holds them): each
// takes a value and `where` it is, a path in the result ("settings.seed") or in the render state
// ("render.judges"), and throws std::invalid_argument naming that path ("result.settings.seed:
// expected a whole number ≥ 0") when the value is missing or of the wrong type.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "judgestat/bootstrap.hpp"
#include "judgestat/report.hpp"

namespace judgestat::from_json {

/// Throws std::invalid_argument("result.WHERE: WHAT"), or "render…: WHAT" where `where` starts "render".
[[noreturn]] void bad_field(const std::string& where, const std::string& what);
/// object[key]; "WHERE.KEY: missing" when absent, "WHERE: expected an object" when not one.
const Json& field(const Json& object, const std::string& key, const std::string& where);
std::string path_of(const std::string& where, const std::string& key);
/// A number as the writers print it; null (how NaN and the infinities are written) reads as NaN.
double number(const Json& value, const std::string& where);
uint64_t count(const Json& value, const std::string& where);
int64_t signed_count(const Json& value, const std::string& where);
/// `object[name]` as signed_count reads it, named `at.name` in an error.
int64_t signed_count_of(const Json& object, const std::string& name, const std::string& at);
std::string text(const Json& value, const std::string& where);
bool flag(const Json& value, const std::string& where);
/// The array `value`, of exactly `size` elements when size > 0.
const Json& array_of(const Json& value, const std::string& where, size_t size = 0);
/// A list of strings, or null for none (list_or_null).
std::vector<std::string> texts_or_null(const Json& value, const std::string& where);
std::optional<std::string> optional_text(const Json& value, const std::string& where);
std::optional<int> optional_int(const Json& value, const std::string& where);
/// A statistics row's label as statistics_json writes every one: name, judge, reference, of,
/// benchmark, condition, order, variant (threshold, n, label and position are each reader's own).
StatLabel label_fields(const Json& row, const std::string& at);
/// A result's settings.seed, replicates, ci and level into `out` (its other fields untouched).
void read_bootstrap_settings(const Json& settings, const std::string& at, BootstrapOptions& out);
/// An interval row's estimate, ci, se and undefined; with `full` also its clusters, distinct
/// and note (what statistics_json writes of every interval).
Interval interval_fields(const Json& row, const std::string& at, bool full = true);
/// A render state's `strata` of one interval, within int32.
int32_t strata_of(const Json& state, const std::string& at);
/// From notes[n]: the >5%-invalid notes of `judges` and the no-gold note (all_invalid_notes writes
/// them after the all-invalid ones) read back into `validity` (an entry added for a judge it
/// lacks); returns the index after them. Each is rewritten and must come out the same.
size_t read_validity_notes(const std::vector<std::string>& notes, size_t n, const std::vector<std::string>& judges,
                           std::vector<JudgeValidity>& validity);
/// The JSON's notes: all_invalid_notes(validity) of `judges` first (read back into validity),
/// then the report's own.
void split_notes(const Json& json, const std::vector<std::string>& judges, std::vector<JudgeValidity>& validity,
                 std::vector<std::string>& notes);

}  // namespace judgestat::from_json
