// The fp8 WGMMA section of the device prelude: wgmma_m64nNk32 with e4m3 /
// e5m2 operands, A from shared memory or (RS mode) from an fp8 register
// fragment repacked by pack_fragment_fp8; hopper_prelude_fp8() generates the
// specializations of the forms a kernel uses into the marked line.
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
// RS mode (f32 accumulators only): Kind = 2 * (A is e5m2) + (B is e5m2).
template <int N, int Kind>
struct wgmma_fp8_rs;
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

// D[64 x N] += A[64 x 32] * B[32 x N] with A the k32 slice `k32` of an fp8
// fragment repacked by pack_fragment_fp8 (P = K / 8 registers) and B K-major
// ([N][K]) in shared memory; d as wgmma_m64nNk32's f32 accumulator.
template <int N, int P, typename TA, typename TB>
__device__ __forceinline__ void wgmma_m64nNk32_rs(float (&d)[N / 2], const u32 (&a)[P], int k32, u64 desc_b,
                                                  int scale_d = 1) {
  const int i = 4 * k32;
  detail::wgmma_fp8_rs<N, 2 * detail::fp8_code<TA>::value + detail::fp8_code<TB>::value>::run(
      d, a[i], a[i + 1], a[i + 2], a[i + 3], desc_b, scale_d);
}
#endif  // CROQ_DEV_SM90A

// An fp8 register fragment (R elements a thread: the f32 accumulator layout
// of a [64, K] tile, K = 2 R) as WGMMA's k32 A registers (R / 4 of them).
// The layouts differ: in each k32 slice, lane q of a quad holds columns
// 2q, 2q + 1 of each 8-column chunk of rows g and g + 8, where the A operand
// wants columns 4q..4q + 3 and 16 + 4q..16 + 4q + 3. So each lane offers,
// per row half and per 16 columns, its pairs of two chunks as one word; lane
// q reads the words of lanes 2 (q % 2) and 2 (q % 2) + 1 of its quad and
// keeps the pair of chunk q / 2 from each (8 shuffles a slice). Every lane
// of the warp calls it.
template <int R, typename T>
__device__ __forceinline__ void pack_fragment_fp8(const T (&a)[R], u32 (&packed)[R / 4]) {
  static_assert(R % 16 == 0, "an fp8 register lhs has K in steps of 32");
  const int lane = int(threadIdx.x % 32u);
  const int source = (lane & ~3) | ((lane & 1) << 1);
  const u32 select = (lane & 2) ? 0x7632u : 0x5410u;
#pragma unroll
  for (int s = 0; s < R / 16; ++s) {
#pragma unroll
    for (int w = 0; w < 4; ++w) {  // w & 1: rows g or g + 8; w >> 1: columns 0..15 or 16..31
      const int e = 16 * s + 8 * (w >> 1) + 2 * (w & 1);
      const u32 word = u32(a[e].__x) | (u32(a[e + 1].__x) << 8) | (u32(a[e + 4].__x) << 16) | (u32(a[e + 5].__x) << 24);
      const u32 low = __shfl_sync(0xffffffffu, word, source);
      const u32 high = __shfl_sync(0xffffffffu, word, source + 1);
      packed[4 * s + w] = __byte_perm(low, high, select);
    }
  }
}
}  // namespace croq_dev
// ===== end of croq hopper prelude: fp8 WGMMA =====
#endif  // CROQ_PRELUDE_HOPPER_FP8_CUH
