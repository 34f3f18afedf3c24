#include "requests/scores_request.hpp"

#include <charconv>
#include <cmath>
#include <exception>
#include <optional>
#include <string>

#include "judgestat/records.hpp"

namespace judgestat {

void add_scale_option(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("scale", "LOW:HIGH, e.g. 1:10: verdicts and gold are scores on this scale (score judges, docs/statistics.md "
       "§8.2)", cxxopts::value<std::string>()->default_value(""));
  // clang-format on
}

void read_scale(const OptionReader& reader, LoadOptions& load) {
  load.scale = parse_score_scale(reader.text("scale"));
  if (load.scale && !load.labels.empty())
    throw UsageError("--scale: the labels of a scored file are its scores; leave out --labels");
}

void add_score_options(cxxopts::Options& options) {
  // clang-format off
  options.add_options()
      ("alpha-level", "with --scale: the level of Krippendorff's alpha over --raters: nominal, ordinal, interval "
       "(default) or ratio", cxxopts::value<std::string>()->default_value("interval"))
      ("tie-margin", "with --scale and --score-pairs: a pair is a tie when its two scores differ by at most this",
       cxxopts::value<double>()->default_value("0"))
      ("score-pairs", "with --scale: the covariate x.NAME whose value names each item's pair (two items: A the "
       "first in the file, B the other); pair_acc and pair_tie_rate", cxxopts::value<std::string>()->default_value(""));
  // clang-format on
}

std::optional<ScoreScale> parse_score_scale(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const size_t colon = text.find(':');
  ScoreScale scale;
  const auto number = [](const std::string& part, double& out) {
    size_t used = 0;
    try {
      out = std::stod(part, &used);
    } catch (const std::exception&) {
      return false;
    }
    return used == part.size() && std::isfinite(out);
  };
  if (colon == std::string::npos || !number(text.substr(0, colon), scale.low) ||
      !number(text.substr(colon + 1), scale.high) || !(scale.low < scale.high))
    throw UsageError("--scale: expected LOW:HIGH with LOW < HIGH, e.g. 1:10, got '" + text + "'");
  return scale;
}

namespace {

// The number as written back in its shortest round-trip form (-1, 0.25), not to_string's -1.000000.
std::string shortest_text(double value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

}  // namespace

ScoreOptions read_score_options(const OptionReader& reader) {
  ScoreOptions scores;
  scores.alpha_level = parse_alpha_level(reader.text("alpha-level"));
  scores.tie_margin = reader.number("tie-margin");
  if (!(scores.tie_margin >= 0) || !std::isfinite(scores.tie_margin))
    throw UsageError("--tie-margin: expected a number >= 0, got " + shortest_text(scores.tie_margin));
  scores.pair_covariate = reader.text("score-pairs");
  return scores;
}

}  // namespace judgestat
