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
// The layouts differ: in each k32 slice, lane q of a quad holds the pairs of
// columns 8 j + 2 q, 8 j + 2 q + 1 (j = 0..3) of rows g and g + 8, where the
// A operand wants columns 4 q..4 q + 3 and 16 + 4 q..16 + 4 q + 3, i.e. the
// pairs of chunks q / 2 and 2 + q / 2 from lanes 2 (q % 2) and 2 (q % 2) + 1.
// So lane s's pairs of chunks 0 and 2 (word A) go to lane s / 2 and those of
// chunks 1 and 3 (word B) to lane 2 + s / 2: per row half two shuffles, in
// each of which every lane offers one word (A on even lanes, then B) and
// reads another's, and byte permutes put the pairs in column order. Every
// lane of the warp calls it.
template <int R, typename T>
__device__ __forceinline__ void pack_fragment_fp8(const T (&a)[R], u32 (&packed)[R / 4]) {
  static_assert(R % 16 == 0, "an fp8 register lhs has K in steps of 32");
  const int lane = int(threadIdx.x % 32u), q = lane & 3;
  const int first = (lane & ~3) | ((q & 1) << 1) | (q >> 1);  // the other source: first ^ 1
  const bool odd = q & 1;
  // The first word read comes from the lane with the higher columns when q >= 2.
  const u32 low_columns = (q & 2) ? 0x1054u : 0x5410u, high_columns = (q & 2) ? 0x3276u : 0x7632u;
#pragma unroll
  for (int s = 0; s < R / 16; ++s) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // rows g, then g + 8
      const int e = 16 * s + 2 * h;
      const u32 word_a = u32(a[e].__x) | (u32(a[e + 1].__x) << 8) | (u32(a[e + 8].__x) << 16) | (u32(a[e + 9].__x) << 24);
      const u32 word_b =
          u32(a[e + 4].__x) | (u32(a[e + 5].__x) << 8) | (u32(a[e + 12].__x) << 16) | (u32(a[e + 13].__x) << 24);
      const u32 one = __shfl_sync(0xffffffffu, odd ? word_b : word_a, first);
      const u32 two = __shfl_sync(0xffffffffu, odd ? word_a : word_b, first ^ 1);
      packed[4 * s + h] = __byte_perm(one, two, low_columns);
      packed[4 * s + 2 + h] = __byte_perm(one, two, high_columns);
    }
  }
}
}  // namespace croq_dev
// ===== end of croq hopper prelude: fp8 WGMMA =====
#endif  // CROQ_PRELUDE_HOPPER_FP8_CUH
