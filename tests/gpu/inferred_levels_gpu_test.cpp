// Unannotated nested parallel levels (inferred as a block, warpgroups, warps
// and lanes) on a real device, against the host references (the interpreter
// runs the same kernels in tests/interp/inferred_levels_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/inferred_levels_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuInferredLevels, BlockWarpAndLaneLevelsMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kInferredLevelsKernel);
  auto a = make_spandata<s32>(3, 4, 32);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(3, 4, 32);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::inferred_levels_mismatch(a.data(), out.data()), "");
}

TEST(GpuInferredLevels, WarpgroupWarpAndLaneLevelsMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kFourInferredLevelsKernel);
  auto a = make_spandata<s32>(2, 2, 4, 32);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(2, 2, 4, 32);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::four_inferred_levels_mismatch(a.data(), out.data()), "");
}

}  // namespace
}  // namespace croq
