// A copy inside a thread level out of a shared tile the level's threads
// wrote element by element, on a real device (the barrier lowering puts
// before it; tests/interp/thread_copy_interp_test.cpp checks it for races).
#include <gtest/gtest.h>

#include "common/thread_copy_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuThreadCopy, CopyOutOfSharedWaitsForTheLevelsStores) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kThreadCopyKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto a = make_spandata<s32>(4, 2, 128);
    a.fill_random(-1000, 1000, test::next_seed());
    auto out = make_spandata<s32>(4, 2, 128);
    out.fill(-7);
    k(a.view(), out.view());
    EXPECT_EQ(test::thread_copy_mismatch(a.data(), out.data()), "");
  }
}

}  // namespace
}  // namespace croq
