// One element's bytes in memory, as a device or the host stores it: what a
// buffer declared with an initializer (`global f32 [N] t{1.5f};`) is filled with.
#pragma once

#include <cstdint>
#include <vector>

#include "croq/dtype.hpp"

namespace croq::detail {

// `value` stored as an element of `dtype` (floats rounded to its precision,
// integers converted as C++ converts a double). Sub-byte types take a byte
// an element, the value in its low bits (as DType says).
std::vector<std::uint8_t> element_bytes(DType dtype, double value);
// The same for an integer value (exact for 64-bit integer types).
std::vector<std::uint8_t> element_bytes(DType dtype, std::int64_t value);

}  // namespace croq::detail
