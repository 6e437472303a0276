// Test helper: the message of the croq::Error a call throws.
#pragma once

#include <string>

#include "croq/croq.hpp"
#include "croq/error.hpp"

namespace croq::test {

// what() of the croq::Error that f() throws, or "no error".
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// what() of the CompileError croq::compile raises for `source` compiled
// for sm_90a, or "" when it compiles.
inline std::string compile_error(const std::string& source) {
  try {
    CompileOptions options;
    options.arch = "sm_90a";
    compile(source, options);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace croq::test
