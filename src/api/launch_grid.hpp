// The grid of a launch whose size depends on dynamic dims, computed from
// their values at the call with checked arithmetic. Internal to src/api.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "codegen/kernel_codegen.hpp"

namespace croq::detail {

// The blocks to launch for `grid`, each dim's value from `dim_value`. A
// kernel that loops over block indices (grid.grid_stride) takes at most
// 2^31 - 1 blocks whatever the count; for any other kernel a count past
// that, or one with no 64-bit value, is an ArgumentError naming `kernel`.
unsigned runtime_grid_blocks(const codegen::RuntimeGrid& grid,
                             const std::function<std::int64_t(const codegen::DimSource&)>& dim_value,
                             const std::string& kernel);

}  // namespace croq::detail
