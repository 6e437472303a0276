// The Hopper device prelude, part 1: architecture switches, the TMA
// descriptor type, addresses and elections, clusters, mbarrier, proxy
// fences and TMA (the rank 1..5 copy functions are generated into the
// marked line by hopper_prelude.cpp). All of croq_dev's prelude files are
// embedded into the library (cmake/CroqEmbedPrelude.cmake); see
// backend/cuda/hopper_prelude.hpp for the API.
#ifndef CROQ_PRELUDE_HOPPER_CORE_CUH
#define CROQ_PRELUDE_HOPPER_CORE_CUH
// ===== croq hopper prelude (sm_90a): mbarrier, TMA, WGMMA =====
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
// croq-prelude: generated tma_functions
#endif  // CROQ_DEV_SM90
}  // namespace croq_dev
#endif  // CROQ_PRELUDE_HOPPER_CORE_CUH
