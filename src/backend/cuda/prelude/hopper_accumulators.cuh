// The Hopper device prelude, part 3: the accumulator fragment layout and
// its stores to global and shared memory, and the mma.sync form of the mma.*
// statements for targets without WGMMA.
#ifndef CROQ_PRELUDE_HOPPER_ACCUMULATORS_CUH
#define CROQ_PRELUDE_HOPPER_ACCUMULATORS_CUH
#include "hopper_wgmma.cuh"
namespace croq_dev {

// ---------------------------------------------------------------------------
// Accumulator fragments of m64nNk16 (f32 form, register i of N/2) for thread
// t (0..127) of the warpgroup: warp w = t/32 owns rows 16w..16w+15; lane l
// holds rows l/4 and l/4 + 8, columns 8j + 2(l%4) and +1, j = i/4:
//   i%4 = 0: (r, c)  1: (r, c+1)  2: (r+8, c)  3: (r+8, c+1)
// ---------------------------------------------------------------------------

__host__ __device__ constexpr int accum_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
__host__ __device__ constexpr int accum_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }

// Calls f(row, col, v0, v1) for each horizontally adjacent pair (row, col),
// (row, col + 1) of this thread's fragment (col even). M = 64: a warpgroup's
// tile; M = 16: one warp's own tile (warp-level mma), the same layout with
// the warp's rows from 0.
template <int N, int M = 64, typename F>
__device__ __forceinline__ void for_each_accum_pair(const float (&d)[N / 2], F&& f) {
  static_assert(M == 64 || M == 16, "a warpgroup's 64 rows or a warp's 16");
  const int t = static_cast<int>(threadIdx.x % (M == 64 ? 128 : 32));
#pragma unroll
  for (int i = 0; i < N / 2; i += 2) f(accum_row(t, i), accum_col(t, i), d[i], d[i + 1]);
}
template <int N, int M = 64, typename F>
__device__ __forceinline__ void for_each_accum_pair(const u32 (&d)[N / 4], F&& f) {
  static_assert(M == 64 || M == 16, "a warpgroup's 64 rows or a warp's 16");
  const int t = static_cast<int>(threadIdx.x % (M == 64 ? 128 : 32));
#pragma unroll
  for (int k = 0; k < N / 4; ++k)
    f(accum_row(t, 2 * k), accum_col(t, 2 * k), __half2float(__ushort_as_half(u16(d[k] & 0xFFFFu))),
      __half2float(__ushort_as_half(u16(d[k] >> 16))));
}

