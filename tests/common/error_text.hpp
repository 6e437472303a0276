// Test helper: the message of the croq::Error a call throws.
#pragma once

#include <string>

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

}  // namespace croq::test
