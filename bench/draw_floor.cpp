// The floor under docs/statistics.md §2's stream on this CPU: only the draws of an unclustered
// bootstrap (Philox words, scaled to n, counted into a multiplicity histogram: the step no
// design that honours the stream skips), n items × B replicates on T threads, nothing else.
// Built and run by bench/draw_floor.sh; not part of the project's build.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "engine/philox_simd.hpp"

using namespace judgestat;

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? static_cast<uint32_t>(std::atol(argv[1])) : 20000;
  const uint32_t B = argc > 2 ? static_cast<uint32_t>(std::atol(argv[2])) : 10000;
  const int threads = argc > 3 ? std::atoi(argv[3]) : static_cast<int>(std::thread::hardware_concurrency());
  if (n < 64 || !philox_avx2_supported()) {
    std::fprintf(stderr, "draw_floor: needs n ≥ 64 and an AVX2 CPU\n");
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      std::vector<int16_t> counts(n);
      for (uint32_t r = static_cast<uint32_t>(t); r < B; r += static_cast<uint32_t>(threads))
        count_draw_groups(PhiloxKey(1), 0, n / 64, r, bootstrap_stream(0), n, counts.data());
    });
  for (std::thread& thread : pool) thread.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double draws = double(n / 64 * 64) * B;
  std::printf("{\"items\": %u, \"replicates\": %u, \"threads\": %d, \"seconds\": %.4f, \"draws_per_s\": %.4g}\n", n, B,
              threads, seconds, draws / seconds);
  return 0;
}
