// The device prelude of tf32 and the block-scale types (f8_ue8m0, f8_ue4m3):
// storage structs computed in f32 (see backend/cuda/scale_type_prelude.hpp).
// The conversions are __host__ __device__ and need only __float_as_uint,
// __uint_as_float and rintf.
#ifndef CROQ_PRELUDE_SCALE_TYPES_CUH
#define CROQ_PRELUDE_SCALE_TYPES_CUH
// ---- tf32, f8_ue8m0 and f8_ue4m3 (libcroqjit): storage structs, computed in f32
namespace croq_dev {

__host__ __device__ __forceinline__ unsigned tf32_from_f32(float v) {
  const unsigned u = __float_as_uint(v);
  // A NaN stays a quiet NaN (its payload might lie in the dropped bits).
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u & ~0x1fffu) | 0x00400000u;
  // Half the kept ulp, then truncate: ties away from zero; an infinity's
  // zero mantissa stays zero.
  return (u + 0x1000u) & ~0x1fffu;
}

__host__ __device__ __forceinline__ float ue8m0_to_f32(unsigned bits) {
  bits &= 0xffu;
  if (bits == 0xffu) return __uint_as_float(0x7fc00000u);
  return __uint_as_float(bits ? bits << 23 : 0x00400000u);  // code 0 is 2^-127, an f32 subnormal
}

// The least power of two not below |v|, within 2^-127 .. 2^127; NaN is 255.
__host__ __device__ __forceinline__ unsigned char ue8m0_from_f32(float v) {
  const unsigned a = __float_as_uint(v) & 0x7fffffffu;
  if (a > 0x7f800000u) return 0xff;
  if (a <= 0x00400000u) return 0;     // up to 2^-127, zero too
  if (a > 0x7f000000u) return 0xfe;   // past 2^127, infinity too
  const unsigned exp = a >> 23;
  if (exp == 0) return 1;             // between 2^-127 and 2^-126
  return static_cast<unsigned char>((a & 0x007fffffu) ? exp + 1 : exp);
}

__host__ __device__ __forceinline__ float ue4m3_to_f32(unsigned bits) {
  bits &= 0x7fu;
  if (bits == 0x7fu) return __uint_as_float(0x7fc00000u);
  const unsigned exp = bits >> 3, man = bits & 7u;
  // (8 + man) * 2^(exp - 10), or man * 2^-9 below the normals
  const float scale = __uint_as_float((127u + (exp ? exp : 1u) - 10u) << 23);
  return static_cast<float>(exp ? (man | 8u) : man) * scale;
}

__host__ __device__ __forceinline__ unsigned char ue4m3_from_f32(float v) {
  const unsigned u = __float_as_uint(v);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7f;
  if (!(v > 0.0f)) return 0;          // negatives and zeros
  if (!(v < 448.0f)) return 0x7e;     // saturate (infinity too)
  // The unbiased exponent, no lower than the normals' least (-6); then v in
  // units of its last place, rounded to even.
  int e = static_cast<int>(u >> 23) - 127;
  if (e < -6) e = -6;
  unsigned man = static_cast<unsigned>(rintf(v * __uint_as_float(static_cast<unsigned>(127 + 3 - e) << 23)));
  if (man >= 16u) {  // rounded up into the next binade
    man >>= 1;
    ++e;
  }
  if (man < 8u) return static_cast<unsigned char>(man);  // subnormal or zero
  return static_cast<unsigned char>((static_cast<unsigned>(e + 7) << 3) | (man & 7u));
}

struct Tf32 {
  unsigned bits;
  Tf32() = default;
  __device__ explicit Tf32(float v) : bits(tf32_from_f32(v)) {}
  __device__ operator float() const { return __uint_as_float(bits); }
};

struct Ue8m0 {
  unsigned char bits;
  Ue8m0() = default;
  __device__ explicit Ue8m0(float v) : bits(ue8m0_from_f32(v)) {}
  __device__ operator float() const { return ue8m0_to_f32(bits); }
};

struct Ue4m3 {
  unsigned char bits;
  Ue4m3() = default;
  __device__ explicit Ue4m3(float v) : bits(ue4m3_from_f32(v)) {}
  __device__ operator float() const { return ue4m3_to_f32(bits); }
};

}  // namespace croq_dev

typedef croq_dev::Tf32 croq_tf32;
typedef croq_dev::Ue8m0 croq_f8_ue8m0;
typedef croq_dev::Ue4m3 croq_f8_ue4m3;
#endif  // CROQ_PRELUDE_SCALE_TYPES_CUH
