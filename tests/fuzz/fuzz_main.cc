// libFuzzer entry for one target of fuzz_targets.hpp, chosen at build time (CMake's
// JUDGESTAT_FUZZ=ON builds fuzz_<name> for each; scripts/ci-sanitizers.sh runs them).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  judgestat::fuzz::JUDGESTAT_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
