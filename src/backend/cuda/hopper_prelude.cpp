// The Hopper device prelude (see hopper_prelude.hpp). The hand-written parts
// are raw strings; the TMA functions of rank 1..5 and the WGMMA
// specializations (one inline-asm block per N and type, up to 128 output
// registers each) are generated below, so their operand lists cannot drift
// from their asm strings.
//
// PTX references: the PTX ISA sections on mbarrier, cp.async.bulk.tensor,
// wgmma.mma_async (matrix descriptor format, register fragments of D),
// setmaxnreg and elect.sync.
#include "backend/cuda/hopper_prelude.hpp"

#include <string>

namespace croq::backend::cuda {
namespace {

constexpr std::string_view kHead = R"CUDA(
// ===== croq hopper prelude (sm_90a): mbarrier, TMA, WGMMA =====
#ifndef CROQ_HOPPER_PRELUDE_INCLUDED
#define CROQ_HOPPER_PRELUDE_INCLUDED
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// CROQ_DEV_SM90: whether the Hopper-only parts (clusters, elect.sync, TMA,
// expect_tx / try_wait barriers, proxy fences, WGMMA, setmaxnreg) are
// compiled. Below sm_90 (sm_80..sm_89, or compute_80 PTX) they are left out;
// the mbarrier subset of sm_80, the swizzle and fragment helpers and the
// mma.sync path stay, so the same text compiles for both.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CROQ_DEV_SM90 0
#else
#define CROQ_DEV_SM90 1
#endif
// CROQ_DEV_SM90A: whether WGMMA and setmaxnreg are compiled. They belong to
// the arch-specific feature set of 9.0 (sm_90a / compute_90a, where NVRTC
// defines __CUDA_ARCH_FEAT_SM90_ALL), not to sm_90, sm_100 or sm_120.
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CROQ_DEV_SM90A 1
#else
#define CROQ_DEV_SM90A 0
#endif

#ifndef CROQ_TENSOR_MAP_DEFINED
#define CROQ_TENSOR_MAP_DEFINED
// The driver's CUtensorMap (NVRTC has no <cuda.h>): 128 opaque bytes encoded
// on the host by cuTensorMapEncodeTiled. Kernels take it by value as
// `const __grid_constant__ croq_tensor_map`, so it stays in parameter space,
// where the TMA unit reads it through its generic address.
struct alignas(64) croq_tensor_map { unsigned long long opaque[16]; };
#endif

namespace croq_dev {

using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;

// ---------------------------------------------------------------------------
// Addresses, indices, elections
// ---------------------------------------------------------------------------

// 32-bit shared-window address of a generic pointer into shared memory (what
// every shared::cta operand of the PTX below takes).
__device__ __forceinline__ u32 smem_addr(const void* p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

// Warp index in the block, read through a shuffle so the compiler knows it is
// warp-uniform (branches on it then stay uniform).
__device__ __forceinline__ int warp_idx() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 32, 0);
}

// Warpgroup (4 consecutive warps, 128 threads) index in the block.
__device__ __forceinline__ int warpgroup_idx() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 128, 0);
}

__device__ __forceinline__ bool lane_is_zero() { return (threadIdx.x & 31u) == 0; }

#if CROQ_DEV_SM90
// True in exactly one active lane of the (fully active) warp: the way to pick
// the thread that issues TMA or arms a barrier without a divergent lane test.
__device__ __forceinline__ bool elect_one_sync() {
  u32 elected = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "elect.sync _|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(elected));
  return elected != 0;
}
#endif  // CROQ_DEV_SM90

// Barrier among `threads` threads (a multiple of 32) on hardware barrier `id`
// (1..15; 0 is __syncthreads): syncs a subset, e.g. the consumer warpgroups.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Arrives on named barrier `id` without waiting (a producer signalling
// `threads` - 32k waiters).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

#if CROQ_DEV_SM90
// ---------------------------------------------------------------------------
// Clusters (sm_90)
// ---------------------------------------------------------------------------

__device__ __forceinline__ u32 cluster_ctarank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

__device__ __forceinline__ u32 cluster_nctarank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(r));
  return r;
}

