// `foreach c = k(1:)`: a loop that names its index locally (Croqtile's
// local name binding; `k` keeps its meaning). Shared by
// tests/interp/foreach_local_name_interp_test.cpp and
// tests/gpu/copy_forms_gpu_test.cpp: output tile j of each row holds input
// tile j + 1 (the loop from 1 through c), the last holds tile 0 (`k(-1)`).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "croq/croq.hpp"

namespace croq::test {

inline constexpr const char* kForeachLocalName = R"(
__co__ s32 [4, 64] rotate_tiles(s32 [4, 64] a) {
  s32 [a.span] out;
  parallel p by 4 : block {
    with k in [16] {
      foreach c = k(1:) {
        t = dma.copy a.chunkat(p, c) => shared;
        dma.copy t.data => out.chunkat(p, c - 1);
      }
      first = dma.copy a.subspan(1, 4).at(p, 0) => shared;
      dma.copy first.data => out.chunkat(p, k(-1));
    }
  }
  return out;
}
)";

// `out` (host memory) against the rotation of `a` (a host s32 [4, 64]).
template <class Input>
void expect_rotated_tiles(const Input& a, const s32* out) {
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t tile = 0; tile < 16; ++tile)
      for (std::size_t e = 0; e < 4; ++e)
        ASSERT_EQ(out[i * 64 + tile * 4 + e], a.data()[i * 64 + ((tile + 1) % 16) * 4 + e]) << i << "," << tile << "," << e;
}

}  // namespace croq::test
