// The register-fragment section of the device prelude: RS-mode WGMMA (A
// from registers), SS mode with an N-major B, and the quad reductions of
// accumulator rows; hopper_prelude_frag() generates the specializations of
// the forms a kernel uses into the marked line.
#ifndef CROQ_PRELUDE_HOPPER_FRAG_CUH
#define CROQ_PRELUDE_HOPPER_FRAG_CUH
#include "hopper_wgmma.cuh"
// ===== croq hopper prelude: register fragments (RS-mode WGMMA) =====
namespace croq_dev {
__device__ __forceinline__ u32 pack_pair(__half lo, __half hi) {
  return u32(__half_as_ushort(lo)) | (u32(__half_as_ushort(hi)) << 16);
}
__device__ __forceinline__ u32 pack_pair(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return u32(__bfloat16_as_ushort(lo)) | (u32(__bfloat16_as_ushort(hi)) << 16);
}

// The max / sum of a row over the 4 lanes of a quad, which hold its columns.
__device__ __forceinline__ float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ __forceinline__ float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}
#if CROQ_DEV_SM90A
namespace detail {
// Kind = 2 * (B is N-major: imm-trans-b) + (bf16 inputs).
template <int N, int Kind>
struct wgmma_rs;
template <int N, int Kind>
struct wgmma_ss_tb;  // both operands in shared memory, B N-major
template <int N, int Kind>
struct wgmma_ss_ta;  // both in shared memory, A M-major; Kind = 2 * (B N-major) + (bf16)
template <typename AB>
struct rs_bf16 {
  static constexpr int value = 0;
};
template <>
struct rs_bf16<__nv_bfloat16> {
  static constexpr int value = 1;
};
// croq-prelude: generated wgmma_rs
}  // namespace detail

// An N-major ([K][N]) tile copied with swizzle Span whose rows (one K each)
// are exactly Span bytes: K runs in atoms of 8 rows, 8 * Span bytes apart
// (the stride byte offset); N fits in one atom, so the leading byte offset,
// the distance between atoms along N, is never used.
template <u32 Span>
__device__ __forceinline__ u64 make_mnmajor_desc(const void* tile) {
  static_assert(Span == 32 || Span == 64 || Span == 128, "swizzled N-major needs span 32, 64 or 128");
  return make_smem_desc(tile, 8 * Span, 8 * Span, Span);
}

// The fragment's pairs packed as WGMMA's A registers (R / 2 of them), done
// before the wgmma fence so that no register is written between the fence
// and the instructions that read it.
template <int R, typename AB>
__device__ __forceinline__ void pack_fragment(const AB (&a)[R], u32 (&packed)[R / 2]) {
#pragma unroll
  for (int i = 0; i < R / 2; ++i) packed[i] = pack_pair(a[2 * i], a[2 * i + 1]);
}
// pack_fragment's registers are live until the wgmma reading them: keep the
// compiler from moving their computation past the fence.
template <int P>
__device__ __forceinline__ void fence_packed(u32 (&packed)[P]) {
#pragma unroll
  for (int i = 0; i < P; ++i) asm volatile("" : "+r"(packed[i])::"memory");
}

// D[64 x N] += A[64 x 16] * B[16 x N] with A the k16 slice `k16` of a
// fragment's packed registers (pack_fragment: P = K / 4 of them, the
// accumulator layout of [64, K]) and B from shared memory: [N][K]
// (K-major), or with TransB [K][N] (N-major). d: N / 2 floats, the
// accumulator layout. Bf16: bf16 inputs, else f16.
template <int N, bool TransB, int P, bool Bf16>
__device__ __forceinline__ void wgmma_m64nNk16_rs(float (&d)[N / 2], const u32 (&a)[P], int k16, u64 desc_b,
                                                  int scale_d = 1) {
  const int i = 4 * k16;
  detail::wgmma_rs<N, 2 * int(TransB) + int(Bf16)>::run(d, a[i], a[i + 1], a[i + 2], a[i + 3], desc_b, scale_d);
}

// The same with A from shared memory (K-major): mma.row.col of two shared tiles.
template <int N, typename AB>
__device__ __forceinline__ void wgmma_m64nNk16_tb(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_ss_tb<N, detail::rs_bf16<AB>::value>::run(d, desc_a, desc_b, scale_d);
}

// The same with A from shared memory M-major ([K][M], M = 64: imm-trans-a),
// B K-major ([N][K]) or with TransB N-major ([K][N]): mma.col.row, mma.col.col.
template <int N, typename AB, bool TransB>
__device__ __forceinline__ void wgmma_m64nNk16_ta(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_ss_ta<N, 2 * int(TransB) + detail::rs_bf16<AB>::value>::run(d, desc_a, desc_b, scale_d);
}
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
// ===== end of croq hopper prelude: register fragments =====
#endif  // CROQ_PRELUDE_HOPPER_FRAG_CUH
