// One element's bytes in memory, as a device or the host stores it: what a
// buffer declared with an initializer (`global f32 [N] t{1.5f};`) is filled
// with, and what the interpreter stores for every element it writes.
#pragma once

#include <cstdint>
#include <vector>

#include "croq/dtype.hpp"

namespace croq::detail {

// Writes `value` as one element of `dtype` at `at` (dtype_size(dtype)
// bytes): floats rounded to its precision, a double into an integer type
// truncated (truncated_integer) and wrapped to its width. Sub-byte types take a byte an element, the value in
// its low bits and zeros above (as DType says).
void write_element(DType dtype, void* at, double value);
// The same for an integer value (exact for 64-bit integer types).
void write_element(DType dtype, void* at, std::int64_t value);

// A double converted to an integer as a device's cvt.rzi does: toward zero,
// saturating at the type's range (of u64 when `unsigned_64`), NaN to 0.
std::int64_t truncated_integer(double value, bool unsigned_64);

// A double rounded to a float dtype's precision (round to nearest even, as
// the device's conversions do; fp8 saturating to the largest finite, as
// cvt.rn.satfinite, where the host type f8_e5m2 gives inf); unchanged for
// other dtypes.
double rounded_to(DType dtype, double value);
// An integer wrapped to an integer dtype's width as a store of it keeps it:
// sign-extended for the signed types, zero-extended for the unsigned ones
// (u64 keeps the 64 bits); unchanged for other dtypes.
std::int64_t wrapped_to(DType dtype, std::int64_t value);

// The bytes write_element writes.
std::vector<std::uint8_t> element_bytes(DType dtype, double value);
std::vector<std::uint8_t> element_bytes(DType dtype, std::int64_t value);

}  // namespace croq::detail
