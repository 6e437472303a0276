// A kernel whose two warps hand a shared tile back and forth through named
// barriers (__bar_arrive / __bar_sync, PTX's bar.arrive / bar.sync) over
// several steps, with its host reference. Shared by the interpret-mode test
// (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

namespace croq::test {

// Warp 0 stages row k of `input` doubled, then arrives on barrier 1; warp 1
// waits on barrier 1 (its id computed at run time), writes the staged row
// reversed plus one, and arrives on barrier 2, which warp 0 waits on before
// it overwrites the tile for the next step.
inline const char* kNamedBarrierKernel = R"(__co__ void relay(f32 [4, 32] input, f32 [4, 32] output) {
  parallel b by 1 : block {
    shared f32 [32] staged;
    parallel t by 64 : thread {
      foreach k in [4] {
        if (t < 32) {
          if (k > 0) {
            __bar_sync(2, 64);
          }
          staged.at(t) = input.at(k, t) * 2.0f;
          __bar_arrive(1, 64);
        } else {
          __bar_sync(t / 64 + 1, 64);
          output.at(k, t - 32) = staged.at(63 - t) + 1.0f;
          if (k < 3) {
            __bar_arrive(2, 64);
          }
        }
      }
    }
  }
}
)";

inline void expect_relayed(const float* input, const float* output) {
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t i = 0; i < 32; ++i)
      ASSERT_EQ(output[k * 32 + i], input[k * 32 + 31 - i] * 2.0f + 1.0f) << "row " << k << ", element " << i;
}

}  // namespace croq::test
