// `x.chunk(n0, n1).at(i, j)`: chunk (i, j) of x cut into n0 x n1 chunks of
// cdiv(extent, n) elements, counts as constants, upper bounds (`#p`) or a
// tuple (`{4, #q}`). Shared by tests/interp/chunk_interp_test.cpp and
// tests/gpu/copy_forms_gpu_test.cpp: the 10 rows in 4 chunks of 3 (the last
// holds one row: its copy is guarded), the 64 columns in 8 chunks of 8, whose
// order each row of chunks reverses.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "croq/croq.hpp"

namespace croq::test {

inline constexpr const char* kReverseChunks = R"(
__co__ s32 [10, 64] reverse_chunks(s32 [10, 64] a) {
  s32 [a.span] out;
  parallel p by 4 : block {
    with q in 8 {
      foreach q {
        t = dma.copy a.chunk(#p, 8).at(p, q) => shared;
        dma.copy t.data => out.chunk({4, #q}).at(p, 7 - q);
      }
    }
  }
  return out;
}
)";

// `out` (host memory) against `a` (a host s32 [10, 64]) with each row's
// chunks of 8 columns in reverse order.
template <class Input>
void expect_reversed_chunks(const Input& a, const s32* out) {
  for (std::size_t i = 0; i < 10; ++i)
    for (std::size_t chunk = 0; chunk < 8; ++chunk)
      for (std::size_t e = 0; e < 8; ++e)
        ASSERT_EQ(out[i * 64 + chunk * 8 + e], a.data()[i * 64 + (7 - chunk) * 8 + e]) << i << "," << chunk << "," << e;
}

}  // namespace croq::test
