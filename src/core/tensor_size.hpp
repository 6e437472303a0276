// The byte size of a tensor, checked: the one place that multiplies extents
// from users (src/core, below every stage).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "croq/error.hpp"
#include "croq/dtype.hpp"
#include "croq/shape.hpp"

namespace croq::detail {

// Element count times element size, or nothing when a step has no int64
// value. An extent of 0 makes it 0 whatever the others are.
std::optional<std::int64_t> tensor_bytes(DType dtype, const Shape& shape);

// tensor_bytes, or an ArgumentError saying that `what` (e.g. "croq::Tensor")
// is too large (or that its dtype is not a DType).
std::size_t tensor_bytes_or_throw(DType dtype, const Shape& shape, const std::string& what);

// "dtype value 200 is not a croq::DType (0 to 27)", or empty when it is one.
std::string dtype_problem(DType dtype);

}  // namespace croq::detail
