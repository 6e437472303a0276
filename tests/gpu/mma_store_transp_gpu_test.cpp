// A warpgroup's accumulator stored transposed (`mma.store.transp`) on the
// GPU (tests/common/mma_store_transp_sources.hpp): through a shared tile and
// TMA, and straight into global tiles with tails, against a double host
// reference on fresh random data, the output poisoned first.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/mma_store_transp_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

void expect_transposed_product(bool through_shared, std::size_t M, std::size_t N, std::size_t K, std::uint64_t seed) {
  SCOPED_TRACE(std::string(through_shared ? "through shared memory" : "into global memory") + ", M " +
               std::to_string(M) + " N " + std::to_string(N) + " K " + std::to_string(K));
  CompileOptions options;
  options.source_name = "matmul_t.co";
  Kernel k = compile(test::transposed_store_source(through_shared), options);
  auto lhs = make_spandata<f16>(M, K);
  auto rhs = make_spandata<f16>(N, K);
  auto out = make_spandata<f16>(N, M);
  lhs.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);
  k(lhs.view(), rhs.view(), out.view());
  std::size_t wrong = 0;
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t i = 0; i < M; ++i) {
      double want = 0;
      for (std::size_t x = 0; x < K; ++x)
        want += static_cast<double>(static_cast<float>(lhs.data()[i * K + x])) * static_cast<float>(rhs.data()[j * K + x]);
      const double got = static_cast<float>(out.data()[j * M + i]);
      if (std::fabs(got - want) > 2e-2 * (1 + std::fabs(want)) && wrong++ < 8)
        ADD_FAILURE() << "out[" << j << "][" << i << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(wrong, 0u);
}

TEST(TransposedStoreGpu, ThroughASharedTileAndTma) {
  CROQ_REQUIRE_HOPPER("a TMA and WGMMA kernel");
  expect_transposed_product(true, 384, 384, 128, 31);
  expect_transposed_product(true, 256, 512, 256, 34);
}

TEST(TransposedStoreGpu, IntoGlobalTilesWithTails) {
  CROQ_REQUIRE_HOPPER("a TMA and WGMMA kernel");
  expect_transposed_product(false, 384, 384, 128, 41);
  expect_transposed_product(false, 300, 200, 136, 44);
}

}  // namespace
}  // namespace croq
