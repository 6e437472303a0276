// A kernel whose events are arrays of arrays (`shared event stored[2][3]`,
// `local event mine[2][2]`): one element (`stored[1][2]`), a row
// (`stored[0]`: its 3 events) and the whole array are triggered and waited
// for, between stores to shared memory and reads of other threads'
// elements; with its host reference. Shared by the interpret-mode test
// (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <cstdint>
#include <string>

namespace croq::test {

inline const char* const kEventGridKernel = R"croq(__co__ void event_grid(global s32 [B, 64] a, global s32 [B, 64] out) {
  parallel b by B : block {
    shared s32 [2, 64] s;
    parallel t by 64 : thread {
      shared event stored[2][3];
      s.at(0, t) = a.at(b, t) + 1;
      trigger stored[1][2];
      wait stored[1][2];
      s.at(1, t) = s.at(0, 63 - t) * 2;
      trigger stored[0];
      wait stored[0];
      local event mine[2][2];
      trigger mine[1], mine[0][1];
      wait mine[1][0], mine[0][1];
      wait mine[1][1];
      out.at(b, t) = s.at(1, 63 - t) + 3;
      trigger stored;
      wait stored;
    }
  }
}
)croq";

// out = 2 (a + 1) + 3 element by element (each thread reads back, through
// two others' stores, its own element); else the first one that differs.
inline std::string event_grid_mismatch(const std::int32_t* a, const std::int32_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t want = 2 * (a[i] + 1) + 3;
    if (out[i] != want)
      return "element " + std::to_string(i) + ": " + std::to_string(out[i]) + ", want " + std::to_string(want);
  }
  return "";
}

}  // namespace croq::test
