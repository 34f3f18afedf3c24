#include "cli/cli_common.hpp"

#include <chrono>
#include <cmath>
#include <iostream>

#include "cli/cli_help.hpp"
#include "distributed/distributed.hpp"
#include "records/csv.hpp"
#include "report/atomic_file.hpp"

namespace judgestat {

bool parse_or_help(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult& parsed, bool out_is_folder) {
  if (suggesting_flags(options, [&] { return parse_flags(options, argc, argv, parsed, out_is_folder); })) return true;
  std::cout << command_help(options) << std::flush;
  return false;
}

namespace {

// "acc|judge=…|order=0": the fields that tell statistics apart, for a CSV header.
std::string statistic_key(const StatLabel& label) {
  std::string key = label.name;
  auto add = [&](const char* field, const std::optional<std::string>& value) {
    if (value) key += std::string("|") + field + "=" + *value;
  };
  if (!label.judge.empty()) key += "|judge=" + label.judge;
  add("of", label.of);
  add("reference", label.reference);
  add("benchmark", label.benchmark);
  add("condition", label.condition);
  if (label.order) key += "|order=" + std::to_string(*label.order);
  add("variant", label.variant);
  add("label", label.label);
  if (label.position) key += "|position=" + std::to_string(*label.position);
  add("threshold", label.threshold);
  return key;
}

}  // namespace

void save_replicates(const CommonOptions& common, const BootstrapResult& result) {
  if (common.replicates_path.empty() || !distributed::is_root()) return;
  const size_t S = result.labels.size();
  AtomicFile file(common.replicates_path, "--save-replicates");
  std::string text;
  for (size_t s = 0; s < S; ++s) text += (s ? "," : "") + csv_field(statistic_key(result.labels[s]));
  text += "\n";
  // Streamed in pieces of about 1 MiB: the text never holds more than that beside the values.
  constexpr size_t kPiece = 1 << 20;
  for (size_t r = 0; r * S < result.replicates.size(); ++r) {
    for (size_t s = 0; s < S; ++s) {
      const double v = result.replicates[r * S + s];
      if (s) text += ',';
      if (!std::isnan(v)) append_17g(text, v);
    }
    text += '\n';
    if (text.size() >= kPiece) {
      file.write(text);
      text.clear();
    }
  }
  file.write(text);
  file.commit();
}

void emit(const CommonOptions& common, const Json& json, const std::string& table_text) {
  // Under MPI every rank gets here with the same result and rank 0 writes it, once all ranks
  // have got here: a rank failing on the way fails the run before anything is printed.
  distributed::agree_on_failure(nullptr);
  distributed::fail_together([&] {
    if (!distributed::is_root()) return;
    const std::string json_text = dump_json(json, 1) + "\n";
    if (!common.json_path.empty()) write_file(common.json_path, json_text);
    std::cout << (common.format == "json" ? json_text : table_text);
    flush_stdout();
  });
}

void write_plot_files(const std::vector<PlotFile>& figures, const std::string& dir) {
  if (dir.empty()) return;
  try {
    write_plots(figures, dir);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (message.rfind("plots: ", 0) == 0) throw std::runtime_error("--" + message);
    throw;
  }
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double seconds_since(double start) { return now_seconds() - start; }

}  // namespace judgestat
