// The Hopper (sm_90a) device prelude, which also compiles for sm_80..sm_89:
// CUDA C++ text that generated kernels paste at their top. It wraps the PTX
// that the Hopper path needs (mbarrier, TMA bulk tensor copies, WGMMA,
// setmaxnreg; mma.sync below sm_90) in small readable functions of
// namespace croq_dev, so that the backend emits calls instead of inline asm.
// The text is the files of backend/cuda/prelude/ (hopper_core, hopper_wgmma,
// hopper_accumulators, hopper_warp, hopper_registers; the sections
// hopper_fp8, hopper_sparse, hopper_frag, hopper_scale), each a header that
// compiles alone, embedded at build time (prelude_files.hpp), with the
// specializations generated for a kernel pasted into their marked lines.
//
// The text needs nothing but NVRTC's own headers (<cuda_fp16.h>,
// <cuda_bf16.h>); it declares the TMA descriptor type itself:
//
//   struct alignas(64) croq_tensor_map { unsigned long long opaque[16]; };
//
// which is bit-identical to the driver's CUtensorMap. Kernels take it as
// `const __grid_constant__ croq_tensor_map map` and pass `&map` to
// croq_dev::tma_load_Nd / tma_store_Nd.
//
// API of the text (all __device__ __forceinline__ unless marked constexpr,
// which are __host__ __device__):
//   addresses   smem_addr(p), warp_idx(), warpgroup_idx(), elect_one_sync(),
//               lane_is_zero(), named_barrier_sync/arrive(id, threads)
//   cluster     cluster_ctarank(), cluster_nctarank(), cluster_arrive(),
//               cluster_wait(), cluster_sync(), map_shared_rank(addr, rank)
//   mbarrier    mbar_init(bar, count), fence_barrier_init(), mbar_arrive(bar),
//               mbar_arrive_cluster(bar, rank), mbar_arrive_cluster_release(bar, rank),
//               mbar_arrive_expect_tx(bar, bytes), mbar_expect_tx(bar, bytes),
//               mbar_try_wait(bar, phase), mbar_wait(bar, phase),
//               mbar_wait_cluster(bar, phase)
//   proxy       fence_proxy_async_shared()
//   TMA         tma_load_{1..5}d(dst, map, bar, c0, ...),
//               tma_load_multicast_{1..5}d(dst, map, bar, cta_mask, c0, ...),
//               tma_load_hint_{1..5}d(dst, map, bar, policy, c0, ...),
//               tma_load_multicast_hint_{1..5}d(dst, map, bar, cta_mask, policy, c0, ...),
//               l2_policy_evict_{first,last,normal}() (the policies `.evict_*` give),
//               tma_store_{1..5}d(map, src, c0, ...), bulk_commit_group(),
//               bulk_wait_group<N>(), bulk_wait_group_read<N>(),
//               tma_prefetch_descriptor(map), bulk_load(dst, src, bytes, bar)
//   swizzle     constexpr swizzle_offset(linear, span),
//               swizzle_tile_offset(row, byte_in_row, row_bytes, span),
//               swizzle_element<T>(row, col, row_elems, span)
//   descriptors constexpr smem_desc_encode(addr, lbo, sbo, span),
//               constexpr desc_advance(desc, bytes), make_smem_desc(p, lbo, sbo, span),
//               make_kmajor_desc<Span>(tile), make_kmajor_desc_k<Span>(tile, rows, k_byte),
//               make_kmajor_desc_interleaved(tile, lbo, sbo)
//   WGMMA       wgmma_fence() (= warpgroup_arrive()), wgmma_commit_group(),
//               wgmma_wait_group<N>(), fence_accum(d),
//               wgmma_m64nNk16<N, AB>(float (&d)[N/2], desc_a, desc_b, scale_d)
//                 AB = __half or __nv_bfloat16, f32 accumulate;
//               wgmma_m64nNk16<N, __half>(unsigned (&d)[N/4], ...) f16 accumulate
//               (both operands K-major in shared memory, N = 8, 16, ..., 256);
//               wgmma_m64nNk32<N, TA, TB>(d, desc_a, desc_b, scale_d): fp8
//               (TA, TB = __nv_fp8_e4m3 / __nv_fp8_e5m2), f32 or f16 d, from
//               the fp8 section (hopper_prelude_fp8), the forms a kernel uses;
//               there too wgmma_m64nNk32_rs<N, P, TA, TB>(d, packed, k32, desc_b)
//               and pack_fragment_fp8(frag, packed): an fp8 register lhs
//   fragments   constexpr accum_row(t, i), accum_col(t, i),
//               for_each_accum_pair<N>(d, f), store_accum_global<N>(d, C, ld, rows, cols),
//               store_accum_shared<N>(d, tile, ld); M = 16 as the second
//               template argument: one warp's own 16 x N tile
//   mma.sync    kmajor_addr(base, row, k_byte, pitch, span), ldmatrix_x4/x2(_trans)(r, addr),
//               mma_sync_m64nNkK<N, K, SpanA, SpanB, AB>(d, a, a_pitch, b, b_pitch):
//               one warpgroup's 64 x N tile with m16n8k16 (sm_80+), d the same
//               array and fragment layout as wgmma_m64nNk16's;
//               mma_sync_m16nNkK<N, K, SpanA, SpanB, AB, BTrans>(...): warp-level
//               mma, each warp its own 16 x N tile (BTrans: rhs [K, N], row.col)
//   registers   setmaxnreg_inc<R>(), setmaxnreg_dec<R>()
//   fragments   (hopper_prelude_frag, when a kernel has register fragments)
//               pack_fragment(frag, packed), fence_packed(packed),
//               wgmma_m64nNk16_rs<N, TransB, P, Bf16>(d, packed, k16, desc_b):
//               RS-mode WGMMA; wgmma_m64nNk16_tb<N, AB>(d, desc_a, desc_b): SS mode
//               with B N-major ([K][N], imm-trans-b); wgmma_m64nNk16_ta<N, AB,
//               TransB>(d, desc_a, desc_b): SS mode with A M-major ([K][M],
//               imm-trans-a); make_mnmajor_desc<Span>(tile);
//               pack_pair(lo, hi), quad_max(v), quad_sum(v)
//
// Compiled below sm_90 (__CUDA_ARCH__ < 900: sm_80..sm_89, compute_80 PTX),
// the text leaves out what only Hopper has (CROQ_DEV_SM90 is 0): clusters,
// elect_one_sync, the expect_tx and cluster forms of mbarrier, try_wait
// (mbar_try_wait / mbar_wait use test_wait.parity there), proxy fences, TMA
// and bulk copies, WGMMA and setmaxnreg. Everything else is the same.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace croq::backend::cuda {

