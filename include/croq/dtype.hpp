// Element types of Croqtile tensors and their host-side C++ representations.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace croq {

enum class DType : std::uint8_t {
  s8, u8, s16, u16, s32, u32, s64, u64,
  f16, bf16, f32, f64, f8_e4m3, f8_e5m2,
};

// Size of one element in bytes.
constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::s8: case DType::u8: case DType::f8_e4m3: case DType::f8_e5m2: return 1;
    case DType::s16: case DType::u16: case DType::f16: case DType::bf16: return 2;
    case DType::s32: case DType::u32: case DType::f32: return 4;
    case DType::s64: case DType::u64: case DType::f64: return 8;
  }
  return 0;
}

// The Croqtile spelling of the type ("s32", "bf16", ...).
std::string_view dtype_name(DType t);
// Parses a Croqtile type name; returns false when the name is not a type.
bool parse_dtype(std::string_view name, DType& out);

constexpr bool is_fp8(DType t) { return t == DType::f8_e4m3 || t == DType::f8_e5m2; }

constexpr bool is_floating(DType t) {
  return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64 ||
         t == DType::f8_e4m3 || t == DType::f8_e5m2;
}

// 16-bit IEEE half; stored as bits, converted through float on the host.
struct f16 {
  std::uint16_t bits = 0;
  f16() = default;
  f16(float v);  // NOLINT(google-explicit-constructor): behaves like a number
  operator float() const;  // NOLINT
};

// bfloat16: the upper half of an IEEE float, rounded to nearest even.
struct bf16 {
  std::uint16_t bits = 0;
  bf16() = default;
  bf16(float v);  // NOLINT
  operator float() const;  // NOLINT
};

// 8-bit floats (OCP FP8): E4M3 (finite-only, max 448) and E5M2.
struct f8_e4m3 {
  std::uint8_t bits = 0;
  f8_e4m3() = default;
  f8_e4m3(float v);  // NOLINT
  operator float() const;  // NOLINT
};
struct f8_e5m2 {
  std::uint8_t bits = 0;
  f8_e5m2() = default;
  f8_e5m2(float v);  // NOLINT
  operator float() const;  // NOLINT
};

// The Croqtile type names as host types, so seed programs can write
// croq::make_spandata<croq::s32>(...).
using s8 = std::int8_t;
using u8 = std::uint8_t;
using s16 = std::int16_t;
using u16 = std::uint16_t;
using s32 = std::int32_t;
using u32 = std::uint32_t;
using s64 = std::int64_t;
using u64 = std::uint64_t;
using f32 = float;
using f64 = double;

template <typename T> struct dtype_of;
template <> struct dtype_of<s8> { static constexpr DType value = DType::s8; };
template <> struct dtype_of<u8> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<s16> { static constexpr DType value = DType::s16; };
template <> struct dtype_of<u16> { static constexpr DType value = DType::u16; };
template <> struct dtype_of<s32> { static constexpr DType value = DType::s32; };
template <> struct dtype_of<u32> { static constexpr DType value = DType::u32; };
template <> struct dtype_of<s64> { static constexpr DType value = DType::s64; };
template <> struct dtype_of<u64> { static constexpr DType value = DType::u64; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::f16; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::bf16; };
template <> struct dtype_of<f32> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<f64> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<f8_e4m3> { static constexpr DType value = DType::f8_e4m3; };
template <> struct dtype_of<f8_e5m2> { static constexpr DType value = DType::f8_e5m2; };
template <typename T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

}  // namespace croq
