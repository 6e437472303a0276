// Bounded indices bound to names and moved by `#+` / `#-`: `x #+ 1` is x
// counted as one value more (`p # (x #+ 1)` is p * (#x + 1) + x), `x #- 1`
// one fewer. Shared by tests/interp/bounded_index_interp_test.cpp and
// tests/gpu/bounded_index_gpu_test.cpp; outputs start at -7, so the tiles no
// copy writes show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace croq::test {

// Rows of a [16, 8] tensor in 8 tiles of 2 (p # x1 counts 2 * 4): x runs
// over 3 of each block's 4 tiles, so tiles 3 and 7 stay unwritten.
inline constexpr const char* kGrownIndexTiles = R"(__co__ void grown_index_tiles(s32 [16, 8] a, s32 [16, 8] out) {
  parallel p by 2 : block {
    foreach x in [3] {
      x1 = x #+ 1;
      t = dma.copy a.chunkat(p # x1, _) => shared;
      dma.copy t.data => out.chunkat(p # x1, _);
    }
  }
}
)";

// Rows of a [12, 8] tensor in 6 tiles of 2 (p # (x #- 1) counts 2 * 3): the
// loop's last x, past the moved count, copies nothing, the others every tile.
inline constexpr const char* kShrunkIndexTiles = R"(__co__ void shrunk_index_tiles(s32 [12, 8] a, s32 [12, 8] out) {
  parallel p by 2 : block {
    foreach x in [4] {
      if (x < 3) {
        t = dma.copy a.chunkat(p # (x #- 1), _) => shared;
        dma.copy t.data => out.chunkat(p # (x #- 1), _);
      }
    }
  }
}
)";

// "" when each row r of `out` (`rows` x 8) is row r of `a` where `copied(r)`
// and -7 elsewhere, else the first difference.
template <class Copied>
std::string bounded_tiles_mismatch(const std::int32_t* a, const std::int32_t* out, std::size_t rows, Copied copied) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < 8; ++c) {
      const std::int32_t want = copied(r) ? a[r * 8 + c] : -7;
      if (out[r * 8 + c] != want)
        return "out[" + std::to_string(r) + "][" + std::to_string(c) + "] is " + std::to_string(out[r * 8 + c]) +
               ", not " + std::to_string(want);
    }
  return "";
}

// kGrownIndexTiles: every tile but 3 and 7 (rows 6, 7, 14, 15).
inline std::string grown_index_mismatch(const std::int32_t* a, const std::int32_t* out) {
  return bounded_tiles_mismatch(a, out, 16, [](std::size_t r) { return r / 2 % 4 != 3; });
}

// kShrunkIndexTiles: every row.
inline std::string shrunk_index_mismatch(const std::int32_t* a, const std::int32_t* out) {
  return bounded_tiles_mismatch(a, out, 12, [](std::size_t) { return true; });
}

}  // namespace croq::test