// All threads of all CTAs of the cluster arrive (release) / wait (acquire):
// used after barrier init (peers may arrive on our barriers) and before exit
// (peers may still write our shared memory).
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// The shared::cluster address of the variable at shared address `addr` in
// CTA `rank` of this cluster.
__device__ __forceinline__ u32 map_shared_rank(u32 addr, u32 rank) {
  u32 out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(out) : "r"(addr), "r"(rank));
  return out;
}
#endif  // CROQ_DEV_SM90

// ---------------------------------------------------------------------------
// mbarrier: 64-bit barriers in shared memory. A phase completes when its
// pending arrivals reach zero and its transaction (tx) byte count is zero;
// then the phase parity flips. Waiters name the parity they wait for.
// ---------------------------------------------------------------------------

// Below sm_90 only init, arrive and test_wait.parity exist (sm_80, in their
// plain `.shared` forms); the transaction-count and cluster forms, try_wait
// and fence.mbarrier_init are sm_90, and lowering refuses what needs them.

// One thread initializes; `count` = arrivals per phase.
__device__ __forceinline__ void mbar_init(u64* bar, u32 count) {
#if CROQ_DEV_SM90
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
#else
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
#endif
}

// Makes the inits visible to the async proxy (TMA's complete_tx) and to the
// cluster; follow it with __syncthreads() or cluster_sync() before first use.
// (sm_80: no async proxy and no cluster; the barrier that follows publishes
// the inits to the block.)
__device__ __forceinline__ void fence_barrier_init() {
#if CROQ_DEV_SM90
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

// One arrival (release at CTA scope).
__device__ __forceinline__ void mbar_arrive(u64* bar) {
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
#if CROQ_DEV_SM90
      "mbarrier.arrive.shared::cta.b64 state, [%0];\n"
#else
      "mbarrier.arrive.shared.b64 state, [%0];\n"
#endif
      "}\n" ::"r"(smem_addr(bar))
      : "memory");
}

#if CROQ_DEV_SM90

// One arrival on the barrier at the same offset in CTA `rank` of the cluster:
// consumers freeing a stage that a peer's multicast TMA writes. Default
// semantics (release at CTA scope), which is all a stage hand-off needs once
// the WGMMAs reading the stage have completed; a cluster-scope release is a
// cluster-wide fence on the consumer's critical path (measured: the 2-CTA
// GEMM ran at 0.67x with it). Use mbar_arrive_cluster_release when the
// arriving thread's own prior writes must be visible to the peer.
#define CROQ_MBAR_ARRIVE_REMOTE(SEM)                                                             \
  asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"                    \
               "mbarrier.arrive" SEM ".shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_addr(bar)), \
               "r"(rank)                                                                         \
               : "memory")
__device__ __forceinline__ void mbar_arrive_cluster(u64* bar, u32 rank) { CROQ_MBAR_ARRIVE_REMOTE(""); }

// mbar_arrive_cluster with release at cluster scope (pairs with
// mbar_wait_cluster): publishes this thread's earlier writes to the peer.
__device__ __forceinline__ void mbar_arrive_cluster_release(u64* bar, u32 rank) {
  CROQ_MBAR_ARRIVE_REMOTE(".release.cluster");
}
#undef CROQ_MBAR_ARRIVE_REMOTE

// Announces `bytes` of TMA traffic for the current phase and arrives: the
// usual producer step before issuing the loads that complete on `bar`.
__device__ __forceinline__ void mbar_arrive_expect_tx(u64* bar, u32 bytes) {
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n"
      "}\n" ::"r"(smem_addr(bar)), "r"(bytes)
      : "memory");
}

// Announces `bytes` more of TMA traffic without arriving.
__device__ __forceinline__ void mbar_expect_tx(u64* bar, u32 bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
#endif  // CROQ_DEV_SM90

// Whether the phase of parity `phase` has completed (acquire at CTA scope).
// try_wait blocks for a hardware-chosen while before answering false, so a
// loop on it does not hammer shared memory. (sm_80: test_wait, which
// answers at once.)
__device__ __forceinline__ bool mbar_try_wait(u64* bar, u32 phase) {
  u32 done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
#if CROQ_DEV_SM90
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
#else
      "mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
#endif
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(smem_addr(bar)), "r"(phase)
      : "memory");
  return done != 0;
}

