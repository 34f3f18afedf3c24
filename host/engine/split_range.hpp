// The one range arithmetic for splitting work between parts (devices, threads): part p of n
// takes [count·p/n, count·(p + 1)/n), contiguous and in order, the sizes differing by at most one.
#pragma once
#include <cstdint>

namespace judgestat {

struct SplitRange {
  uint64_t begin = 0, end = 0;
  uint64_t size() const { return end - begin; }
  bool empty() const { return begin == end; }
};

/// Part `part` of `parts` of [0, count). parts > 0.
SplitRange split_range(uint64_t count, uint64_t part, uint64_t parts);

}  // namespace judgestat
