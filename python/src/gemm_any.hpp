// croqjit.gemm's native half: the GEMM for every shape's Croqtile text and
// its configuration model, from samples/gemm_any_source.hpp (the one source
// the C++ sample, the tests and the benchmark harness use too).
#pragma once

#include <nanobind/nanobind.h>

namespace croqpy {

namespace nb = nanobind;

void bind_gemm_any(nb::module_& m);

}  // namespace croqpy
