// Philox known answers (Random123 / SPEC §2), the stream layout, quantiles, normal quantiles,
// the JSON writer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "judgestat/bootstrap.hpp"
#include "judgestat/philox.hpp"
#include "report/report.hpp"

using namespace judgestat;

TEST(Philox, Random123KnownAnswerZero) {
  const Words4 w = philox4x32_10(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(w.w[0], 0x6627e8d5u);
  EXPECT_EQ(w.w[1], 0xe169c58du);
  EXPECT_EQ(w.w[2], 0xbc57ac4cu);
  EXPECT_EQ(w.w[3], 0x9b00dbd8u);
}

TEST(Philox, Random123KnownAnswerPi) {
  const Words4 w = philox4x32_10(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
                                 0x299f31d0);
  EXPECT_EQ(w.w[0], 0xd16cfe09u);
  EXPECT_EQ(w.w[1], 0x94fdccebu);
  EXPECT_EQ(w.w[2], 0x5001e420u);
  EXPECT_EQ(w.w[3], 0x24126ea1u);
}

TEST(Philox, StreamLayoutFollowsSpec) {
  // Draw d of (replicate r, stream s) is word d mod 4 of counter (d div 4, r, s, 0); the key is
  // (seed mod 2^32, seed div 2^32).
  const uint64_t seed = 0x0000000500000007ull;
  const PhiloxKey key(seed);
  EXPECT_EQ(key.k0, 7u);
  EXPECT_EQ(key.k1, 5u);
  for (uint64_t d : {0ull, 3ull, 4ull, 13ull}) {
    const Words4 expected = philox4x32_10(static_cast<uint32_t>(d / 4), 9, 2, 0, 7, 5);
    EXPECT_EQ(draw_word(key, d, 9, 2), expected.w[d % 4]);
  }
  EXPECT_EQ(scale_to(0xFFFFFFFFu, 10), 9u);
  EXPECT_EQ(scale_to(0x80000000u, 10), 5u);
  EXPECT_EQ(scale_to(0, 10), 0u);
  EXPECT_EQ(normal_stream(3), 0x80000003u);
  EXPECT_EQ(kBudgetStream, 0x40000000u);
}

TEST(Intervals, QuantileType7MatchesNumpy) {
  // numpy.percentile([1, 2, 4, 8, 16], [2.5, 50, 97.5]) = [1.1, 4.0, 15.2]
  const std::vector<double> sorted{1, 2, 4, 8, 16};
  EXPECT_NEAR(quantile_type7(sorted, 0.025), 1.1, 1e-15);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 0.5), 4.0);
  EXPECT_NEAR(quantile_type7(sorted, 0.975), 15.2, 1e-14);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 1.0), 16.0);
}

TEST(Intervals, NormalQuantileAgreesWithScipy) {
  // scipy.special.ndtri(0.975) = 1.959963984540054, ndtri(0.001) = -3.090232306167813
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_cdf(normal_quantile(0.3)), 0.3, 1e-15);
}

#include "engine/philox_simd.hpp"

TEST(Philox, EightWideBlocksEqualScalar) {
  if (!philox_avx2_supported()) GTEST_SKIP() << "this CPU has no AVX2; the scalar path is used";
  const PhiloxKey key(0xDEADBEEF12345678ull);
  uint32_t words[32];
  for (uint32_t first : {0u, 8u, 1000u, 0xFFFFFFF8u}) {
    philox_blocks8(key, first, 77, 5, words);
    for (uint32_t b = 0; b < 8; ++b)
      for (int t = 0; t < 4; ++t) EXPECT_EQ(words[4 * b + t], draw_block(key, first + b, 77, 5).w[t]);
  }
}

// ---- AVX-512 paths: every SIMD path gives the scalar path's bits. ----

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "judgestat/backend.hpp"
#include "judgestat/plan.hpp"
#include "test_plans.hpp"
#include "test_support.hpp"

namespace {

// The paths this CPU can run, scalar first.
std::vector<SimdPath> available_paths() {
  std::vector<SimdPath> paths;
  for (int p = 0; p <= static_cast<int>(simd_best_supported()); ++p)
    paths.push_back(static_cast<SimdPath>(p));
  return paths;
}

// Restores the process's SIMD path when a test that switches it ends.
struct SimdPathRestorer {
  SimdPath saved = simd_path();
  ~SimdPathRestorer() { set_simd_path_for_testing(saved); }
};

}  // namespace

