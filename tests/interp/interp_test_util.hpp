// Shared by the interpret-mode tests: a kernel compiled for the interpreter.
#pragma once

#include <string>

#include "croq/croq.hpp"

namespace croq::test {

// `source` compiled for sm_90a in interpret mode (no NVRTC, no GPU).
inline croq::Kernel interpreted(const std::string& source) {
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = "sm_90a";
  return croq::compile(source, options);
}

}  // namespace croq::test
