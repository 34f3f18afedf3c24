// What the budget tests share: an independent Philox4x32-10 to check the engine's draws against.
#pragma once
#include <array>
#include <cstdint>

namespace judgestat::testing_support {

// Philox4x32-10 written out from Salmon et al. (2011) with 64-bit products, independent of
// include/judgestat/philox.hpp.
inline std::array<uint32_t, 4> independent_philox(std::array<uint32_t, 4> c, uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

}  // namespace judgestat::testing_support
