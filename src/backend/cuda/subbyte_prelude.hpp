// The device prelude of the sub-byte element types: CUDA C++ text that
// kernels using any of them paste at their top (Kernel::needs_subbyte).
//
// Each type is a one-byte struct, the value in the low bits and zeros above
// (as croq/subbyte.hpp stores them on the host). Its constructor is
// explicit, so every store is a conversion the IR spelled out; it reads as
// its float or int, so casts to any arithmetic type work (printf, math):
//
//   croq_f6_e2m3, croq_f6_e3m2, croq_f4_e2m1   from/to float
//   croq_u6, croq_s6, croq_u4, croq_s4, croq_u2, croq_s2, croq_u1, croq_bin1
//                                               from/to int
//
// Conversions from float round to nearest even, saturate to the largest
// finite value and turn NaN into the largest positive one; integers keep
// their low bits (bin1: nonzero is 1). The conversion functions,
// croq_dev::small_float_from_f32<E, M>(float) and small_float_to_f32<E, M>(bits),
// are __host__ __device__ and need only __float_as_uint, __uint_as_float and
// rintf, so a test can check them against the host conversions.
#pragma once

#include <string_view>

namespace croq::backend::cuda {

std::string_view subbyte_prelude();

}  // namespace croq::backend::cuda
