// Interpret mode: a warpgroup's mma.load of a global tile as the register
// lhs of an RS-mode WGMMA (each thread reads its fragment's elements from
// global memory, those past the tensor's edge as 0): C = A Bᵀ on random f16
// data, with and without tails in M, N and K, the output poisoned first,
// against the double-precision host product (common/gemm_run.hpp).
#include <gtest/gtest.h>

#include "common/fragment_sources.hpp"
#include "common/gemm_run.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

void expect_product(int m, int n, int k) {
  const croq::Kernel kernel = croq::test::interpreted(croq::test::kRsGemmFromGlobalLhs);
  const GemmCheck check = croq::test::gemm_on_random_data<croq::f16, float>(kernel, m, n, k);
  EXPECT_TRUE(check.passed()) << describe(check);
  EXPECT_LT(check.relative_error, 1e-5) << "f16 products accumulate in f32: " << describe(check);
}

TEST(InterpretMmaGlobalLhs, WholeTilesMatchTheHostProduct) { expect_product(128, 128, 128); }

TEST(InterpretMmaGlobalLhs, TailsInEveryDimReadZeroPastTheEdge) { expect_product(100, 72, 88); }

}  // namespace
