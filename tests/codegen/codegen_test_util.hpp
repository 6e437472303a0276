// Shared by the codegen tests.
#pragma once

#include <utility>
#include <vector>

#include "codegen/kernel_codegen.hpp"

namespace croq::codegen::test {

// A tensor argument of the given dtype and shape (-1: a dynamic dim).
inline ArgSignature tensor(DType t, std::vector<std::int64_t> shape) {
  ArgSignature a;
  a.dtype = t;
  a.shape = std::move(shape);
  return a;
}

}  // namespace croq::codegen::test
