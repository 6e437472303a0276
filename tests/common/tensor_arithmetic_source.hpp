// Element-wise arithmetic on whole tensors (`a += b`, `a *= d`, `h -= b`):
// a tensor of the same shape, one whose shape ends the target's (repeated
// along its leading dims) and a number; shared by
// tests/interp/tensor_arithmetic_interp_test.cpp and
// tests/gpu/tensor_arithmetic_gpu_test.cpp.
#pragma once

#include <cstddef>
#include <vector>

namespace croq::test {

// a [M, N], b [N], c [M, N], h [2, M, N] (f32); d a number.
inline const char* kTensorArithmeticSource = R"(
__co__ void tensor_arithmetic(f32 [M, N] a, f32 [N] b, f32 [M, N] c, f32 [2, M, N] h, f32 d) {
  parallel p by 1 {
    a += b;
    a *= d;
    a -= c;
    h /= a;
  }
}
)";

struct TensorArithmeticData {
  std::vector<float> a, h;
};

// The host reference of kTensorArithmeticSource, computed in f32 in the
// kernel's order.
inline TensorArithmeticData tensor_arithmetic_reference(std::vector<float> a, const std::vector<float>& b,
                                                        const std::vector<float>& c, std::vector<float> h, float d) {
  const std::size_t n = b.size(), mn = a.size();
  for (std::size_t i = 0; i < mn; ++i) a[i] = ((a[i] + b[i % n]) * d) - c[i];
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = h[i] / a[i % mn];
  return {a, h};
}

}  // namespace croq::test