// One element / an aligned pair of elements from f32 (round to nearest).
__device__ __forceinline__ void store_one(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_one(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store_one(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store_pair(float* p, float a, float b) {
  *reinterpret_cast<float2*>(p) = make_float2(a, b);
}
__device__ __forceinline__ void store_pair(__half* p, float a, float b) {
  *reinterpret_cast<__half2*>(p) = __floats2half2_rn(a, b);
}
__device__ __forceinline__ void store_pair(__nv_bfloat16* p, float a, float b) {
  *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}

// Stores a warpgroup's 64 x N accumulator (M = 16: a warp's 16 x N) to a row-major tile at `tile`
// (element (0, 0) of the 64 x N block; leading dimension `ld` elements),
// converting to T (float, __half, __nv_bfloat16). Only rows < `rows` and
// columns < `cols` are written (pass the extents left from the tile's origin
// for partial tiles). Pairs go out as one 2-element store when aligned.
// D is the accumulator type: float[N/2] or (f16 accumulate) u32[N/4].
template <int N, int M = 64, typename D, typename T>
__device__ __forceinline__ void store_accum_global(const D& d, T* tile, long long ld, int rows, int cols) {
  const bool pairs = (ld % 2 == 0) && (reinterpret_cast<u64>(tile) % (2 * sizeof(T)) == 0);
  for_each_accum_pair<N, M>(d, [&](int r, int c, float v0, float v1) {
    if (r >= rows) return;
    T* p = tile + static_cast<long long>(r) * ld + c;
    if (pairs && c + 1 < cols) {
      store_pair(p, v0, v1);
    } else {
      if (c < cols) store_one(p, v0);
      if (c + 1 < cols) store_one(p + 1, v1);
    }
  });
}

// Stores the accumulator transposed (mma.store.transp): element (r, c) goes
// to (c, r) of the [N, M] tile at `tile` (any memory), written only where
// the destination row < `rows` and column < `cols`.
template <int N, int M = 64, typename D, typename T>
__device__ __forceinline__ void store_accum_transposed(const D& d, T* tile, long long ld, int rows, int cols) {
  for_each_accum_pair<N, M>(d, [&](int r, int c, float v0, float v1) {
    if (r >= cols) return;
    if (c < rows) store_one(tile + static_cast<long long>(c) * ld + r, v0);
    if (c + 1 < rows) store_one(tile + static_cast<long long>(c + 1) * ld + r, v1);
  });
}

// Stores the accumulator to a row-major shared tile (no bounds; `ld` even and
// `tile` aligned to two elements).
template <int N, int M = 64, typename D, typename T>
__device__ __forceinline__ void store_accum_shared(const D& d, T* tile, int ld) {
  for_each_accum_pair<N, M>(d, [&](int r, int c, float v0, float v1) { store_pair(tile + r * ld + c, v0, v1); });
}

// The same into a tile laid out with swizzle Span, as a TMA copy with
// `.swiz<Span>` reads it: rows of Span bytes (`ld` elements), their 16-byte
// chunks permuted within atoms of 8 rows (`tile` starts an atom). A pair
// never leaves its chunk, and the eight rows a warp writes at once land in
// different banks.
template <int N, int Span, int M = 64, typename D, typename T>
__device__ __forceinline__ void store_accum_shared_swizzled(const D& d, T* tile, int ld) {
  for_each_accum_pair<N, M>(d, [&](int r, int c, float v0, float v1) {
    store_pair(tile + swizzle_element<T>(u32(r), u32(c), u32(ld), Span), v0, v1);
  });
}

// ---------------------------------------------------------------------------
// mma.sync (sm_80 and newer): how the mma.* statements lower below sm_90.
// The Croqtile meaning is unchanged: one warpgroup computes a 64 x N tile
// from lhs [64, K] and rhs [N, K], both K-major in shared memory. Warp w of
// the warpgroup takes rows 16w..16w+15 and runs m16n8k16 over each n8 block
// of N and k16 slice of K. The accumulator is the array WGMMA uses, in the
// same fragment layout (accum_row / accum_col): for n8 block j, d[4j..4j+3]
// are the m16n8k16 C/D registers (rows g and g+8 with g = lane / 4, columns
// 2 * (lane % 4) and +1); f16 accumulators hold the same pairs packed in
// d[2j] and d[2j+1]. So mma.fill, fence_accum and store_accum_* serve both.
// Operands come from shared memory through ldmatrix, which hands lane l row
// l / 4, columns 2 * (l % 4) and +1 of each 8 x 8 matrix: for A those are the
// m16n8k16 A registers directly, and a [N, K] rhs is what .row.col wants for
// B (no transpose).
// ---------------------------------------------------------------------------

// Shared address of byte `k_byte` of row `row` of a K-major tile whose
// unswizzled element (0, 0) sits at shared address `base`, rows `pitch`
// bytes apart, written with swizzle `span` (0, 32, 64, 128). The swizzle
// acts on the absolute address, as TMA applies it, so the tile must be
// aligned to 8 * span bytes and `base` must start a multiple of 8 rows.
__device__ __forceinline__ u32 kmajor_addr(u32 base, u32 row, u32 k_byte, u32 pitch, u32 span) {
  return swizzle_offset(base + row * pitch + k_byte, span);
}

// ldmatrix: lanes 8q..8q+7 give the row addresses (16 bytes each, 16-byte
// aligned) of 8 x 8 b16 matrix q; matrix q arrives in r[q].
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
// The same transposed (.trans): lane l gets column l / 4, rows 2 * (l % 4)
// and +1 of each matrix; reads a [K, N] rhs as the B fragment.
__device__ __forceinline__ void ldmatrix_x4_trans(u32 (&r)[4], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x2_trans(u32 (&r)[2], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr)
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x2(u32 (&r)[2], u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr)
               : "memory");
}

namespace detail {
// One m16n8k16: D += A * B with A the 4 registers of a 16 x 16 row-major
// block, B the 2 registers (k 0-7, k 8-15) of a 16 x 8 column-major block;
// f32 accumulators for AB = __half or __nv_bfloat16 (PTX type T).
template <typename AB>
struct mma_sync_op;
#define CROQ_MMA_SYNC_F32(AB, T)                                                                      \
  template <>                                                                                       \
  struct mma_sync_op<AB> {                                                                          \
    static __device__ __forceinline__ void f32(float& d0, float& d1, float& d2, float& d3,          \
                                               const u32 (&a)[4], u32 b0, u32 b1) {                 \
      asm("mma.sync.aligned.m16n8k16.row.col.f32." T "." T ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
          "{%8, %9}, {%0, %1, %2, %3};\n"                                                            \
          : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)                                                  \
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));                          \
    }                                                                                               \
  }
CROQ_MMA_SYNC_F32(__half, "f16");
CROQ_MMA_SYNC_F32(__nv_bfloat16, "bf16");
#undef CROQ_MMA_SYNC_F32

// The same with f16 accumulators (f16 inputs): two registers of two halves.
__device__ __forceinline__ void mma_sync_f16(u32& d0, u32& d1, const u32 (&a)[4], u32 b0, u32 b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
      : "+r"(d0), "+r"(d1)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <typename T>
__host__ __device__ constexpr bool mma_sync_is_half() {
  return false;
}
template <>
__host__ __device__ constexpr bool mma_sync_is_half<__half>() {
  return true;
}

// The n8 block j of one k16 step: accumulate into the f32 or f16 registers.
template <typename AB>
__device__ __forceinline__ void mma_sync_block(float* d, int j, const u32 (&a)[4], u32 b0, u32 b1) {
  mma_sync_op<AB>::f32(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3], a, b0, b1);
}
template <typename AB>
__device__ __forceinline__ void mma_sync_block(u32* d, int j, const u32 (&a)[4], u32 b0, u32 b1) {
  static_assert(mma_sync_is_half<AB>(), "f16 accumulation takes f16 inputs");
  mma_sync_f16(d[2 * j], d[2 * j + 1], a, b0, b1);
}

// D[64 x N] += A[64 x K] * B[N x K]^T for one warpgroup; D is float[N/2] or
// (f16 accumulate) u32[N/4]. PerWarp: D[16 x N] += A[16 x K] * B for each
// warp on its own tiles. BTrans: B is given as [K x N] (N contiguous, the
// row.col rhs) and read with ldmatrix.trans: matrix q of an x4 is then rows
// k 8(q%2)..+7 at columns 8(j + q/2)..+7, the same B registers as untransposed.
template <int N, int K, u32 SpanA, u32 SpanB, typename AB, bool PerWarp = false, bool BTrans = false, typename D>
__device__ __forceinline__ void mma_sync_tile(D* d, const void* a, u32 a_pitch, const void* b, u32 b_pitch) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "N is a multiple of 8 up to 256");
  static_assert(K >= 16 && K % 16 == 0, "K is a multiple of 16");
  const u32 lane = threadIdx.x & 31u;
  const u32 warp = PerWarp ? 0u : (threadIdx.x >> 5) & 3u;  // within the warpgroup
  const u32 quad = lane >> 3;                 // which 8 x 8 matrix this lane addresses
  // A (x4): matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15)
  // of the warp's 16 rows; B (x4): (block j, k 0-7), (block j, k 8-15), (block j+1, k 0-7),
  // (block j+1, k 8-15). B (x2, a last odd block): lanes 0-15 as the first two.
  const u32 a_row = 16u * warp + (lane & 7u) + 8u * (quad & 1u);
  const u32 a_k = 16u * (quad >> 1);
  const u32 b_row = (lane & 7u) + 8u * (quad >> 1);
  const u32 b_k = 16u * (quad & 1u);
  const u32 a_base = smem_addr(a), b_base = smem_addr(b);
