// croqjit.Error and its subclasses, raised for the library's croq::Error
// exceptions: CompileError carries the diagnostics (line, column, message,
// hint; str() renders the caret), CudaError the driver call and its code.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

namespace croqpy {

namespace nb = nanobind;

// Adds Error, CompileError, ArgumentError, CudaError, CacheError and
// Diagnostic to `m` and translates croq exceptions into them.
void register_errors(nb::module_& m);

}  // namespace croqpy
