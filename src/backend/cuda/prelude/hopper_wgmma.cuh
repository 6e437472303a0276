// The Hopper device prelude, part 2: swizzle, shared-memory matrix
// descriptors, WGMMA issue and ordering, and the m64nNk16 entry points (the
// wgmma_ss specializations are generated into the marked line by
// hopper_prelude.cpp).
#ifndef CROQ_PRELUDE_HOPPER_WGMMA_CUH
#define CROQ_PRELUDE_HOPPER_WGMMA_CUH
#include "hopper_core.cuh"
namespace croq_dev {

// ---------------------------------------------------------------------------
// Swizzle. TMA's swizzle modes permute 16-byte chunks inside each row of
// `span` bytes: the chunk index (address bits 4..) is XORed with the
// 128-byte row index (bits 7..), log2(span/16) bits of each (128B: bits 4-6 ^
// 7-9; 64B: 4-5 ^ 7-8; 32B: 4 ^ 7). The pattern repeats every 8*span bytes,
// and applies to shared addresses, so tiles must be aligned to 8*span bytes
// (TMA wants 1024 for 128B) for these tile-relative offsets to hold. A
// software copy (dma.copy.swiz<span>) that stores through swizzle_* writes
// exactly the layout TMA writes, and WGMMA reads it with the same span.
// span: 0 = none, 32, 64, 128.
// ---------------------------------------------------------------------------

// Where byte `linear` of a tile lands.
__host__ __device__ constexpr u32 swizzle_offset(u32 linear, u32 span) {
  return span < 32 ? linear : linear ^ (((linear >> 7) & (span / 16 - 1)) << 4);
}

// Where byte `byte_in_row` of row `row` lands in a tile of `row_bytes`-byte
// rows (row_bytes = span for a TMA box whose inner extent is the span).
__host__ __device__ constexpr u32 swizzle_tile_offset(u32 row, u32 byte_in_row, u32 row_bytes, u32 span) {
  return swizzle_offset(row * row_bytes + byte_in_row, span);
}

// Element index of element (row, col) of a tile with `row_elems` elements of
// T per row.
template <typename T>
__host__ __device__ constexpr u32 swizzle_element(u32 row, u32 col, u32 row_elems, u32 span) {
  return swizzle_tile_offset(row, col * u32(sizeof(T)), row_elems * u32(sizeof(T)), span) / u32(sizeof(T));
}

// ---------------------------------------------------------------------------
// WGMMA shared-memory matrix descriptors (64 bits):
//   bits  0-13  start address >> 4      bits 16-29  leading byte offset >> 4
//   bits 32-45  stride byte offset >> 4 bits 49-51  base offset (0: tiles
//   aligned to the swizzle pattern)     bits 62-63  swizzle: 0 none, 1 128B,
//   2 64B, 3 32B.
// K-major operand (A as [M][K], B as [N][K], K contiguous), 16-bit types:
// - swizzled: rows of `span` bytes, 8-row atoms of 8*span bytes stacked along
//   M/N: SBO = 8*span, LBO unused (K of one MMA, 32 bytes, never leaves a
//   row); the k-th 16-element slice starts k*32 bytes into the row
//   (desc_advance), the hardware applies the swizzle on the final addresses.
// - no swizzle ("interleaved"): core matrices of 8 rows x 16 bytes stored as
//   128 contiguous bytes; LBO = bytes between K-adjacent core matrices, SBO =
//   bytes between M/N-adjacent ones.
// ---------------------------------------------------------------------------

__host__ __device__ constexpr u64 swizzle_desc_bits(u32 span) {
  return span == 128 ? 1ull : span == 64 ? 2ull : span == 32 ? 3ull : 0ull;
}

__host__ __device__ constexpr u64 smem_desc_encode(u32 addr, u32 lbo_bytes, u32 sbo_bytes, u32 span) {
  return u64((addr & 0x3FFFFu) >> 4) | (u64((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
         (u64((sbo_bytes & 0x3FFFFu) >> 4) << 32) | (swizzle_desc_bits(span) << 62);
}

// Moves the start address by `bytes` (a multiple of 16). Shared addresses
// stay below 2^18, so the 14-bit field cannot carry into its neighbours.
__host__ __device__ constexpr u64 desc_advance(u64 desc, u32 bytes) { return desc + u64(bytes >> 4); }

__device__ __forceinline__ u64 make_smem_desc(const void* smem, u32 lbo_bytes, u32 sbo_bytes, u32 span) {
  return smem_desc_encode(smem_addr(smem), lbo_bytes, sbo_bytes, span);
}

// K-major tile written with swizzle Span (32, 64 or 128) whose rows are
// exactly Span bytes (one TMA box of inner extent Span).
template <u32 Span>
__device__ __forceinline__ u64 make_kmajor_desc(const void* tile) {
  static_assert(Span == 32 || Span == 64 || Span == 128, "swizzled K-major needs span 32, 64 or 128");
  return make_smem_desc(tile, 16, 8 * Span, Span);
}

// Descriptor for the MMA slice starting at byte `k_byte` along K of a K-major
// tile of `rows` rows whose K extent is wider than the span: such tiles are
// loaded as consecutive slabs of rows x Span bytes (one TMA box per slab).
template <u32 Span>
__device__ __forceinline__ u64 make_kmajor_desc_k(const void* tile, u32 rows, u32 k_byte) {
  const u32 slab = k_byte / Span;
  return desc_advance(make_kmajor_desc<Span>(tile), slab * rows * Span + k_byte % Span);
}

// K-major tile without swizzle, in the core-matrix layout described above.
__device__ __forceinline__ u64 make_kmajor_desc_interleaved(const void* tile, u32 lbo_bytes, u32 sbo_bytes) {
  return make_smem_desc(tile, lbo_bytes, sbo_bytes, 0);
}

// ---------------------------------------------------------------------------
// WGMMA issue/ordering. A warpgroup issues together:
//   wgmma_fence();                      // before MMAs touch accumulators that
//                                       // other instructions wrote
//   wgmma_m64nNk16<N, T>(d, a, b, 1);   // any number, chained on d
//   wgmma_commit_group();
//   wgmma_wait_group<0>(); fence_accum(d);  // before reading d or reusing the
//                                           // shared tiles they read
// ---------------------------------------------------------------------------

#if CROQ_DEV_SM90A
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// CUTLASS's name for the same fence.
__device__ __forceinline__ void warpgroup_arrive() { wgmma_fence(); }

__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Waits until at most N committed WGMMA groups of this warpgroup are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// A basic-block boundary: a branch that is never taken (no kernel has one
// byte of dynamic shared memory; if one had, it would sleep a nanosecond).
// ptxas schedules a wait as early as its block allows, whatever the order
// of the PTX, so work placed before a wait to run while the multiplies do
// waited for them instead; after this boundary the wait stays behind it.
__device__ __forceinline__ void schedule_boundary() {
  unsigned dynamic_shared;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;\n" : "=r"(dynamic_shared));
  if (dynamic_shared == 1u) __nanosleep(1);
}

#endif  // CROQ_DEV_SM90A

// The compiler sees a wgmma's accumulators as written when it is issued, not
// when wait_group returns; pinning each register here (an empty volatile asm
// that "modifies" it) keeps reads of d after the wait and writes before the
// fence.
template <int R>
__device__ __forceinline__ void fence_accum(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int R>
__device__ __forceinline__ void fence_accum(u32 (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

#if CROQ_DEV_SM90A
namespace detail {
// wgmma_ss<N, Kind>::run: one m64nNk16 with both operands in shared memory,
// both K-major (imm-trans-a = imm-trans-b = 0), scale-a = scale-b = 1;
// scale_d == 0 computes D = A*B (ignores the old accumulator).
enum wgmma_kind { f32_f16 = 0, f32_bf16 = 1, f16_f16 = 2 };
template <int N, int Kind>
struct wgmma_ss;
template <typename AB>
struct wgmma_ab_kind;
template <>
struct wgmma_ab_kind<__half> {
  static constexpr int value = f32_f16;
};
template <>
struct wgmma_ab_kind<__nv_bfloat16> {
  static constexpr int value = f32_bf16;
};
// croq-prelude: generated wgmma_ss
}  // namespace detail

// D[64 x N] (+)= A[64 x 16] * B[16 x N], fp32 accumulators, A and B of type AB
// (__half or __nv_bfloat16), K-major in shared memory ("row.row": A given as
// [M][K], B as [N][K]). d holds N/2 floats per thread (accum_row/accum_col).
template <int N, typename AB = __half>
__device__ __forceinline__ void wgmma_m64nNk16(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_ss<N, detail::wgmma_ab_kind<AB>::value>::run(d, desc_a, desc_b, scale_d);
}

// The same with f16 accumulators: N/4 registers, each two halves (lower half
// = lower column) of the pair that the f32 form keeps in d[2k], d[2k+1].
template <int N, typename AB = __half>
__device__ __forceinline__ void wgmma_m64nNk16(u32 (&d)[N / 4], u64 desc_a, u64 desc_b, int scale_d = 1) {
  static_assert(sizeof(AB) == 2 && detail::wgmma_ab_kind<AB>::value == detail::f32_f16,
                "f16 accumulation takes f16 inputs");
  detail::wgmma_ss<N, detail::f16_f16>::run(d, desc_a, desc_b, scale_d);
}
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
#endif  // CROQ_PRELUDE_HOPPER_WGMMA_CUH
