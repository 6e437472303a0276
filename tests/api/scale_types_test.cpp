// Host conversions of tf32 and the block-scale types (croq/dtype.hpp):
// every code round-trips, and conversions from float round, saturate and
// treat signs, zeros and NaN as documented. Where the CUDA headers have
// __nv_fp8_e8m0, its host conversion is the reference for f8_ue8m0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <cuda.h>
#include <cuda_fp8.h>

#include "croq/croq.hpp"

namespace croq {
namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Floats near every interesting point: each format's codes' values and
// their midpoints with the floats beside them, zeros, subnormals,
// infinities, NaN and random values of many magnitudes.
std::vector<float> probes() {
  std::vector<float> out = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, INFINITY, -INFINITY, NAN, -NAN,
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 448.0f, 464.0f,
                            480.0f, 1e30f};
  for (unsigned code = 0; code < 0x7f; ++code) {
    f8_ue4m3 lo, hi;
    lo.bits = static_cast<std::uint8_t>(code);
    hi.bits = static_cast<std::uint8_t>(code + 1);
    const float mid = code + 1 < 0x7f ? (float(lo) + float(hi)) / 2 : float(lo) + 16;
    out.insert(out.end(), {float(lo), -float(lo), mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)});
  }
  for (int e = -150; e <= 128; ++e) {
    const float p = std::ldexp(1.0f, e);
    out.insert(out.end(), {p, -p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY), p * 1.5f});
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-140, 130);
  for (int i = 0; i < 20000; ++i) out.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  return out;
}

TEST(Tf32, EveryCodeRoundTrips) {
  for (std::uint32_t code = 0; code < (1u << 19); ++code) {
    tf32 t;
    t.bits = code << 13;
    const float f = t;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(f), t.bits);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(float(tf32(f)))) << std::hex << code;  // a signalling NaN comes back quiet
    } else if (tf32(f).bits != t.bits) {
      ADD_FAILURE() << "tf32 code " << std::hex << code << " came back as " << tf32(f).bits;
    }
  }
}

TEST(Tf32, RoundsToNearestTiesAwayFromZero) {
  const float ulp = std::ldexp(1.0f, -10);  // of 1.0 in tf32
  EXPECT_EQ(float(tf32(1.0f + ulp / 2)), 1.0f + ulp);     // a tie rounds away from zero...
  EXPECT_EQ(float(tf32(-(1.0f + ulp / 2))), -(1.0f + ulp));
  EXPECT_EQ(float(tf32(1.0f + 3 * ulp / 2)), 1.0f + 2 * ulp);  // ...not to even
  EXPECT_EQ(float(tf32(std::nextafter(1.0f + ulp / 2, 0.0f))), 1.0f);
  EXPECT_EQ(tf32(1.0f / 3).bits, 0x3eaaa000u);
  EXPECT_EQ(tf32(from_bits(0x00001000u)).bits, 0x00002000u);  // subnormals too
  EXPECT_EQ(tf32(from_bits(0x00000fffu)).bits, 0u);
  EXPECT_EQ(tf32(-0.0f).bits, 0x80000000u);
}

TEST(Tf32, KeepsInfinitiesAndNaN) {
  EXPECT_EQ(tf32(INFINITY).bits, 0x7f800000u);
  EXPECT_EQ(tf32(-INFINITY).bits, 0xff800000u);
  EXPECT_EQ(tf32(std::numeric_limits<float>::max()).bits, 0x7f800000u);  // rounds past the largest tf32
  EXPECT_EQ(tf32(from_bits(0x7f7fefffu)).bits, 0x7f7fe000u);             // the largest tf32 stays
  // A NaN whose payload lies only in the dropped bits stays NaN (quiet).
  EXPECT_TRUE(std::isnan(float(tf32(from_bits(0x7f800001u)))));
  EXPECT_EQ(tf32(from_bits(0xff800001u)).bits, 0xffc00000u);
  EXPECT_EQ(tf32(NAN).bits & 0x1fffu, 0u);
}

TEST(F8Ue8m0, EveryCodeRoundTrips) {
  for (unsigned code = 0; code < 255; ++code) {
    f8_ue8m0 x;
    x.bits = static_cast<std::uint8_t>(code);
    EXPECT_EQ(float(x), std::ldexp(1.0f, static_cast<int>(code) - 127)) << code;
    EXPECT_EQ(f8_ue8m0(float(x)).bits, code) << code;
  }
  f8_ue8m0 nan;
  nan.bits = 0xff;
  EXPECT_TRUE(std::isnan(float(nan)));
  EXPECT_EQ(f8_ue8m0(float(nan)).bits, 0xff);
}

