// Calls of C++ functions the source defines (__device__, __cok__) on a real
// device: fresh random inputs each trial, outputs poisoned before the
// launch, results against a host reference. Interpret mode cannot run C++
// (tests/interp/device_call_cxx_interp_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/device_call_cxx_kernels.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuDeviceFunctionCall, TheProgramStructureExampleAddsTilesThroughADeviceFunction) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kDeviceAddRows);
  for (int trial = 0; trial < 3; ++trial) {
    auto lhs = make_spandata<f32>(6, 17, 128);
    auto rhs = make_spandata<f32>(6, 17, 128);
    lhs.fill_random(-8, 8, test::next_seed());
    rhs.fill_random(-8, 8, test::next_seed());
    auto out = make_spandata<f32>(6, 17, 128);
    out.fill(-12345.0f);
    k(lhs.view(), rhs.view(), out.view());
    for (std::size_t i = 0; i < 6 * 17 * 128; ++i)
      ASSERT_EQ(out.data()[i], lhs.data()[i] + rhs.data()[i]) << "trial " << trial << ", element " << i;
  }
}

TEST(GpuDeviceFunctionCall, ATemplateFunctionOfACokBlockTakesATypeAndAConstant) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kDeviceTemplate);
  auto x = make_spandata<f32>(256);
  x.fill_random(-100, 100, test::next_seed());
  auto y = make_spandata<f32>(256);
  y.fill(-12345.0f);
  k(x.view(), y.view());
  for (std::size_t i = 0; i < 256; ++i) ASSERT_EQ(y.data()[i], x.data()[i] + 64.0f) << i;
}

TEST(GpuDeviceFunctionCall, ValuesOfDeviceFunctionsAreStored) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kDeviceValues);
  auto x = make_spandata<f32>(256);
  x.fill_random(-10, 10, test::next_seed());
  auto codes = make_spandata<s32>(256);
  codes.fill_random(-100, 100, test::next_seed());
  auto scaled = make_spandata<f32>(256);
  auto clamped = make_spandata<s32>(256);
  scaled.fill(-12345.0f);
  clamped.fill(-12345);
  k(x.view(), codes.view(), scaled.view(), clamped.view());
  for (std::size_t i = 0; i < 256; ++i) {
    ASSERT_EQ(scaled.data()[i], x.data()[i] * 3) << i;
    ASSERT_EQ(clamped.data()[i], std::clamp(codes.data()[i], -50, 50)) << i;
  }
}

TEST(GpuDeviceFunctionCall, IntrinsicsRunVerbatim) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kIntrinsicCalls);
  auto x = make_spandata<f32>(256);
  x.fill_random(-100, 100, test::next_seed());
  auto y = make_spandata<f32>(256);
  y.fill(-12345.0f);
  k(x.view(), y.view());
  // NVRTC may fuse the two functions' multiply and add once both are
  // inlined (--fmad is on by default, as in nvcc): one rounding or two.
  for (std::size_t i = 0; i < 256; ++i) {
    const float x_i = x.data()[i];
    const float got = y.data()[i];
    ASSERT_TRUE(got == x_i * 2.5f + 1.0f || got == std::fma(x_i, 2.5f, 1.0f)) << i << ": " << got << " from " << x_i;
  }
}

TEST(GpuDeviceFunctionCall, AccumulatorsAndFragmentsPassByReference) {
  CROQ_REQUIRE_HOPPER("WGMMA");
  Kernel k = compile(test::kRegistersByReference);
  const std::size_t m = 128, n = 256, kk = 128;
  auto lhs = make_spandata<f16>(m, kk);
  auto rhs = make_spandata<f16>(n, kk);
  lhs.fill_random(-2, 2, test::next_seed());
  rhs.fill_random(-2, 2, test::next_seed());
  auto out = make_spandata<f32>(m, n);
  out.fill(-12345.0f);
  k(lhs.view(), rhs.view(), out.view());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double ref = 1.0;  // 0.5, then twice the fragment's 0.25
      for (std::size_t q = 0; q < kk; ++q)
        ref += static_cast<double>(static_cast<float>(lhs.data()[i * kk + q])) *
               static_cast<double>(static_cast<float>(rhs.data()[j * kk + q]));
      ASSERT_NEAR(out.data()[i * n + j], ref, 1e-3 * (1.0 + std::abs(ref))) << i << ", " << j;
    }
}

}  // namespace
}  // namespace croq
