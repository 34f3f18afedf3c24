// The profile report's writers (to_json, tables, plots; declared in judgestat/profile.hpp) and
// the input object of a several-file profile.
#pragma once
#include "judgestat/profile.hpp"
