// Calls of __co_device__ functions on a real device, against the host
// reference (the interpreter runs the same kernel in
// tests/interp/device_call_interp_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/device_call_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuDeviceCall, StatementAndValueCallsMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kDeviceCallKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto x = make_spandata<f32>(8, 32);
    x.fill_random(-4, 4, test::next_seed());
    auto w = make_spandata<f32>(32);
    w.fill_random(-2, 2, test::next_seed());
    auto codes = make_spandata<s32>(8, 32);
    codes.fill_random(-100, 100, test::next_seed());
    auto scaled = make_spandata<f32>(8, 32);
    auto clamped = make_spandata<s32>(8, 32);
    auto dots = make_spandata<f32>(8);
    scaled.fill(-7);
    clamped.fill(-7);
    dots.fill(-7);
    k(x.view(), w.view(), codes.view(), scaled.view(), clamped.view(), dots.view());
    test::expect_device_call_results(x.data(), w.data(), codes.data(), scaled.data(), clamped.data(), dots.data());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(GpuDeviceCall, ATmaCopyInACalledFunctionCopiesTheTile) {
  CROQ_REQUIRE_HOPPER("TMA");
  Kernel k = compile(test::kDeviceCallTmaKernel);
  auto a = make_spandata<f16>(64, 64);
  a.fill_random(-1, 1, test::next_seed());
  auto b = make_spandata<f16>(64, 64);
  b.fill(0);
  k(a.view(), b.view());
  for (std::size_t i = 0; i < 64 * 64; ++i) ASSERT_EQ(float(b.data()[i]), float(a.data()[i])) << i;
}

}  // namespace
}  // namespace croq
