// Host representations of the element types.
#include <gtest/gtest.h>

#include <cmath>

#include "croq/dtype.hpp"

namespace croq {
namespace {

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i < kDTypeCount; ++i) {
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

// Sub-byte types take a byte each in memory; their values are narrower, and
// packed densely they take `bits` per element.
TEST(DType, SubByteSizesAndBits) {
  struct Expected { DType type; const char* name; int bits; bool floating; bool is_signed; };
  const Expected all[] = {{DType::f6_e2m3, "f6_e2m3", 6, true, true}, {DType::f6_e3m2, "f6_e3m2", 6, true, true},
                          {DType::f4_e2m1, "f4_e2m1", 4, true, true}, {DType::u6, "u6", 6, false, false},
                          {DType::s6, "s6", 6, false, true},          {DType::u4, "u4", 4, false, false},
                          {DType::s4, "s4", 4, false, true},          {DType::u2, "u2", 2, false, false},
                          {DType::s2, "s2", 2, false, true},          {DType::u1, "u1", 1, false, false},
                          {DType::bin1, "bin1", 1, false, false}};
  for (const Expected& e : all) {
    DType parsed{};
    ASSERT_TRUE(parse_dtype(e.name, parsed)) << e.name;
    EXPECT_EQ(parsed, e.type) << e.name;
    EXPECT_EQ(dtype_size(e.type), 1u) << e.name;
    EXPECT_EQ(dtype_bits(e.type), e.bits) << e.name;
    EXPECT_TRUE(is_subbyte(e.type)) << e.name;
    EXPECT_EQ(is_floating(e.type), e.floating) << e.name;
    if (!e.floating) EXPECT_EQ(is_signed_integer(e.type), e.is_signed) << e.name;
  }
  EXPECT_EQ(dtype_bits(DType::f8_e4m3), 8);
  EXPECT_EQ(dtype_bits(DType::f64), 64);
  EXPECT_FALSE(is_subbyte(DType::u8));
  // Packed sizes round up to whole bytes.
  EXPECT_EQ(packed_bytes(DType::f4_e2m1, 7), 4u);
  EXPECT_EQ(packed_bytes(DType::f6_e2m3, 5), 4u);   // 30 bits
  EXPECT_EQ(packed_bytes(DType::s6, 4), 3u);        // 24 bits
  EXPECT_EQ(packed_bytes(DType::u2, 9), 3u);        // 18 bits
  EXPECT_EQ(packed_bytes(DType::bin1, 17), 3u);
  EXPECT_EQ(packed_bytes(DType::u1, 0), 0u);
  EXPECT_EQ(packed_bytes(DType::s32, 3), 12u);
  // Whole-byte groups never overflow on the way: 2^61 nibbles are 2^60 bytes.
  EXPECT_EQ(packed_bytes(DType::u4, std::size_t{1} << 61), std::size_t{1} << 60);
  // Names that are not element types stay unknown.
  DType out{};
  for (const char* name : {"u3", "bool", "float", "f8_ue5m2"}) EXPECT_FALSE(parse_dtype(name, out)) << name;
}

// tf32 and the scale types: appended after bin1 (older numbers stay),
// whole bytes, floats, computed widened on the device.
TEST(DType, Tf32AndScaleTypes) {
  struct Expected { DType type; const char* name; std::size_t size; };
  const Expected all[] = {{DType::tf32, "tf32", 4}, {DType::f8_ue8m0, "f8_ue8m0", 1}, {DType::f8_ue4m3, "f8_ue4m3", 1}};
  for (const Expected& e : all) {
    DType parsed{};
    ASSERT_TRUE(parse_dtype(e.name, parsed)) << e.name;
    EXPECT_EQ(parsed, e.type) << e.name;
    EXPECT_EQ(dtype_name(e.type), e.name);
    EXPECT_EQ(dtype_size(e.type), e.size) << e.name;
    EXPECT_EQ(dtype_bits(e.type), static_cast<int>(e.size) * 8) << e.name;
    EXPECT_FALSE(is_subbyte(e.type)) << e.name;
    EXPECT_FALSE(is_fp8(e.type)) << e.name;  // not an fp8 MMA input
    EXPECT_TRUE(is_floating(e.type)) << e.name;
    EXPECT_FALSE(is_signed_integer(e.type)) << e.name;
    EXPECT_TRUE(computes_widened(e.type)) << e.name;
    EXPECT_EQ(packed_bytes(e.type, 3), 3 * e.size) << e.name;
  }
  EXPECT_EQ(static_cast<int>(DType::bin1), 24);
  EXPECT_EQ(static_cast<int>(DType::tf32), 25);
  EXPECT_EQ(kDTypeCount, 28);
  EXPECT_EQ(sizeof(tf32), 4u);
  EXPECT_EQ(sizeof(f8_ue8m0), 1u);
  EXPECT_EQ(sizeof(f8_ue4m3), 1u);
  EXPECT_EQ(dtype_of_v<tf32>, DType::tf32);
  EXPECT_EQ(dtype_of_v<f8_ue8m0>, DType::f8_ue8m0);
  EXPECT_EQ(dtype_of_v<f8_ue4m3>, DType::f8_ue4m3);
  EXPECT_FALSE(computes_widened(DType::f32));
  EXPECT_FALSE(computes_widened(DType::bf16));
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

// The host types round ties to even as the device's cvt.rn does (normal and
// subnormal); past the largest finite f8_e5m2 is inf (IEEE, as torch and
// ml_dtypes), where a kernel's conversion saturates (tests/common/fp8_rounding_cases.hpp).
TEST(DType, Float8TiesRoundToEven) {
  EXPECT_EQ(static_cast<float>(f8_e5m2(1.125f)), 1.0f);
  EXPECT_EQ(static_cast<float>(f8_e5m2(1.375f)), 1.5f);
  EXPECT_EQ(static_cast<float>(f8_e5m2(-2.75f)), -3.0f);
  EXPECT_EQ(static_cast<float>(f8_e5m2(std::ldexp(1.5f, -16))), std::ldexp(1.0f, -15));
  EXPECT_EQ(static_cast<float>(f8_e5m2(std::ldexp(1.0f, -17))), 0.0f);
  EXPECT_EQ(static_cast<float>(f8_e4m3(1.0625f)), 1.0f);
  EXPECT_EQ(static_cast<float>(f8_e4m3(1.1875f)), 1.25f);
  EXPECT_EQ(static_cast<float>(f8_e4m3(std::ldexp(1.5f, -9))), std::ldexp(1.0f, -8));
  EXPECT_EQ(static_cast<float>(f8_e4m3(464.0f)), 448.0f);
  EXPECT_EQ(static_cast<float>(f8_e5m2(61439.0f)), 57344.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(f8_e5m2(61440.0f))));
}

}  // namespace
}  // namespace croq
