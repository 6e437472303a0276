// Shared by the GEMM tests (interp, gpu): one call of a GEMM on fresh
// random data, checked against the host reference of samples/gemm_check.hpp.
#pragma once

#include "../../samples/gemm_check.hpp"
#include "common/test_seed.hpp"

namespace croq::test {

// gemm(lhs, rhs, out) for lhs [m, k], rhs [n, k] in [-1, 1) (T: their
// element type; Out: out's, T's unless given), out poisoned first; how far
// out is from lhs * rhs^T.
template <typename T, typename Out = T, typename Gemm>
GemmCheck gemm_on_random_data(const Gemm& gemm, int m, int n, int k) {
  auto lhs = croq::make_spandata<T>(m, k);
  auto rhs = croq::make_spandata<T>(n, k);
  auto out = croq::make_spandata<Out>(m, n);
  lhs.fill_random(-1, 1, next_seed());
  rhs.fill_random(-1, 1, next_seed());
  out.fill_random(1e4, 2e4, next_seed());  // poison: every element must be written
  gemm(lhs.view(), rhs.view(), out.view());
  return check_gemm(lhs, rhs, out);
}

}  // namespace croq::test
