// Checked 64-bit integer arithmetic for values that come from user input
// (source literals, #defines, shapes, grids). Every operation reports instead
// of invoking undefined behaviour or trapping: overflow, INT64_MIN / -1,
// division or remainder by zero, and shifts outside 0..63 all give an
// ArithmeticFault that callers turn into a diagnostic at the right place.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace croq::support {

enum class ArithmeticFault { none, overflow, divide_by_zero, bad_shift };

// Why `a op b` has no 64-bit result, as a phrase for messages
// ("overflows 64-bit integers", "divides by zero", ...).
inline const char* describe(ArithmeticFault f) {
  switch (f) {
    case ArithmeticFault::overflow: return "overflows a 64-bit signed integer";
    case ArithmeticFault::divide_by_zero: return "divides by zero";
    case ArithmeticFault::bad_shift: return "shifts by a negative amount or by 64 bits or more";
    case ArithmeticFault::none: break;
  }
  return "is well defined";
}

// The result of one checked operation: a value, or the fault.
struct CheckedInt {
  std::int64_t value = 0;
  ArithmeticFault fault = ArithmeticFault::none;
  bool ok() const { return fault == ArithmeticFault::none; }
};

inline CheckedInt checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return {0, ArithmeticFault::overflow};
  return {r};
}

inline CheckedInt checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return {0, ArithmeticFault::overflow};
  return {r};
}

inline CheckedInt checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return {0, ArithmeticFault::overflow};
  return {r};
}

// Truncating division, as C++ and CUDA do it.
inline CheckedInt checked_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return {0, ArithmeticFault::divide_by_zero};
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) return {0, ArithmeticFault::overflow};
  return {a / b};
}

inline CheckedInt checked_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) return {0, ArithmeticFault::divide_by_zero};
  if (b == -1) return {0};  // INT64_MIN % -1 traps on x86 although the result is 0
  return {a % b};
}

// Ceiling division for the non-negative extents of shapes and grids.
inline CheckedInt checked_cdiv(std::int64_t a, std::int64_t b) {
  if (b == 0) return {0, ArithmeticFault::divide_by_zero};
  CheckedInt q = checked_div(a, b);
  if (!q.ok()) return q;
  bool exact = (a % b) == 0;
  if (!exact && ((a < 0) == (b < 0))) return checked_add(q.value, 1);
  return q;
}

inline CheckedInt checked_shl(std::int64_t a, std::int64_t b) {
  if (b < 0 || b >= 64) return {0, ArithmeticFault::bad_shift};
  if (a < 0) return {0, ArithmeticFault::overflow};  // left shift of a negative value
  if (b > 0 && (a >> (63 - b)) != 0) return {0, ArithmeticFault::overflow};
  return {a << b};
}

inline CheckedInt checked_shr(std::int64_t a, std::int64_t b) {
  if (b < 0 || b >= 64) return {0, ArithmeticFault::bad_shift};
  return {a >> b};
}

inline CheckedInt checked_neg(std::int64_t a) { return checked_sub(0, a); }

// The product of extents, or nullopt when it overflows int64 (shapes whose
// element count cannot be represented).
template <typename Range>
std::optional<std::int64_t> checked_product(const Range& extents) {
  std::int64_t p = 1;
  for (auto e : extents) {
    auto r = checked_mul(p, static_cast<std::int64_t>(e));
    if (!r.ok()) return std::nullopt;
    p = r.value;
  }
  return p;
}

// Elements of a tensor with these (non-negative) extents; INT64_MAX when
// the product overflows (a tensor that size needs 64-bit indices anyway).
template <typename Range>
std::int64_t element_count(const Range& extents) {
  for (auto e : extents)
    if (e == 0) return 0;
  return checked_product(extents).value_or(std::numeric_limits<std::int64_t>::max());
}

// The product of the extents with each 0 counted as 1: the largest stride
// index arithmetic forms over a buffer of these extents, even an empty one.
// Nothing when it overflows.
template <typename Range>
std::optional<std::int64_t> stride_product(const Range& extents) {
  std::int64_t p = 1;
  for (auto e : extents) {
    auto r = checked_mul(p, e > 0 ? static_cast<std::int64_t>(e) : std::int64_t{1});
    if (!r.ok()) return std::nullopt;
    p = r.value;
  }
  return p;
}

}  // namespace croq::support
