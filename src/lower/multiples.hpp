// Known divisors of index values (View::origin_multiple, Value::multiple)
// as the lowering combines them, shared by the expression and view files.
#pragma once

#include <cstdint>
#include <limits>
#include <numeric>

#include "support/checked_int.hpp"

namespace croq::lower::detail {

// A known divisor of a product; 1 (nothing known) when it would overflow.
inline std::int64_t multiple_product(std::int64_t a, std::int64_t b) {
  auto r = support::checked_mul(a, b);
  return r.ok() ? r.value : 1;
}

// A known divisor of a sum of multiples of a and of b.
inline std::int64_t multiple_gcd(std::int64_t a, std::int64_t b) {
  if (a == std::numeric_limits<std::int64_t>::min() || b == std::numeric_limits<std::int64_t>::min()) return 1;
  return std::gcd(a, b);
}

}  // namespace croq::lower::detail
