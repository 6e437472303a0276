// `break`, `continue`, `++` and `--` inside a kernel on a real device,
// against the host reference (the interpreter runs the same kernel in
// tests/interp/loop_control_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/loop_control_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuLoopControl, BreakContinueIncrementAndDecrementMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kLoopControlKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto input = make_spandata<s32>(4, 64);
    input.fill_random(0, 1000, test::next_seed());
    auto sums = make_spandata<s32>(4, 64);
    auto steps = make_spandata<s32>(4, 64);
    auto pairs = make_spandata<s32>(4, 64);
    sums.fill(-9);
    steps.fill(-9);
    pairs.fill(-9);
    k(input.view(), sums.view(), steps.view(), pairs.view());
    for (std::size_t i = 0; i < 4 * 64; ++i) {
      const test::LoopControlResult want = test::loop_control_reference(input.data()[i]);
      ASSERT_EQ(sums.data()[i], want.sum) << "element " << i << ", input " << input.data()[i];
      ASSERT_EQ(steps.data()[i], want.steps) << "element " << i << ", input " << input.data()[i];
      ASSERT_EQ(pairs.data()[i], want.pairs) << "element " << i;
    }
  }
}

}  // namespace
}  // namespace croq
