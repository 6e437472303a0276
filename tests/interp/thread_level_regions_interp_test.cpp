// Interpret mode: inthreads.async regions of a thread level directly in the
// block, against the host reference (tests/common/thread_level_regions_kernel.hpp;
// the GPU runs the same kernel in tests/gpu/thread_level_regions_gpu_test.cpp).
#include <gtest/gtest.h>

#include "common/thread_level_regions_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretThreadLevelRegions, WarpsOfAThreadLevelHandOffThroughAnEvent) {
  croq::Kernel k = croq::test::interpreted(croq::test::kThreadLevelRegionsKernel);
  auto a = croq::make_spandata<croq::s32>(2, 128);
  a.fill_random(-1000, 1000, 23);
  auto out = croq::make_spandata<croq::s32>(2, 128);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::thread_level_regions_mismatch(a.data(), out.data()), "");
}

TEST(InterpretThreadLevelRegions, WarpsOfAWarpgroupHandOffThroughAnEvent) {
  croq::Kernel k = croq::test::interpreted(croq::test::kGroupThreadRegionsKernel);
  auto a = croq::make_spandata<croq::s32>(2, 256);
  a.fill_random(-1000, 1000, 29);
  auto out = croq::make_spandata<croq::s32>(2, 256);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::group_thread_regions_mismatch(a.data(), out.data(), -7), "");
}

}  // namespace
