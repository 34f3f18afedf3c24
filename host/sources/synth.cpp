// judgerEva-style synthetic records with known CAP values (see synth.hpp for the model).
#include "sources/synth.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "judgestat/records.hpp"

namespace judgestat {

const std::vector<std::string>& synth_failure_types() {
  static const std::vector<std::string> kTypes{"factual", "logical", "overclaim", "omission"};
  return kTypes;
}

namespace {

const char* const kVariants[] = {"plain", "polished", "padded"};
const char* const kDomains[] = {"medical", "legal", "math", "science", "logic", "general"};

std::map<std::string, double> per_type(double factual, double logical, double overclaim, double omission) {
  return {{"factual", factual}, {"logical", logical}, {"overclaim", overclaim}, {"omission", omission}};
}

// Uniform in [0, 1) from the top 53 bits: the same on every standard library.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::string domain_name(int d) {
  return d < static_cast<int>(std::size(kDomains)) ? kDomains[d] : "domain" + std::to_string(d + 1);
}

struct SynthItem {
  std::string id, cluster, domain;
  int type = 0;  // index into synth_failure_types()
  bool gold_a = true;
  bool flagged = false;
};

// Items interleaved by type (item k of every type, then k + 1), dealt to domains in turn;
// consecutive items of a domain share a source-question cluster.
std::vector<SynthItem> make_items(const SynthOptions& options, std::mt19937_64& rng) {
  const auto& types = synth_failure_types();
  std::vector<SynthItem> items;
  std::vector<int> per_domain(options.domains, 0);
  for (int k = 0; k < options.items_per_type; ++k)
    for (int t = 0; t < static_cast<int>(types.size()); ++t) {
      SynthItem item;
      const int d = static_cast<int>(items.size()) % options.domains;
      item.domain = domain_name(d);
      item.type = t;
      item.id = item.domain + "-" + types[t] + "-" + std::to_string(k);
      item.cluster = item.domain + "-q" + std::to_string(per_domain[d]++ / options.items_per_cluster);
      items.push_back(item);
    }
  for (SynthItem& item : items) item.gold_a = uniform(rng) < 0.5;
  // Exactly round(share · n) flagged items per type, chosen by a partial Fisher–Yates shuffle.
  for (int t = 0; t < static_cast<int>(types.size()); ++t) {
    std::vector<size_t> of_type;
    for (size_t i = 0; i < items.size(); ++i)
      if (items[i].type == t) of_type.push_back(i);
    const auto share = options.flag_share.find(types[t]);
    const size_t flagged =
        static_cast<size_t>(std::lround((share == options.flag_share.end() ? 0.0 : share->second) * of_type.size()));
    for (size_t k = 0; k < flagged; ++k) {
      const size_t pick = k + static_cast<size_t>(uniform(rng) * static_cast<double>(of_type.size() - k));
      std::swap(of_type[k], of_type[pick]);
      items[of_type[k]].flagged = true;
    }
  }
  return items;
}

double skill_of(const SynthJudge& judge, const SynthOptions& options, const std::string& type, bool flagged) {
  const double skill = judge.skill.at(type) * options.skill_scale;
  return flagged ? std::max(0.0, skill - options.flag_skill_drop) : skill;
}

double misled_of(const SynthJudge& judge, const std::string& type) {
  const auto it = judge.misled.find(type);
  return it == judge.misled.end() ? 0.0 : it->second;
}

[[noreturn]] void judges_error(const std::string& where, const std::string& what) {
  throw UsageError("synth judges " + where + ": " + what);
}

}  // namespace

