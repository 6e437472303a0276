// The sparse WGMMA section of the device prelude: wgmma.mma_async.sp with a
// 2:4 sparse A and the gather of each thread's metadata register;
// hopper_prelude_sparse() generates the specializations of the forms a
// kernel uses into the marked line (and adds hopper_sparse_fp8.cuh's codes
// when a form is fp8).
#ifndef CROQ_PRELUDE_HOPPER_SPARSE_CUH
#define CROQ_PRELUDE_HOPPER_SPARSE_CUH
#include "hopper_wgmma.cuh"
// ===== croq hopper prelude: sparse WGMMA (2:4 A, .sp) =====
namespace croq_dev {
#if CROQ_DEV_SM90A
// This thread's metadata register for one WGMMA .sp step; `tile` is the
// step's first metadata byte (row 0), `pitch` bytes per metadata row.
template <bool Fp8>
__device__ __forceinline__ u32 sparse_metadata(const void* tile, unsigned pitch) {
  const unsigned t = threadIdx.x % 128u, w = t / 32u, l = t % 32u;
  const unsigned char* base = static_cast<const unsigned char*>(tile);
  if (Fp8) {
    const unsigned char* p = base + (16u * w + l / 4u + 8u * (l % 2u)) * pitch + 4u * ((l / 2u) % 2u);
    return u32(p[0]) | (u32(p[1]) << 8) | (u32(p[2]) << 16) | (u32(p[3]) << 24);
  }
  const unsigned char* p = base + (16u * w + l / 4u) * pitch + 2u * (l % 2u);
  const unsigned char* q = p + 8u * pitch;
  return u32(p[0]) | (u32(p[1]) << 8) | (u32(q[0]) << 16) | (u32(q[1]) << 24);
}
namespace detail {
// Kind = 16 * (f16 accumulator) + 4 * code(A) + code(B).
template <int N, int Kind>
struct wgmma_sp_ss;
template <typename T>
struct sparse_code;
template <>
struct sparse_code<__half> {
  static constexpr int value = 0;
};
template <>
struct sparse_code<__nv_bfloat16> {
  static constexpr int value = 1;
};
// croq-prelude: generated wgmma_sp_ss
}  // namespace detail

// D[64 x N] (+)= A[64 x K] * B[K x N] for one WGMMA .sp step (K = 32 for
// __half / __nv_bfloat16, 64 for fp8): desc_a over the packed A (K / 2
// values a row), desc_b over B as [N][K], meta from sparse_metadata. d is
// the accumulator of the dense forms (same registers and fragment layout).
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_sp_m64nNkK(float (&d)[N / 2], u64 desc_a, u64 desc_b, u32 meta, int scale_d = 1) {
  detail::wgmma_sp_ss<N, 4 * detail::sparse_code<TA>::value + detail::sparse_code<TB>::value>::run(d, desc_a, desc_b,
                                                                                                   meta, scale_d);
}
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_sp_m64nNkK(u32 (&d)[N / 4], u64 desc_a, u64 desc_b, u32 meta, int scale_d = 1) {
  detail::wgmma_sp_ss<N, 16 + 4 * detail::sparse_code<TA>::value + detail::sparse_code<TB>::value>::run(
      d, desc_a, desc_b, meta, scale_d);
}
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
// ===== end of croq hopper prelude: sparse WGMMA =====
#endif  // CROQ_PRELUDE_HOPPER_SPARSE_CUH
