// inthreads.async regions of a thread level directly in the block on a real
// device, against the host reference (the interpreter runs the same kernel
// in tests/interp/thread_level_regions_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/thread_level_regions_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuThreadLevelRegions, WarpsOfAThreadLevelHandOffThroughAnEvent) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kThreadLevelRegionsKernel);
  auto a = make_spandata<s32>(2, 128);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(2, 128);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::thread_level_regions_mismatch(a.data(), out.data()), "");
}

TEST(GpuThreadLevelRegions, WarpsOfAWarpgroupHandOffThroughAnEvent) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kGroupThreadRegionsKernel);
  auto a = make_spandata<s32>(2, 256);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(2, 256);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::group_thread_regions_mismatch(a.data(), out.data(), -7), "");
}

}  // namespace
}  // namespace croq
