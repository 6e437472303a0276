// croq host: turns a Croqtile file with host code (an upstream test
// program) into a C++ translation unit that runs it through libcroqjit.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.hpp"

namespace croq::cli {

// The translation unit for `program` (its source is program.source, named
// `source_name` in messages): <croq/choreo.hpp>, the source as a raw
// string, one C++ function per callable __co__ function (same name,
// compiling it on first call), and the host code with __co__, __device__
// and __cok__ code taken out. Throws croq::Error when the source cannot be
// embedded.
std::string host_translation_unit(const frontend::ast::Program& program, const std::string& source_name);

// croq host FILE.co [-o OUT.cpp]
int run_host(const std::vector<std::string>& args);

}  // namespace croq::cli
