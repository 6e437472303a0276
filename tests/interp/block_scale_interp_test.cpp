// Interpret mode: mma.scale and mma.row.row.scale (tests/common/block_scale_sources.hpp's
// block-scaled fp8 GEMM: per-row lhs scales and per-128-column rhs scales
// for each 128-wide K block) against the host's scaled product.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "interp/interp_test_util.hpp"
#include "common/block_scale_sources.hpp"
#include "croq/croq.hpp"

namespace {

// The kernel on [M, 256] x [128, 256]^T with random inputs and scales and a
// poisoned output, against the host's scaled product.
void expect_scaled_product(const std::string& source, std::size_t M) {
  croq::Kernel k = croq::test::interpreted(source);
  const std::size_t N = 128, K = 256, KB = K / 128, NB = 1;
  auto lhs = croq::make_spandata<croq::f8_e4m3>(M, K);
  auto rhs = croq::make_spandata<croq::f8_e4m3>(N, K);
  auto scale_lhs = croq::make_spandata<croq::f32>(M, KB);
  auto scale_rhs = croq::make_spandata<croq::f32>(NB, KB);
  auto out = croq::make_spandata<croq::f32>(M, N);
  lhs.fill_random(-2.0f, 2.0f, 21);
  rhs.fill_random(-2.0f, 2.0f, 22);
  scale_lhs.fill_random(0.5f, 2.0f, 23);
  scale_rhs.fill_random(0.5f, 2.0f, 24);
  out.fill_random(1e4, 2e4, 25);  // poison: every element must be written
  k(lhs.view(), scale_lhs.view(), rhs.view(), scale_rhs.view(), out.view());
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double want = 0;
      for (std::size_t kb = 0; kb < KB; ++kb) {
        double block = 0;
        for (std::size_t x = kb * 128; x < kb * 128 + 128; ++x)
          block += static_cast<double>(static_cast<float>(static_cast<croq::f8_e4m3>(lhs[i][x]))) *
                   static_cast<float>(static_cast<croq::f8_e4m3>(rhs[j][x]));
        want += block * static_cast<float>(scale_lhs[i][kb]) * static_cast<float>(scale_rhs[j / 128][kb]);
      }
      ASSERT_NEAR(static_cast<float>(out[i][j]), want, 1e-4 * (1 + std::fabs(want))) << i << ", " << j;
    }
}

TEST(InterpretBlockScale, ScaledFp8GemmMatchesTheHost) {
  expect_scaled_product(croq::test::block_scaled_gemm_source(), 64);
}

// mma.row.row.scale (the scales of both sides on each multiply), with a
// tail block in M.
TEST(InterpretBlockScale, RowScaledMmaMatchesTheHost) {
  expect_scaled_product(croq::test::block_scaled_gemm_source("f32", true), 72);
}

}  // namespace
