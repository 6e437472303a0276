// Interpret mode: named barriers (__bar_arrive / __bar_sync) between the
// warps of a block, against the host reference
// (tests/common/named_barrier_kernel.hpp; the GPU runs the same kernel in
// tests/gpu/named_barrier_gpu_test.cpp), and what the interpreter refuses.
#include <gtest/gtest.h>

#include <string>

#include "common/named_barrier_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

TEST(InterpretNamedBarrier, TwoWarpsHandATileBackAndForth) {
  croq::Kernel k = interpreted(croq::test::kNamedBarrierKernel);
  auto input = croq::make_spandata<croq::f32>(4, 32);
  input.fill_random(-8, 8, 21);
  auto output = croq::make_spandata<croq::f32>(4, 32);
  output.fill(-7);
  k(input.view(), output.view());
  croq::test::expect_relayed(input.data(), output.data());
}

// Without the barrier, warp 1 reads what warp 0 writes unordered: a race.
TEST(InterpretNamedBarrier, AnArrivalWithoutItsSyncLeavesTheReadUnordered) {
  croq::Kernel k = interpreted(R"(__co__ void unordered(f32 [32] input, f32 [32] output) {
  parallel b by 1 : block {
    shared f32 [32] staged;
    parallel t by 64 : thread {
      if (t < 32) {
        staged.at(t) = input.at(t);
        __bar_arrive(1, 64);
      } else {
        __bar_arrive(1, 64);
        output.at(t - 32) = staged.at(t - 32);
      }
    }
  }
}
)");
  auto input = croq::make_spandata<croq::f32>(32);
  auto output = croq::make_spandata<croq::f32>(32);
  try {
    k(input.view(), output.view());
    FAIL() << "expected an InterpretError";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), 10) << e.what();
    EXPECT_NE(std::string(e.what()).find("race"), std::string::npos) << e.what();
  }
}

TEST(InterpretNamedBarrier, AThreadCountOverTheBlockIsRefusedAtItsLine) {
  croq::Kernel k = interpreted(R"(__co__ void too_many(f32 [64] output, int n) {
  parallel b by 1 : block {
    parallel t by 64 : thread {
      __bar_sync(1, n);
      output.at(t) = 1.0f;
    }
  }
}
)");
  auto output = croq::make_spandata<croq::f32>(64);
  try {
    k(output.view(), 96);
    FAIL() << "expected an InterpretError";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), 4) << e.what();
    EXPECT_NE(std::string(e.what()).find("the thread count of named barrier 1 is 96; it is a positive multiple of 32, "
                                         "at most the block's 64 threads"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
