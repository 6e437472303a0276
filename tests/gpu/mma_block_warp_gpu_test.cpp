// A block of one warp multiplying at block scope on a real GPU
// (tests/common/mma_block_warp_sources.hpp): fresh random inputs, a poisoned
// output, compared with the host's A * B^T in double (whole tiles; tails:
// mma_gather_tail_gpu_test.cpp): f16 into f32, and s8 into s32 exactly,
// for the device's arch and compute_80 PTX.
#include <gtest/gtest.h>

#include "both_archs.hpp"
#include "common/mma_block_warp_sources.hpp"
#include "common/product_check.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(BlockWarpGpu, F16BlockOfOneWarpMatchesHostReference) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync m16n8k16 needs sm_80 or newer";
  for (Kernel& kernel : test::both_archs(test::kBlockWarpGemm, "block_warp.co"))
    test::expect_product<f16, float>(kernel, 208, 120, 96, -1, 1, test::next_seed);
}

TEST(BlockWarpGpu, S8BlockOfOneWarpIsExact) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync s8 needs sm_80 or newer";
  for (Kernel& kernel : test::both_archs(test::kBlockWarpIntegerGemm, "block_warp_s8.co"))
    test::expect_product<s8, s32>(kernel, 80, 40, 128, -128, 127, test::next_seed);
}

}  // namespace
}  // namespace croq