TEST(Philox, SixteenWideBlocksEqualScalar) {
  if (!philox_avx512_supported()) GTEST_SKIP() << "this CPU has no AVX-512; philox_blocks16 is not used";
  uint32_t words[64];
  for (uint64_t seed : {0ull, 0xDEADBEEF12345678ull, 0xFFFFFFFFFFFFFFFFull})
    for (uint32_t replicate : {0u, 77u, 0xFFFFFFFFu})
      for (uint32_t stream : {0u, 5u, kBudgetStream, normal_stream(3)})
        for (uint32_t first : {0u, 16u, 1000u, 0xFFFFFFF0u, 0xFFFFFFF8u}) {  // last two wrap
          const PhiloxKey key(seed);
          philox_blocks16(key, first, replicate, stream, words);
          for (uint32_t b = 0; b < 16; ++b) {
            const Words4 want = draw_block(key, first + b, replicate, stream);
            for (int t = 0; t < 4; ++t)
              ASSERT_EQ(words[4 * b + t], want.w[t]) << "seed " << seed << " r " << replicate
                                                     << " s " << stream << " first " << first
                                                     << " block " << b << " word " << t;
          }
        }
}

TEST(Simd, TestSetterClampsToTheCpu) {
  const SimdPathRestorer restore;
  for (SimdPath p : {SimdPath::scalar, SimdPath::avx2, SimdPath::avx512, SimdPath::avx512_vnni}) {
    set_simd_path_for_testing(p);
    EXPECT_EQ(static_cast<int>(simd_path()),
              std::min(static_cast<int>(p), static_cast<int>(simd_best_supported())));
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
          EXPECT_EQ(got, want) << simd_path_name(path) << " stride " << stride << " columns "
                               << columns << " mode " << mode;
        }
      }
    }
  }
}

namespace {

// W1's shape (items in clusters; per judge accuracy, pass average, both-correct; their ratios
// to the item count) over the given strata, optionally with a large real column (several int16
// planes per cluster sum) and a rank term (AUROC-like).
Plan w1_like_plan(const std::vector<int64_t>& stratum_sizes, int64_t items, int judges,
                  bool big_column, bool rank_term) {
  std::mt19937_64 rng(11);
  Plan plan = testing_support::plan_with_strata(stratum_sizes);
  const int64_t C = plan.stratum_offset.back();
  for (int64_t i = 0; i < items; ++i)
    plan.unit_cluster.push_back(static_cast<int32_t>(i < C ? i : int64_t(rng() % C)));
  const int32_t ones = plan.add_column("items");
  std::fill(plan.columns[ones].begin(), plan.columns[ones].end(), 1.0);
  for (int j = 0; j < judges; ++j) {
    const int32_t acc = plan.add_column("acc"), pa = plan.add_column("pa"),
                  bc = plan.add_column("bc");
    for (int64_t i = 0; i < items; ++i) {
      const int a = rng() % 4 != 0, b = rng() % 3 != 0;
      plan.columns[acc][i] = a;
      plan.columns[pa][i] = (a + b) / 2.0;
      plan.columns[bc][i] = a && b;
    }
    for (int32_t column : {acc, pa, bc}) plan.statistics.push_back({{"stat"}, ratio_program(column, ones)});
  }
  if (big_column) {
    const int32_t big = plan.add_column("big");
    for (int64_t i = 0; i < items; ++i)
      plan.columns[big][i] = static_cast<double>(int64_t(rng() % 2000001) - 1000000) / 8.0;
    plan.statistics.push_back({{"big"}, ratio_program(big, ones)});
  }
  if (rank_term) {
    std::vector<int32_t> units;
    std::vector<double> scores;
    std::vector<uint8_t> positive;
    for (int64_t i = 0; i < items; ++i) {
      units.push_back(static_cast<int32_t>(i));
      scores.push_back(static_cast<double>(rng() % 50));
      positive.push_back(plan.columns[1][i] != 0);
    }
    const int32_t term = plan.add_rank_term(units, scores, positive);
    plan.statistics.push_back({{"rank"}, {{OpCode::kRank, term}, {OpCode::kConstant, 0, 1e-6}, {OpCode::kMul}}});
  }
  return plan;
}

}  // namespace

