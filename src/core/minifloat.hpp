// Small IEEE-like float formats on the host: the conversions behind
// croq::f16, the fp8 types and the OCP MX fp6/fp4 types.
#pragma once

#include <cmath>
#include <cstdint>

namespace croq::detail {

// Which codes of a small float format are special.
enum class Specials {
  ieee,         // the top exponent holds inf and NaN (f16, e5m2)
  nan_only,     // only the all-ones code is NaN; values saturate (e4m3)
  finite_only,  // every code is a number; NaN becomes the largest (OCP MX fp6, fp4)
};

// A small IEEE-like float format: 1 sign bit, `E` exponent bits, `M`
// mantissa bits. Conversions round to nearest even.
template <int E, int M, Specials S>
struct MiniFloat {
  static constexpr int bias = (1 << (E - 1)) - 1;
  static constexpr std::uint32_t exp_ones = (1u << E) - 1, man_ones = (1u << M) - 1;

  static float decode(std::uint32_t bits) {
    std::uint32_t sign = (bits >> (E + M)) & 1u;
    std::uint32_t exp = (bits >> M) & exp_ones;
    std::uint32_t man = bits & man_ones;
    float value;
    if (S != Specials::finite_only && exp == exp_ones && (S == Specials::ieee || man == man_ones)) {
      value = (S == Specials::ieee && man == 0) ? INFINITY : NAN;
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
    // The largest finite value: its exponent and mantissa fields.
    constexpr int max_exp = S == Specials::ieee ? (1 << E) - 2 : (1 << E) - 1;
    constexpr std::uint32_t max_man = S == Specials::nan_only ? man_ones - 1 : man_ones;
    constexpr std::uint32_t max_code = (static_cast<std::uint32_t>(max_exp) << M) | max_man;
    if (std::isnan(v)) {
      if (S == Specials::ieee) return (exp_ones << M) | (1u << (M - 1));
      return S == Specials::nan_only ? (1u << (E + M)) - 1 : max_code;
    }
    float a = std::fabs(v);
    const float max_finite = std::ldexp(static_cast<float>(max_man | (1u << M)), max_exp - bias - M);
    if (std::isinf(a) || a > max_finite) {
      if (S == Specials::ieee) {
        // Round-to-nearest: values past max + half an ulp become inf.
        float half_ulp = std::ldexp(1.0f, max_exp - bias - M - 1);
        if (std::isinf(a) || a >= max_finite + half_ulp) return sign_bit | (exp_ones << M);
      }
      return sign_bit | max_code;  // saturate
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
    return sign_bit | (static_cast<std::uint32_t>(e) << M) | (man & man_ones);
  }
};

}  // namespace croq::detail
