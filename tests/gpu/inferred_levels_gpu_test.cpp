// Unannotated nested parallel levels (inferred as a block, a level of warps
// and their lanes) on a real device, against the host reference (the
// interpreter runs the same kernel in tests/interp/inferred_levels_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/inferred_levels_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuInferredLevels, BlockWarpAndLaneLevelsMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kInferredLevelsKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto a = make_spandata<s32>(3, 4, 32);
    a.fill_random(-1000, 1000, test::next_seed());
    auto out = make_spandata<s32>(3, 4, 32);
    out.fill(-7);
    k(a.view(), out.view());
    for (int b = 0; b < 3; ++b)
      for (int w = 0; w < 4; ++w)
        for (int t = 0; t < 32; ++t)
          ASSERT_EQ(out.data()[(b * 4 + w) * 32 + t], test::inferred_levels_reference(a.data(), b, w, t))
              << "b " << b << ", w " << w << ", t " << t;
  }
}

TEST(GpuInferredLevels, WarpgroupWarpAndLaneLevelsMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kFourInferredLevelsKernel);
  auto a = make_spandata<s32>(2, 2, 4, 32);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(2, 2, 4, 32);
  out.fill(-7);
  k(a.view(), out.view());
  for (int b = 0; b < 2; ++b)
    for (int g = 0; g < 2; ++g)
      for (int w = 0; w < 4; ++w)
        for (int t = 0; t < 32; ++t)
          ASSERT_EQ(out.data()[((b * 2 + g) * 4 + w) * 32 + t], test::four_inferred_levels_reference(a.data(), b, g, w, t))
              << "b " << b << ", g " << g << ", w " << w << ", t " << t;
}

}  // namespace
}  // namespace croq
