// Outputs never replace inputs: paths resolved and compared before any work (output_guard.hpp).
#include "cli/output_guard.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "judgestat/records.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;

// A path resolved: its absolute form with symbolic links followed (as far as it exists) and,
// when it exists, the file it is (device and inode: a hard link is the same file).
struct Resolved {
  NamedPath named;
  fs::path canonical;
  bool exists = false, folder = false, stream = false;
  dev_t device = 0;
  ino_t inode = 0;
};

Resolved resolve(const NamedPath& named) {
  Resolved r;
  r.named = named;
  std::error_code error;
  fs::path absolute = fs::absolute(named.path, error);
  if (error) absolute = fs::path(named.path);
  r.canonical = fs::weakly_canonical(absolute, error);
  if (error) r.canonical = absolute.lexically_normal();
  if (!r.canonical.has_filename()) r.canonical = r.canonical.parent_path();  // "plots/" is "plots"
  struct stat info {};
  r.exists = ::stat(named.path.c_str(), &info) == 0;
  if (r.exists) {
    r.folder = S_ISDIR(info.st_mode);
    r.stream = !S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode);  // a device, FIFO or socket
    r.device = info.st_dev;
    r.inode = info.st_ino;
  }
  return r;
}

bool skipped(const NamedPath& named) { return named.path.empty() || named.path == "-"; }

std::vector<Resolved> resolve_all(const std::vector<NamedPath>& paths) {
  std::vector<Resolved> resolved;
  for (const NamedPath& named : paths)
    if (!skipped(named)) resolved.push_back(resolve(named));
  return resolved;
}

// An input "-" is standard input: redirected from a regular file (`< v.csv`), that file is an
// input an output could replace (`--json /dev/stdin`, or its path); a terminal or pipe is a stream.
Resolved resolve_stdin(const NamedPath& named) {
  Resolved r;
  r.named = named;
  r.stream = true;
  struct stat info {};
  if (::fstat(0, &info) != 0 || !S_ISREG(info.st_mode)) return r;
  r.stream = false;
  r.exists = true;
  r.device = info.st_dev;
  r.inode = info.st_ino;
  std::error_code error;
  r.canonical = fs::read_symlink("/proc/self/fd/0", error);  // for the message; files compare by inode
  if (error || r.canonical.is_relative()) r.canonical = "/dev/stdin";
  return r;
}

// The inputs: "-" is standard input, "" nothing.
std::vector<Resolved> resolve_inputs(const std::vector<NamedPath>& paths) {
  std::vector<Resolved> resolved;
  for (const NamedPath& named : paths) {
    if (named.path == "-")
      resolved.push_back(resolve_stdin(named));
    else if (!named.path.empty())
      resolved.push_back(resolve(named));
  }
  return resolved;
}

bool same_file(const Resolved& a, const Resolved& b) {
  if (a.exists && b.exists) return a.device == b.device && a.inode == b.inode;
  return a.canonical == b.canonical;
}

// `inner` is `outer` or lies below it (component by component, both resolved).
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

// "--json 'link.csv' (→ /abs/v.csv)": the path as given and, when it differs, where it leads.
std::string described(const Resolved& r) {
  std::string text = r.named.flag + " '" + r.named.path + "'";
  if (r.canonical.string() != r.named.path) text += " (" + r.canonical.string() + ")";
  return text;
}

[[noreturn]] void refuse(const Resolved& output, const std::string& relation, const Resolved& other,
                         const std::string& advice) {
  throw UsageError(described(output) + " " + relation + " " + described(other) + "; " + advice);
}

const char* const kKeepInputs = "an output never replaces what the run reads: give another path";

// One output file against the inputs and the outputs before it.
void check_output(const Resolved& output, const std::vector<Resolved>& inputs, const std::vector<Resolved>& earlier) {
  if (output.stream) return;
  for (const Resolved& input : inputs) {
    if (input.stream) continue;
    if (input.folder && output.exists && within(output.canonical, input.canonical))
      refuse(output, "is a file inside the input folder", input, kKeepInputs);
    if (!input.folder && same_file(output, input)) refuse(output, "is the same file as", input, kKeepInputs);
  }
  for (const Resolved& other : earlier)
    if (!other.stream && same_file(output, other))
      refuse(output, "is the same file as", other, "each output of a run needs its own path");
}

bool has_plot_name(const std::string& file_name, const std::vector<std::string>& prefixes) {
  const auto ends_with = [&](const std::string& suffix) {
    return file_name.size() >= suffix.size() &&
           file_name.compare(file_name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends_with(".svg") && !ends_with(".csv")) return false;
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& prefix) { return file_name.rfind(prefix, 0) == 0; });
}

}  // namespace

void check_paths_apart(const RunPaths& paths) {
  const std::vector<Resolved> inputs = resolve_inputs(paths.inputs);
  std::vector<Resolved> outputs;
  for (const Resolved& output : resolve_all(paths.outputs)) {
    check_output(output, inputs, outputs);
    outputs.push_back(output);
  }
  if (skipped(paths.plots)) return;
  const Resolved plots = resolve(paths.plots);
  // --plots DIR: a figure is DIR/PREFIX….svg or .csv; no input or output may be one.
  std::vector<Resolved> others = inputs;
  others.insert(others.end(), outputs.begin(), outputs.end());
  for (const Resolved& other : others) {
    if (!other.stream && !other.folder && same_file(other, plots))
      refuse(plots, "is the same path as", other, "give --plots a folder of its own");
    if (!other.stream && !other.folder && other.canonical.parent_path() == plots.canonical &&
        has_plot_name(other.canonical.filename().string(), paths.plot_prefixes))
      refuse(plots, "would hold figures (named " + paths.plot_prefixes.front() + "….svg/.csv) beside", other,
             "a figure could replace it: give --plots another folder");
    if (other.folder && within(plots.canonical, other.canonical))
      refuse(plots, "lies inside the input folder", other, kKeepInputs);
  }
}

void check_plot_files_apart(const RunPaths& paths, const std::vector<PlotFile>& figures) {
  if (skipped(paths.plots)) return;
  RunPaths files = paths;
  files.plots.path.clear();
  for (const PlotFile& figure : figures) {
    files.outputs.push_back({paths.plots.flag, paths.plots.path + "/" + figure.name + ".svg"});
    if (!figure.csv.empty()) files.outputs.push_back({paths.plots.flag, paths.plots.path + "/" + figure.name + ".csv"});
  }
  check_paths_apart(files);
}

void check_out_dir_apart(const NamedPath& out_dir, const std::vector<NamedPath>& inputs) {
  if (skipped(out_dir)) return;
  const Resolved dir = resolve(out_dir);
  for (const Resolved& input : resolve_inputs(inputs)) {
    if (input.stream) continue;
    if (within(input.canonical, dir.canonical) || same_file(input, dir))
      refuse(dir, input.folder ? "is or holds the input folder" : "holds", input,
             "the run replaces what its folder holds: give --out a folder of its own");
    if (input.folder && within(dir.canonical, input.canonical))
      refuse(dir, "lies inside the input folder", input, kKeepInputs);
  }
}

}  // namespace judgestat
