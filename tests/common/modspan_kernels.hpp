// `x.modspan(m...)`: in each dimension the remainder of x's extent by m (one
// element where m divides it), a tile that `.at(i)` places at i * m and that
// stands, unplaced, for the remainder at the end of x. Shared by
// tests/interp/modspan_interp_test.cpp and tests/gpu/modspan_gpu_test.cpp:
// `.view([b, 4])` takes a shape list for its extents the same way. Each
// kernel copies tiles of `a` through shared memory into outputs the
// host references below check element by element (outputs start at -7, so
// an element no copy wrote shows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace croq::test {

// The tiles of a [10, 29] tensor by modspan(4, 8): [2, 5] tiles every 4 rows
// and 8 columns, 3 x 4 of them, stacked into a [6, 20] output.
inline constexpr const char* kModspanTiles = R"(__co__ void modspan_tiles(s32 [10, 29] a, s32 [6, 20] out) {
  parallel p by 1 : block {
    with tile = {i, j} in [3, 4] {
      foreach tile {
        t = dma.copy a.modspan(4, 8).at(i, j) => shared;
        dma.copy t.data => out.subspan(2, 5).at(i, j);
      }
    }
  }
}
)";

// The other forms on a [20, 40] tensor: the remainder itself (no `.at`), a
// modspan of a tile, of an unplaced subspan (its first tile), with `_`
// keeping a dimension whole, and where m divides the extent (one element).
inline constexpr const char* kModspanForms = R"(__co__ void modspan_forms(s32 [20, 40] a, s32 [2, 5] rem, s32 [6, 4] tiled,
                             s32 [2, 2] first, s32 [6, 40] whole, s32 [4, 1] ones) {
  parallel p by 1 : block {
    r = dma.copy a.modspan(6, 7) => shared;
    dma.copy r.data => rem;
    f = dma.copy a.subspan(6, 8).modspan(4, 3) => shared;
    dma.copy f.data => first;
    with tile = {i, j} in [3, 4] {
      foreach tile {
        t = dma.copy a.subspan(8, 16).at(1, 1).modspan(3, 5).at(i, j) => shared;
        dma.copy t.data => tiled.subspan(2, 1).at(i, j);
      }
    }
    foreach k in [3] {
      w = dma.copy a.modspan(9, _).at(k, 0) => shared;
      dma.copy w.data => whole.subspan(2, 40).at(k, 0);
    }
    foreach k in [4] {
      o = dma.copy a.modspan(5, 8).at(k, 1) => shared;
      dma.copy o.data => ones.subspan(1, 1).at(k, 0);
    }
  }
}
)";

// `.view` given a shape list of a tuple and an extent (`[b, 4]`, b = {2, 3}):
// the [2, 3, 4] window of a [6, 8, 4] tensor at (3, 5, 0).
inline constexpr const char* kViewOfAShapeList = R"(__co__ void view_of_a_shape_list(s32 [6, 8, 4] a, s32 [2, 3, 4] out) {
  parallel p by 1 : block {
    b = {2, 3};
    t = dma.copy a.view([b, 4]).from(3, 5, 0) => shared;
    dma.copy t.data => out;
  }
}
)";

// kViewOfAShapeList: out[i][j][k] is a[3 + i][5 + j][k].
inline std::string view_of_a_shape_list_mismatch(const std::int32_t* a, const std::int32_t* out) {
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k) {
        const std::int32_t got = out[(i * 3 + j) * 4 + k], want = a[((3 + i) * 8 + 5 + j) * 4 + k];
        if (got != want)
          return "out[" + std::to_string(i) + "][" + std::to_string(j) + "][" + std::to_string(k) + "] is " +
                 std::to_string(got) + ", not " + std::to_string(want);
      }
  return "";
}

// "" when out[r][c] (rows x cols, row-major) is a[row(r, c)][col(r, c)] (a
// row-major with `a_cols` columns) for every element, else the first difference.
template <class Row, class Col>
std::string modspan_mismatch(const char* name, const std::int32_t* a, std::size_t a_cols, const std::int32_t* out,
                             std::size_t rows, std::size_t cols, Row row, Col col) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::int32_t want = a[row(r, c) * a_cols + col(r, c)];
      if (out[r * cols + c] != want)
        return std::string(name) + "[" + std::to_string(r) + "][" + std::to_string(c) + "] is " +
               std::to_string(out[r * cols + c]) + ", not " + std::to_string(want);
    }
  return "";
}

// kModspanTiles: out[2i + r][5j + c] is a[4i + r][8j + c].
inline std::string modspan_tiles_mismatch(const std::int32_t* a, const std::int32_t* out) {
  return modspan_mismatch(
      "out", a, 29, out, 6, 20, [](std::size_t r, std::size_t) { return r / 2 * 4 + r % 2; },
      [](std::size_t, std::size_t c) { return c / 5 * 8 + c % 5; });
}

struct ModspanForms {
  const std::int32_t *rem, *tiled, *first, *whole, *ones;
};

// kModspanForms against its [20, 40] input.
inline std::string modspan_forms_mismatch(const std::int32_t* a, const ModspanForms& o) {
  const auto rows_from = [](std::size_t n) { return [n](std::size_t r, std::size_t) { return n + r; }; };
  const auto cols_from = [](std::size_t n) { return [n](std::size_t, std::size_t c) { return n + c; }; };
  std::string m = modspan_mismatch(  // 20 % 6 rows from 18, 40 % 7 columns from 35
      "rem", a, 40, o.rem, 2, 5, rows_from(18), cols_from(35));
  if (m.empty())  // the first [6, 8] tile's remainders by [4, 3]: rows 4.., columns 6..
    m = modspan_mismatch(
        "first", a, 40, o.first, 2, 2, rows_from(4), cols_from(6));
  if (m.empty())  // the [8, 16] tile at (8, 16), [2, 1] tiles every 3 rows and 5 columns
    m = modspan_mismatch(
        "tiled", a, 40, o.tiled, 6, 4, [](std::size_t r, std::size_t) { return 8 + r / 2 * 3 + r % 2; },
        [](std::size_t, std::size_t c) { return 16 + c * 5; });
  if (m.empty())  // 2 whole rows every 9
    m = modspan_mismatch(
        "whole", a, 40, o.whole, 6, 40, [](std::size_t r, std::size_t) { return r / 2 * 9 + r % 2; }, cols_from(0));
  if (m.empty())  // 5 and 8 divide 20 and 40: one element every 5 rows, in column 8
    m = modspan_mismatch(
        "ones", a, 40, o.ones, 4, 1, [](std::size_t r, std::size_t) { return r * 5; },
        [](std::size_t, std::size_t) { return std::size_t{8}; });
  return m;
}

}  // namespace croq::test
