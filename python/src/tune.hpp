// croqjit.tune (through croqjit._croqjit._tune): croq::tune on Python
// arguments, with a Python checker and progress callback, and
// croqjit.cross_product, TuneResult, TuneTrial and TuneError.
#pragma once

#include <nanobind/nanobind.h>

namespace croqpy {

namespace nb = nanobind;

void bind_tune(nb::module_& m);

}  // namespace croqpy