#pragma unroll
  for (int k16 = 0; k16 < K / 16; ++k16) {
    const u32 k_byte = 32u * static_cast<u32>(k16);
    u32 fa[4];
    ldmatrix_x4(fa, kmajor_addr(a_base, a_row, k_byte + a_k, a_pitch, SpanA));
#pragma unroll
    for (int j = 0; j + 1 < N / 8; j += 2) {
      u32 fb[4];
      if constexpr (BTrans)
        ldmatrix_x4_trans(fb, kmajor_addr(b_base, 16u * k16 + (lane & 7u) + 8u * (quad & 1u),
                                          16u * (static_cast<u32>(j) + (quad >> 1)), b_pitch, SpanB));
      else
        ldmatrix_x4(fb, kmajor_addr(b_base, 8u * j + b_row, k_byte + b_k, b_pitch, SpanB));
      mma_sync_block<AB>(d, j, fa, fb[0], fb[1]);
      mma_sync_block<AB>(d, j + 1, fa, fb[2], fb[3]);
    }
    if constexpr ((N / 8) % 2 == 1) {
      u32 fb[2];
      if constexpr (BTrans)
        ldmatrix_x2_trans(fb, kmajor_addr(b_base, 16u * k16 + (lane & 7u) + 8u * (quad & 1u), 16u * (N / 8 - 1),
                                          b_pitch, SpanB));
      else
        ldmatrix_x2(fb, kmajor_addr(b_base, 8u * (N / 8 - 1) + (lane & 7u), k_byte + b_k, b_pitch, SpanB));
      mma_sync_block<AB>(d, N / 8 - 1, fa, fb[0], fb[1]);
    }
  }
}
}  // namespace detail

