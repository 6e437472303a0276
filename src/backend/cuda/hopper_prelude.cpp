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
#include "backend/cuda/hopper_prelude_parts.hpp"

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

std::string wgmma_functions() {
  static const WgmmaKind kinds[] = {
      {"wgmma_ss", "f32_f16", "k16", ".f32.f16.f16", "float", "+f", 1, true},
      {"wgmma_ss", "f32_bf16", "k16", ".f32.bf16.bf16", "float", "+f", 1, true},
      {"wgmma_ss", "f16_f16", "k16", ".f16.f16.f16", "u32", "+r", 2, true},
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
  text += hopper_prelude_accumulators();
  text += hopper_prelude_warp();
  text += hopper_prelude_tail();
  return text;
}

}  // namespace

// template <> struct Struct<N, Kind> { static void run(...) { asm(...); } };
void emit_wgmma(std::string& out, int n, const WgmmaKind& kind) {
  const int regs = n / 2 / kind.values_per_reg;
  const std::string ns = std::to_string(n);
  // f16/bf16 take imm-trans-a and imm-trans-b (0: K-major); fp8 has none
  // (its operands are always K-major).
  const std::string immediates = kind.transposes ? "1, 1, 0, 0" : "1, 1";
  out += "template <>\nstruct " + std::string(kind.struct_name) + "<" + ns + ", " + kind.enumerator +
         "> {\n  static __device__ __forceinline__ void run(" + kind.reg_type + " (&d)[" + std::to_string(regs) +
         "], u64 a, u64 b, int scale_d) {\n    asm volatile(\n        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" +
         std::to_string(regs + 2) + ", 0;\\n\"\n        \"wgmma.mma_async.sync.aligned.m64n" + ns + kind.shape_k +
         kind.ptx_types + " {\"\n        \"" + operand_list(0, regs) + "},\"\n        \" %" +
         std::to_string(regs) + ", %" + std::to_string(regs + 1) + ", p, " + immediates + ";\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += std::string("\"") + kind.constraint + "\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"l\"(a), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

std::string_view hopper_prelude() {
  static const std::string text = build_prelude();
  return text;
}

}  // namespace croq::backend::cuda
