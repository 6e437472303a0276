// Interpret mode: rebinding, `++`/`--` inside expressions, `yield` and
// `select` (tests/common/value_kernels.hpp) against their host references
// (the GPU runs the same kernels in tests/gpu/value_gpu_test.cpp), and the
// faults only the interpreter can report: a select factor out of range, a
// thread that yields before a barrier the others wait at.
#include <gtest/gtest.h>

#include <string>

#include "common/value_kernels.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretValues, RebindingUpdatesAndYieldMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kValueUpdatesKernel);
  auto input = croq::make_spandata<croq::s32>(4, 64);
  input.fill_random(-200, 1000, 11);
  auto sums = croq::make_spandata<croq::s32>(4, 64);
  auto steps = croq::make_spandata<croq::s32>(4, 64);
  sums.fill(-9);
  steps.fill(-9);
  k(input.view(), sums.view(), steps.view());
  int yielded = 0;
  for (std::size_t i = 0; i < 4 * 64; ++i) {
    const std::int32_t x = input.data()[i];
    if (x < 0) {  // the thread left the kernel: the host's values stay
      ++yielded;
      ASSERT_EQ(sums.data()[i], -9) << "element " << i;
      ASSERT_EQ(steps.data()[i], -9) << "element " << i;
      continue;
    }
    const croq::test::ValueUpdatesResult want = croq::test::value_updates_reference(x);
    ASSERT_EQ(sums.data()[i], want.sum) << "element " << i << ", input " << x;
    ASSERT_EQ(steps.data()[i], want.steps) << "element " << i << ", input " << x;
  }
  EXPECT_GT(yielded, 0) << "the random input has no negative value: yield went untested";
  EXPECT_LT(yielded, 4 * 64);
}

TEST(InterpretValues, SelectAmongTilesAndFuturesMatchesTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kValueSelectKernel);
  auto a = croq::make_spandata<croq::f32>(8, 64);
  auto b = croq::make_spandata<croq::f32>(8, 64);
  a.fill_random(-4, 4, 5);
  b.fill_random(-4, 4, 6);
  auto picked = croq::make_spandata<croq::f32>(8, 64);
  auto again = croq::make_spandata<croq::f32>(8, 64);
  auto locals = croq::make_spandata<croq::f32>(8, 64);
  picked.fill(-99.0f);
  again.fill(-99.0f);
  locals.fill(-99.0f);
  k(a.view(), b.view(), picked.view(), again.view(), locals.view());
  croq::test::check_value_select(a.data(), b.data(), picked.data(), again.data(), locals.data(),
                                 [](float got, float want, const char* what, std::size_t p, std::size_t t) {
                                   ASSERT_EQ(got, want) << what << ", block " << p << ", thread " << t;
                                 });
}

// A factor past the operands stops the kernel at the select's line.
TEST(InterpretValues, SelectFactorOutOfRangeIsReportedAtItsLine) {
  croq::Kernel k = croq::test::interpreted(R"(__co__ void f(f32 [8, 64] a, f32 [8, 64] out) {
  parallel p by 8 : block {
    shared f32 [1, 64] x0, x1;
    dma.copy a.chunkat(p, _) => x0;
    dma.copy a.chunkat(p, _) => x1;
    s = select(p, x0, x1);
    parallel t by 64 : thread {
      out.at(p, t) = s.at(0, t);
    }
  }
}
)");
  auto a = croq::make_spandata<croq::f32>(8, 64);
  auto out = croq::make_spandata<croq::f32>(8, 64);
  try {
    k(a.view(), out.view());
    FAIL() << "the select factor out of range was not reported";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), 6) << e.what();
    EXPECT_NE(std::string(e.what()).find("assertion failed"), std::string::npos) << e.what();
  }
}

// A thread that yields leaves the others waiting at the barrier after it.
TEST(InterpretValues, YieldBeforeABarrierIsReported) {
  croq::Kernel k = croq::test::interpreted(R"(__co__ void f(s32 [64] a, s32 [64] out) {
  parallel b by 1 : block {
    parallel t by 64 : thread {
      if (t == 7) {
        yield;
      }
      sync.barrier : block;
      out.at(t) = a.at(t);
    }
  }
}
)");
  auto a = croq::make_spandata<croq::s32>(64);
  auto out = croq::make_spandata<croq::s32>(64);
  try {
    k(a.view(), out.view());
    FAIL() << "the yield before a barrier was not reported";
  } catch (const croq::InterpretError& e) {
    EXPECT_NE(std::string(e.what()).find("thread 7 finished without reaching it"), std::string::npos) << e.what();
  }
}

}  // namespace
