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

// C = A * B^T of `k` on random f16 data with a poisoned C, against a double reference.
void expect_gemm(croq::Kernel& k, std::size_t M, std::size_t N, std::size_t K) {
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

TEST(InterpretCluster, GemmInTwoBlockClustersMatchesTheHost) {
  croq::Kernel k = interpreted(croq::test::cluster_gemm_source(false));
  expect_gemm(k, 150, 136, 72);  // three row tiles, rounded up to whole clusters (the fourth runs nothing)
}

TEST(InterpretCluster, MulticastRhsTilesMatchTheHost) {
  croq::Kernel k = interpreted(croq::test::cluster_gemm_source(true, true));
  expect_gemm(k, 150, 136, 72);
}

TEST(InterpretCluster, WarpSpecializedGemmWithMulticastAndClusterTriggers) {
  croq::Kernel k = interpreted(croq::test::kClusterWsGemm);
  expect_gemm(k, 192, 256, 256);  // three row tiles: the second cluster has one block that runs
}

// A `.multicast` tile indexed by what differs inside a cluster (the row
// tile): Croqtile would give every block the first block's tile.
TEST(InterpretCluster, MulticastOfTilesThatDifferInTheClusterIsAnError) {
  std::string source = croq::test::cluster_gemm_source(false);
  const std::string plain = "a = tma.copy.swiz<128>";
  source.replace(source.find(plain), plain.size(), "a = tma.copy.multicast.swiz<128>");
  croq::Kernel k = interpreted(source);
  auto lhs = croq::make_spandata<croq::f16>(128, 64);
  auto rhs = croq::make_spandata<croq::f16>(128, 64);
  auto out = croq::make_spandata<croq::f16>(128, 128);
  lhs.fill_random(-1, 1, 1);
  rhs.fill_random(-1, 1, 2);
  try {
    k(lhs.view(), rhs.view(), out.view());
    FAIL() << "expected an InterpretError";
  } catch (const croq::InterpretError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "the blocks of a cluster load different tiles with `.multicast`: block 1 (rank 1) loads the box at "
                  "(64, 0), the cluster's first block the box at (0, 0); a multicast tile is the first block's in every "
                  "block: index it by what the cluster's blocks share"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(":10:"), std::string::npos) << e.what();  // the copy's line
  }
}

}  // namespace
