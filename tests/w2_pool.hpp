// The W2 pool of tests/data/w2_pool.csv (strata = benchmark) as a CascadePool, for the budget
// engines' CUDA = CPU tests (tests/kernels/ and tests/cuda_cpu/).
#pragma once
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/cascade/cascade_pool.hpp"
#include "test_support.hpp"

namespace judgestat::testing_support {

inline CascadePool w2_pool() {
  const std::string path = testing_support::kRoot + "/tests/data/w2_pool.csv";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::getline(in, line);
  CascadePool pool;
  pool.first = "F";
  pool.fallback = "S";
  pool.strata_key = "benchmark";
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::vector<std::string> f(8);
    for (std::string& field : f) std::getline(fields, field, ',');
    int32_t stratum = 0;
    while (stratum < pool.n_strata() && pool.strata_names[stratum] != f[1]) ++stratum;
    if (stratum == pool.n_strata()) pool.strata_names.push_back(f[1]);
    pool.item.push_back(static_cast<int32_t>(pool.item.size()));
    pool.c1.push_back(std::stod(f[2]));
    pool.c2.push_back(std::stod(f[3]));
    pool.q.push_back(std::stod(f[4]));
    pool.gate_ok.push_back(f[5] == "1" ? 1 : 0);
    pool.fee_first.push_back(std::stod(f[6]));
    pool.fee_fallback.push_back(std::stod(f[7]));
    pool.latency_first.push_back(0.1);
    pool.latency_fallback.push_back(1.0);
    pool.stratum.push_back(stratum);
  }
  return pool;
}

}  // namespace judgestat::testing_support
