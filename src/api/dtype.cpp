// Type names and host conversions for the narrow float types.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "croq/dtype.hpp"

namespace croq {
namespace {

constexpr std::array<std::string_view, 14> kNames = {
    "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64",
    "f16", "bf16", "f32", "f64", "f8_e4m3", "f8_e5m2"};

// A small IEEE-like float format: 1 sign bit, `E` exponent bits, `M`
// mantissa bits. `ieee_inf`: the top exponent encodes inf/NaN (f16, e5m2);
// otherwise only all-ones is NaN and values saturate (e4m3).
template <int E, int M, bool ieee_inf>
struct MiniFloat {
  static constexpr int bias = (1 << (E - 1)) - 1;

  static float decode(std::uint32_t bits) {
    std::uint32_t sign = (bits >> (E + M)) & 1u;
    std::uint32_t exp = (bits >> M) & ((1u << E) - 1);
    std::uint32_t man = bits & ((1u << M) - 1);
    float value;
    if (exp == (1u << E) - 1 && (ieee_inf || man == (1u << M) - 1)) {
      value = (ieee_inf && man == 0) ? INFINITY : NAN;
    } else if (exp == 0) {
      value = std::ldexp(static_cast<float>(man), 1 - bias - M);
    } else {
      value = std::ldexp(static_cast<float>(man | (1u << M)), static_cast<int>(exp) - bias - M);
    }
    return sign ? -value : value;
  }

  static std::uint32_t encode(float v) {
    std::uint32_t sign = std::signbit(v) ? 1u : 0u;
    std::uint32_t sign_bit = sign << (E + M);
    constexpr std::uint32_t nan = ieee_inf ? (((1u << E) - 1) << M) | (1u << (M - 1))
                                           : (1u << (E + M)) - 1;
    if (std::isnan(v)) return nan;
    float a = std::fabs(v);
    // Largest finite value.
    constexpr int max_exp = ieee_inf ? (1 << E) - 2 : (1 << E) - 1;
    constexpr std::uint32_t max_man = ieee_inf ? (1u << M) - 1 : (1u << M) - 2;
    const float max_finite = std::ldexp(static_cast<float>(max_man | (1u << M)), max_exp - bias - M);
    if (std::isinf(a) || a > max_finite) {
      if (ieee_inf) {
        // Round-to-nearest: values past max + half an ulp become inf.
        float half_ulp = std::ldexp(1.0f, max_exp - bias - M - 1);
        if (std::isinf(a) || a >= max_finite + half_ulp) return sign_bit | (((1u << E) - 1) << M);
      }
      return sign_bit | (static_cast<std::uint32_t>(max_exp) << M) | max_man;  // saturate
    }
    int exp;
    std::frexp(a, &exp);  // a = f * 2^exp, f in [0.5, 1)
    int e = exp - 1 + bias;  // biased exponent of a normal result
    if (e < 1) e = 1;        // subnormal range shares the minimum exponent's scale
    // Scale so the mantissa (with hidden bit) is an integer, rounded to even.
    float scaled = std::ldexp(a, M - (e - bias));
    float rounded = std::nearbyint(scaled);
    auto man = static_cast<std::uint32_t>(rounded);
    if (man >= (2u << M)) { man >>= 1; ++e; }  // rounding carried into the next binade
    if (man < (1u << M)) return sign_bit | man;  // subnormal (or zero)
    return sign_bit | (static_cast<std::uint32_t>(e) << M) | (man & ((1u << M) - 1));
  }
};

using Half = MiniFloat<5, 10, true>;
using E4M3 = MiniFloat<4, 3, false>;
using E5M2 = MiniFloat<5, 2, true>;

}  // namespace

std::string_view dtype_name(DType t) { return kNames[static_cast<std::size_t>(t)]; }

bool parse_dtype(std::string_view name, DType& out) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) { out = static_cast<DType>(i); return true; }
  return false;
}

f16::f16(float v) : bits(static_cast<std::uint16_t>(Half::encode(v))) {}
f16::operator float() const { return Half::decode(bits); }

bf16::bf16(float v) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if (std::isnan(v)) { bits = static_cast<std::uint16_t>((u >> 16) | 0x40); return; }
  u += 0x7fff + ((u >> 16) & 1);  // round to nearest even
  bits = static_cast<std::uint16_t>(u >> 16);
}
bf16::operator float() const { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

f8_e4m3::f8_e4m3(float v) : bits(static_cast<std::uint8_t>(E4M3::encode(v))) {}
f8_e4m3::operator float() const { return E4M3::decode(bits); }
f8_e5m2::f8_e5m2(float v) : bits(static_cast<std::uint8_t>(E5M2::encode(v))) {}
f8_e5m2::operator float() const { return E5M2::decode(bits); }

}  // namespace croq
