// Type names and host conversions for the narrow float types.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "api/minifloat.hpp"
#include "croq/dtype.hpp"

namespace croq {
namespace {

constexpr std::array<std::string_view, kDTypeCount> kNames = {
    "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64",
    "f16", "bf16", "f32", "f64", "f8_e4m3", "f8_e5m2",
    "f6_e2m3", "f6_e3m2", "f4_e2m1", "u6", "s6", "u4", "s4", "u2", "s2", "u1", "bin1"};

using Half = detail::MiniFloat<5, 10, detail::Specials::ieee>;
using E4M3 = detail::MiniFloat<4, 3, detail::Specials::nan_only>;
using E5M2 = detail::MiniFloat<5, 2, detail::Specials::ieee>;

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
