// Interpret mode runs tile IR, not C++: a kernel that calls a __device__
// function stops at the call with an error naming it and its Croqtile line
// (the same kernels run on the GPU in tests/gpu/device_call_cxx_gpu_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "common/device_call_cxx_kernels.hpp"
#include "interp/broken_ir.hpp"
#include "interp_test_util.hpp"

namespace {

TEST(InterpretDeviceFunctionCall, ACallOfCxxCodeIsAnErrorAtItsLine) {
  croq::Kernel k = croq::test::interpreted(croq::test::kDeviceAddRows);
  auto lhs = croq::make_spandata<croq::f32>(6, 17, 128);
  auto rhs = croq::make_spandata<croq::f32>(6, 17, 128);
  auto out = croq::make_spandata<croq::f32>(6, 17, 128);
  std::string text;
  const int line = croq::test::interpret_error_line([&] { k(lhs.view(), rhs.view(), out.view()); }, text);
  EXPECT_EQ(line, 12) << text;
  EXPECT_NE(text.find("interpret mode cannot run C++: `call add_rows` calls a __device__ function; run this kernel "
                      "on the GPU, or write the function in Croqtile as a __co_device__ function"),
            std::string::npos)
      << text;
}

TEST(InterpretDeviceFunctionCall, AValueOfCxxCodeIsAnErrorToo) {
  croq::Kernel k = croq::test::interpreted(croq::test::kDeviceValues);
  auto x = croq::make_spandata<croq::f32>(256);
  auto codes = croq::make_spandata<croq::s32>(256);
  auto scaled = croq::make_spandata<croq::f32>(256);
  auto clamped = croq::make_spandata<croq::s32>(256);
  std::string text;
  const int line = croq::test::interpret_error_line(
      [&] { k(x.view(), codes.view(), scaled.view(), clamped.view()); }, text);
  EXPECT_EQ(line, 9) << text;
  EXPECT_NE(text.find("`call weighted`"), std::string::npos) << text;
}

TEST(InterpretDeviceFunctionCall, AnIntrinsicIsCxxCodeToo) {
  croq::Kernel k = croq::test::interpreted(croq::test::kIntrinsicCalls);
  auto x = croq::make_spandata<croq::f32>(256);
  auto y = croq::make_spandata<croq::f32>(256);
  std::string text;
  const int line = croq::test::interpret_error_line([&] { k(x.view(), y.view()); }, text);
  EXPECT_EQ(line, 17) << text;
  EXPECT_NE(text.find("`call hw_scale`"), std::string::npos) << text;
}

}  // namespace
