// Interpret mode runs kernels with a `: cluster` level: the rank of each
// block in its cluster and the blocks' indices (tests/common/cluster_sources.hpp),
// and the GEMM whose row tiles pair into clusters, against host references.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/cluster_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

TEST(InterpretCluster, EveryBlockKnowsItsRankInItsCluster) {
  for (std::int64_t cluster : {1, 2, 4, 8}) {
    SCOPED_TRACE("clusters of " + std::to_string(cluster));
    croq::Kernel k = interpreted(croq::test::cluster_ids_source(cluster));
    const std::int64_t blocks = cluster * 3 - (cluster > 1), threads = 8;  // a last cluster not full
    auto out = croq::make_spandata<croq::s32>(blocks, threads);
    out.fill(-7);
    k(out.view());
    for (std::int64_t b = 0; b < blocks; ++b)
      for (std::int64_t t = 0; t < threads; ++t)
        ASSERT_EQ(out[b][t], b * 1000 + (b % cluster) * 100 + t) << b << ", " << t;
  }
}

TEST(InterpretCluster, MultiIndexLevelsTileTheFirstBlockIndex) {
  croq::Kernel k = interpreted(croq::test::kClusterIds2d);
  auto out = croq::make_spandata<croq::s32>(8, 3, 4);
  out.fill(-7);
  k(out.view());
  for (std::int64_t bx = 0; bx < 8; ++bx)
    for (std::int64_t by = 0; by < 3; ++by)
      for (std::int64_t t = 0; t < 4; ++t) {
        const std::int64_t rank = bx % 4;
        ASSERT_EQ(out[bx][by][t], (rank / 2) * 1000000 + (rank % 2) * 100000 + bx * 1000 + by * 100 + t)
            << bx << ", " << by << ", " << t;
      }
}

TEST(InterpretCluster, GemmInTwoBlockClustersMatchesTheHost) {
  croq::Kernel k = interpreted(croq::test::cluster_gemm_source(false));
  // M = 150: three row tiles, rounded up to whole clusters (the fourth runs nothing).
  const std::size_t M = 150, N = 136, K = 72;
  auto lhs = croq::make_spandata<croq::f16>(M, K);
  auto rhs = croq::make_spandata<croq::f16>(N, K);
  auto out = croq::make_spandata<croq::f16>(M, N);
  lhs.fill_random(-1, 1, 5);
  rhs.fill_random(-1, 1, 6);
  out.fill_random(1e4, 2e4, 7);
  k(lhs.view(), rhs.view(), out.view());
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double want = 0;
      for (std::size_t x = 0; x < K; ++x) want += static_cast<double>(static_cast<float>(lhs.data()[i * K + x])) *
                                                   static_cast<float>(rhs.data()[j * K + x]);
      ASSERT_NEAR(static_cast<float>(out.data()[i * N + j]), want, 2e-2 * (1 + std::fabs(want))) << i << ", " << j;
    }
}

}  // namespace
