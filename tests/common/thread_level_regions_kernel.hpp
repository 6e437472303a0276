// inthreads.async regions of a thread level directly in the block: the
// level's first two warps store their elements and trigger an event, the
// other two (selected through names bound from the index) wait on it and
// read what the first stored, each region running per thread. With its host reference: shared by the interpret-mode test
// (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <cstdint>
#include <string>

namespace croq::test {

inline const char* kThreadLevelRegionsKernel = R"(__co__ void thread_level_regions(s32 [2, 128] a, s32 [2, 128] out) {
  parallel b by 2 : block {
    parallel t by 128 : thread {
      shared s32 [64] s;
      shared event stored;
      inthreads.async (t < 64) {
        s.at(t) = a.at(b, t) + 1;
        out.at(b, t) = a.at(b, t) * 2;
        trigger stored;
      }
      warp = t / 32;
      consumer = warp >= 2;
      inthreads.async (consumer) {
        wait stored;
        out.at(b, t) = s.at(127 - t) - a.at(b, t);
      }
    }
  }
}
)";

// The first element of `out` ([2, 128]) the kernel, given `a`, did not compute; empty when none.
inline std::string thread_level_regions_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 128; ++t) {
      const std::int32_t* row = a + b * 128;
      const std::int32_t want = t < 64 ? row[t] * 2 : (row[127 - t] + 1) - row[t];
      if (out[b * 128 + t] != want)
        return "out[" + std::to_string(b) + "][" + std::to_string(t) + "] is " + std::to_string(out[b * 128 + t]) +
               ", want " + std::to_string(want);
    }
  return "";
}

// inthreads.async regions that select threads of a warpgroup: in a
// `: group-4` level whose thread level spans each warpgroup, the first two
// warps of warpgroup 0 (`g == 0 && t < 64`) store their elements and
// trigger an event; warpgroup 1 waits on it and reads what they stored.
// The other two warps of warpgroup 0 run neither region.
inline const char* kGroupThreadRegionsKernel = R"(__co__ void group_thread_regions(s32 [2, 256] a, s32 [2, 256] out) {
  parallel b by 2 : block {
    parallel g by 2 : group-4, t by 128 : thread {
      shared s32 [64] s;
      shared event stored;
      inthreads.async (g == 0 && t < 64) {
        s.at(t) = a.at(b, t) + 1;
        out.at(b, t) = a.at(b, t) * 2;
        trigger stored;
      }
      inthreads.async (g == 1) {
        wait stored;
        out.at(b, 128 + t) = s.at(t / 2) - a.at(b, 128 + t);
      }
    }
  }
}
)";

// The first element of `out` ([2, 256], filled with `fill` before the
// run) the kernel, given `a`, did not compute; empty when none.
inline std::string group_thread_regions_mismatch(const std::int32_t* a, const std::int32_t* out, std::int32_t fill) {
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 256; ++t) {
      const std::int32_t* row = a + b * 256;
      const std::int32_t want = t < 64 ? row[t] * 2 : t < 128 ? fill : (row[(t - 128) / 2] + 1) - row[t];
      if (out[b * 256 + t] != want)
        return "out[" + std::to_string(b) + "][" + std::to_string(t) + "] is " + std::to_string(out[b * 256 + t]) +
               ", want " + std::to_string(want);
    }
  return "";
}

}  // namespace croq::test
