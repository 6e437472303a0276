// A copy into a new global buffer outside every parallel statement
// (`t = dma.copy ... => global;`) and a copy out of it (`t.data`); shared by
// tests/interp/global_copy_interp_test.cpp and tests/gpu/global_copy_gpu_test.cpp.
#pragma once

#include <cstddef>
#include <vector>

namespace croq::test {

// a and out: [R, 8] f32, R even: out's first half of rows becomes a's second half.
inline const char* kGlobalCopySource = R"(
__co__ void copy_through_global(f32 [R, 8] a, f32 [R, 8] out) {
  t = dma.copy a.chunk(2, 1).at(1, 0) => global;
  dma.copy t.data => out.chunk(2, 1).at(0, 0);
}
)";

inline std::vector<float> global_copy_reference(const std::vector<float>& a, std::vector<float> out) {
  const std::size_t half = a.size() / 2;
  for (std::size_t i = 0; i < half; ++i) out[i] = a[half + i];
  return out;
}

}  // namespace croq::test
