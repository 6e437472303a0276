// Interpret mode: calls of __co_device__ functions (as statements and as
// values) against the host reference (tests/common/device_call_kernel.hpp;
// the GPU runs the same kernel in tests/gpu/device_call_gpu_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/device_call_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretDeviceCall, StatementAndValueCallsMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kDeviceCallKernel);
  auto x = croq::make_spandata<croq::f32>(8, 32);
  x.fill_random(-4, 4, 11);
  auto w = croq::make_spandata<croq::f32>(32);
  w.fill_random(-2, 2, 12);
  auto codes = croq::make_spandata<croq::s32>(8, 32);
  codes.fill_random(-100, 100, 13);
  auto scaled = croq::make_spandata<croq::f32>(8, 32);
  auto clamped = croq::make_spandata<croq::s32>(8, 32);
  auto dots = croq::make_spandata<croq::f32>(8);
  scaled.fill(-7);
  clamped.fill(-7);
  dots.fill(-7);
  k(x.view(), w.view(), codes.view(), scaled.view(), clamped.view(), dots.view());
  croq::test::expect_device_call_results(x.data(), w.data(), codes.data(), scaled.data(), clamped.data(), dots.data());
}

// A tensor argument binds the function's dims: two calls with different
// extents expand the body twice, each with its own.
TEST(InterpretDeviceCall, EachCallBindsTheDimsOfItsArguments) {
  croq::Kernel k = croq::test::interpreted(R"(__co_device__ s32 total(s32 [N] v) {
  mutable s32 sum = 0;
  foreach i in [N] {
    sum += v.at(i);
  }
  return sum;
}

__co__ void sums(s32 [16] a, s32 [40] b, s32 [2] out) {
  parallel p by 1 : block {
    parallel t by 1 : thread {
      out.at(0) = call total(a);
      out.at(1) = call total(b) + call total(a);
    }
  }
}
)");
  auto a = croq::make_spandata<croq::s32>(16);
  auto b = croq::make_spandata<croq::s32>(40);
  a.fill_random(-100, 100, 5);
  b.fill_random(-100, 100, 6);
  auto out = croq::make_spandata<croq::s32>(2);
  k(a.view(), b.view(), out.view());
  std::int32_t sa = 0, sb = 0;
  for (int i = 0; i < 16; ++i) sa += a.data()[i];
  for (int i = 0; i < 40; ++i) sb += b.data()[i];
  EXPECT_EQ(out.data()[0], sa);
  EXPECT_EQ(out.data()[1], sb + sa);
}

// A TMA copy in a called function copies the tile, as written at the call.
TEST(InterpretDeviceCall, ATmaCopyInACalledFunctionCopiesTheTile) {
  croq::Kernel k = croq::test::interpreted(croq::test::kDeviceCallTmaKernel);
  auto a = croq::make_spandata<croq::f16>(64, 64);
  a.fill_random(-1, 1, 31);
  auto b = croq::make_spandata<croq::f16>(64, 64);
  b.fill(0);
  k(a.view(), b.view());
  for (std::size_t i = 0; i < 64 * 64; ++i) ASSERT_EQ(float(b.data()[i]), float(a.data()[i])) << i;
}

}  // namespace