std::vector<SynthJudge> default_synth_judges() {
  std::vector<SynthJudge> judges;
  auto add = [&](const std::string& name, std::map<std::string, double> skill, std::map<std::string, double> misled,
                 double position, double style, double length, double rationale) {
    judges.push_back({name, std::move(skill), std::move(misled), position, style, length, rationale});
  };
  // Strong overall but blind to omitted qualifications (the paper's Sonnet-on-C4 pattern).
  add("alpha-large", per_type(0.92, 0.88, 0.90, 0.45), per_type(0.02, 0.03, 0.02, 0.20), 0.55, 0.03, 0.04, 0.90);
  add("alpha-small", per_type(0.80, 0.70, 0.85, 0.70), per_type(0.04, 0.06, 0.03, 0.05), 0.60, 0.05, 0.08, 0.88);
  // Strong-position-bias judge: good content skill, but guesses go to the first answer.
  add("beta-large", per_type(0.60, 0.65, 0.55, 0.60), per_type(0.05, 0.05, 0.05, 0.05), 0.90, 0.08, 0.10, 0.75);
  add("beta-small", per_type(0.35, 0.55, 0.45, 0.60), per_type(0.10, 0.08, 0.10, 0.05), 0.85, 0.15, 0.20, 0.70);
  // Verbosity-swayed judge: fine on plain items, fooled by padding.
  add("gamma-pro", per_type(0.75, 0.80, 0.85, 0.60), per_type(0.03, 0.03, 0.03, 0.08), 0.55, 0.05, 0.45, 0.85);
  add("gamma-flash", per_type(0.72, 0.78, 0.65, 0.55), per_type(0.04, 0.04, 0.08, 0.08), 0.60, 0.25, 0.30, 0.45);
  // Weak content skill, often stably wrong: pure consistency overstates it most.
  add("delta-70b", per_type(0.50, 0.65, 0.60, 0.65), per_type(0.20, 0.10, 0.12, 0.08), 0.70, 0.05, 0.35, 0.50);
  return judges;
}

std::vector<SynthJudge> parse_synth_judges(const std::string& json_text, const std::string& source) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("synth judges " + source + ": not valid JSON: " + e.what());
  }
  if (!root.is_object() || !root.contains("judges") || !root["judges"].is_array() || root["judges"].empty())
    judges_error(source, "expected {\"judges\": [ … ]} with at least one judge");
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it.key() != "judges" && it.key() != "description")
      judges_error(source, "unknown key '" + it.key() + "' (allowed: description, judges)");
  std::vector<SynthJudge> judges;
  for (size_t k = 0; k < root["judges"].size(); ++k) {
    const nlohmann::json& entry = root["judges"][k];
    std::string where = source + ": judges[" + std::to_string(k) + "]";
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
      judges_error(where, "each judge needs a string 'name'");
    SynthJudge judge;
    judge.name = entry["name"].get<std::string>();
    where += " (" + judge.name + ")";
    for (auto it = entry.begin(); it != entry.end(); ++it) {
      const std::string& key = it.key();
      if (key == "name") continue;
      if (key == "skill" || key == "misled") {
        std::map<std::string, double>& target = key == "skill" ? judge.skill : judge.misled;
        if (it->is_number()) {
          for (const auto& type : synth_failure_types()) target[type] = it->get<double>();
        } else if (it->is_object()) {
          for (auto t = it->begin(); t != it->end(); ++t) {
            const auto& types = synth_failure_types();
            if (std::find(types.begin(), types.end(), t.key()) == types.end())
              judges_error(where, key + ": unknown failure type '" + t.key() +
                                      "' (expected factual, logical, overclaim, omission)");
            if (!t->is_number()) judges_error(where, key + "." + t.key() + " must be a number");
            target[t.key()] = t->get<double>();
          }
        } else {
          judges_error(where, "'" + key + "' must be a number or {failure type: number}");
        }
        continue;
      }
      double* field = key == "position_bias"   ? &judge.position_bias
                      : key == "style_fooled"  ? &judge.style_fooled
                      : key == "length_fooled" ? &judge.length_fooled
                      : key == "rationale"     ? &judge.rationale
                                               : nullptr;
      if (!field)
        judges_error(where, "unknown key '" + key +
                                "' (allowed: name, skill, misled, position_bias, "
                                "style_fooled, length_fooled, rationale)");
      if (!it->is_number()) judges_error(where, "'" + key + "' must be a number");
      *field = it->get<double>();
    }
    for (const auto& type : synth_failure_types())
      if (!judge.skill.count(type)) judges_error(where, "missing skill for '" + type + "'");
    judges.push_back(std::move(judge));
  }
  return judges;
}

