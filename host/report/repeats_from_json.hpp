// The repeats report read back from its JSON and render state (report/report_from_json.hpp), so
// that a study reuses a repeats entry and renders its tables from its result; and what the
// readers of repeats and systems (report/systems_from_json.hpp) share: the bootstrap's settings
// and timing, the validity rows with the notes that carry the rest of the validity, and the
// intervals' render state (the cluster count and size CVs the JSON lacks).
#pragma once
#include <string>
#include <vector>

#include "judgestat/repeats.hpp"
#include "judgestat/report.hpp"

namespace judgestat {

/// What the repeats writers read that the JSON lacks: the bootstrap's n_clusters and per
/// interval its size_cv (the unequal-cluster-sizes note).
Json render_state(const RepeatsReport& report);

/// The repeats report from to_json's document and `render`, its render_state;
/// std::invalid_argument("result.KEY…: …" or "render…: …") naming a missing or wrong-typed field.
RepeatsReport repeats_report_from_json(const Json& json, const Json& render);

namespace from_json {

/// settings.seed, replicates, ci, level, backend, device and timing.resample_s, summary_s into `out`.
void read_bootstrap_head(const Json& json, BootstrapResult& out);
/// The `validity` rows, then the notes: the validity notes (all_invalid_notes) read back into
/// `validity`, the rest into `notes`.
void read_validity_and_notes(const Json& json, std::vector<JudgeValidity>& validity, std::vector<std::string>& notes);
/// {"n_clusters", "intervals": [{"size_cv"[, "note"]}]}: `with_note` where the JSON rows lack the note.
Json interval_render_state(const BootstrapResult& result, bool with_note);
/// The render state interval_render_state wrote, into `result` (its intervals already read).
void read_interval_render(const Json& render, bool with_note, BootstrapResult& result);

}  // namespace from_json
}  // namespace judgestat
