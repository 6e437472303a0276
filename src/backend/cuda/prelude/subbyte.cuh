// The device prelude of the sub-byte element types: one-byte structs, the
// value in the low bits (see backend/cuda/subbyte_prelude.hpp). The
// conversions are __host__ __device__ and need only __float_as_uint,
// __uint_as_float and rintf.
#ifndef CROQ_PRELUDE_SUBBYTE_CUH
#define CROQ_PRELUDE_SUBBYTE_CUH
// ---- sub-byte element types (libcroqjit): a byte each, the value in the low bits
namespace croq_dev {

// Bits of a finite-only small float (1 sign, E exponent, M mantissa bits).
template <int E, int M>
__host__ __device__ __forceinline__ float small_float_to_f32(unsigned bits) {
  constexpr int kBias = (1 << (E - 1)) - 1;
  const unsigned man = bits & ((1u << M) - 1), exp = (bits >> M) & ((1u << E) - 1);
  // (2^M + man) * 2^(exp - bias - M), or man * 2^(1 - bias - M) below the normals
  const float scale = __uint_as_float(static_cast<unsigned>(127 + (exp ? static_cast<int>(exp) : 1) - kBias - M) << 23);
  const float magnitude = static_cast<float>(exp ? (man | (1u << M)) : man) * scale;
  return (bits >> (E + M)) & 1u ? -magnitude : magnitude;
}

// f32 to a small float: round to nearest even, saturate (infinities too),
// NaN to the largest positive value.
template <int E, int M>
__host__ __device__ __forceinline__ unsigned char small_float_from_f32(float v) {
  constexpr int kBias = (1 << (E - 1)) - 1;
  constexpr unsigned kLargest = (1u << (E + M)) - 1;
  const unsigned u = __float_as_uint(v);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned char>(kLargest);
  const unsigned sign = (u >> 31) << (E + M);
  const float a = __uint_as_float(u & 0x7fffffffu);
  if (!(a < small_float_to_f32<E, M>(kLargest))) return static_cast<unsigned char>(sign | kLargest);
  // The unbiased exponent of `a`, no lower than the normals' least (f32
  // zeros and subnormals read as -127); then `a` in units of its last place.
  int e = static_cast<int>((u >> 23) & 0xffu) - 127;
  if (e < 1 - kBias) e = 1 - kBias;
  const float units = a * __uint_as_float(static_cast<unsigned>(127 + M - e) << 23);
  unsigned man = static_cast<unsigned>(rintf(units));
  if (man >= (2u << M)) {  // rounded up into the next binade
    man >>= 1;
    ++e;
  }
  if (man < (1u << M)) return static_cast<unsigned char>(sign | man);  // subnormal or zero
  return static_cast<unsigned char>(sign | (static_cast<unsigned>(e + kBias) << M) | (man & ((1u << M) - 1)));
}

template <int E, int M>
struct SmallFloat {
  unsigned char bits;
  SmallFloat() = default;
  __device__ explicit SmallFloat(float v) : bits(small_float_from_f32<E, M>(v)) {}
  __device__ operator float() const { return small_float_to_f32<E, M>(bits); }
};

template <int Bits, bool Signed>
struct SubByteInt {
  unsigned char bits;
  SubByteInt() = default;
  __device__ explicit SubByteInt(int v) : bits(static_cast<unsigned char>(v & ((1 << Bits) - 1))) {}
  __device__ operator int() const {
    const unsigned raw = bits & ((1u << Bits) - 1);
    return Signed ? static_cast<int>(raw << (32 - Bits)) >> (32 - Bits) : static_cast<int>(raw);
  }
};

struct Bin1 {
  unsigned char bits;
  Bin1() = default;
  __device__ explicit Bin1(int v) : bits(v != 0 ? 1 : 0) {}
  __device__ operator int() const { return bits & 1; }
};

}  // namespace croq_dev

typedef croq_dev::SmallFloat<2, 3> croq_f6_e2m3;
typedef croq_dev::SmallFloat<3, 2> croq_f6_e3m2;
typedef croq_dev::SmallFloat<2, 1> croq_f4_e2m1;
typedef croq_dev::SubByteInt<6, false> croq_u6;
typedef croq_dev::SubByteInt<6, true> croq_s6;
typedef croq_dev::SubByteInt<4, false> croq_u4;
typedef croq_dev::SubByteInt<4, true> croq_s4;
typedef croq_dev::SubByteInt<2, false> croq_u2;
typedef croq_dev::SubByteInt<2, true> croq_s2;
typedef croq_dev::SubByteInt<1, false> croq_u1;
typedef croq_dev::Bin1 croq_bin1;
#endif  // CROQ_PRELUDE_SUBBYTE_CUH
