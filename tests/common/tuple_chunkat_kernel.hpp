// `chunkat` given a tuple of indices bound by `with` (it stands for its
// indices): each tile is copied in through the tuple and out through its
// named indices, so a tuple spread in another order misplaces tiles. Shared
// by the interpret-mode and GPU tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace croq::test {

inline const char* kTupleChunkatKernel = R"(__co__ void tuple_tiles(s32 [4, 6, 8] a, s32 [4, 6, 8] out) {
  parallel p by 4 : block {
    with tile = {i, j} in [3, 2] {
      foreach tile {
        t = dma.copy a.chunkat(p, tile) => shared;
        dma.copy t.data => out.chunkat(p, i, j);
      }
    }
  }
}
)";

// "" when `out` is `a` (4 x 6 x 8 elements), else the first difference.
inline std::string tuple_chunkat_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t i = 0; i < 4 * 6 * 8; ++i)
    if (out[i] != a[i])
      return "element " + std::to_string(i) + " is " + std::to_string(out[i]) + ", not " + std::to_string(a[i]);
  return "";
}

}  // namespace croq::test
