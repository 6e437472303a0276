// A kernel that sizes a shared tile by arithmetic on a whole shape
// (`x.span / {R, 2}`), with its host reference: shared by the
// interpret-mode test (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <vector>

namespace croq::test {

inline const char* kShapeMathKernel = R"(__co__ void halves(f32 [R, 64] x, f32 [R, 64] out) {
  parallel p by R : block {
    shared f32 [x.span / {R, 2}] part;
    parallel t by 32 : thread {
      part.at(0, t) = x.at(p, t) + x.at(p, t + 32);
    }
    sync.barrier : block;
    parallel t by 32 : thread {
      out.at(p, t) = part.at(0, t);
      out.at(p, t + 32) = part.at(0, t) * 2.0f;
    }
  }
}
)";

inline std::vector<float> shape_math_reference(const std::vector<float>& x, int rows) {
  std::vector<float> out(x.size());
  for (int p = 0; p < rows; ++p)
    for (int t = 0; t < 32; ++t) {
      const float sum = x[p * 64 + t] + x[p * 64 + t + 32];
      out[p * 64 + t] = sum;
      out[p * 64 + t + 32] = sum * 2.0f;
    }
  return out;
}

}  // namespace croq::test
