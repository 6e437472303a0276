// Host representations of the sub-byte element types, and their dense
// packing.
//
// In memory (host tensors, kernel arguments, device buffers) every sub-byte
// element takes one byte: its value in the low dtype_bits(t) bits, the bits
// above zero. That is how Croqtile's own runtime stores them (its host
// arrays of CUTLASS sub-byte types are a byte per element), and it keeps
// every element addressable, so threads never share a byte. pack_elements
// and unpack_elements convert to and from the dense form other libraries
// and files use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "croq/dtype.hpp"

namespace croq {

// The OCP MX small floats. None has infinities or NaN. A conversion from
// float rounds to nearest even, saturates past the largest magnitude (an
// infinity too) to the largest finite value of its sign, and turns NaN
// into the largest positive value (as CUDA's conversions do).
//   f6_e2m3: 1 sign, 2 exponent (bias 1), 3 mantissa bits; magnitudes up to 7.5
//   f6_e3m2: 1 sign, 3 exponent (bias 3), 2 mantissa bits; up to 28
//   f4_e2m1: 1 sign, 2 exponent (bias 1), 1 mantissa bit; 0, 0.5, 1, 1.5, 2, 3, 4, 6
struct f6_e2m3 {
  std::uint8_t bits = 0;
  f6_e2m3() = default;
  f6_e2m3(float v);  // NOLINT(google-explicit-constructor): behaves like a number
  operator float() const;  // NOLINT
};
struct f6_e3m2 {
  std::uint8_t bits = 0;
  f6_e3m2() = default;
  f6_e3m2(float v);  // NOLINT
  operator float() const;  // NOLINT
};
struct f4_e2m1 {
  std::uint8_t bits = 0;
  f4_e2m1() = default;
  f4_e2m1(float v);  // NOLINT
  operator float() const;  // NOLINT
};

// An integer of `Bits` bits (two's complement when signed). A conversion
// from a wider integer keeps the low bits, as a cast to int8_t does: s4(9)
// is -7, u4(17) is 1. A float converts toward zero first.
template <int Bits, bool Signed>
struct SubByteInt {
  static_assert(Bits > 0 && Bits < 8, "a sub-byte integer has 1 to 7 bits");
  static constexpr int kMin = Signed ? -(1 << (Bits - 1)) : 0;
  static constexpr int kMax = Signed ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1;
  static constexpr unsigned kMask = (1u << Bits) - 1;

  std::uint8_t bits = 0;
  SubByteInt() = default;
  constexpr SubByteInt(long long v)  // NOLINT: behaves like a number
      : bits(static_cast<std::uint8_t>(static_cast<unsigned long long>(v) & kMask)) {}
  constexpr operator int() const {  // NOLINT
    const int raw = bits & static_cast<int>(kMask);
    return Signed && raw > kMax ? raw - (1 << Bits) : raw;
  }
};
using u6 = SubByteInt<6, false>;
using s6 = SubByteInt<6, true>;
using u4 = SubByteInt<4, false>;
using s4 = SubByteInt<4, true>;
using u2 = SubByteInt<2, false>;
using s2 = SubByteInt<2, true>;
using u1 = SubByteInt<1, false>;

// One binary digit, 0 or 1. Unlike u1 it converts as a bool does: any
// nonzero value is 1 (bin1(2) is 1, u1(2) is 0).
struct bin1 {
  std::uint8_t bits = 0;
  bin1() = default;
  constexpr bin1(long long v) : bits(v != 0 ? 1 : 0) {}  // NOLINT: behaves like a number
  constexpr operator int() const { return bits & 1; }  // NOLINT
};

// Whether T is one of the sub-byte integer types above.
template <typename T> inline constexpr bool is_subbyte_integer_v = false;
template <int Bits, bool Signed> inline constexpr bool is_subbyte_integer_v<SubByteInt<Bits, Signed>> = true;
template <> inline constexpr bool is_subbyte_integer_v<bin1> = true;

template <> struct dtype_of<f6_e2m3> { static constexpr DType value = DType::f6_e2m3; };
template <> struct dtype_of<f6_e3m2> { static constexpr DType value = DType::f6_e3m2; };
template <> struct dtype_of<f4_e2m1> { static constexpr DType value = DType::f4_e2m1; };
template <> struct dtype_of<u6> { static constexpr DType value = DType::u6; };
template <> struct dtype_of<s6> { static constexpr DType value = DType::s6; };
template <> struct dtype_of<u4> { static constexpr DType value = DType::u4; };
template <> struct dtype_of<s4> { static constexpr DType value = DType::s4; };
template <> struct dtype_of<u2> { static constexpr DType value = DType::u2; };
template <> struct dtype_of<s2> { static constexpr DType value = DType::s2; };
template <> struct dtype_of<u1> { static constexpr DType value = DType::u1; };
template <> struct dtype_of<bin1> { static constexpr DType value = DType::bin1; };

// The value of one element byte of a sub-byte type (bits above the type's
// width are ignored); throws croq::Error for other types.
double subbyte_value(DType t, std::uint8_t bits);

// Packs `count` elements of type `t` (one per byte, as tensors hold them)
// densely, low bits first: element i takes bits [i*b, i*b + b) of the
// output, b = dtype_bits(t), bit k being bit k % 8 of byte k / 8. The output
// has packed_bytes(t, count) bytes; bits past the last element are zero,
// and bits above each element's width in the input are ignored. Types of
// whole bytes are copied as they are.
void pack_elements(DType t, const void* elements, std::size_t count, void* packed);
// The inverse: one byte per element, the value in the low bits, zeros above.
void unpack_elements(DType t, const void* packed, std::size_t count, void* elements);

}  // namespace croq
