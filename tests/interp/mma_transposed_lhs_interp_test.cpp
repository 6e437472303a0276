// Interpret mode: mma.col.col and mma.col.row, a warpgroup's WGMMA whose lhs
// is a shared [K, M] tile (M contiguous, imm-trans-a): C = A B with A given
// as lhs_t [K, M] and B as [K, N] (col.col) or [N, K] (col.row), random
// f16 data on shapes with tails in M, N and K (zero-filled copies), against
// a double-precision host product.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/fragment_sources.hpp"
#include "common/staged_lhs_reference.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

void expect_product(bool rhs_n_major, int m, int n, int k, std::uint64_t seed) {
  SCOPED_TRACE(std::string(rhs_n_major ? "col.col " : "col.row ") + std::to_string(m) + " x " + std::to_string(n) +
               " x " + std::to_string(k));
  croq::Kernel kernel = croq::test::interpreted(croq::test::col_major_lhs_gemm(rhs_n_major));
  auto lhs_t = croq::make_spandata<croq::f16>(k, m);
  auto rhs = rhs_n_major ? croq::make_spandata<croq::f16>(k, n) : croq::make_spandata<croq::f16>(n, k);
  auto out = croq::make_spandata<float>(m, n);
  lhs_t.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);  // poison: every element must be written
  kernel(lhs_t.view(), rhs.view(), out.view());
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int c = 0; c < k; ++c)
        want += double(float(lhs_t.data()[c * m + i])) *
                double(float(rhs_n_major ? rhs.data()[c * n + j] : rhs.data()[j * k + c]));
      worst = std::max(worst, std::fabs(out.data()[i * n + j] - want));
    }
  EXPECT_LT(worst, 1e-3);
}

TEST(InterpretMmaTransposedLhs, ColColMatchesTheHostProduct) {
  expect_product(true, 128, 64, 128, 11);
  expect_product(true, 100, 72, 136, 14);  // tails in every dim
}

TEST(InterpretMmaTransposedLhs, ColRowMatchesTheHostProduct) {
  expect_product(false, 64, 128, 192, 21);
  expect_product(false, 72, 100, 80, 24);
}

// C = A Bᵀ staged in shared memory by mma.store (rounded to f16), then
// out = Cᵀ B reading the staged tile as the M-major lhs.
TEST(InterpretMmaTransposedLhs, StagedTileAsAnMMajorLhs) {
  croq::Kernel kernel = croq::test::interpreted(croq::test::kStagedTransposedLhs);
  auto a = croq::make_spandata<croq::f16>(64, 64);
  auto b = croq::make_spandata<croq::f16>(64, 64);
  auto out = croq::make_spandata<float>(64, 64);
  a.fill_random(-1, 1, 31);
  b.fill_random(-1, 1, 32);
  out.fill_random(1e4, 2e4, 33);
  kernel(a.view(), b.view(), out.view());
  const std::vector<double> want = croq::test::staged_lhs_reference(a, b);
  double worst = 0;
  for (std::size_t e = 0; e < want.size(); ++e)
    worst = std::max(worst, std::fabs(out.data()[e] - want[e]) / (1 + std::fabs(want[e])));
  EXPECT_LT(worst, 1e-3);
}

}  // namespace