// The prelude's CUDA C++ text (built once; the view stays valid for the
// process's lifetime). Safe to paste more than once: it is include-guarded.
std::string_view hopper_prelude();

// One fp8 WGMMA form a kernel uses: m64nNk32, e4m3 or e5m2 on each side,
// f32 or f16 accumulators; A in shared memory or (a_in_registers, f32
// accumulators only) an fp8 register fragment.
struct Fp8WgmmaForm {
  int n = 0;
  bool a_e5m2 = false, b_e5m2 = false, f16_accumulator = false;
  bool a_in_registers = false;
  friend auto operator<=>(const Fp8WgmmaForm&, const Fp8WgmmaForm&) = default;
};

// The fp8 section: croq_dev::wgmma_m64nNk32<N, TA, TB>(d, desc_a, desc_b,
// scale_d) and croq_dev::wgmma_m64nNk32_rs<N, P, TA, TB>(d, packed, k32,
// desc_b) for exactly `forms` (distinct), and pack_fragment_fp8(frag,
// packed). Pasted after hopper_prelude() and <cuda_fp8.h>.
std::string hopper_prelude_fp8(const std::vector<Fp8WgmmaForm>& forms);

// One sparse WGMMA form a kernel uses: m64nNk32 (16-bit) or m64nNk64 (fp8)
// .sp; element codes 0 f16, 1 bf16, 2 e4m3, 3 e5m2 (both 16-bit alike or
// both fp8).
struct SparseWgmmaForm {
  int n = 0;
  int a_type = 0, b_type = 0;
  bool f16_accumulator = false;
  friend auto operator<=>(const SparseWgmmaForm&, const SparseWgmmaForm&) = default;
};

// The sparse section: croq_dev::sparse_metadata<Fp8>(tile, pitch) and
// croq_dev::wgmma_sp_m64nNkK<N, TA, TB>(d, desc_a, desc_b, meta, scale_d)
// for exactly `forms` (distinct). Pasted after hopper_prelude() (and
// <cuda_fp8.h> when a form is fp8).
std::string hopper_prelude_sparse(const std::vector<SparseWgmmaForm>& forms);

// The block-scale section: croq_dev::scale_accum<N>(acc, partial, scale_a,
// stride, rows, scale_b) for mma.scale. Pasted after hopper_prelude().
std::string_view hopper_prelude_scale();

// One RS-mode WGMMA form a kernel uses (A from registers): m64nNk16, f16 or
// bf16 inputs, f32 accumulators, B K-major or N-major.
struct RsWgmmaForm {
  int n = 0;
  bool bf16 = false, b_n_major = false;
  bool a_in_shared = false;  // SS mode with an N-major B (wgmma_m64nNk16_tb)
  bool a_m_major = false;    // SS mode with an M-major A (wgmma_m64nNk16_ta)
  friend auto operator<=>(const RsWgmmaForm&, const RsWgmmaForm&) = default;
};

// The register-fragment section: croq_dev::wgmma_m64nNk16_rs<N, TransB, P,
// Bf16>(d, packed, k16, desc_b) for exactly `forms` (distinct),
// pack_fragment, pack_pair, quad_max and quad_sum. Pasted after
// hopper_prelude() when a kernel has fragments.
std::string hopper_prelude_frag(const std::vector<RsWgmmaForm>& forms);

// Host mirror of croq_dev::swizzle_offset: where byte `linear` of a tile
// (whose base is aligned to 8 * span bytes) lands under TMA swizzle `span`
// (0 = none, 32, 64, 128 bytes): the 16-byte chunk index (bits 4..) is XORed
// with the 128-byte row index (bits 7..), log2(span / 16) bits of each.
constexpr std::uint32_t hopper_swizzle_offset(std::uint32_t linear, std::uint32_t span) {
  return span < 32 ? linear : linear ^ (((linear >> 7) & (span / 16 - 1)) << 4);
}

}  // namespace croq::backend::cuda
