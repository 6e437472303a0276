// Keyword options shared by compile(), precompile() and tune(): each one
// checked, a wrong one a croq::ArgumentError naming it.
#pragma once

#include <nanobind/nanobind.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "croq/options.hpp"

namespace croqpy {

namespace nb = nanobind;

// A str option, or nullopt for None.
std::optional<std::string> optional_text(nb::handle value, const char* name);

// None (empty), a str (one item) or a sequence of str.
std::vector<std::string> text_list(nb::handle value, const char* name);

// A dict of #define names to ints (64 bits; __index__ objects too) or
// floats; `what` names it in errors ("defines", "configs[2]"), as does
// `what['NAME']` for a value.
std::map<std::string, croq::DefineValue> define_map(nb::handle dict, const std::string& what);

// compile()'s keywords.
croq::CompileOptions compile_options(nb::handle entry, nb::handle defines, nb::handle arch, nb::handle dynamic_dims,
                                     nb::handle source_name, nb::handle debug_line_info,
                                     nb::handle interpret);

}  // namespace croqpy
