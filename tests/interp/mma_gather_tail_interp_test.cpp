// Interpret mode: warp mma operands gathered straight from global memory on
// shapes with tails (tests/common/mma_gather_tail_sources.hpp and the block
// of one warp of tests/common/mma_block_warp_sources.hpp) against the host's
// product over the tensors: the tail tiles read 0 past the tensors' edges,
// where the interpreter would report a read out of bounds.
#include <gtest/gtest.h>

#include "common/mma_block_warp_sources.hpp"
#include "common/mma_gather_tail_sources.hpp"
#include "common/product_check.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

// 61, 62, 63, ...: fixed seeds, one per filled tensor.
struct Seeds {
  unsigned next = 61;
  unsigned operator()() { return next++; }
};

TEST(InterpretGatherTail, F16BlockOfOneWarpReadsZeroPastTheEdges) {
  croq::Kernel k = croq::test::interpreted(croq::test::kBlockWarpGemm);
  croq::test::expect_product<croq::f16, float>(k, 45, 21, 37, -1, 1, Seeds{});
}

TEST(InterpretGatherTail, S8BlockOfOneWarpIsExactOnTails) {
  croq::Kernel k = croq::test::interpreted(croq::test::kBlockWarpIntegerGemm);
  croq::test::expect_product<croq::s8, croq::s32>(k, 37, 19, 70, -128, 127, Seeds{});
}

TEST(InterpretGatherTail, RowColWarpsReadZeroPastTheEdges) {
  croq::Kernel k = croq::test::interpreted(croq::test::kGatherTailRowCol);
  croq::test::expect_product<croq::f16, float>(k, 45, 21, 37, -1, 1, Seeds{}, true);
  // A K smaller than one tile, and shapes without tails.
  croq::test::expect_product<croq::f16, float>(k, 17, 9, 5, -1, 1, Seeds{}, true);
  croq::test::expect_product<croq::f16, float>(k, 64, 32, 48, -1, 1, Seeds{}, true);
}

}  // namespace
