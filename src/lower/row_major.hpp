// Coordinates of a flat (row-major) index, for lowering's loops that walk a
// tile's elements through one counter.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/builder.hpp"

namespace croq::lower {

// The coordinates of `flat` in a tile of constant `extents`, the last the
// fastest; the first is not reduced modulo its extent (the loop bounds it).
inline std::vector<ir::ExprRef> row_major_coords(const ir::ExprRef& flat, const std::vector<std::int64_t>& extents) {
  std::vector<ir::ExprRef> coords(extents.size());
  std::int64_t stride = 1;
  for (std::size_t d = extents.size(); d-- > 0;) {
    ir::ExprRef c = stride == 1 ? flat : ir::binary("/", flat, ir::int_const(stride));
    coords[d] = d == 0 ? c : ir::binary("%", c, ir::int_const(extents[d]));
    stride *= extents[d];
  }
  return coords;
}

}  // namespace croq::lower
