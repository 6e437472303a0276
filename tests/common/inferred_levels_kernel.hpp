// A kernel of unannotated nested parallel levels, which sema infers as a
// block, a group (one warp each) and a thread level (sema/level_inference.hpp),
// with its host reference: shared by the lowering test (tests/lower), the
// interpret-mode test (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <cstdint>
#include <string>

namespace croq::test {

// Each block stages its slice of `a` in shared memory, warp by warp; then
// every thread reads the element of the next warp at the mirrored lane.
inline const char* kInferredLevelsKernel = R"(__co__ void inferred_levels(s32 [3, 4, 32] a, s32 [3, 4, 32] out) {
  parallel b by 3 {
    shared s32 [4, 32] s;
    parallel w by 4 parallel t by 32 {
      s.at(w, t) = a.at(b, w, t) * 2;
    }
    sync.shared;
    parallel w by 4 parallel t by 32 {
      out.at(b, w, t) = s.at((w + 1) % 4, 31 - t) + b;
    }
  }
}
)";

// Four unannotated levels: a block, a group-4 (g is a warpgroup), a group
// (w is a warp of it) and its lanes; the warps exchange through shared memory.
inline const char* kFourInferredLevelsKernel = R"(__co__ void four_levels(s32 [2, 2, 4, 32] a, s32 [2, 2, 4, 32] out) {
  parallel b by 2 {
    shared s32 [2, 4, 32] s;
    parallel g by 2 parallel w by 4 parallel t by 32 {
      s.at(g, w, t) = a.at(b, g, w, t) * 3;
    }
    sync.shared;
    parallel g by 2 parallel w by 4 parallel t by 32 {
      out.at(b, g, w, t) = s.at(1 - g, 3 - w, t) - b;
    }
  }
}
)";

// The first element of `out` that kFourInferredLevelsKernel, given `a`
// (row-major [2, 2, 4, 32]), did not compute; empty when none.
inline std::string four_inferred_levels_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (int b = 0; b < 2; ++b)
    for (int g = 0; g < 2; ++g)
      for (int w = 0; w < 4; ++w)
        for (int t = 0; t < 32; ++t) {
          const std::int32_t want = a[((b * 2 + (1 - g)) * 4 + (3 - w)) * 32 + t] * 3 - b;
          const std::int32_t got = out[((b * 2 + g) * 4 + w) * 32 + t];
          if (got != want)
            return "out[" + std::to_string(b) + "][" + std::to_string(g) + "][" + std::to_string(w) + "][" +
                   std::to_string(t) + "] is " + std::to_string(got) + ", want " + std::to_string(want);
        }
  return "";
}

// The first element of `out` that kInferredLevelsKernel, given `a`
// (row-major [3, 4, 32]), did not compute; empty when none.
inline std::string inferred_levels_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (int b = 0; b < 3; ++b)
    for (int w = 0; w < 4; ++w)
      for (int t = 0; t < 32; ++t) {
        const std::int32_t want = a[(b * 4 + (w + 1) % 4) * 32 + (31 - t)] * 2 + b;
        const std::int32_t got = out[(b * 4 + w) * 32 + t];
        if (got != want)
          return "out[" + std::to_string(b) + "][" + std::to_string(w) + "][" + std::to_string(t) + "] is " +
                 std::to_string(got) + ", want " + std::to_string(want);
      }
  return "";
}

}  // namespace croq::test
