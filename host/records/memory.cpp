// The memory a load may use and the checks against it.
#include "records/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "judgestat/records.hpp"
#include "records/numbering.hpp"

namespace judgestat::loading {
namespace {

/// A number of bytes with an optional K, M or G suffix (powers of 1024); -1 when malformed.
double parse_bytes(const std::string& text) {
  size_t end = 0;
  double value = -1;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception&) {
    return -1;
  }
  std::string suffix = text.substr(end);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.size() == 2 && suffix[1] == 'B') suffix.pop_back();
  const double scale = suffix.empty()  ? 1
                       : suffix == "K" ? 1024.0
                       : suffix == "M" ? 1048576.0
                       : suffix == "G" ? 1073741824.0
                                       : -1;
  if (scale < 0 || !(value > 0) || value > 1e18) return -1;
  return value * scale;
}

/// /proc/meminfo's MemAvailable in bytes, 0 when unreadable.
double mem_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

/// The cgroup (v2) limit less its usage, 0 when there is none or it cannot be read. Usage counts the
/// page cache (`file` in memory.stat), which the kernel reclaims on demand: a long-lived container
/// sits near its limit with cache alone, so that part is not counted as used.
double cgroup_headroom() {
  std::ifstream max_file("/sys/fs/cgroup/memory.max"), current_file("/sys/fs/cgroup/memory.current");
  std::string max_text;
  double current = 0;
  if (!(max_file >> max_text) || max_text == "max" || !(current_file >> current)) return 0;
  std::ifstream stat_file("/sys/fs/cgroup/memory.stat");
  std::string key;
  double value = 0;
  while (stat_file >> key >> value) {
    if (key == "file") {
      current = std::max(0.0, current - value);
      break;
    }
  }
  const double limit = std::strtod(max_text.c_str(), nullptr);
  return limit > current ? limit - current : 0;  // past the limit: unknown, MemAvailable decides
}

}  // namespace

MemoryBudget memory_budget() {
  if (const char* limit = std::getenv("JUDGESTAT_MEMORY_LIMIT"); limit != nullptr && *limit != '\0') {
    const double bytes = parse_bytes(limit);
    if (bytes < 0) {
      throw UsageError(std::string("JUDGESTAT_MEMORY_LIMIT: expected a number of bytes such as 4000000000 or 4G, "
                                   "got '") +
                       limit + "'; unset it to use the memory available");
    }
    return {bytes, "JUDGESTAT_MEMORY_LIMIT"};
  }
  MemoryBudget budget{mem_available(), "MemAvailable in /proc/meminfo"};
  const double headroom = cgroup_headroom();
  if (headroom > 0 && (budget.bytes == 0 || headroom < budget.bytes)) {
    budget = {headroom, "the cgroup's memory.max less its memory.current without page cache"};
  }
  if (budget.bytes == 0) {
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0) budget = {0.8 * static_cast<double>(pages) * page_size, "80% of physical memory"};
  }
  return budget;
}

double matrix_cell_bytes(size_t labels) {
  return static_cast<double>(sizeof(int16_t) + sizeof(int64_t) + 3 * sizeof(double) + sizeof(double) * labels);
}

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, bytes < 1e9 ? "%.2g GB" : "%.1f GB", bytes / 1e9);
  return text;
}

void check_memory(const std::string& file, double needed, const std::string& what, const MemoryBudget& budget) {
  if (budget.bytes <= 0 || needed <= budget.bytes) return;
  throw InputError(file + ": loading needs about " + gigabytes(needed) + " (" + what + ") but " +
                   gigabytes(budget.bytes) + " is available (" + budget.source +
                   "); split the file by judge or benchmark, or free memory");
}

void check_load_fits(const std::string& file, size_t text_bytes, size_t lines, size_t probabilities,
                     const MemoryBudget& budget) {
  const double records = static_cast<double>(lines);
  const double numbered = records * static_cast<double>(sizeof(NumberedRecord) + probabilities * sizeof(double));
  const double matrix = records * matrix_cell_bytes(std::max<size_t>(probabilities, 1));
  check_memory(file, static_cast<double>(text_bytes) + numbered + matrix,
               "the file's text " + gigabytes(static_cast<double>(text_bytes)) + ", " + std::to_string(lines) +
                   " lines of records " + gigabytes(numbered) + " and their matrix cells " + gigabytes(matrix),
               budget);
}

double matrix_bytes(const ItemMatrix& m) {
  return static_cast<double>(m.verdict.size() * sizeof(int16_t) + m.line.size() * sizeof(int64_t) +
                             (m.prob.size() + m.fee.size() + m.latency.size() + m.rationale_ok.size()) *
                                 sizeof(double));
}

void check_analysis_fits(const std::string& analysis, double matrix_bytes, double plan_bytes,
                         const std::string& plan_shape, const MemoryBudget& budget) {
  const bool caps_process = budget.source == "JUDGESTAT_MEMORY_LIMIT" || budget.source == "80% of physical memory";
  const double needed = plan_bytes + (caps_process ? matrix_bytes : 0.0);
  if (budget.bytes <= 0 || needed <= budget.bytes) return;
  throw InputError(analysis + ": the plan needs about " + gigabytes(plan_bytes) + " (" + plan_shape + ")" +
                   (caps_process ? " on top of the item matrix's " + gigabytes(matrix_bytes) : std::string()) +
                   " but " + gigabytes(budget.bytes) + " is available (" + budget.source +
                   "); select fewer judges or benchmarks (--judges, --benchmarks), leave out --by, or free memory");
}

}  // namespace judgestat::loading
