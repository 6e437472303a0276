// Interpret mode: unannotated nested parallel levels, inferred as a block,
// warpgroups, warps and lanes, against the host references
// (tests/common/inferred_levels_kernel.hpp; the GPU runs the same kernels in
// tests/gpu/inferred_levels_gpu_test.cpp).
#include <gtest/gtest.h>

#include "common/inferred_levels_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretInferredLevels, BlockWarpAndLaneLevelsMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kInferredLevelsKernel);
  auto a = croq::make_spandata<croq::s32>(3, 4, 32);
  a.fill_random(-1000, 1000, 11);
  auto out = croq::make_spandata<croq::s32>(3, 4, 32);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::inferred_levels_mismatch(a.data(), out.data()), "");
}

TEST(InterpretInferredLevels, WarpgroupWarpAndLaneLevelsMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kFourInferredLevelsKernel);
  auto a = croq::make_spandata<croq::s32>(2, 2, 4, 32);
  a.fill_random(-1000, 1000, 13);
  auto out = croq::make_spandata<croq::s32>(2, 2, 4, 32);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::four_inferred_levels_mismatch(a.data(), out.data()), "");
}

}  // namespace
