// croqjit.KernelInfo and KernelImageInfo (Kernel.info), and the dtype table:
// croqjit.dtypes and the torch / NumPy dtype of each croq dtype.
#pragma once

#include <nanobind/nanobind.h>

namespace croqpy {

namespace nb = nanobind;

void bind_info(nb::module_& m);

}  // namespace croqpy
