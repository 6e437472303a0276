// A kernel of arrays of local buffers (one local array, a slot per buffer:
// copies into a slot, element stores and reads by constant and loop
// indices), with its host reference: shared by the interpret-mode test
// (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <cstdint>

namespace croq::test {

inline const char* kLocalArraysKernel = R"(__co__ void local_arrays(s32 [4, 512] a, s32 [4, 64] out) {
  parallel b by 4 : block {
    parallel t by 64 : thread {
      local s32 [1, 8] rows[2];
      local s32 [3] steps[2][2];
      dma.copy a.chunkat(b, t) => rows[1];
      foreach k in [8] {
        rows[0].at(0, k) = rows[1].at(0, 7 - k) * 3;
      }
      foreach i in [2] {
        foreach j in [2] {
          steps[i][j].at(2) = i * 2 + j;
        }
      }
      mutable s32 sum = 0;
      foreach k in [8] {
        sum += rows[0].at(0, k) * (k + 1);
      }
      out.at(b, t) = sum + steps[1][0].at(2) * 100 + steps[0][1].at(2) * 10;
    }
  }
}
)";

// out[b][t] of the kernel, with `a` row-major [4, 512].
inline std::int32_t local_arrays_reference(const std::int32_t* a, int b, int t) {
  std::int32_t sum = 0;
  for (int k = 0; k < 8; ++k) sum += a[b * 512 + t * 8 + 7 - k] * 3 * (k + 1);
  return sum + 2 * 100 + 1 * 10;
}

}  // namespace croq::test
