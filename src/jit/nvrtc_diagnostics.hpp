// What NVRTC may read and where its messages point. The generated CUDA
// carries #line directives naming the Croqtile source, so NVRTC reports
// presumed locations; these helpers find the physical line of the CUDA text
// a message is about, and report it in the user's source when that line
// was copied from it (pasted __device__ code), else in the CUDA text.
#pragma once

#include <string>
#include <vector>

#include "croq/error.hpp"

namespace croq::jit {

// The source the CUDA text was generated from: what its #line directives
// name. Empty for hand-written CUDA.
struct SourceOrigin {
  std::string name;  // as the #line directives name it (unescaped)
  std::string text;
};

// Errors for preprocessing that could make NVRTC read a file other than a
// CUDA toolkit header: #include, #include_next and __has_include of an
// absolute path, a path with a `.` or `..` component, or a macro; #embed and
// #import. Located in the CUDA text (physical line, column of the `#`).
std::vector<Diagnostic> unsafe_include_diagnostics(const std::string& cuda_source);

// NVRTC's program log as diagnostics located in the CUDA text (physical
// lines, whatever the #line directives say). Messages about other files
// (headers) have no location and name the file in the message.
std::vector<Diagnostic> parse_nvrtc_log(const std::string& log, const std::string& cuda_source,
                                        const std::string& cuda_name);

// The error for diagnostics located in the CUDA text: in `origin`, at the
// user's line and column, when an error points into a line copied from it
// (the other messages then name their generated line in their text); else
// in the CUDA text, as NVRTC saw it.
CompileError located_compile_error(std::vector<Diagnostic> diagnostics, const std::string& cuda_source,
                                   const std::string& cuda_name, const SourceOrigin& origin);

}  // namespace croq::jit
