// Kernels of arrays of local buffers (one local array, a slot per buffer:
// copies into a slot, element stores and reads by constant and loop
// indices) and of global buffers at function scope (one allocation per
// call, shared by the program's kernels), with their host references:
// shared by the interpret-mode test (tests/interp) and the GPU test
// (tests/gpu).
#pragma once

#include <cstdint>
#include <string>

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

// out[b][t] of kLocalArraysKernel, with `a` row-major [4, 512].
inline std::int32_t local_arrays_reference(const std::int32_t* a, int b, int t) {
  std::int32_t sum = 0;
  for (int k = 0; k < 8; ++k) sum += a[b * 512 + t * 8 + 7 - k] * 3 * (k + 1);
  return sum + 2 * 100 + 1 * 10;
}

// Two kernels: the first stores each block's row, doubled, into a buffer of
// the array; the second copies another buffer of it into shared memory.
inline const char* kGlobalArraysKernel = R"(__co__ void global_arrays(s32 [4, 64] a, s32 [4, 64] out) {
  s32 [64] parts[4];
  parallel b by 4 : block {
    parallel t by 64 : thread {
      parts[b].at(t) = a.at(b, t) * 2;
    }
  }
  parallel b by 4 : block {
    staged = dma.copy parts[3 - b] => shared;
    parallel t by 64 : thread {
      out.at(b, t) = staged.data.at(63 - t) + parts[b].at(t);
    }
  }
}
)";

// out[b][t] of kGlobalArraysKernel, with `a` row-major [4, 64].
inline std::int32_t global_arrays_reference(const std::int32_t* a, int b, int t) {
  return a[(3 - b) * 64 + 63 - t] * 2 + a[b * 64 + t] * 2;
}

// The first element of `out` ([4, 64]) that differs from `reference(a, b, t)`; empty when none.
template <typename Reference>
std::string buffer_arrays_mismatch(const std::int32_t* a, const std::int32_t* out, Reference reference) {
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 64; ++t)
      if (out[b * 64 + t] != reference(a, b, t))
        return "out[" + std::to_string(b) + "][" + std::to_string(t) + "] is " + std::to_string(out[b * 64 + t]) +
               ", want " + std::to_string(reference(a, b, t));
  return "";
}

}  // namespace croq::test
