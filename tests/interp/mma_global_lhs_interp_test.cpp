// Interpret mode: a warpgroup's mma.load of a global tile as the register
// lhs of an RS-mode WGMMA (each thread reads its fragment's elements from
// global memory, those past the tensor's edge as 0): C = A Bᵀ on random f16
// data, with and without tails in M, N and K, the output poisoned first,
// against the double-precision host product (samples/gemm_check.hpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "common/fragment_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"
#include "../../samples/gemm_check.hpp"

namespace {

void expect_product(int m, int n, int k, std::uint64_t seed) {
  croq::Kernel kernel = croq::test::interpreted(croq::test::kRsGemmFromGlobalLhs);
  auto lhs = croq::make_spandata<croq::f16>(m, k);
  auto rhs = croq::make_spandata<croq::f16>(n, k);
  auto out = croq::make_spandata<float>(m, n);
  lhs.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);  // poison: every element must be written
  kernel(lhs.view(), rhs.view(), out.view());
  const GemmCheck check = check_gemm(lhs, rhs, out);
  EXPECT_TRUE(check.passed()) << describe(check);
  EXPECT_LT(check.relative_error, 1e-5) << "f16 products accumulate in f32: " << describe(check);
}

TEST(InterpretMmaGlobalLhs, WholeTilesMatchTheHostProduct) { expect_product(128, 128, 128, 41); }

TEST(InterpretMmaGlobalLhs, TailsInEveryDimReadZeroPastTheEdge) { expect_product(100, 72, 88, 44); }

}  // namespace
