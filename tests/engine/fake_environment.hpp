// A getenv-like lookup over a fixed set of variables, for cuda_tuning_from
// (include/judgestat/exec_target.hpp) without touching the process environment.
#pragma once
#include <map>
#include <string>
#include <utility>

#include "judgestat/exec_target.hpp"

namespace judgestat::testing_support {

/// The lookup holds its own copy of `variables`; names not in it are unset.
inline EnvironmentLookup fake_environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

}  // namespace judgestat::testing_support
