// The CUDA dispatch's switches in the execution target (include/judgestat/exec_target.hpp):
// cuda_tuning_from reads each variable as the dispatch used to, and a target reads the process
// environment once, when it is built. tests/cuda_cpu/ checks that each switch reaches the kernel
// the dispatch launches.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "engine/fake_environment.hpp"
#include "judgestat/backend.hpp"
#include "judgestat/exec_target.hpp"

namespace judgestat {
namespace {

using testing_support::fake_environment;

CudaTuning tuning_of(std::map<std::string, std::string> variables) {
  return cuda_tuning_from(fake_environment(std::move(variables)));
}

TEST(CudaTuning, AnEmptyEnvironmentGivesTheCheckedKernels) {
  const CudaTuning tuning = tuning_of({});
  EXPECT_FALSE(tuning.tile_prefetch);
  EXPECT_FALSE(tuning.tile_shared_program);
  EXPECT_FALSE(tuning.gather_rows);
  EXPECT_FALSE(tuning.summary_reuse);
  EXPECT_TRUE(tuning.device_summaries);
  EXPECT_EQ(tuning.budget_kernel, 1);
  EXPECT_EQ(tuning.bootstrap_error, "");
  EXPECT_EQ(tuning.budget_error, "");
}

TEST(CudaTuning, EachBootstrapSwitchSetsItsOwnFieldOnly) {
  const char* names[] = {"JUDGESTAT_TILE_PREFETCH", "JUDGESTAT_TILE_SHARED_PROGRAM", "JUDGESTAT_GATHER_ROWS",
                         "JUDGESTAT_SUMMARY_REUSE"};
  for (int on = 0; on < 4; ++on) {
    SCOPED_TRACE(names[on]);
    const CudaTuning tuning = tuning_of({{names[on], "1"}});
    const bool fields[] = {tuning.tile_prefetch, tuning.tile_shared_program, tuning.gather_rows, tuning.summary_reuse};
    for (int f = 0; f < 4; ++f) EXPECT_EQ(fields[f], f == on) << names[f];
    EXPECT_EQ(tuning.bootstrap_error, "");
    // 0 and an empty value are off, as unset.
    for (const char* off : {"0", ""}) {
      const CudaTuning off_tuning = tuning_of({{names[on], off}});
      const bool off_fields[] = {off_tuning.tile_prefetch, off_tuning.tile_shared_program, off_tuning.gather_rows,
                                 off_tuning.summary_reuse};
      EXPECT_FALSE(off_fields[on]) << "'" << off << "'";
      EXPECT_EQ(off_tuning.bootstrap_error, "");
    }
  }
}

TEST(CudaTuning, AMistypedSwitchIsKeptAsAnErrorNamingIt) {
  const CudaTuning tuning = tuning_of({{"JUDGESTAT_TILE_PREFETCH", "yes"}, {"JUDGESTAT_GATHER_ROWS", "1"}});
  EXPECT_EQ(tuning.bootstrap_error, "JUDGESTAT_TILE_PREFETCH: expected 0 or 1, got 'yes'");
  EXPECT_FALSE(tuning.tile_prefetch);
  EXPECT_TRUE(tuning.gather_rows);  // the others are still read
  EXPECT_EQ(tuning.budget_error, "");
  // Two mistakes: the first in reading order is the one reported.
  EXPECT_EQ(tuning_of({{"JUDGESTAT_SUMMARY_REUSE", "2"}, {"JUDGESTAT_TILE_SHARED_PROGRAM", "on"}}).bootstrap_error,
            "JUDGESTAT_TILE_SHARED_PROGRAM: expected 0 or 1, got 'on'");
}

TEST(CudaTuning, BudgetKernelTakesOneOrTwo) {
  EXPECT_EQ(tuning_of({{"JUDGESTAT_BUDGET_KERNEL", "2"}}).budget_kernel, 2);
  EXPECT_EQ(tuning_of({{"JUDGESTAT_BUDGET_KERNEL", "1"}}).budget_kernel, 1);
  EXPECT_EQ(tuning_of({{"JUDGESTAT_BUDGET_KERNEL", ""}}).budget_kernel, 1);
  const CudaTuning bad = tuning_of({{"JUDGESTAT_BUDGET_KERNEL", "3"}});
  EXPECT_EQ(bad.budget_kernel, 1);
  EXPECT_EQ(bad.budget_error, "JUDGESTAT_BUDGET_KERNEL: expected 1 or 2, got '3'");
  EXPECT_EQ(bad.bootstrap_error, "");  // a CUDA backend is still made; only a budget engine refuses
}

TEST(CudaTuning, OnlyZeroTurnsDeviceSummariesOff) {
  EXPECT_FALSE(tuning_of({{"JUDGESTAT_DEVICE_SUMMARIES", "0"}}).device_summaries);
  for (const char* value : {"1", "", "no"})
    EXPECT_TRUE(tuning_of({{"JUDGESTAT_DEVICE_SUMMARIES", value}}).device_summaries) << "'" << value << "'";
}

/// Sets a variable for the scope of a test.
struct ScopedVariable {
  ScopedVariable(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedVariable() { ::unsetenv(name_); }
  const char* name_;
};

TEST(CudaTuning, ATargetReadsTheEnvironmentWhenItIsBuilt) {
  ::unsetenv("JUDGESTAT_GATHER_ROWS");
  ::unsetenv("JUDGESTAT_BUDGET_KERNEL");
  ExecTarget before;
  ExecTarget with_rows;
  {
    ScopedVariable rows("JUDGESTAT_GATHER_ROWS", "1");
    ScopedVariable variant("JUDGESTAT_BUDGET_KERNEL", "2");
    with_rows = ExecTarget{ExecTarget::Kind::kCpu, {}, 1, 0};
    EXPECT_FALSE(before.cuda_tuning.gather_rows);  // built earlier: not read again
  }
  EXPECT_TRUE(with_rows.cuda_tuning.gather_rows);  // kept after the variable is gone
  EXPECT_EQ(with_rows.cuda_tuning.budget_kernel, 2);
  const ExecTarget copy = with_rows;
  EXPECT_TRUE(copy.cuda_tuning.gather_rows);
  EXPECT_FALSE(ExecTarget{}.cuda_tuning.gather_rows);
}

// The CUDA switches are the CUDA engines' business: a mistyped one does not refuse a CPU run.
TEST(CudaTuning, AMistypedSwitchDoesNotRefuseTheCpu) {
  ScopedVariable typo("JUDGESTAT_TILE_PREFETCH", "yes");
  const ExecTarget target{ExecTarget::Kind::kCpu, {}, 1, 0};
  EXPECT_EQ(target.cuda_tuning.bootstrap_error, "JUDGESTAT_TILE_PREFETCH: expected 0 or 1, got 'yes'");
  EXPECT_EQ(make_backend(target)->name(), "cpu");
}

}  // namespace
}  // namespace judgestat