TEST(CpuBackend, ReplicatesBitIdenticalOnEverySimdPath) {
  // Each plan takes a different branch of the CPU backend: int32 sums with one int16 plane per
  // column (W1); several planes recombined in int64; a stratum over 32767 clusters (gather
  // path, the rank term's draws counted in int32). Strata of 37 and 4963 clusters exercise the
  // 16-wide, 8-wide and one-block loops of count_draws.
  const SimdPathRestorer restore;
  struct Case {
    const char* name;
    Plan plan;
    uint64_t replicates;
  };
  const Case cases[] = {
      {"w1", w1_like_plan({37, 4963}, 6000, 4, false, false), 400},
      {"planes", w1_like_plan({70, 1111}, 1500, 2, true, true), 400},
      {"gather", w1_like_plan({33000, 45}, 33100, 1, false, true), 40},
  };
  for (const Case& c : cases) {
    const CompiledPlan compiled = compile(c.plan);
    const size_t n = c.replicates * compiled.n_statistics;
    std::vector<double> reference;
    for (SimdPath path : available_paths()) {
      set_simd_path_for_testing(path);
      std::vector<double> out(n, -1.0);
      make_cpu_backend(2)->run_replicates(compiled, 0x0123456789ABCDEFull, 1000, c.replicates, out.data());
      if (path == SimdPath::scalar) {
        reference = out;
        continue;
      }
      EXPECT_EQ(0, std::memcmp(out.data(), reference.data(), n * sizeof(double)))
          << c.name << ": " << simd_path_name(path) << " differs from scalar";
    }
  }
}

TEST(Simd, EnvironmentVariableSelectsThePath) {
  // JUDGESTAT_SIMD is read once per process: run the CLI's W1 bench under each setting and
  // compare the per-statistic estimates and intervals; an unknown value is reported and ignored.
  const auto results = [](const char* value) {
    if (value) setenv("JUDGESTAT_SIMD", value, 1);
    else unsetenv("JUDGESTAT_SIMD");
    const auto run = testing_support::run_cli(
        "bench w1 --items 3000 --clusters 2500 --judges 3 --replicates 2000 --threads 2 "
        "--warmup 0 --repeats 1 --format json --results");
    unsetenv("JUDGESTAT_SIMD");
    EXPECT_EQ(run.status, 0) << run.out;
    return run.out;
  };
  const char* saved = std::getenv("JUDGESTAT_SIMD");
  const std::string saved_value = saved ? saved : "";
  const auto parse = [](const std::string& out) {
    return nlohmann::json::parse(out.substr(out.find('{')))["results"];
  };
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

// SPEC §4's JSON writer: numbers as printf's %.17g (non-finite as null), strings as nlohmann
// writes them (escapes, UTF-8, invalid bytes replaced), short scalar arrays on one line.
TEST(ReportJson, NumbersStringsAndLayout) {
  std::mt19937_64 bits(5);
  for (int i = 0; i < 20000; ++i) {
    uint64_t word = bits();
    double v;
    std::memcpy(&v, &word, sizeof v);
    if (i % 2) v = static_cast<double>(word % 100000) / 10000.0;  // like a rounded probability
    char expected[40];
    std::snprintf(expected, sizeof expected, "%.17g", v);
    EXPECT_EQ(dump_json(Json(v)), std::isfinite(v) ? std::string(expected) : std::string("null")) << expected;
  }
  for (const std::string text : {"judge0", "", "say \"A\"", "back\\slash", "line\nbreak", "tab\there",
                                 "caf\xc3\xa9", "bad \xff byte", "del\x7f", "ctl\x01"})
    EXPECT_EQ(dump_json(Json(text)),
              Json(text).dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace))
        << text;
  Json doc;
  doc["ci"] = {0.25, 0.5};
  doc["rows"] = Json::array({Json{{"q", 1.0}, {"s", "x"}}, 2});
  doc["empty"] = Json::object();
  doc["none"] = Json::array();
  EXPECT_EQ(dump_json(doc, 2),
            "{\n  \"ci\": [0.25, 0.5],\n  \"rows\": [\n    {\n      \"q\": 1,\n      \"s\": \"x\"\n    },\n"
            "    2\n  ],\n  \"empty\": {},\n  \"none\": []\n}");
  EXPECT_EQ(dump_json(doc), "{\"ci\":[0.25,0.5],\"rows\":[{\"q\":1,\"s\":\"x\"},2],\"empty\":{},\"none\":[]}");
}
