// The build's paths for tests/test_support.hpp (CMakeLists.txt defines them for this file only).
namespace judgestat::testing_support {
extern const char* const kBuiltInSourceDir = JUDGESTAT_SOURCE_DIR;
extern const char* const kBuiltInBinary = JUDGESTAT_BINARY;
}  // namespace judgestat::testing_support
