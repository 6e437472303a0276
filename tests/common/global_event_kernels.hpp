// Kernels whose blocks hand data to each other through global events
// (`global event`: counts in global memory that triggers add to), and a
// shared event array triggered and waited for whole, with their host
// references. Shared by the interpret-mode tests (tests/interp)
// and the GPU tests (tests/gpu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace croq::test {

// A cooperative launch (its blocks run together): block b waits for block
// b + 1 to publish its row of suffix sums, adds its own row and publishes
// it. The last block waits for nothing.
inline const char* kGlobalEventSuffixSums = R"(__co__ s32 [4, 64] suffix_sums(s32 [4, 64] a) {
  s32 [4, 64] out;
  global event done[4];
  parallel b by 4 : block<cooperative> {
    parallel t by 64 : thread {
      if (b < 3) {
        wait done[(b + 1) % 4];
        out.at(b, t) = a.at(b, t) + out.at(b + 1, t);
      } else {
        out.at(b, t) = a.at(b, t);
      }
    }
    trigger done[b];
  }
  return out;
}
)";

// `a` [4, 64]: row b of the result is the sum of rows b..3.
inline std::string suffix_sums_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t t = 0; t < 64; ++t) {
    std::int32_t sum = 0;
    for (std::size_t b = 4; b-- > 0;) {
      sum += a[b * 64 + t];
      if (out[b * 64 + t] != sum)
        return "row " + std::to_string(b) + ", column " + std::to_string(t) + ": " + std::to_string(out[b * 64 + t]) +
               ", expected " + std::to_string(sum);
    }
  }
  return "";
}

// `wait done;` of a whole array: block 0 waits for every event of it, each
// the row of another block, and sums the rows.
inline const char* kGlobalEventWholeArray = R"(__co__ s32 [4, 64] gather_rows(s32 [4, 64] a) {
  s32 [4, 64] out;
  global event done[3];
  parallel b by 4 : block<cooperative> {
    if (b > 0) {
      parallel t by 64 : thread {
        out.at(b, t) = a.at(b, t) * 2;
      }
      trigger done[(b + 2) % 3];
    } else {
      parallel t by 64 : thread {
        wait done;
        out.at(0, t) = a.at(0, t) + out.at(1, t) + out.at(2, t) + out.at(3, t);
      }
    }
  }
  return out;
}
)";

inline std::string gather_rows_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t t = 0; t < 64; ++t) {
    std::int32_t sum = a[t];
    for (std::size_t b = 1; b < 4; ++b) {
      if (out[b * 64 + t] != 2 * a[b * 64 + t]) return "row " + std::to_string(b) + ", column " + std::to_string(t);
      sum += 2 * a[b * 64 + t];
    }
    if (out[t] != sum) return "row 0, column " + std::to_string(t) + ": " + std::to_string(out[t]) + ", expected " + std::to_string(sum);
  }
  return "";
}

// Every event of a shared event array at once (`trigger stored;`, `wait
// stored;`): the block's threads store two tiles, then read what the
// others stored.
inline const char* kSharedEventWholeArray = R"(__co__ void both_tiles(s32 [2, 64] a, s32 [2, 64] out) {
  parallel b by 2 : block {
    shared s32 [64] s;
    shared s32 [64] r;
    parallel t by 64 : thread {
      shared event stored[2];
      s.at(t) = a.at(b, t) + 1;
      r.at(t) = a.at(b, t) * 2;
      trigger stored;
      wait stored;
      out.at(b, t) = s.at(63 - t) + r.at(63 - t);
    }
  }
}
)";

inline std::string both_tiles_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 64; ++t) {
      const std::int32_t x = a[b * 64 + 63 - t];
      if (out[b * 64 + t] != x + 1 + 2 * x) return "row " + std::to_string(b) + ", column " + std::to_string(t);
    }
  return "";
}

// Generations of one event pair: block 1 writes four rows one after
// another into row 1 of the result, each once block 0 has taken the one
// before (`free`, ready at first); block 0 waits for each (`full.at(k)`:
// generation k) and adds it to its sum in row 0.
inline const char* kGlobalEventGenerations = R"(__co__ s32 [2, 64] generations(s32 [4, 64] a) {
  s32 [2, 64] out;
  global event full[1], free[1] = ready;
  parallel b by 2 : block<cooperative> {
    if (b == 1) {
      foreach k in [4] {
        parallel t by 64 : thread {
          wait free.at(k);
          out.at(1, t) = a.at(k, t) * (k + 1);
        }
        trigger full.at(k);
      }
    } else {
      parallel t by 64 : thread {
        out.at(0, t) = 0;
      }
      foreach k in [4] {
        parallel t by 64 : thread {
          wait full.at(k);
          out.at(0, t) = out.at(0, t) + out.at(1, t);
        }
        trigger free.at(k);
      }
    }
  }
  return out;
}
)";

// Row 0: the sum of (k + 1) * a[k]; row 1: the last row written, 4 * a[3].
inline std::string generations_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t t = 0; t < 64; ++t) {
    std::int32_t sum = 0;
    for (std::size_t k = 0; k < 4; ++k) sum += a[k * 64 + t] * static_cast<std::int32_t>(k + 1);
    if (out[t] != sum) return "column " + std::to_string(t) + ": " + std::to_string(out[t]) + ", expected " + std::to_string(sum);
    if (out[64 + t] != 4 * a[3 * 64 + t]) return "row 1, column " + std::to_string(t);
  }
  return "";
}

// Two kernels: the first publishes each block's tripled row, the second
// waits for the other block's row (stream order already has it there: the
// count stays from one kernel to the next) and adds it.
inline const char* kGlobalEventAcrossKernels = R"(__co__ s32 [2, 64] across(s32 [2, 64] a) {
  s32 [2, 64] out;
  global s32 [2, 64] tripled;
  global event ready[2];
  parallel b by 2 : block {
    parallel t by 64 : thread {
      tripled.at(b, t) = a.at(b, t) * 3;
    }
    trigger ready[b];
  }
  parallel b by 2 : block {
    parallel t by 64 : thread {
      wait ready[1 - b];
      out.at(b, t) = a.at(b, t) + tripled.at(1 - b, t);
    }
  }
  return out;
}
)";

inline std::string across_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 64; ++t)
      if (out[b * 64 + t] != a[b * 64 + t] + 3 * a[(1 - b) * 64 + t])
        return "row " + std::to_string(b) + ", column " + std::to_string(t);
  return "";
}

}  // namespace croq::test