TEST(F8Ue8m0, RoundsMagnitudesUpAndSaturates) {
  EXPECT_EQ(f8_ue8m0(1.0f).bits, 127);
  EXPECT_EQ(f8_ue8m0(3.0f).bits, 129);                           // up to 4
  EXPECT_EQ(f8_ue8m0(std::nextafter(4.0f, 5.0f)).bits, 130);     // just past 4: 8
  EXPECT_EQ(f8_ue8m0(0.3f).bits, 126);                           // 0.5
  EXPECT_EQ(f8_ue8m0(-4.0f).bits, 129);                          // the sign is dropped
  EXPECT_EQ(f8_ue8m0(-3.0f).bits, 129);
  EXPECT_EQ(f8_ue8m0(0.0f).bits, 0);                             // no zero: 2^-127
  EXPECT_EQ(f8_ue8m0(-0.0f).bits, 0);
  EXPECT_EQ(f8_ue8m0(1e-45f).bits, 0);
  EXPECT_EQ(f8_ue8m0(std::nextafter(std::ldexp(1.0f, -127), 1.0f)).bits, 1);
  EXPECT_EQ(f8_ue8m0(std::ldexp(1.0f, 127)).bits, 254);
  EXPECT_EQ(f8_ue8m0(std::nextafter(std::ldexp(1.0f, 127), INFINITY)).bits, 254);  // satfinite
  EXPECT_EQ(f8_ue8m0(INFINITY).bits, 254);
  EXPECT_EQ(f8_ue8m0(-INFINITY).bits, 254);
  EXPECT_EQ(f8_ue8m0(NAN).bits, 255);
}

#if CUDA_VERSION >= 12080
// CUDA's own constructor (its host code path) agrees on every probe.
TEST(F8Ue8m0, MatchesCudasConversion) {
  for (float v : probes()) EXPECT_EQ(f8_ue8m0(v).bits, __nv_fp8_e8m0(v).__x) << v;
}
#endif

TEST(F8Ue4m3, EveryCodeRoundTrips) {
  for (unsigned code = 0; code < 0x7f; ++code) {
    f8_ue4m3 x;
    x.bits = static_cast<std::uint8_t>(code);
    EXPECT_EQ(f8_ue4m3(float(x)).bits, code) << code;
    f8_e4m3 signed_form;  // the same code of E4M3 has the same value
    signed_form.bits = static_cast<std::uint8_t>(code);
    EXPECT_EQ(float(x), float(signed_form)) << code;
    f8_ue4m3 high = x;  // bit 7 is ignored
    high.bits = static_cast<std::uint8_t>(code | 0x80);
    EXPECT_EQ(float(high), float(x)) << code;
  }
  f8_ue4m3 nan;
  nan.bits = 0x7f;
  EXPECT_TRUE(std::isnan(float(nan)));
}

TEST(F8Ue4m3, RoundsToNearestEvenSaturatesAndClampsNegatives) {
  EXPECT_EQ(f8_ue4m3(448.0f).bits, 0x7e);
  EXPECT_EQ(f8_ue4m3(1e9f).bits, 0x7e);
  EXPECT_EQ(f8_ue4m3(INFINITY).bits, 0x7e);
  EXPECT_EQ(f8_ue4m3(1.0f).bits, 0x38);
  EXPECT_EQ(f8_ue4m3(1.0625f).bits, 0x38);      // halfway to 1.125: even
  EXPECT_EQ(f8_ue4m3(1.1875f).bits, 0x3a);      // halfway 1.125..1.25: even
  EXPECT_EQ(f8_ue4m3(std::ldexp(1.0f, -9)).bits, 0x01);  // smallest subnormal
  EXPECT_EQ(f8_ue4m3(std::ldexp(1.0f, -10)).bits, 0x00); // half of it: even
  EXPECT_EQ(f8_ue4m3(-1.0f).bits, 0);
  EXPECT_EQ(f8_ue4m3(-INFINITY).bits, 0);
  EXPECT_EQ(f8_ue4m3(-0.0f).bits, 0);
  EXPECT_EQ(f8_ue4m3(NAN).bits, 0x7f);
  // Positive values convert as to E4M3 (CUDA's satfinite conversion).
  for (float v : probes())
    if (v > 0) EXPECT_EQ(f8_ue4m3(v).bits, f8_e4m3(v).bits) << v;
}

// Tensors read elements of the new types as their values.
TEST(ScaleTypes, ElementReadsGiveValues) {
  auto t = make_spandata<tf32>(2);
  t[0] = tf32(1.5f);
  t[1] = tf32(-0.25f);
  auto s = make_spandata<f8_ue8m0>(2);
  s[0] = f8_ue8m0(8.0f);
  s[1] = f8_ue8m0(0.2f);
  auto q = make_spandata<f8_ue4m3>(2);
  q[0] = f8_ue4m3(3.5f);
  q[1] = f8_ue4m3(-3.5f);
  TensorView tv = t.view(), sv = s.view(), qv = q.view();
  EXPECT_EQ(ElementRef(&tv, 0, 0)[0].as_double(), 1.5);
  EXPECT_EQ(ElementRef(&tv, 0, 0)[1].as_double(), -0.25);
  EXPECT_EQ(ElementRef(&sv, 0, 0)[0].as_double(), 8.0);
  EXPECT_EQ(ElementRef(&sv, 0, 0)[1].as_double(), 0.25);
  EXPECT_EQ(ElementRef(&qv, 0, 0)[0].as_double(), 3.5);
  EXPECT_EQ(ElementRef(&qv, 0, 0)[1].as_double(), 0.0);
}

}  // namespace
}  // namespace croq
