// Runs a kernel of (A [m, k], B [n, k] or [k, n], C [m, n]) on random A and B and a
// poisoned C, and checks C against A * B^T in double: exactly for integer
// outputs, within 1e-3 relative otherwise. Used by interp and GPU tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "common/mma_accumulator_load_sources.hpp"
#include "croq/croq.hpp"

namespace croq::test {

// `seed()` gives the seeds of A, B and C in turn; A and B take values in
// [lo, hi]. `rhs_k_by_n`: B is [k, n] (a row.col rhs) and C = A * B.
template <typename In, typename Out, typename Kernel, typename Seed>
void expect_product(Kernel& kernel, std::size_t m, std::size_t n, std::size_t k, double lo, double hi, Seed seed,
                    bool rhs_k_by_n = false) {
  auto lhs = make_spandata<In>(m, k);
  auto rhs = rhs_k_by_n ? make_spandata<In>(k, n) : make_spandata<In>(n, k);
  auto out = make_spandata<Out>(m, n);
  lhs.fill_random(lo, hi, seed());
  rhs.fill_random(lo, hi, seed());
  out.fill_random(10000, 20000, seed());  // poison: every element must be written
  kernel(lhs.view(), rhs.view(), out.view());
  const std::vector<double> want = accumulated_product(lhs.data(), rhs.data(), static_cast<const Out*>(nullptr), m, n, k, rhs_k_by_n);
  for (std::size_t i = 0; i < m * n; ++i) {
    if constexpr (std::is_integral_v<Out>)
      ASSERT_EQ(out.data()[i], static_cast<Out>(want[i])) << i / n << ", " << i % n;
    else
      ASSERT_NEAR(out.data()[i], want[i], 1e-3 * (1 + std::fabs(want[i]))) << i / n << ", " << i % n;
  }
}

}  // namespace croq::test
