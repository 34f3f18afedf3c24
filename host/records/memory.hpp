// The memory a load may use, and the up-front checks that refuse, with the figures, a load that
// would not fit it rather than fail an allocation or be killed part-way (issue 26 part 7).
#pragma once
#include <cstddef>
#include <string>

#include "judgestat/records.hpp"

namespace judgestat::loading {

/// The memory a load may use, read once when it starts, and where the figure comes from.
struct MemoryBudget {
  double bytes = 0;    // 0: unknown, nothing is refused for size
  std::string source;  // "MemAvailable", "the cgroup's memory.max", "JUDGESTAT_MEMORY_LIMIT", …
};

/// JUDGESTAT_MEMORY_LIMIT (a number of bytes, optionally with a K, M or G suffix; for tests and
/// for users who want to cap a load below the machine's memory) when set, else the memory
/// available now: /proc/meminfo's MemAvailable, capped by the cgroup's memory.max less what the
/// cgroup already uses; 80% of the physical memory when neither can be read. Throws UsageError
/// for a malformed JUDGESTAT_MEMORY_LIMIT.
MemoryBudget memory_budget();

/// Bytes of one cell of the item matrix with `labels` labels (verdict, line, fee, latency,
/// rationale_ok and a probability per label).
double matrix_cell_bytes(size_t labels);

/// "0.35 GB" (two significant digits below 1 GB).
std::string gigabytes(double bytes);

/// Throws InputError "FILE: loading needs about X GB (WHAT) but Y GB is available (SOURCE); …"
/// when `needed` exceeds the budget.
void check_memory(const std::string& file, double needed, const std::string& what, const MemoryBudget& budget);

/// Before parsing: the file's text, one numbered record per line (with `probabilities`
/// probabilities each) and a matrix of at least one cell per record (each record has its own
/// cell) must fit the budget.
void check_load_fits(const std::string& file, size_t text_bytes, size_t lines, size_t probabilities,
                     const MemoryBudget& budget);

/// The item matrix's per-cell arrays (verdicts, lines, probabilities, fees, latencies, rationale
/// flags), in bytes: what an analysis's up-front check counts as held beside its plan.
double matrix_bytes(const ItemMatrix& m);

/// Before an analysis builds its plan (issue 26 part 7): `plan_bytes` (described by `plan_shape`,
/// e.g. "40 columns x 1000 units x 8 bytes") on top of the item matrix's `matrix_bytes` must fit
/// the budget. A JUDGESTAT_MEMORY_LIMIT or physical-memory budget caps the whole process, so the
/// matrix counts; MemAvailable and the cgroup's headroom are read after the load, with the matrix
/// already resident, so only the plan counts. Throws InputError "ANALYSIS: the plan needs about X
/// GB (SHAPE) …" when it does not fit.
void check_analysis_fits(const std::string& analysis, double matrix_bytes, double plan_bytes,
                         const std::string& plan_shape, const MemoryBudget& budget);

}  // namespace judgestat::loading
