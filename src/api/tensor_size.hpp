// Checks of the views users pass in. Internal to src/api; the byte size
// itself is src/core/tensor_size.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/tensor_size.hpp"
#include "croq/error.hpp"
#include "croq/tensor.hpp"

namespace croq::detail {

// What makes `view` unusable, or an empty string: a dtype that is not a
// DType, a memory kind that is neither host nor device, a negative device
// ordinal, a size past 2^63 - 1 bytes, and, when `needs_data`, a null data
// pointer for a view that holds bytes. Every entry point that takes a view
// asks this first, so nothing past it meets a value outside its enum.
std::string view_problem(const TensorView& view, bool needs_data);

// ArgumentError(who + ": " + problem) when view_problem finds one.
void check_view(const TensorView& view, const std::string& who, bool needs_data);

// "WHAT: f32 [1099511627776] needs 4,398,046,511,104 bytes of host memory,
// which could not be allocated" (spandata.hpp declares it too).
Error host_allocation_error(const char* what, DType dtype, const Shape& shape);

}  // namespace croq::detail
