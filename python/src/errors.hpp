// croqjit.Error and its subclasses, raised for the library's croq::Error
// exceptions: CompileError carries the diagnostics (line, column, message,
// hint; str() renders the caret), CudaError the driver call and its code.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>
#include <string_view>

namespace croqpy {

namespace nb = nanobind;

// Adds Error, CompileError, ArgumentError, CudaError, CacheError and
// Diagnostic to `m` and translates croq exceptions into them; any other
// C++ exception but std::bad_alloc (MemoryError) becomes a croqjit.Error
// naming it as internal.
void register_errors(nb::module_& m);

// Every text the binding hands to Python goes through py_text: a str of the
// UTF-8 text, any invalid byte decoded as U+FFFD (the library already makes
// its texts valid; this is the binding's own guarantee).
nb::str py_text(std::string_view text);

// The UTF-8 text of `obj`, which must be a str; `what` ("defines key 1",
// "dynamic_dims[0]") names it in the croq::ArgumentError thrown otherwise,
// or when it holds a lone surrogate (no UTF-8 form).
std::string utf8_of(nb::handle obj, const std::string& what);

// repr(obj) (or str(obj)) as UTF-8 for a message; never throws: a failing
// __repr__ gives "<unprintable TYPE>", a lone surrogate a backslash escape.
std::string repr_of(nb::handle obj);
std::string str_of(nb::handle obj);

}  // namespace croqpy
