// croqjit.Kernel as the binding holds it: the library's Kernel and its
// parameters, read once (every call converts its arguments against them).
#pragma once

#include <utility>
#include <vector>

#include "croq/kernel.hpp"

namespace croqpy {

struct Kernel {
  croq::Kernel kernel;
  std::vector<croq::ParamInfo> params;
  bool returns_tensor = false;
};

inline Kernel wrap_kernel(croq::Kernel kernel) {
  Kernel k;
  k.params = kernel.params();
  k.returns_tensor = kernel.returns_tensor();
  k.kernel = std::move(kernel);
  return k;
}

}  // namespace croqpy