// One warpgroup's mma.row.row: d (float[N/2], or u32[N/4] for f16
// accumulation with f16 inputs) += A * B^T, A = `a` [64 x K] and B = `b`
// [N x K], K-major in shared memory, rows `a_pitch` / `b_pitch` bytes apart
// (a multiple of 16; the span itself when swizzled), written with swizzle
// SpanA / SpanB (0 = none, 32, 64, 128). AB = __half or __nv_bfloat16.
template <int N, int K, u32 SpanA, u32 SpanB, typename AB>
__device__ __forceinline__ void mma_sync_m64nNkK(float (&d)[N / 2], const void* a, u32 a_pitch, const void* b,
                                                 u32 b_pitch) {
  detail::mma_sync_tile<N, K, SpanA, SpanB, AB>(d, a, a_pitch, b, b_pitch);
}
template <int N, int K, u32 SpanA, u32 SpanB, typename AB>
__device__ __forceinline__ void mma_sync_m64nNkK(u32 (&d)[N / 4], const void* a, u32 a_pitch, const void* b,
                                                 u32 b_pitch) {
  detail::mma_sync_tile<N, K, SpanA, SpanB, AB>(d, a, a_pitch, b, b_pitch);
}

// Warp-level mma (each warp of a `: group` level its own tiles): d += A * B
// with A = `a` [16 x K] K-major and B = `b` [N x K] (row.row) or, with
// BTrans, [K x N] (row.col); otherwise as mma_sync_m64nNkK. The accumulator
// has the layout of one warp's rows of the warpgroup form (store with M = 16).
template <int N, int K, u32 SpanA, u32 SpanB, typename AB, bool BTrans>
__device__ __forceinline__ void mma_sync_m16nNkK(float (&d)[N / 2], const void* a, u32 a_pitch, const void* b,
                                                 u32 b_pitch) {
  detail::mma_sync_tile<N, K, SpanA, SpanB, AB, true, BTrans>(d, a, a_pitch, b, b_pitch);
}
template <int N, int K, u32 SpanA, u32 SpanB, typename AB, bool BTrans>
__device__ __forceinline__ void mma_sync_m16nNkK(u32 (&d)[N / 4], const void* a, u32 a_pitch, const void* b,
                                                 u32 b_pitch) {
  detail::mma_sync_tile<N, K, SpanA, SpanB, AB, true, BTrans>(d, a, a_pitch, b, b_pitch);
}

}  // namespace croq_dev
#endif  // CROQ_PRELUDE_HOPPER_ACCUMULATORS_CUH
