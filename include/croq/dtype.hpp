// Element types of Croqtile tensors and their host-side C++ representations.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace croq {

enum class DType : std::uint8_t {
  s8, u8, s16, u16, s32, u32, s64, u64,
  f16, bf16, f32, f64, f8_e4m3, f8_e5m2,
  // Sub-byte types: OCP MX floats (fp6, fp4), integers of 6, 4, 2 and 1
  // bits, and bin1 (one bit, 0 or 1). Each element takes one byte in
  // memory, its value in the low bits and the bits above zero, as in
  // Croqtile's own runtime; pack_elements gives the dense form.
  f6_e2m3, f6_e3m2, f4_e2m1, u6, s6, u4, s4, u2, s2, u1, bin1,
  // tf32 (an f32 whose low 13 mantissa bits are zero) and the block-scale
  // types of MX and NVFP4 data: f8_ue8m0 (a power of two) and f8_ue4m3 (an
  // unsigned E4M3). Appended, so the numbers above stay.
  tf32, f8_ue8m0, f8_ue4m3,
};
inline constexpr int kDTypeCount = static_cast<int>(DType::f8_ue4m3) + 1;

// Whether `t` is one of the values above (a DType cast from another number
// may not be; every entry point of the library refuses those with an
// ArgumentError).
constexpr bool dtype_valid(DType t) { return static_cast<int>(t) < kDTypeCount; }

// Size of one element in memory, in bytes (1 for the sub-byte types).
constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::s8: case DType::u8: case DType::f8_e4m3: case DType::f8_e5m2:
    case DType::f8_ue8m0: case DType::f8_ue4m3: return 1;
    case DType::s16: case DType::u16: case DType::f16: case DType::bf16: return 2;
    case DType::s32: case DType::u32: case DType::f32: case DType::tf32: return 4;
    case DType::s64: case DType::u64: case DType::f64: return 8;
    case DType::f6_e2m3: case DType::f6_e3m2: case DType::f4_e2m1: case DType::u6: case DType::s6:
    case DType::u4: case DType::s4: case DType::u2: case DType::s2: case DType::u1: case DType::bin1: return 1;
  }
  return 0;
}

// Bits of one element's value: 8 x dtype_size, less for the sub-byte types.
constexpr int dtype_bits(DType t) {
  switch (t) {
    case DType::f6_e2m3: case DType::f6_e3m2: case DType::u6: case DType::s6: return 6;
    case DType::f4_e2m1: case DType::u4: case DType::s4: return 4;
    case DType::u2: case DType::s2: return 2;
    case DType::u1: case DType::bin1: return 1;
    default: return static_cast<int>(dtype_size(t)) * 8;
  }
}

constexpr bool is_subbyte(DType t) { return dtype_bits(t) < 8; }

// Bytes that `count` elements take packed densely (pack_elements).
constexpr std::size_t packed_bytes(DType t, std::size_t count) {
  const auto bits = static_cast<std::size_t>(dtype_bits(t));
  return count / 8 * bits + (count % 8 * bits + 7) / 8;
}

// The Croqtile spelling of the type ("s32", "bf16", ...); "<invalid dtype>"
// when !dtype_valid(t).
std::string_view dtype_name(DType t);
// Parses a Croqtile type name; returns false when the name is not a type.
bool parse_dtype(std::string_view name, DType& out);

constexpr bool is_fp8(DType t) { return t == DType::f8_e4m3 || t == DType::f8_e5m2; }

constexpr bool is_floating(DType t) {
  return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64 ||
         t == DType::f8_e4m3 || t == DType::f8_e5m2 || t == DType::f6_e2m3 || t == DType::f6_e3m2 ||
         t == DType::f4_e2m1 || t == DType::tf32 || t == DType::f8_ue8m0 || t == DType::f8_ue4m3;
}

// Types a kernel holds in storage structs and computes with in a wider type
// (f32, or s32 for the sub-byte integers): fp8, tf32, the scale types and
// the sub-byte types.
constexpr bool computes_widened(DType t) {
  return is_fp8(t) || is_subbyte(t) || t == DType::tf32 || t == DType::f8_ue8m0 || t == DType::f8_ue4m3;
}

// Signed integer types (bin1 is 0 or 1, unsigned).
constexpr bool is_signed_integer(DType t) {
  return t == DType::s8 || t == DType::s16 || t == DType::s32 || t == DType::s64 || t == DType::s6 ||
         t == DType::s4 || t == DType::s2;
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

// TensorFloat-32: f32 bits with the low 13 mantissa bits zero (1 sign, 8
// exponent, 10 mantissa bits). From float: round to nearest, ties away from
// zero, as PTX cvt.rna.tf32.f32; infinities stay; a NaN stays a (quiet)
// NaN; finite values past the largest tf32 round to infinity.
struct tf32 {
  std::uint32_t bits = 0;
  tf32() = default;
  tf32(float v);  // NOLINT
  operator float() const;  // NOLINT
};

// An MX block scale: the power of two 2^(bits - 127) for bits 0..254
// (2^-127 .. 2^127); 255 is NaN. No zero and no sign. From float as CUDA's
// __nv_fp8_e8m0(float) (round toward +inf, satfinite): the sign is dropped
// (-4 gives 4), a magnitude rounds up to the next power of two, 0 and
// anything up to 2^-127 give 2^-127 (code 0), infinity and values past
// 2^127 give 2^127 (code 254), NaN gives code 255.
struct f8_ue8m0 {
  std::uint8_t bits = 0;
  f8_ue8m0() = default;
  f8_ue8m0(float v);  // NOLINT
  operator float() const;  // NOLINT
};

// An NVFP4 block scale: E4M3 without its sign (4 exponent bits, bias 7, 3
// mantissa bits; 0 to 448, code 0x7f NaN), in the low 7 bits of the byte
// (bit 7 is zero and ignored when read). From float: round to nearest even,
// saturate at 448 (infinity too); negatives and -0 become 0; NaN becomes
// 0x7f.
struct f8_ue4m3 {
  std::uint8_t bits = 0;
  f8_ue4m3() = default;
  f8_ue4m3(float v);  // NOLINT
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
template <> struct dtype_of<tf32> { static constexpr DType value = DType::tf32; };
template <> struct dtype_of<f8_ue8m0> { static constexpr DType value = DType::f8_ue8m0; };
template <> struct dtype_of<f8_ue4m3> { static constexpr DType value = DType::f8_ue4m3; };
template <typename T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

}  // namespace croq
