// A kernel with an array of arrays of shared buffers (`s[2][2]`, one ring
// of four), selected by constants and by a loop index, with its host
// reference; shared by tests/interp/array_of_arrays_interp_test.cpp and
// tests/gpu/array_of_arrays_gpu_test.cpp.
#pragma once

#include <cstddef>
#include <vector>

namespace croq::test {

inline const char* kArrayOfArraysKernel = R"(__co__ void pairs(f32 [R, 8] x, f32 [R, 8] out) {
  parallel p by R : block {
    shared f32 [4] s[2][2];
    parallel t by 4 : thread {
      s[0][0].at(t) = x.at(p, t);
      s[0][1].at(t) = x.at(p, t + 4);
      s[1][0].at(t) = x.at(p, t) * 2.0f;
      s[1][1].at(t) = x.at(p, t + 4) + 1.0f;
    }
    sync.barrier : block;
    parallel t by 4 : thread {
      foreach i in [2]
        out.at(p, t + 4 * i) = s[i][i].at(t) + s[1][i].at(t);
    }
  }
}
)";

// out[p][t] = x[p][t] + 2 x[p][t]; out[p][t + 4] = 2 (x[p][t + 4] + 1).
inline std::vector<float> array_of_arrays_reference(const std::vector<float>& x, std::size_t rows) {
  std::vector<float> out(rows * 8);
  for (std::size_t p = 0; p < rows; ++p)
    for (std::size_t t = 0; t < 4; ++t) {
      const float a = x[p * 8 + t], b = x[p * 8 + t + 4];
      out[p * 8 + t] = a + a * 2.0f;
      out[p * 8 + t + 4] = (b + 1.0f) + (b + 1.0f);
    }
  return out;
}

}  // namespace croq::test
