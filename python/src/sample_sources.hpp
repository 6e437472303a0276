// The Croqtile text of the samples' generated kernels that the package runs
// (croqjit.attention), from the generators the C++ samples use, so Python
// and C++ run one source.
#pragma once

#include <nanobind/nanobind.h>

namespace croqpy {

namespace nb = nanobind;

void bind_sample_sources(nb::module_& m);

}  // namespace croqpy
