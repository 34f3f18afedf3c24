// `judgestat synth cap`: judgerEva-style synthetic judgment records whose CAP values are known
// in closed form (the CAP paper's benchmark is not public; this exercises all eight conditions).
//
// Items: four failure types (factual, logical, overclaim, omission; the `condition` column) in
// several domains, grouped into source-question clusters of items of different types, each in
// three variants (plain, polished, padded) and both orders; gold is A or B with probability ½.
// Items flagged low-quality (flag = 1) come in exact per-type shares and are harder: every judge's
// skill on them is lower by `flag_skill_drop`.
//
// A judge, on item i of type t, is in one of three states, shared by all presentations of i:
// knows (probability skill[t]; the flagged-item skill on flagged items), misled (misled[t]:
// prefers the flawed answer in every presentation) or guessing (the rest). A knowing judge is
// fooled by the polished variant with probability style_fooled and by the padded variant with
// probability length_fooled (then it picks the flawed answer in both orders: stable but wrong).
// A guessing judge picks the answer shown first with probability position_bias, independently in
// each presentation. A correct plain order-0 verdict gets rationale_ok = 1 with probability
// `rationale` (the evaluator runs only on correct verdicts, so rationale_ok is empty elsewhere).
//
// Random numbers: std::mt19937_64 seeded with --seed; a uniform is (word >> 11) · 2^-53, so the
// output is the same on every platform and standard library. Draws go item by item (gold, then
// the flagged items per type by partial Fisher–Yates), then judge by judge and item by item.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace judgestat {

/// The four failure types of judgerEva [CAP App. A.2], in condition order C1–C4.
const std::vector<std::string>& synth_failure_types();

struct SynthJudge {
  std::string name;
  std::map<std::string, double> skill;   // per failure type: P(knows)
  std::map<std::string, double> misled;  // per failure type: P(prefers the flawed answer)
  double position_bias = 0.5;            // guessing: P(picks the answer shown first)
  double style_fooled = 0;               // knowing: P(fooled by the polished variant)
  double length_fooled = 0;              // knowing: P(fooled by the padded variant)
  double rationale = 0.8;                // P(rationale_ok = 1 | correct plain order-0 verdict)
};

struct SynthOptions {
  uint64_t seed = 1;
  int items_per_type = 150;
  int domains = 6;
  int items_per_cluster = 2;
  std::map<std::string, double> flag_share{
      {"factual", 0.10}, {"logical", 0.10}, {"overclaim", 0.12}, {"omission", 0.48}};
  double flag_skill_drop = 0.15;
  double skill_scale = 1.0;  // every skill times this (a harder "stress" benchmark)
  std::string benchmark = "judgerEva";
  std::vector<SynthJudge> judges;  // empty: default_synth_judges()
};

/// Seven judges in four families (alpha, beta, gamma, delta) with distinct profiles: an
/// omission-blind strong judge, a position-biased one, a length-biased one, and so on.
std::vector<SynthJudge> default_synth_judges();

/// Judges from JSON: {"judges": [{"name", "skill": {type: p} or p, "misled": …, "position_bias",
/// "style_fooled", "length_fooled", "rationale"}]}. UsageError naming the judge and key.
std::vector<SynthJudge> parse_synth_judges(const std::string& json_text, const std::string& source);

/// Checks the options: std::invalid_argument naming the field ("items_per_type: …",
/// "flag_share: …") for sizes and probabilities out of range; UsageError naming the judge for
/// a judge's skill, misled and biases (probabilities, skill + misled <= 1) or a repeated name.
void check_synth_options(const SynthOptions& options);

/// Writes the docs/statistics.md §1 CSV: judge, item, cluster, benchmark, condition, order, variant, gold,
/// verdict, rationale_ok, flag, domain (domain is informational; loaders ignore it).
/// Returns the number of records.
int64_t write_synth_cap(std::ostream& out, const SynthOptions& options);

/// Planted values per judge: C1 … C8, overall, C5_cons … C7_cons, supported_correct, q0, q1,
/// <cell>_corrected for C1–C4 and overall, and leave_out.<cell> (the shift when flagged items are
/// dropped). Exact expectations for the generated design (its type and flag counts).
std::map<std::string, std::map<std::string, double>> synth_truth(const SynthOptions& options);

}  // namespace judgestat
