// Interpret mode: unannotated nested parallel levels, inferred as a block, a
// level of warps and their lanes, against the host reference
// (tests/common/inferred_levels_kernel.hpp; the GPU runs the same kernel in
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
  for (int b = 0; b < 3; ++b)
    for (int w = 0; w < 4; ++w)
      for (int t = 0; t < 32; ++t)
        ASSERT_EQ(out.data()[(b * 4 + w) * 32 + t], croq::test::inferred_levels_reference(a.data(), b, w, t))
            << "b " << b << ", w " << w << ", t " << t;
}

TEST(InterpretInferredLevels, WarpgroupWarpAndLaneLevelsMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kFourInferredLevelsKernel);
  auto a = croq::make_spandata<croq::s32>(2, 2, 4, 32);
  a.fill_random(-1000, 1000, 13);
  auto out = croq::make_spandata<croq::s32>(2, 2, 4, 32);
  out.fill(-7);
  k(a.view(), out.view());
  for (int b = 0; b < 2; ++b)
    for (int g = 0; g < 2; ++g)
      for (int w = 0; w < 4; ++w)
        for (int t = 0; t < 32; ++t)
          ASSERT_EQ(out.data()[((b * 2 + g) * 4 + w) * 32 + t],
                    croq::test::four_inferred_levels_reference(a.data(), b, g, w, t))
              << "b " << b << ", g " << g << ", w " << w << ", t " << t;
}

}  // namespace
