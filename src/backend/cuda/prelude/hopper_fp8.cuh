// The fp8 WGMMA section of the device prelude: wgmma_m64nNk32 with e4m3 /
// e5m2 operands; hopper_prelude_fp8() generates the specializations of the
// forms a kernel uses into the marked line.
#ifndef CROQ_PRELUDE_HOPPER_FP8_CUH
#define CROQ_PRELUDE_HOPPER_FP8_CUH
#include <cuda_fp8.h>
#include "hopper_wgmma.cuh"
// ===== croq hopper prelude: fp8 WGMMA (m64nNk32, e4m3 / e5m2) =====
namespace croq_dev {
#if CROQ_DEV_SM90A
namespace detail {
// Kind = 4 * (f16 accumulator) + 2 * (A is e5m2) + (B is e5m2).
template <int N, int Kind>
struct wgmma_fp8_ss;
template <typename T>
struct fp8_code;
template <>
struct fp8_code<__nv_fp8_e4m3> {
  static constexpr int value = 0;
};
template <>
struct fp8_code<__nv_fp8_e5m2> {
  static constexpr int value = 1;
};
// croq-prelude: generated wgmma_fp8_ss
}  // namespace detail

// D[64 x N] (+)= A[64 x 32] * B[32 x N], A of type TA and B of type TB
// (__nv_fp8_e4m3 or __nv_fp8_e5m2), K-major in shared memory (A as [M][K],
// B as [N][K]). d is the accumulator of wgmma_m64nNk16 (same registers and
// fragment layout): N/2 floats, or N/4 registers of two halves.
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_m64nNk32(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_fp8_ss<N, 2 * detail::fp8_code<TA>::value + detail::fp8_code<TB>::value>::run(d, desc_a, desc_b,
                                                                                               scale_d);
}
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_m64nNk32(u32 (&d)[N / 4], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_fp8_ss<N, 4 + 2 * detail::fp8_code<TA>::value + detail::fp8_code<TB>::value>::run(d, desc_a, desc_b,
                                                                                                   scale_d);
}
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
// ===== end of croq hopper prelude: fp8 WGMMA =====
#endif  // CROQ_PRELUDE_HOPPER_FP8_CUH
