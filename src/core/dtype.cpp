// Type names and host conversions for the narrow float types.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/minifloat.hpp"
#include "croq/dtype.hpp"

namespace croq {
namespace {

constexpr std::array<std::string_view, kDTypeCount> kNames = {
    "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64",
    "f16", "bf16", "f32", "f64", "f8_e4m3", "f8_e5m2",
    "f6_e2m3", "f6_e3m2", "f4_e2m1", "u6", "s6", "u4", "s4", "u2", "s2", "u1", "bin1",
    "tf32", "f8_ue8m0", "f8_ue4m3"};

using Half = detail::MiniFloat<5, 10, detail::Specials::ieee>;
using E4M3 = detail::MiniFloat<4, 3, detail::Specials::nan_only>;
using E5M2 = detail::MiniFloat<5, 2, detail::Specials::ieee>;

}  // namespace

std::string_view dtype_name(DType t) {
  return dtype_valid(t) ? kNames[static_cast<std::size_t>(t)] : std::string_view("<invalid dtype>");
}

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

tf32::tf32(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  constexpr std::uint32_t kLowBits = 0x1fffu;
  if (std::isnan(v)) { bits = (u & ~kLowBits) | 0x00400000u; return; }  // quiet, so no payload is lost
  // Adding half the kept ulp and truncating rounds ties away from zero;
  // infinities have a zero mantissa and stay.
  bits = std::isinf(v) ? u : (u + 0x1000u) & ~kLowBits;
}
tf32::operator float() const { return std::bit_cast<float>(bits); }

f8_ue8m0::f8_ue8m0(float v) {
  if (std::isnan(v)) { bits = 0xff; return; }
  const float a = std::fabs(v);
  if (a <= 0x1p-127f) { bits = 0; return; }
  if (a > 0x1p127f) { bits = 0xfe; return; }  // infinity too
  int exp;
  const float f = std::frexp(a, &exp);  // a = f * 2^exp, f in [0.5, 1)
  // The least power of two not below a: 2^(exp - 1) when f is exactly 0.5.
  const int power = f == 0.5f ? exp - 1 : exp;
  bits = static_cast<std::uint8_t>(power + 127);
}
f8_ue8m0::operator float() const {
  if (bits == 0xff) return NAN;
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);
}

f8_ue4m3::f8_ue4m3(float v) {
  if (std::isnan(v)) { bits = 0x7f; return; }
  bits = v > 0 ? static_cast<std::uint8_t>(E4M3::encode(v)) : 0;
}
f8_ue4m3::operator float() const { return E4M3::decode(bits & 0x7fu); }

}  // namespace croq
