// Host representations of the element types.
#include <gtest/gtest.h>

#include <cmath>

#include "croq/dtype.hpp"

namespace croq {
namespace {

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(DType::f8_e5m2); ++i) {
    DType t = static_cast<DType>(i), parsed{};
    ASSERT_TRUE(parse_dtype(dtype_name(t), parsed)) << dtype_name(t);
    EXPECT_EQ(parsed, t);
  }
  DType out{};
  EXPECT_FALSE(parse_dtype("int", out));
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(dtype_size(DType::f8_e4m3), 1u);
  EXPECT_EQ(dtype_size(DType::s64), 8u);
  EXPECT_EQ(dtype_of_v<s32>, DType::s32);
  EXPECT_EQ(dtype_of_v<bf16>, DType::bf16);
}

TEST(DType, HalfConversions) {
  EXPECT_EQ(f16(1.0f).bits, 0x3c00);
  EXPECT_EQ(f16(-2.0f).bits, 0xc000);
  EXPECT_EQ(f16(65504.0f).bits, 0x7bff);    // largest finite
  EXPECT_EQ(f16(65536.0f).bits, 0x7c00);    // rounds to inf
  EXPECT_EQ(f16(5.9604645e-8f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(f16(1.0f + 1.0f / 2048).bits, 0x3c00);  // tie rounds to even
  EXPECT_EQ(f16(1.0f + 3.0f / 2048).bits, 0x3c02);
  EXPECT_TRUE(std::isnan(static_cast<float>(f16(NAN))));
  for (float v : {0.0f, 0.5f, -3.25f, 1024.0f, 0.000123f})
    EXPECT_NEAR(static_cast<float>(f16(v)), v, std::fabs(v) / 1024 + 1e-7f) << v;
}

TEST(DType, BFloat16Conversions) {
  EXPECT_EQ(bf16(1.0f).bits, 0x3f80);
  EXPECT_EQ(static_cast<float>(bf16(3.0f)), 3.0f);
  EXPECT_EQ(bf16(1.00390625f).bits, 0x3f80);  // tie rounds to even
  EXPECT_EQ(bf16(1.01171875f).bits, 0x3f82);
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16(NAN))));
}

TEST(DType, Float8Conversions) {
  EXPECT_EQ(f8_e4m3(1.0f).bits, 0x38);
  EXPECT_EQ(f8_e4m3(448.0f).bits, 0x7e);     // largest finite
  EXPECT_EQ(f8_e4m3(10000.0f).bits, 0x7e);   // saturates: e4m3 has no inf
  EXPECT_EQ(static_cast<float>(f8_e4m3(-0.5f)), -0.5f);
  EXPECT_TRUE(std::isnan(static_cast<float>(f8_e4m3(NAN))));
  EXPECT_EQ(f8_e5m2(1.0f).bits, 0x3c);
  EXPECT_EQ(f8_e5m2(57344.0f).bits, 0x7b);   // largest finite
  EXPECT_TRUE(std::isinf(static_cast<float>(f8_e5m2(1e9f))));
  EXPECT_EQ(static_cast<float>(f8_e4m3(0.001953125f)), 0.001953125f);  // smallest subnormal 2^-9
}

}  // namespace
}  // namespace croq
