// Interpret mode: `break`, `continue`, `++` and `--` inside kernels, against
// the host reference (tests/common/loop_control_kernel.hpp; the GPU runs the
// same kernel in tests/gpu/loop_control_gpu_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "common/loop_control_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretLoopControl, BreakContinueIncrementAndDecrementMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kLoopControlKernel);
  auto input = croq::make_spandata<croq::s32>(4, 64);
  input.fill_random(0, 1000, 7);
  auto sums = croq::make_spandata<croq::s32>(4, 64);
  auto steps = croq::make_spandata<croq::s32>(4, 64);
  auto pairs = croq::make_spandata<croq::s32>(4, 64);
  sums.fill(-9);
  steps.fill(-9);
  pairs.fill(-9);
  k(input.view(), sums.view(), steps.view(), pairs.view());
  for (std::size_t i = 0; i < 4 * 64; ++i) {
    const croq::test::LoopControlResult want = croq::test::loop_control_reference(input.data()[i]);
    ASSERT_EQ(sums.data()[i], want.sum) << "element " << i << ", input " << input.data()[i];
    ASSERT_EQ(steps.data()[i], want.steps) << "element " << i << ", input " << input.data()[i];
    ASSERT_EQ(pairs.data()[i], want.pairs) << "element " << i;
  }
}

// A `break` at block scope leaves the loop for every thread of the block
// at once: the barrier inside the loop still has all of them.
TEST(InterpretLoopControl, BlockScopeBreakKeepsTheBarrierWhole) {
  croq::Kernel k = croq::test::interpreted(R"(__co__ void f(s32 [64] a, s32 [64] out) {
  parallel b by 1 : block {
    shared s32 [64] s;
    mutable s32 rounds = 0;
    foreach r in [10] {
      if (r == 3) break;
      parallel t by 64 : thread {
        s.at(t) = a.at(t) + r;
      }
      sync.barrier : block;
      parallel t by 64 : thread {
        out.at(t) = s.at((t + 1) % 64);
      }
      sync.barrier : block;
      rounds++;
    }
  }
}
)");
  auto a = croq::make_spandata<croq::s32>(64);
  a.fill_random(-100, 100, 3);
  auto out = croq::make_spandata<croq::s32>(64);
  out.fill(-1000);
  k(a.view(), out.view());
  for (int t = 0; t < 64; ++t) ASSERT_EQ(out.data()[t], a.data()[(t + 1) % 64] + 2) << "thread " << t;
}

// Only the thread-divergent case is wrong on the GPU: a thread that leaves
// a loop whose body has a barrier leaves the others waiting at it, which
// the interpreter reports at the line the thread left by.
TEST(InterpretLoopControl, DivergentBreakBeforeABarrierIsReported) {
  croq::Kernel k = croq::test::interpreted(R"(__co__ void f(s32 [64] a, s32 [64] out) {
  parallel b by 1 : block {
    parallel t by 64 : thread {
      foreach r in [4] {
        if (t == 5) break;
        sync.barrier : block;
        out.at(t) = a.at(t) + r;
      }
    }
  }
}
)");
  auto a = croq::make_spandata<croq::s32>(64);
  auto out = croq::make_spandata<croq::s32>(64);
  try {
    k(a.view(), out.view());
    FAIL() << "the divergent barrier was not reported";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), 5) << e.what();
    EXPECT_NE(std::string(e.what()).find("thread 5 finished without reaching it"), std::string::npos) << e.what();
  }
}

}  // namespace
