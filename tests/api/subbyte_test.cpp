// Host representations of the sub-byte element types: every value round
// trips, rounding against a brute-force nearest-value search, wrapping of
// integers, and the dense packing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "croq/croq.hpp"

namespace croq {
namespace {

struct FloatFormat {
  DType type;
  int exponent_bits, mantissa_bits;
  float largest;
};
const FloatFormat kFloats[] = {
    {DType::f6_e2m3, 2, 3, 7.5f}, {DType::f6_e3m2, 3, 2, 28.0f}, {DType::f4_e2m1, 2, 1, 6.0f}};

std::uint8_t encode(DType t, float v) {
  switch (t) {
    case DType::f6_e2m3: return f6_e2m3(v).bits;
    case DType::f6_e3m2: return f6_e3m2(v).bits;
    default: return f4_e2m1(v).bits;
  }
}

// The value of a code, computed from the format's definition (not from the
// library): subnormals at exponent 0, no special codes.
float reference_value(const FloatFormat& f, unsigned code) {
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const unsigned man = code & ((1u << f.mantissa_bits) - 1);
  const unsigned exp = (code >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
  const bool negative = (code >> (f.exponent_bits + f.mantissa_bits)) & 1;
  const float magnitude = exp == 0 ? std::ldexp(static_cast<float>(man), 1 - bias - f.mantissa_bits)
                                   : std::ldexp(static_cast<float>(man + (1u << f.mantissa_bits)),
                                                static_cast<int>(exp) - bias - f.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

// Round to nearest, ties to the even code, over every code of v's sign;
// past the largest magnitude, the largest.
unsigned nearest_code(const FloatFormat& f, float v) {
  const unsigned sign = std::signbit(v) ? 1u << (f.exponent_bits + f.mantissa_bits) : 0u;
  const unsigned magnitudes = 1u << (f.exponent_bits + f.mantissa_bits);
  unsigned best = 0;
  for (unsigned code = 1; code < magnitudes; ++code) {
    const float error = std::fabs(reference_value(f, code) - std::fabs(v));
    const float best_error = std::fabs(reference_value(f, best) - std::fabs(v));
    if (error < best_error || (error == best_error && code % 2 == 0)) best = code;
  }
  return sign | best;
}

TEST(SubByteFloat, EveryCodeRoundTrips) {
  for (const FloatFormat& f : kFloats) {
    const unsigned codes = 1u << (1 + f.exponent_bits + f.mantissa_bits);
    for (unsigned code = 0; code < codes; ++code) {
      const auto bits = static_cast<std::uint8_t>(code);
      const double value = subbyte_value(f.type, bits);
      EXPECT_EQ(value, reference_value(f, code)) << dtype_name(f.type) << " code " << code;
      EXPECT_EQ(encode(f.type, static_cast<float>(value)), bits) << dtype_name(f.type) << " code " << code;
    }
  }
  // Decoding ignores the bits above the type's width.
  EXPECT_EQ(static_cast<float>(f4_e2m1{}), 0.0f);
  f4_e2m1 six;
  six.bits = 0xf7;  // 0x7 with ones above it
  EXPECT_EQ(static_cast<float>(six), 6.0f);
}

TEST(SubByteFloat, KnownValues) {
  EXPECT_EQ(f6_e2m3(7.5f).bits, 0x1f);
  EXPECT_EQ(f6_e2m3(0.125f).bits, 0x01);  // smallest subnormal
  EXPECT_EQ(f6_e2m3(1.0f).bits, 0x08);
  EXPECT_EQ(f6_e2m3(-1.0f).bits, 0x28);
  EXPECT_EQ(f6_e3m2(28.0f).bits, 0x1f);
  EXPECT_EQ(f6_e3m2(0.0625f).bits, 0x01);
  EXPECT_EQ(f6_e3m2(1.0f).bits, 0x0c);
  EXPECT_EQ(f4_e2m1(1.0f).bits, 0x2);
  EXPECT_EQ(f4_e2m1(-6.0f).bits, 0xf);
  const float e2m1[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (unsigned code = 0; code < 8; ++code) EXPECT_EQ(subbyte_value(DType::f4_e2m1, static_cast<std::uint8_t>(code)), e2m1[code]);
  EXPECT_EQ(f6_e2m3(-0.0f).bits, 0x20);  // the sign of zero stays
  EXPECT_TRUE(std::signbit(static_cast<float>(f6_e2m3(-0.0f))));
}

TEST(SubByteFloat, RoundsToNearestEven) {
  EXPECT_EQ(static_cast<float>(f4_e2m1(2.5f)), 2.0f);   // tie: 2 has the even code
  EXPECT_EQ(static_cast<float>(f4_e2m1(3.5f)), 4.0f);
  EXPECT_EQ(static_cast<float>(f4_e2m1(5.0f)), 4.0f);
  EXPECT_EQ(static_cast<float>(f4_e2m1(0.25f)), 0.0f);
  EXPECT_EQ(static_cast<float>(f4_e2m1(0.75f)), 1.0f);
  EXPECT_EQ(static_cast<float>(f4_e2m1(2.6f)), 3.0f);
  EXPECT_EQ(static_cast<float>(f6_e2m3(7.25f)), 7.0f);
  EXPECT_EQ(static_cast<float>(f6_e2m3(0.0625f)), 0.0f);  // half the smallest subnormal
  EXPECT_EQ(static_cast<float>(f6_e2m3(0.0626f)), 0.125f);
  EXPECT_EQ(static_cast<float>(f6_e3m2(26.0f)), 24.0f);
  EXPECT_EQ(static_cast<float>(f6_e3m2(-0.21875f)), -0.25f);  // 0.1875 and 0.25 tie; 0.25's code is even
  // Against the brute-force search: every midpoint (both neighbours of it)
  // and random values inside and past the range.
  std::mt19937 rng(7);
  for (const FloatFormat& f : kFloats) {
    const unsigned magnitudes = 1u << (f.exponent_bits + f.mantissa_bits);
    std::vector<float> probes;
    for (unsigned code = 0; code + 1 < magnitudes; ++code) {
      const float lo = reference_value(f, code), hi = reference_value(f, code + 1);
      const float mid = (lo + hi) / 2;
      probes.insert(probes.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 100.0f), -mid});
    }
    std::uniform_real_distribution<float> values(-2 * f.largest, 2 * f.largest);
    for (int i = 0; i < 2000; ++i) probes.push_back(values(rng));
    for (float v : probes)
      EXPECT_EQ(encode(f.type, v), nearest_code(f, v)) << dtype_name(f.type) << " of " << v;
  }
}

TEST(SubByteFloat, SaturatesAndMapsNaNToTheLargest) {
  for (const FloatFormat& f : kFloats) {
    const unsigned sign = 1u << (f.exponent_bits + f.mantissa_bits);
    const unsigned largest = sign - 1;
    EXPECT_EQ(encode(f.type, f.largest * 1.2f), largest) << dtype_name(f.type);
    EXPECT_EQ(encode(f.type, 1e30f), largest) << dtype_name(f.type);
    EXPECT_EQ(encode(f.type, INFINITY), largest) << dtype_name(f.type);
    EXPECT_EQ(encode(f.type, -INFINITY), sign | largest) << dtype_name(f.type);
    EXPECT_EQ(encode(f.type, NAN), largest) << dtype_name(f.type);
    EXPECT_EQ(encode(f.type, -NAN), largest) << dtype_name(f.type);
  }
}

template <typename Int>
void expect_every_value_round_trips(DType t, int lo, int hi) {
  EXPECT_EQ(Int::kMin, lo) << dtype_name(t);
  EXPECT_EQ(Int::kMax, hi) << dtype_name(t);
  for (int v = lo; v <= hi; ++v) {
    const Int x(v);
    EXPECT_EQ(static_cast<int>(x), v) << dtype_name(t);
    EXPECT_EQ(x.bits, static_cast<unsigned>(v) & ((1u << dtype_bits(t)) - 1)) << dtype_name(t) << " " << v;
    EXPECT_EQ(subbyte_value(t, x.bits), v) << dtype_name(t);
  }
}

TEST(SubByteInteger, EveryValueRoundTrips) {
  expect_every_value_round_trips<u6>(DType::u6, 0, 63);
  expect_every_value_round_trips<s6>(DType::s6, -32, 31);
  expect_every_value_round_trips<u4>(DType::u4, 0, 15);
  expect_every_value_round_trips<s4>(DType::s4, -8, 7);
  expect_every_value_round_trips<u2>(DType::u2, 0, 3);
  expect_every_value_round_trips<s2>(DType::s2, -2, 1);
  expect_every_value_round_trips<u1>(DType::u1, 0, 1);
  EXPECT_EQ(static_cast<int>(bin1(0)), 0);
  EXPECT_EQ(static_cast<int>(bin1(1)), 1);
}

TEST(SubByteInteger, WiderValuesWrapAndBin1IsBoolean) {
  EXPECT_EQ(static_cast<int>(s4(8)), -8);
  EXPECT_EQ(static_cast<int>(s4(-9)), 7);
  EXPECT_EQ(static_cast<int>(u4(17)), 1);
  EXPECT_EQ(static_cast<int>(u2(5)), 1);
  EXPECT_EQ(static_cast<int>(s6(32)), -32);
  EXPECT_EQ(static_cast<int>(u6(-1)), 63);
  EXPECT_EQ(static_cast<int>(u1(2)), 0);
  EXPECT_EQ(static_cast<int>(bin1(2)), 1);
  EXPECT_EQ(static_cast<int>(bin1(-7)), 1);
  EXPECT_EQ(static_cast<int>(s2(2.9f)), -2);  // toward zero first: 2
  EXPECT_EQ(s4(-1).bits, 0x0f);                // zeros above the value
  s4 garbage;
  garbage.bits = 0xf9;  // the bits above are ignored
  EXPECT_EQ(static_cast<int>(garbage), -7);
  EXPECT_EQ(subbyte_value(DType::s4, 0xf9), -7);
  EXPECT_EQ(s4(3) + s4(4), 7);  // arithmetic computes in int
  EXPECT_THROW(subbyte_value(DType::u8, 1), Error);
}

// The dense form, bit by bit from the definition: element i at bits
// [i*b, i*b + b), bit k being bit k % 8 of byte k / 8.
std::vector<std::uint8_t> reference_pack(DType t, const std::vector<std::uint8_t>& elements) {
  const int b = dtype_bits(t);
  std::vector<std::uint8_t> out(packed_bytes(t, elements.size()), 0);
  for (std::size_t i = 0; i < elements.size(); ++i)
    for (int j = 0; j < b; ++j)
      if ((elements[i] >> j) & 1) {
        const std::size_t k = i * static_cast<std::size_t>(b) + static_cast<std::size_t>(j);
        out[k / 8] = static_cast<std::uint8_t>(out[k / 8] | (1u << (k % 8)));
      }
  return out;
}

TEST(SubBytePacking, LowBitsFirst) {
  const std::vector<std::uint8_t> u2s = {1, 2, 3, 0, 1};
  std::vector<std::uint8_t> packed(packed_bytes(DType::u2, u2s.size()));
  pack_elements(DType::u2, u2s.data(), u2s.size(), packed.data());
  EXPECT_EQ(packed, (std::vector<std::uint8_t>{0x39, 0x01}));
  const std::vector<std::uint8_t> s6s = {s6(-1).bits, s6(1).bits};
  packed.assign(packed_bytes(DType::s6, 2), 0xaa);
  pack_elements(DType::s6, s6s.data(), 2, packed.data());
  EXPECT_EQ(packed, (std::vector<std::uint8_t>{0x7f, 0x00}));
  const std::vector<std::uint8_t> nibbles = {f4_e2m1(1.0f).bits, f4_e2m1(-6.0f).bits, f4_e2m1(0.5f).bits};
  packed.assign(2, 0);
  pack_elements(DType::f4_e2m1, nibbles.data(), 3, packed.data());
  EXPECT_EQ(packed, (std::vector<std::uint8_t>{0xf2, 0x01}));
}

TEST(SubBytePacking, OddCountsRoundTrip) {
  std::mt19937 rng(11);
  for (DType t : {DType::f6_e2m3, DType::f6_e3m2, DType::f4_e2m1, DType::u6, DType::s6, DType::u4, DType::s4,
                  DType::u2, DType::s2, DType::u1, DType::bin1}) {
    const unsigned mask = (1u << dtype_bits(t)) - 1;
    for (std::size_t count : {0, 1, 2, 3, 5, 7, 8, 9, 13, 31, 33, 100}) {
      std::vector<std::uint8_t> elements(count);
      for (auto& e : elements) e = static_cast<std::uint8_t>(rng());  // bits above the width too
      std::vector<std::uint8_t> masked = elements;
      for (auto& e : masked) e = static_cast<std::uint8_t>(e & mask);
      std::vector<std::uint8_t> packed(packed_bytes(t, count) + 1, 0x5a);  // one byte past the end
      pack_elements(t, elements.data(), count, packed.data());
      EXPECT_EQ(packed.back(), 0x5a) << dtype_name(t) << " wrote past " << count << " elements";
      packed.pop_back();
      EXPECT_EQ(packed, reference_pack(t, masked)) << dtype_name(t) << " x " << count;
      std::vector<std::uint8_t> unpacked(count + 1, 0x5a);
      unpack_elements(t, packed.data(), count, unpacked.data());
      EXPECT_EQ(unpacked.back(), 0x5a) << dtype_name(t);
      unpacked.pop_back();
      EXPECT_EQ(unpacked, masked) << dtype_name(t) << " x " << count;
    }
  }
  // Types of whole bytes are copied.
  const std::int16_t words[3] = {1, -2, 300};
  std::int16_t copy[3] = {};
  pack_elements(DType::s16, words, 3, copy);
  EXPECT_EQ(copy[2], 300);
}

TEST(SubByteTensors, ElementsAndRandomFills) {
  auto nibbles = make_spandata<s4>(4, 16);
  EXPECT_EQ(nibbles.dtype(), DType::s4);
  nibbles.fill_random(-8, 7, 3);
  bool negative = false, positive = false;
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 16; ++j) {
      const int v = static_cast<s4&>(nibbles[i][j]);
      EXPECT_TRUE(v >= -8 && v <= 7);
      negative |= v < 0;
      positive |= v > 0;
    }
  EXPECT_TRUE(negative && positive);
  TensorView view = nibbles.view();
  EXPECT_EQ(view.bytes(), 64u);  // a byte per element
  ElementRef e = ElementRef(&view, 0, 0)[1][2];
  EXPECT_EQ(e.as_int(), static_cast<int>(static_cast<s4&>(nibbles[1][2])));
  auto floats = make_spandata<f6_e3m2>(8);
  floats.fill_random(-30.0, 30.0, 5);
  TensorView fv = floats.view();
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(ElementRef(&fv, 0, 0)[i].as_double(), static_cast<float>(static_cast<f6_e3m2&>(floats[i])));
}

}  // namespace
}  // namespace croq
