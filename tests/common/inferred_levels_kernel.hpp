// A kernel of unannotated nested parallel levels, which sema infers as a
// block, a group (one warp each) and a thread level (sema/level_inference.hpp),
// with its host reference: shared by the lowering test (tests/lower), the
// interpret-mode test (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <cstdint>

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

// out[b][g][w][t] of kFourInferredLevelsKernel, with `a` row-major [2, 2, 4, 32].
inline std::int32_t four_inferred_levels_reference(const std::int32_t* a, int b, int g, int w, int t) {
  return a[((b * 2 + (1 - g)) * 4 + (3 - w)) * 32 + t] * 3 - b;
}

// out[b][w][t] of the kernel, with `a` row-major [3, 4, 32].
inline std::int32_t inferred_levels_reference(const std::int32_t* a, int b, int w, int t) {
  return a[(b * 4 + (w + 1) % 4) * 32 + (31 - t)] * 2 + b;
}

}  // namespace croq::test
