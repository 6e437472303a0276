// Interpret mode: a warpgroup's accumulator stored transposed
// (tests/common/mma_store_transp_sources.hpp), through a shared tile and
// straight into a global tile with tails, against a host reference.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/mma_store_transp_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

void expect_transposed_product(bool through_shared, std::size_t M, std::size_t N, std::size_t K) {
  SCOPED_TRACE(std::string(through_shared ? "through shared memory" : "into global memory") + ", M " +
               std::to_string(M) + " N " + std::to_string(N) + " K " + std::to_string(K));
  croq::Kernel k = croq::test::interpreted(croq::test::transposed_store_source(through_shared));
  auto lhs = croq::make_spandata<croq::f16>(M, K);
  auto rhs = croq::make_spandata<croq::f16>(N, K);
  auto out = croq::make_spandata<croq::f16>(N, M);
  lhs.fill_random(-1, 1, 11);
  rhs.fill_random(-1, 1, 12);
  out.fill_random(1e4, 2e4, 13);
  k(lhs.view(), rhs.view(), out.view());
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t i = 0; i < M; ++i) {
      double want = 0;
      for (std::size_t x = 0; x < K; ++x)
        want += static_cast<double>(static_cast<float>(lhs.data()[i * K + x])) * static_cast<float>(rhs.data()[j * K + x]);
      ASSERT_NEAR(static_cast<float>(out.data()[j * M + i]), want, 2e-2 * (1 + std::fabs(want))) << "out[" << j << "][" << i << "]";
    }
}

TEST(InterpretTransposedStore, ThroughASharedTileAsCroqtileWritesIt) { expect_transposed_product(true, 128, 256, 128); }

TEST(InterpretTransposedStore, IntoGlobalTilesWithTails) {
  expect_transposed_product(false, 128, 256, 64);
  expect_transposed_product(false, 100, 150, 72);  // partial tiles both ways
}

}  // namespace