// Waits until the phase of parity `phase` completes. On a fresh barrier,
// parity 1 counts as completed (the phase "before" the first), which is how
// a producer's first wait on an `empty` barrier passes at once.
__device__ __forceinline__ void mbar_wait(u64* bar, u32 phase) {
  while (!mbar_try_wait(bar, phase)) {
  }
}

#if CROQ_DEV_SM90
// mbar_wait with acquire at cluster scope: pairs with
// mbar_arrive_cluster_release when data written by the peer must be seen.
// (A producer waiting for peers to free a stage needs only mbar_wait.)
__device__ __forceinline__ void mbar_wait_cluster(u64* bar, u32 phase) {
  u32 done = 0;
  while (!done) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(phase)
        : "memory");
  }
}

// ---------------------------------------------------------------------------
// Proxy fences. TMA and WGMMA read/write shared memory through the async
// proxy; ordinary loads/stores use the generic proxy.
// ---------------------------------------------------------------------------

// Orders this thread's generic shared-memory writes before later async-proxy
// reads (e.g. threads fill a tile, fence, barrier, then one thread TMA-stores
// it or WGMMA reads it).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---------------------------------------------------------------------------
// TMA (cp.async.bulk.tensor). Coordinates are element indices, innermost
// dimension first (c0 is the contiguous one), and may be negative or past the
// end: loads fill out-of-bounds elements with zeros (or NaN, per the map),
// stores clip them. Only one thread issues each copy.
// ---------------------------------------------------------------------------

__device__ __forceinline__ u64 map_addr(const croq_tensor_map* map) { return reinterpret_cast<u64>(map); }

// Prefetches the descriptor into the TMA unit's cache (optional, once early).
__device__ __forceinline__ void tma_prefetch_descriptor(const croq_tensor_map* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map_addr(map)) : "memory");
}

// Non-tensor bulk copy of `bytes` (multiple of 16; both addresses 16-byte
// aligned) from global to shared, completing on `bar`.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, u32 bytes, u64* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}

// Closes the group of TMA stores issued so far by this thread.
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

// Waits until at most N committed store groups are still pending (their
// global writes done).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// Waits until at most N committed store groups still read their shared
// source: enough before overwriting that shared buffer.
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// tma_load_Nd(dst, map, bar, c0, ...): copies the box of `map` at (c0, ...)
//   into shared `dst` (128-byte aligned; 1024 for 128B swizzle) and completes
//   its bytes on `bar` (armed with mbar_arrive_expect_tx).
// tma_load_multicast_Nd(dst, map, bar, cta_mask, c0, ...): the same box lands
//   at the same offsets of `dst` and `bar` in every CTA of the cluster whose
//   bit is set in `cta_mask`.
// tma_store_Nd(map, src, c0, ...): writes shared `src` to the box at (c0, ...);
//   fence_proxy_async_shared() + a barrier among the writers first, then
//   bulk_commit_group() and bulk_wait_group_read<0>() before reusing `src`.
)CUDA";

// Closes the sm_90 region that runs from mbar_wait_cluster through the
// generated TMA functions.
constexpr std::string_view kEndSm90 = R"CUDA(#endif  // CROQ_DEV_SM90
)CUDA";

constexpr std::string_view kMiddle = R"CUDA(
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
)CUDA";

constexpr std::string_view kTail = R"CUDA(}  // namespace detail

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

// ---------------------------------------------------------------------------
// Accumulator fragments of m64nNk16 (f32 form, register i of N/2) for thread
// t (0..127) of the warpgroup: warp w = t/32 owns rows 16w..16w+15; lane l
// holds rows l/4 and l/4 + 8, columns 8j + 2(l%4) and +1, j = i/4:
//   i%4 = 0: (r, c)  1: (r, c+1)  2: (r+8, c)  3: (r+8, c+1)
// ---------------------------------------------------------------------------

__host__ __device__ constexpr int accum_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
__host__ __device__ constexpr int accum_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }

