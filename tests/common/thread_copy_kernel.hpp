// A thread level that writes a shared tile element by element (each thread
// its own column) and then copies the whole tile out, as every thread of a
// thread level does a copy: the copy needs a barrier of the block after the
// stores. Shared by the interpret-mode test and the GPU test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace croq::test {

inline const char* kThreadCopyKernel = R"(__co__ void thread_copy(s32 [4, 2, 128] a, s32 [4, 2, 128] out) {
  parallel p by 4, q by 128 {
    shared s32 [1, 2, 128] s;
    foreach r in [2]
      s.at(0, r, q) = a.at(p, r, q) * 3 + r;
    dma.copy s => out.chunkat(p, _, _);
  }
}
)";

// What is wrong with `out` for input `a` (4 x 2 x 128 elements): "" when
// every element is the kernel's.
inline std::string thread_copy_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t i = 0; i < 4 * 2 * 128; ++i) {
    const std::int32_t want = a[i] * 3 + static_cast<std::int32_t>(i / 128 % 2);
    if (out[i] != want)
      return "element " + std::to_string(i) + " is " + std::to_string(out[i]) + ", not " + std::to_string(want);
  }
  return "";
}

}  // namespace croq::test