void check_synth_options(const SynthOptions& options) {
  auto probability = [](double p) { return p >= 0.0 && p <= 1.0; };
  if (options.items_per_type < 1) throw std::invalid_argument("items_per_type: need at least 1");
  if (options.domains < 1) throw std::invalid_argument("domains: need at least 1");
  if (options.items_per_cluster < 1) throw std::invalid_argument("items_per_cluster: need at least 1");
  if (!probability(options.flag_skill_drop))
    throw std::invalid_argument("flag_skill_drop: expected a number in [0, 1]");
  if (!probability(options.skill_scale)) throw std::invalid_argument("skill_scale: expected a number in [0, 1]");
  for (const auto& [type, share] : options.flag_share)
    if (!probability(share)) throw std::invalid_argument("flag_share: '" + type + "' share must be in [0, 1]");
  if (options.benchmark.empty()) throw std::invalid_argument("benchmark: give a name");
  std::vector<std::string> seen;
  for (const SynthJudge& judge : options.judges) {
    const std::string where = "judge '" + judge.name + "'";
    if (std::find(seen.begin(), seen.end(), judge.name) != seen.end())
      throw UsageError("synth: " + where + " is defined twice");
    seen.push_back(judge.name);
    for (const auto& type : synth_failure_types()) {
      const auto skill = judge.skill.find(type);
      if (skill == judge.skill.end()) throw UsageError("synth: " + where + " has no skill for '" + type + "'");
      const double misled = misled_of(judge, type);
      if (!probability(skill->second) || !probability(misled) || skill->second + misled > 1.0)
        throw UsageError("synth: " + where + " on '" + type +
                         "': skill and misled must be probabilities with skill + misled <= 1");
    }
    for (double p : {judge.position_bias, judge.style_fooled, judge.length_fooled, judge.rationale})
      if (!probability(p))
        throw UsageError("synth: " + where +
                         ": position_bias, style_fooled, length_fooled and "
                         "rationale must be in [0, 1]");
  }
}

namespace {

// The options with the default judges filled in and checked, and the items the seed generates;
// the writer draws the judges' outputs from the same generator afterwards.
struct SynthSetup {
  SynthOptions options;
  std::mt19937_64 rng;
  std::vector<SynthItem> items;
};

SynthSetup synth_setup(const SynthOptions& given) {
  SynthSetup setup{given, std::mt19937_64(given.seed), {}};
  if (setup.options.judges.empty()) setup.options.judges = default_synth_judges();
  check_synth_options(setup.options);
  setup.items = make_items(setup.options, setup.rng);
  return setup;
}

}  // namespace