// Calls f(row, col, v0, v1) for each horizontally adjacent pair (row, col),
// (row, col + 1) of this thread's fragment (col even).
template <int N, typename F>
__device__ __forceinline__ void for_each_accum_pair(const float (&d)[N / 2], F&& f) {
  const int t = static_cast<int>(threadIdx.x % 128);
#pragma unroll
  for (int i = 0; i < N / 2; i += 2) f(accum_row(t, i), accum_col(t, i), d[i], d[i + 1]);
}
template <int N, typename F>
__device__ __forceinline__ void for_each_accum_pair(const u32 (&d)[N / 4], F&& f) {
  const int t = static_cast<int>(threadIdx.x % 128);
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

// Stores a warpgroup's 64 x N accumulator to a row-major tile at `tile`
// (element (0, 0) of the 64 x N block; leading dimension `ld` elements),
// converting to T (float, __half, __nv_bfloat16). Only rows < `rows` and
// columns < `cols` are written (pass the extents left from the tile's origin
// for partial tiles). Pairs go out as one 2-element store when aligned.
// D is the accumulator type: float[N/2] or (f16 accumulate) u32[N/4].
template <int N, typename D, typename T>
__device__ __forceinline__ void store_accum_global(const D& d, T* tile, long long ld, int rows, int cols) {
  const bool pairs = (ld % 2 == 0) && (reinterpret_cast<u64>(tile) % (2 * sizeof(T)) == 0);
  for_each_accum_pair<N>(d, [&](int r, int c, float v0, float v1) {
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

// Stores the accumulator to a row-major shared tile (no bounds; `ld` even and
// `tile` aligned to two elements).
template <int N, typename D, typename T>
__device__ __forceinline__ void store_accum_shared(const D& d, T* tile, int ld) {
  for_each_accum_pair<N>(d, [&](int r, int c, float v0, float v1) { store_pair(tile + r * ld + c, v0, v1); });
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
// (f16 accumulate) u32[N/4].
template <int N, int K, u32 SpanA, u32 SpanB, typename AB, typename D>
__device__ __forceinline__ void mma_sync_tile(D* d, const void* a, u32 a_pitch, const void* b, u32 b_pitch) {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "N is a multiple of 8 up to 256");
  static_assert(K >= 16 && K % 16 == 0, "K is a multiple of 16");
  const u32 lane = threadIdx.x & 31u;
  const u32 warp = (threadIdx.x >> 5) & 3u;  // within the warpgroup
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
      ldmatrix_x4(fb, kmajor_addr(b_base, 8u * j + b_row, k_byte + b_k, b_pitch, SpanB));
      mma_sync_block<AB>(d, j, fa, fb[0], fb[1]);
      mma_sync_block<AB>(d, j + 1, fa, fb[2], fb[3]);
    }
    if constexpr ((N / 8) % 2 == 1) {
      u32 fb[2];
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

// ---------------------------------------------------------------------------
// Register reallocation between warpgroups (warp-specialized kernels): the
// producer gives registers back (dec), consumers take them (inc). R in
// 24..256, a multiple of 8; every warp of the warpgroup executes it. The
// kernel needs a register cap at entry: __launch_bounds__(threads, 1).
// ---------------------------------------------------------------------------

#if CROQ_DEV_SM90A
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}

template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
#endif  // CROQ_DEV_SM90A

}  // namespace croq_dev
#endif  // CROQ_HOPPER_PRELUDE_INCLUDED
// ===== end of croq hopper prelude =====
)CUDA";

// "%first, %first+1, ..." for operands inside an asm string literal; every
// 16 operands the literal is closed and reopened on the next line.
std::string operand_list(int first, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    out += "%" + std::to_string(first + i);
  }
  return out;
}

std::string coord_params(int rank) {
  std::string out;
  for (int i = 0; i < rank; ++i) out += ", int c" + std::to_string(i);
  return out;
}

std::string coord_operands(int rank) {
  std::string out;
  for (int i = 0; i < rank; ++i) out += ", \"r\"(c" + std::to_string(i) + ")";
  return out;
}

// One TMA function: `name`, its extra leading parameters, the PTX mnemonic
// and operand text, and its input operands (before the coordinates).
void emit_tma(std::string& out, const std::string& name, const std::string& params, const std::string& ptx,
              const std::string& inputs, int rank) {
  out += "__device__ __forceinline__ void " + name + "_" + std::to_string(rank) + "d(" + params +
         coord_params(rank) + ") {\n  asm volatile(\"" + ptx + ";\\n\"\n               ::" + inputs +
         coord_operands(rank) + "\n               : \"memory\");\n}\n";
}

std::string tma_functions() {
  std::string out;
  for (int rank = 1; rank <= 5; ++rank) {
    std::string d = std::to_string(rank);
    // Operand numbers of the coordinates: after dst, map, bar (3) or after
    // dst, map, bar, mask (4) or after map, src (2).
    emit_tma(out, "tma_load", "void* dst, const croq_tensor_map* map, u64* bar",
             "cp.async.bulk.tensor." + d + "d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {" +
                 operand_list(3, rank) + "}], [%2]",
             "\"r\"(smem_addr(dst)), \"l\"(map_addr(map)), \"r\"(smem_addr(bar))", rank);
    emit_tma(out, "tma_load_multicast", "void* dst, const croq_tensor_map* map, u64* bar, u16 cta_mask",
             "cp.async.bulk.tensor." + d +
                 "d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {" +
                 operand_list(4, rank) + "}], [%2], %3",
             "\"r\"(smem_addr(dst)), \"l\"(map_addr(map)), \"r\"(smem_addr(bar)), \"h\"(cta_mask)", rank);
    emit_tma(out, "tma_store", "const croq_tensor_map* map, const void* src",
             "cp.async.bulk.tensor." + d + "d.global.shared::cta.bulk_group [%0, {" + operand_list(2, rank) +
                 "}], [%1]",
             "\"l\"(map_addr(map)), \"r\"(smem_addr(src))", rank);
  }
  return out;
}

struct WgmmaKind {
  const char* enumerator;  // detail::wgmma_kind
  const char* ptx_types;   // .dtype.atype.btype
  const char* reg_type;    // accumulator register C++ type
  const char* constraint;  // its asm constraint
  int values_per_reg;      // accumulator values packed per register
};

// template <> struct wgmma_ss<N, Kind> { static void run(...) { asm(...); } };
void emit_wgmma(std::string& out, int n, const WgmmaKind& kind) {
  const int regs = n / 2 / kind.values_per_reg;
  const std::string ns = std::to_string(n);
  out += "template <>\nstruct wgmma_ss<" + ns + ", " + kind.enumerator + "> {\n  static __device__ __forceinline__ void run(" +
         kind.reg_type + " (&d)[" + std::to_string(regs) +
         "], u64 a, u64 b, int scale_d) {\n    asm volatile(\n        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" +
         std::to_string(regs + 2) + ", 0;\\n\"\n        \"wgmma.mma_async.sync.aligned.m64n" + ns + "k16" +
         kind.ptx_types + " {\"\n        \"" + operand_list(0, regs) + "},\"\n        \" %" +
         std::to_string(regs) + ", %" + std::to_string(regs + 1) + ", p, 1, 1, 0, 0;\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += std::string("\"") + kind.constraint + "\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"l\"(a), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

std::string wgmma_functions() {
  static const WgmmaKind kinds[] = {
      {"f32_f16", ".f32.f16.f16", "float", "+f", 1},
      {"f32_bf16", ".f32.bf16.bf16", "float", "+f", 1},
      {"f16_f16", ".f16.f16.f16", "u32", "+r", 2},
  };
  std::string out;
  for (const WgmmaKind& kind : kinds)
    for (int n = 8; n <= 256; n += 8) emit_wgmma(out, n, kind);
  return out;
}

std::string build_prelude() {
  std::string text(kHead);
  text += tma_functions();
  text += kEndSm90;
  text += kMiddle;
  text += wgmma_functions();
  text += kTail;
  return text;
}

}  // namespace

std::string_view hopper_prelude() {
  static const std::string text = build_prelude();
  return text;
}

}  // namespace croq::backend::cuda
