// A kernel whose event is declared inside a thread level (the block's
// barrier all the same): its threads store, trigger and wait, then read
// what the others stored; with its host reference: shared by the
// interpret-mode test (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <cstdint>
#include <string>

namespace croq::test {

inline const char* kThreadLevelEventKernel = R"(__co__ void thread_level_event(s32 [2, 64] a, s32 [2, 64] out) {
  parallel b by 2 : block {
    shared s32 [64] s;
    parallel t by 64 : thread {
      shared event stored;
      s.at(t) = a.at(b, t) + 1;
      trigger stored;
      wait stored;
      out.at(b, t) = s.at(63 - t) * 2;
    }
  }
}
)";

// The first element of `out` ([2, 64]) the kernel, given `a`, did not compute; empty when none.
inline std::string thread_level_event_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 64; ++t) {
      const std::int32_t want = (a[b * 64 + 63 - t] + 1) * 2;
      if (out[b * 64 + t] != want)
        return "out[" + std::to_string(b) + "][" + std::to_string(t) + "] is " + std::to_string(out[b * 64 + t]) +
               ", want " + std::to_string(want);
    }
  return "";
}

}  // namespace croq::test
