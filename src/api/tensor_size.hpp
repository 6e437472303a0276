// The byte size of a tensor, checked: the api's one place that multiplies
// extents from users. Internal to src/api.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "croq/error.hpp"
#include "croq/tensor.hpp"

namespace croq::detail {

// Element count times element size, or nothing when a step has no int64
// value. An extent of 0 makes it 0 whatever the others are.
std::optional<std::int64_t> tensor_bytes(DType dtype, const Shape& shape);

// tensor_bytes, or an ArgumentError saying that `what` (e.g. "croq::Tensor")
// is too large (or that its dtype is not a DType).
std::size_t tensor_bytes_or_throw(DType dtype, const Shape& shape, const std::string& what);

// What makes `view` unusable, or an empty string: a dtype that is not a
// DType, a memory kind that is neither host nor device, a negative device
// ordinal, a size past 2^63 - 1 bytes, and, when `needs_data`, a null data
// pointer for a view that holds bytes. Every entry point that takes a view
// asks this first, so nothing past it meets a value outside its enum.
std::string view_problem(const TensorView& view, bool needs_data);

// ArgumentError(who + ": " + problem) when view_problem finds one.
void check_view(const TensorView& view, const std::string& who, bool needs_data);

// "dtype value 200 is not a croq::DType (0 to 27)", or empty when it is one.
std::string dtype_problem(DType dtype);

// "WHAT: f32 [1099511627776] needs 4,398,046,511,104 bytes of host memory,
// which could not be allocated" (spandata.hpp declares it too).
Error host_allocation_error(const char* what, DType dtype, const Shape& shape);

}  // namespace croq::detail
