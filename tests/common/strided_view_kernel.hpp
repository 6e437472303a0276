// Strided views (`x.view(extents : strides).from(offsets)`): element (i, j)
// of the window is element (o0 + i) * s0 + (o1 + j) * s1 of x's storage.
// Each block copies a [16, 4] window of strides {40, 3} at a runtime offset
// (its block index) into shared memory and out, and each thread reads one
// element of a named [4, 6] window of strides {16, 1}. Shared by the
// interpret-mode and GPU tests.
#pragma once

#include <cstddef>
#include <string>

namespace croq::test {

inline const char* kStridedViewKernel = R"(__co__ void strided_views(f32 [64, 32] a, f32 [64, 4] out, f32 [16, 6] twice) {
  parallel p by 4 : block {
    s = dma.copy a.view(16, 4 : 40, 3).from(p, 5) => shared;
    dma.copy s.data => out.chunkat(p, _);
    b = a.view(4, 6 : 16, 1).from(p * 4, 2);
    parallel {i, j} by [4, 6] : thread {
      twice.at(p # i, j) = b.at(i, j) * 2.0f;
    }
  }
}
)";

// "" when `out` and `twice` hold what the kernel computes from `a`, else the first difference.
inline std::string strided_view_mismatch(const float* a, const float* out, const float* twice) {
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 4; ++j) {
        const float want = a[(p + i) * 40 + (5 + j) * 3];
        const float got = out[(p * 16 + i) * 4 + j];
        if (got != want)
          return "out[" + std::to_string(p * 16 + i) + "][" + std::to_string(j) + "] is " + std::to_string(got) +
                 ", not " + std::to_string(want);
      }
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) {
        const float want = 2.0f * a[(p * 4 + i) * 16 + 2 + j];
        const float got = twice[(p * 4 + i) * 6 + j];
        if (got != want)
          return "twice[" + std::to_string(p * 4 + i) + "][" + std::to_string(j) + "] is " + std::to_string(got) +
                 ", not " + std::to_string(want);
      }
  return "";
}

}  // namespace croq::test
