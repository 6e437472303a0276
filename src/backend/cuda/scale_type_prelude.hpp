// The device prelude of tf32 and the block-scale types: CUDA C++ text that
// kernels using any of them paste at their top (Kernel::needs_scale_types).
//
// Each type is a struct of its storage bits, as include/croq/dtype.hpp
// stores it on the host. Its constructor from float is explicit, so every
// store is a conversion the IR spelled out; it reads as its float, so casts
// to any arithmetic type work (printf, math):
//
//   croq_tf32       4 bytes: f32 bits, the low 13 zero; rounds to nearest,
//                   ties away from zero (PTX cvt.rna.tf32.f32)
//   croq_f8_ue8m0   1 byte: 2^(bits - 127), 255 NaN; from float as CUDA's
//                   __nv_fp8_e8m0 (magnitude, round up, satfinite)
//   croq_f8_ue4m3   1 byte: unsigned E4M3; round to nearest even,
//                   saturate at 448, negatives to 0, NaN to 0x7f
//
// The conversion functions in croq_dev are __host__ __device__ and need only
// __float_as_uint, __uint_as_float and rintf, so a test can check them
// against the host conversions without a GPU. (sm_90 has no cvt to ue8m0
// and no unsigned E4M3, so they are computed, not asked of the hardware.)
#pragma once

#include <string_view>

namespace croq::backend::cuda {

std::string_view scale_type_prelude();

}  // namespace croq::backend::cuda
