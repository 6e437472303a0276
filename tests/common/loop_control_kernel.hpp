// A kernel whose threads leave and skip loop iterations (`break`,
// `continue`, in `foreach` and `while`, nested, and in a foreach of two
// indices) and count with `++` / `--`, with its host reference: shared by
// the interpret-mode test (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <cstdint>
#include <vector>

namespace croq::test {

inline const char* kLoopControlKernel = R"(__co__ void loop_control(s32 [4, 64] input, s32 [4, 64] sums, s32 [4, 64] steps, s32 [4, 64] pairs) {
  parallel b by 4 : block {
    parallel t by 64 : thread {
      s32 x = input.at(b, t);
      mutable s32 sum = 0;
      mutable s32 count = 0;
      foreach k in [16] {
        if (x % (k + 2) == 0) continue;
        sum += k;
        count++;
        foreach j in [8] {
          if (j > k) break;
          if ((j + x) % 3 == 0) continue;
          ++sum;
        }
        if (sum > x % 50) break;
      }
      mutable s32 down = x % 7;
      mutable s32 n = 0;
      while (n < 100) {
        down--;
        ++n;
        if (down < 0) break;
      }
      steps.at(b, t) = 0;
      steps.at(b, t)++;
      foreach {i, j} in [4, 4] {
        if ((i + j + x) % 2 == 0) continue;
        --steps.at(b, t);
      }
      mutable s32 pair = 0;
      foreach {i, j} in [3, 5] {
        if (i == j) continue;
        pair += i * 5 + j;
      }
      sums.at(b, t) = sum;
      steps.at(b, t) += count * 1000 + n * 10;
      pairs.at(b, t) = pair;
    }
  }
}
)";

// The outputs of kLoopControlKernel for one input element, as C++ computes them.
struct LoopControlResult {
  std::int32_t sum, steps, pairs;
};

inline LoopControlResult loop_control_reference(std::int32_t x) {
  std::int32_t sum = 0, count = 0;
  for (int k = 0; k < 16; ++k) {
    if (x % (k + 2) == 0) continue;
    sum += k;
    count++;
    for (int j = 0; j < 8; ++j) {
      if (j > k) break;
      if ((j + x) % 3 == 0) continue;
      ++sum;
    }
    if (sum > x % 50) break;
  }
  std::int32_t down = x % 7, n = 0;
  while (n < 100) {
    down--;
    ++n;
    if (down < 0) break;
  }
  std::int32_t steps = 1;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      if ((i + j + x) % 2 == 0) continue;
      --steps;
    }
  std::int32_t pair = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      if (i == j) continue;
      pair += i * 5 + j;
    }
  return {sum, steps + count * 1000 + n * 10, pair};
}

}  // namespace croq::test
