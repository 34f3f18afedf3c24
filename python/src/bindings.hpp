// The pieces of the _judgestat module, each binding its part.
#pragma once
#include <pybind11/pybind11.h>

namespace judgestat::python {

/// run_analysis and check_analysis (python/src/analyses.cpp).
void bind_analyses(pybind11::module_& m);

}  // namespace judgestat::python
