// SIMD path selection (the test setter, JUDGESTAT_SIMD) and column_dots on every path.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/philox_simd.hpp"
#include "judgestat/philox.hpp"
#include "simd_paths.hpp"
#include "test_support.hpp"

using namespace judgestat;
using testing_support::available_paths;
using testing_support::SimdPathRestorer;

TEST(Simd, TestSetterClampsToTheCpu) {
  const SimdPathRestorer restore;
  for (SimdPath p : {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512, SimdPath::avx512_vnni}) {
    set_simd_path_for_testing(p);
    EXPECT_EQ(static_cast<int>(simd_path()), std::min(static_cast<int>(p), static_cast<int>(simd_best_supported())));
  }
  EXPECT_STREQ(simd_path_name(SimdPath::scalar), "scalar");
  EXPECT_STREQ(simd_path_name(SimdPath::avx512_vnni), "avx512_vnni");
  EXPECT_EQ(philox_avx2_supported(), simd_best_supported() >= SimdPath::avx2);
  EXPECT_EQ(philox_avx512_supported(), simd_best_supported() >= SimdPath::avx512);
}

TEST(ColumnDots, EveryPathEqualsTheExactSum) {
  // Data within column_dots' contract: Σ_c |m_c| ≤ 65535 (as for counts of at most 65535
  // draws), so every partial sum of |m_c·t_c| < 2^31. Cases: draw counts against full-range
  // digits; ±32767/-32768 multiplicities against extreme digits; a pair of (-32768)·(-32768)
  // products, 2^31, which wraps inside one madd/dpwssd lane while the total 2^31 - 1 fits;
  // small signed multiplicities everywhere. Strides: multiples of 32 (the CPU backend's) and
  // odd multiples of 16 (the AVX-512 loop's masked tail).
  const SimdPathRestorer restore;
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int> any16(-32768, 32767);
  for (int64_t stride : {32, 48, 64, 96, 160, 1024, 1040, 4096, 4112}) {
    for (int32_t columns : {1, 3, 4, 5, 9, 25}) {
      for (int mode = 0; mode < 4; ++mode) {
        std::vector<int16_t> m(stride, 0), t(stride * columns);
        for (auto& v : t) v = static_cast<int16_t>(any16(rng));
        const int64_t used = stride - 7;  // the last clusters are padding
        if (mode == 0) {
          for (int64_t d = 0; d < used; ++d) ++m[rng() % used];
          for (int32_t k = 0; k < columns; ++k) {
            t[k * stride + rng() % used] = -32768;
            t[k * stride + rng() % used] = 32767;
          }
        } else if (mode == 1) {
          const int64_t i = rng() % used, j = (i + 1 + rng() % (used - 1)) % used;
          m[i] = 32767;
          m[j] = -32768;
          for (int32_t k = 0; k < columns; ++k) {
            t[k * stride + i] = (k & 1) ? -32768 : 32767;
            t[k * stride + j] = (k & 2) ? -32768 : 32767;
          }
        } else if (mode == 2) {
          const int64_t p = 2 + 2 * static_cast<int64_t>(rng() % ((used - 3) / 2));  // even, ≥ 2
          m[0] = 1;
          m[p] = m[p + 1] = -32768;
          for (int32_t k = 0; k < columns; ++k) {
            t[k * stride] = -1;
            if (k % 2 == 0) t[k * stride + p] = t[k * stride + p + 1] = -32768;
          }
        } else {
          for (int64_t c = 0; c < used; ++c) m[c] = static_cast<int16_t>(int(rng() % 17) - 8);
        }
        for (int64_t c = used; c < stride; ++c) m[c] = 0;
        std::vector<int32_t> want(columns);
        for (int32_t k = 0; k < columns; ++k) {
          int64_t sum = 0;
          for (int64_t c = 0; c < stride; ++c) sum += int64_t(m[c]) * t[k * stride + c];
          ASSERT_GE(sum, INT32_MIN);
          ASSERT_LE(sum, INT32_MAX);
          want[k] = static_cast<int32_t>(sum);
        }
        if (mode == 2) {
          EXPECT_EQ(want[0], INT32_MAX);
        }
        for (SimdPath path : available_paths()) {
          set_simd_path_for_testing(path);
          std::vector<int32_t> got(columns, 12345);
          column_dots(m.data(), t.data(), stride, columns, got.data());
          EXPECT_EQ(got, want) << simd_path_name(path) << " stride " << stride << " columns " << columns << " mode "
                               << mode;
        }
      }
    }
  }
}