int64_t write_synth_cap(std::ostream& out, const SynthOptions& given) {
  SynthSetup setup = synth_setup(given);
  const SynthOptions& options = setup.options;
  std::mt19937_64& rng = setup.rng;
  const std::vector<SynthItem>& items = setup.items;
  const auto& types = synth_failure_types();
  out << "judge,item,cluster,benchmark,condition,order,variant,gold,verdict,rationale_ok,flag,domain\n";
  int64_t records = 0;
  for (const SynthJudge& judge : options.judges) {
    for (const SynthItem& item : items) {
      const std::string& type = types[item.type];
      const double skill = skill_of(judge, options, type, item.flagged);
      const double misled = misled_of(judge, type);
      const double state = uniform(rng);
      const bool knows = state < skill, is_misled = !knows && state < skill + misled;
      for (int v = 0; v < 3; ++v) {
        const double fooled_p = v == 1 ? judge.style_fooled : v == 2 ? judge.length_fooled : 0.0;
        const bool fooled = knows && v > 0 && uniform(rng) < fooled_p;
        for (int o = 0; o < 2; ++o) {
          bool correct;
          if (knows) {
            correct = !fooled;
          } else if (is_misled) {
            correct = false;
          } else {
            // Order 0 shows the canonical order, so gold is shown first when gold = A in order 0
            // or gold = B in order 1.
            const bool picks_first = uniform(rng) < judge.position_bias;
            const bool gold_first = item.gold_a == (o == 0);
            correct = picks_first == gold_first;
          }
          const char* gold = item.gold_a ? "A" : "B";
          const char* verdict = correct == item.gold_a ? "A" : "B";
          std::string rationale;
          if (v == 0 && o == 0 && correct) rationale = uniform(rng) < judge.rationale ? "1" : "0";
          out << judge.name << ',' << item.id << ',' << item.cluster << ',' << options.benchmark << ',' << type << ','
              << o << ',' << kVariants[v] << ',' << gold << ',' << verdict << ',' << rationale << ','
              << (item.flagged ? 1 : 0) << ',' << item.domain << '\n';
          ++records;
        }
      }
    }
  }
  return records;
}

std::map<std::string, std::map<std::string, double>> synth_truth(const SynthOptions& given) {
  const SynthSetup setup = synth_setup(given);
  const SynthOptions& options = setup.options;
  const std::vector<SynthItem>& items = setup.items;
  const auto& types = synth_failure_types();
  std::map<std::string, std::map<std::string, double>> truth;
  for (const SynthJudge& judge : options.judges) {
    const double a = judge.position_bias;
    const double both_guess_right = a * (1 - a);          // bc of a guessing judge, per variant
    const double same_guess = a * a + (1 - a) * (1 - a);  // same position in two variants
    // Expected per-item values; `all` over every item, `kept` over unflagged items only.
    struct Sums {
      std::map<std::string, double> value;
      std::map<std::string, double> count;
    } all, kept;
    for (const SynthItem& item : items) {
      const std::string& type = types[item.type];
      const double s = skill_of(judge, options, type, item.flagged);
      const double m = misled_of(judge, type);
      const double g = 1 - s - m;
      const double pa = s + g / 2;
      const double style = s * (1 - judge.style_fooled), length = s * (1 - judge.length_fooled);
      std::map<std::string, double> v;
      v["C" + std::to_string(item.type + 1)] = pa;
      v["overall"] = pa;
      v["C5"] = style + g * same_guess / 2;
      v["C6"] = length + g * same_guess / 2;
      v["C5_cons"] = style + m + g * same_guess;
      v["C6_cons"] = length + m + g * same_guess;
      v["C7"] = ((s + style + length) + 3 * g * both_guess_right) / 3;
      v["C7_cons"] = s + m + 2 * g * both_guess_right;
      v["q1"] = s + g * a;
      v["q0"] = s + g * (1 - a);
      for (const auto& [name, x] : v) {
        all.value[name] += x;
        all.count[name] += 1;
        if (!item.flagged) {
          kept.value[name] += x;
          kept.count[name] += 1;
        }
      }
    }
    std::map<std::string, double>& t = truth[judge.name];
    for (const auto& [name, sum] : all.value) t[name] = sum / all.count[name];
    t["C8"] = judge.rationale;
    t["supported_correct"] = t["overall"] * judge.rationale;
    for (const std::string name : {"C1", "C2", "C3", "C4", "overall"})
      t[name + "_corrected"] = (t[name] + t["q0"] - 1) / (t["q0"] + t["q1"] - 1);
    for (const std::string name : {"C1", "C2", "C3", "C4", "C5", "C6", "C7", "overall"})
      if (kept.count[name] > 0) t["leave_out." + name] = kept.value[name] / kept.count[name] - t[name];
    t["leave_out.C8"] = 0.0;
  }
  return truth;
}

}  // namespace judgestat
