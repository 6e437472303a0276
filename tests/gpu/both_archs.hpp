// A warp-level mma kernel compiled twice: for the device's arch and as
// compute_80 PTX (the mma.sync path every arch from sm_80 runs).
#pragma once

#include <string>
#include <vector>

#include "croq/croq.hpp"

namespace croq::test {

inline std::vector<Kernel> both_archs(const std::string& source, const std::string& source_name) {
  std::vector<Kernel> kernels;
  for (const std::string arch : {"", "compute_80"}) {
    CompileOptions options;
    options.arch = arch;
    options.source_name = source_name;
    kernels.push_back(compile(source, options));
  }
  return kernels;
}

}  // namespace croq::test
