// Kernels whose threads count with events of their own (`local event`: each
// thread's counts, which only its triggers add to and its waits take), and
// their host reference. Shared by tests/interp/local_event_interp_test.cpp
// and tests/gpu/local_event_gpu_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace croq::test {

// Each thread runs a two-slot ring of generations (`.at(k)`, `= ready`
// slots), whole arrays, a row of an array and a single event, then doubles
// its element of `a`: out = 2 a when every wait finds its generation.
inline const char* const kLocalEventRing = R"croq(__co__ void local_ring(global s32 [B, 64] a, global s32 [B, 64] out) {
  parallel b by B : block {
    parallel t by 64 : thread {
      local event full[2], empty[2] = ready;
      foreach k in [5] {
        wait empty.at(k);
        trigger full.at(k);
        wait full.at(k);
        trigger empty.at(k);
      }
      local event done, both[2];
      trigger done, both;
      trigger both[1];
      wait both, done;
      wait both[1];
      out.at(b, t) = a.at(b, t) * 2;
    }
  }
}
)croq";

// out = 2 a, else the first element that differs.
inline std::string doubled_mismatch(const std::int32_t* a, const std::int32_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (out[i] != 2 * a[i])
      return "element " + std::to_string(i) + ": " + std::to_string(out[i]) + ", want " + std::to_string(2 * a[i]);
  return "";
}

}  // namespace croq::test
