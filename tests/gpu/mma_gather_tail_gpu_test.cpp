// Warp mma operands gathered straight from global memory on shapes with
// tails, on a real GPU (tests/common/mma_gather_tail_sources.hpp and the
// block of one warp of tests/common/mma_block_warp_sources.hpp): fresh
// random inputs, a poisoned output, compared with the host's product in
// double; the tail tiles read 0 past the tensors' edges (no read past them),
// for the device's arch and compute_80 PTX.
#include <gtest/gtest.h>

#include "both_archs.hpp"
#include "common/mma_block_warp_sources.hpp"
#include "common/mma_gather_tail_sources.hpp"
#include "common/product_check.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GatherTailGpu, F16BlockOfOneWarpOnTails) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync m16n8k16 needs sm_80 or newer";
  for (Kernel& kernel : test::both_archs(test::kBlockWarpGemm, "block_warp.co"))
    test::expect_product<f16, float>(kernel, 205, 117, 91, -1, 1, test::next_seed);
}

TEST(GatherTailGpu, S8BlockOfOneWarpOnTailsIsExact) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync s8 needs sm_80 or newer";
  for (Kernel& kernel : test::both_archs(test::kBlockWarpIntegerGemm, "block_warp_s8.co"))
    test::expect_product<s8, s32>(kernel, 77, 43, 101, -128, 127, test::next_seed);
}

TEST(GatherTailGpu, RowColWarpsOnTails) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync m16n8k16 needs sm_80 or newer";
  for (Kernel& kernel : test::both_archs(test::kGatherTailRowCol, "gather_tail.co")) {
    test::expect_product<f16, float>(kernel, 205, 117, 91, -1, 1, test::next_seed, true);
    test::expect_product<f16, float>(kernel, 17, 9, 5, -1, 1, test::next_seed, true);
  }
}

}  // namespace
}  // namespace croq
