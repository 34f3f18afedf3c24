// The rank-term statistics of the CUDA = CPU plan builders (tests/kernels/test_cuda_backend.cpp
// and tests/cuda_cpu/cuda_cpu_support.hpp): AUROC of the errors over every unit on a coarse score
// grid (ties), and 2U over every other unit with distinct scores.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "judgestat/plan.hpp"

namespace judgestat::testing_support {

/// Adds the "wrong" column and the statistics auroc_err and twice_u_every_other to `plan`,
/// drawing the scores from `rng` and `uniform` (the builders' own streams, in their order).
inline void add_rank_term_statistics(Plan& plan, int32_t correct, int64_t n_units, std::mt19937_64& rng,
                                     std::uniform_real_distribution<double>& uniform) {
  auto statistic = [](const std::string& name, std::vector<Op> program) {
    StatisticDef def;
    def.label.name = name;
    def.program = std::move(program);
    return def;
  };
  const int32_t wrong = plan.add_column("wrong");
  std::vector<int32_t> every_unit, every_other_unit;
  std::vector<double> grid_scores, distinct_scores;
  std::vector<uint8_t> every_error, every_other_error;
  for (int64_t u = 0; u < n_units; ++u) {
    const bool error = plan.columns[correct][u] == 0.0;
    plan.columns[wrong][u] = error ? 1.0 : 0.0;
    every_unit.push_back(static_cast<int32_t>(u));
    grid_scores.push_back(static_cast<double>(rng() % 8) / 8.0);
    every_error.push_back(error ? 1 : 0);
    if (u % 2 == 0) {
      every_other_unit.push_back(static_cast<int32_t>(u));
      distinct_scores.push_back(uniform(rng));
      every_other_error.push_back(error ? 1 : 0);
    }
  }
  const int32_t coarse = plan.add_rank_term(every_unit, grid_scores, every_error);
  const int32_t fine = plan.add_rank_term(every_other_unit, distinct_scores, every_other_error);
  // AUROC = 2U / (2 * errors * corrects); NaN when a replicate lacks either.
  plan.statistics.push_back(statistic("auroc_err", {{OpCode::kRank, coarse},
                                                    {OpCode::kColumn, wrong},
                                                    {OpCode::kColumn, correct},
                                                    {OpCode::kMul},
                                                    {OpCode::kConstant, 0, 2.0},
                                                    {OpCode::kMul},
                                                    {OpCode::kDiv}}));
  plan.statistics.push_back(statistic("twice_u_every_other", {{OpCode::kRank, fine}}));
}

}  // namespace judgestat::testing_support
