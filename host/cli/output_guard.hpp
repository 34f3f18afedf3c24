// Outputs never replace inputs (issue 26 §1). Every command names the files it reads and the
// files it writes, and check_paths_apart refuses, before anything is loaded or computed, an
// output that is one of its inputs (a records file, a config or option file it reads), a file
// inside a folder it reads, or another output of the same run. Paths are compared after
// resolving them (symbolic links followed, `std::filesystem::weakly_canonical`) and, where both
// exist, by device and inode, so a symbolic link or a hard link to an input is that input.
// Standard output ("-") and existing devices or FIFOs (/dev/null, /dev/stdout) are streams,
// not files a run could destroy: they are never compared. An input "-" is standard input: a
// file when redirected from one (compared by device and inode), else a stream.
#pragma once
#include <string>
#include <vector>

#include "judgestat/report.hpp"
#include "requests/run_paths.hpp"

namespace judgestat {

/// UsageError (exit 2) naming both paths when an output is an input, lies inside an input
/// folder, is another output, or is a file --plots could write (an input or output in DIR
/// named PREFIX….svg or PREFIX….csv).
void check_paths_apart(const RunPaths& paths);

/// The same for the figures once they are known, before any is written: DIR/NAME.svg and
/// DIR/NAME.csv against the inputs and the other outputs (the prefixes' safety net).
void check_plot_files_apart(const RunPaths& paths, const std::vector<PlotFile>& figures);

/// `run STUDY --out DIR`: DIR (a folder the run owns) must not be, or hold at any depth, a file
/// the study reads (the study file, its inputs, their configs). UsageError naming both.
void check_out_dir_apart(const NamedPath& out_dir, const std::vector<NamedPath>& inputs);

}  // namespace judgestat