TEST(ColumnDots, BatchEqualsSingleCallsOnEveryPath) {
  // The CPU backend's batches of 1–4 replicates: draw-count multiplicities against full-range
  // digits; strides of one vector pair up to W1's 5,000 clusters padded (5,024); column counts
  // with and without a remainder after the passes of 8 / n columns; totals against int64 sums.
  const SimdPathRestorer restore;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> any16(-32768, 32767);
  for (int64_t stride : {32, 1024, 1040, 5024})
    for (int32_t columns : {1, 3, 4, 7, 25}) {
      std::vector<std::vector<int16_t>> m(4, std::vector<int16_t>(stride, 0));
      for (auto& counts : m)
        for (int64_t d = 0; d < stride; ++d) ++counts[rng() % stride];
      std::vector<int16_t> t(stride * columns);
      for (auto& v : t) v = static_cast<int16_t>(any16(rng));
      std::vector<std::vector<int32_t>> exact(4, std::vector<int32_t>(columns));
      for (int j = 0; j < 4; ++j)
        for (int32_t k = 0; k < columns; ++k) {
          int64_t sum = 0;
          for (int64_t c = 0; c < stride; ++c) sum += int64_t(m[j][c]) * t[k * stride + c];
          exact[j][k] = static_cast<int32_t>(sum);
        }
      for (SimdPath path : available_paths()) {
        set_simd_path_for_testing(path);
        for (int n = 1; n <= 4; ++n) {
          std::vector<std::vector<int32_t>> got(n, std::vector<int32_t>(columns, 12345));
          const int16_t* mp[4];
          int32_t* sp[4];
          for (int j = 0; j < n; ++j) mp[j] = m[j].data(), sp[j] = got[j].data();
          column_dots_batch(mp, n, t.data(), stride, columns, sp);
          for (int j = 0; j < n; ++j)
            EXPECT_EQ(got[j], exact[j]) << simd_path_name(path) << " n " << n << " replicate " << j << " stride "
                                        << stride << " columns " << columns;
        }
      }
    }
}

TEST(SumWhereBitsSet, EveryPathEqualsTheMaskedSum) {
  // Random sign words and differences in ±2^18 (Σ|d| < 2^31, the precondition), lengths of 8 to
  // 4,096 values; the words cover exactly the values (n / 32 rounded up).
  const SimdPathRestorer restore;
  std::mt19937 rng(11);
  for (int64_t n : {8, 16, 40, 128, 1000, 4096}) {
    std::vector<uint32_t> words((n + 31) / 32);
    for (auto& w : words) w = rng();
    std::vector<int32_t> d(n);
    for (auto& v : d) v = static_cast<int32_t>(rng() % (1u << 19)) - (1 << 18);
    int64_t want = 0;
    for (int64_t c = 0; c < n; ++c)
      if (words[c / 32] & (1u << (c % 32))) want += d[c];
    for (SimdPath path : available_paths()) {
      set_simd_path_for_testing(path);
      EXPECT_EQ(sum_where_bits_set(words.data(), d.data(), n), want) << simd_path_name(path) << " n " << n;
    }
  }
}

TEST(Simd, EnvironmentVariableSelectsThePath) {
  // JUDGESTAT_SIMD is read once per process: run the CLI's W1 bench under each setting and
  // compare the per-statistic estimates and intervals; an unknown value is reported and ignored.
  const auto results = [](const char* value) {
    if (value)
      setenv("JUDGESTAT_SIMD", value, 1);
    else
      unsetenv("JUDGESTAT_SIMD");
    const auto run = testing_support::run_cli(
        "bench w1 --items 3000 --clusters 2500 --judges 3 --replicates 2000 --threads 2 "
        "--warmup 0 --repeats 1 --format json --results");
    unsetenv("JUDGESTAT_SIMD");
    EXPECT_EQ(run.status, 0) << run.out;
    return run.out;
  };
  const char* saved = std::getenv("JUDGESTAT_SIMD");
  const std::string saved_value = saved ? saved : "";
  const auto parse = [](const std::string& out) { return nlohmann::json::parse(out.substr(out.find('{')))["results"]; };
  const auto reference = parse(results("scalar"));
  ASSERT_FALSE(reference.empty());
  for (const char* value : {"avx2", "avx512", "avx512_vnni", "auto"})
    EXPECT_EQ(parse(results(value)), reference) << "JUDGESTAT_SIMD=" << value;
  const std::string bogus = results("sse9");
  EXPECT_NE(bogus.find("JUDGESTAT_SIMD=sse9 is not one of"), std::string::npos) << bogus;
  EXPECT_EQ(parse(bogus), reference);
  setenv("JUDGESTAT_SIMD", "scalar", 1);
  const auto version = testing_support::run_cli("--version");
  unsetenv("JUDGESTAT_SIMD");
  EXPECT_NE(version.out.find("cpu simd: scalar"), std::string::npos) << version.out;
  if (saved) setenv("JUDGESTAT_SIMD", saved_value.c_str(), 1);
}
