// The Hopper device prelude: its text compiles with NVRTC for sm_90a, the
// PTX it produces holds the TMA / mbarrier / WGMMA instructions, and its
// constexpr helpers (swizzle, descriptors, fragment coordinates) agree with
// independent host formulas (checked by static_asserts compiled on the
// device side, generated from host values here).
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include "backend/cuda/hopper_prelude.hpp"
#include "croq/error.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "target/target.hpp"

namespace croq::pipeline {
using backend::cuda::hopper_prelude;
using backend::cuda::hopper_swizzle_offset;
namespace {

jit::NvrtcOutput compile(const std::string& body, const std::string& entry) {
  std::string source = std::string(hopper_prelude()) + body;
  try {
    return jit::nvrtc_compile(source, "hopper_prelude_test.cu", entry, {"sm_90a", false, {}});
  } catch (const CompileError& e) {
    std::string messages;
    for (const auto& d : e.diagnostics()) messages += std::to_string(d.line) + ": " + d.message + "\n";
    ADD_FAILURE() << "NVRTC rejected the prelude test kernel:\n" << messages;
    return {};
  }
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// A producer/consumer kernel in the shape the backend emits: one warpgroup loads
// with TMA, two consume with WGMMA of several N and both input types, then
// store the accumulators and TMA-store a shared tile.
const char* kPipelineKernel = R"CUDA(
using namespace croq_dev;
extern "C" __global__ void __launch_bounds__(384, 1)
pipeline(const __grid_constant__ croq_tensor_map map_a, const __grid_constant__ croq_tensor_map map_b,
         const __grid_constant__ croq_tensor_map map_c, __half* c16, __nv_bfloat16* cb16, float* c32,
         int m, int n, int k_blocks) {
  extern __shared__ unsigned char smem_raw[];
  // 128B swizzle needs 1024-byte aligned tiles.
  unsigned char* smem = smem_raw + ((1024 - smem_addr(smem_raw) % 1024) % 1024);
  __half* a_tile = reinterpret_cast<__half*>(smem);           // 128 x 64
  __half* b_tile = reinterpret_cast<__half*>(smem + 16384);   // 256 x 64
  __shared__ u64 full, empty;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init(&empty, 2);
    fence_barrier_init();
  }
  __syncthreads();
  if (warpgroup_idx() == 0) {
    setmaxnreg_dec<40>();
    if (warp_idx() == 0 && elect_one_sync()) {
      tma_prefetch_descriptor(&map_a);
      for (int kb = 0; kb < k_blocks; ++kb) {
        mbar_wait(&empty, (kb & 1) ^ 1);
        mbar_arrive_expect_tx(&full, 49152);
        tma_load_2d(a_tile, &map_a, &full, kb * 64, blockIdx.x * 128);
        tma_load_3d(b_tile, &map_b, &full, kb * 64, 0, blockIdx.y);
      }
    }
  } else {
    setmaxnreg_inc<232>();
    const int wg = warpgroup_idx() - 1;
    float acc256[128];
    float acc64[32];
    float acc8[4];
    u32 acc16[64];
    for (int kb = 0; kb < k_blocks; ++kb) {
      mbar_wait(&full, kb & 1);
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        u64 a = desc_advance(make_kmajor_desc<128>(a_tile + wg * 64 * 64), k * 32);
        u64 b = make_kmajor_desc_k<128>(b_tile, 256, k * 32);
        int scale = (kb > 0 || k > 0) ? 1 : 0;
        wgmma_m64nNk16<256, __half>(acc256, a, b, scale);
        wgmma_m64nNk16<64, __nv_bfloat16>(acc64, a, b, scale);
        wgmma_m64nNk16<8, __half>(acc8, a, b, scale);
        wgmma_m64nNk16<256, __half>(acc16, a, b, scale);
      }
      wgmma_commit_group();
      wgmma_wait_group<0>();
      fence_accum(acc256);
      if (threadIdx.x % 128 == 0) mbar_arrive(&empty);
    }
    fence_accum(acc64);
    fence_accum(acc8);
    fence_accum(acc16);
    const int row0 = blockIdx.x * 128 + wg * 64;
    store_accum_global<256>(acc256, c16 + row0 * n, n, m - row0, n);
    store_accum_global<64>(acc64, cb16 + row0 * n, n, m - row0, n);
    store_accum_global<256>(acc16, c32 + row0 * n, n, m - row0, n);
    store_accum_shared<8>(acc8, reinterpret_cast<float*>(smem) + wg * 64 * 8, 8);
    fence_proxy_async_shared();
    named_barrier_sync(1, 256);
    if (threadIdx.x == 128) {
      tma_store_2d(&map_c, smem, 0, blockIdx.x * 128);
      bulk_commit_group();
      bulk_wait_group_read<0>();
    }
  }
}
)CUDA";

TEST(HopperPrelude, PipelineKernelCompilesToTmaMbarrierAndWgmma) {
  jit::NvrtcOutput out = compile(kPipelineKernel, "pipeline");
  EXPECT_FALSE(out.cubin.empty());
  for (const char* instruction : {
           "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
           "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes",
           "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
           "mbarrier.try_wait.parity",
           "mbarrier.arrive.expect_tx",
           "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
           "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
           "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
           "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16",
           "wgmma.wait_group.sync.aligned",
           "setmaxnreg.inc.sync.aligned.u32 232",
           "setmaxnreg.dec.sync.aligned.u32 40",
           "elect.sync",
       })
    EXPECT_TRUE(contains(out.ptx, instruction)) << instruction;
}

// Every generated WGMMA specialization and every TMA rank goes through
// ptxas (a typo in one operand list would only show when instantiated).
TEST(HopperPrelude, EveryWgmmaShapeAndTmaRankCompiles) {
  // One small kernel per N keeps ptxas quick (one kernel holding all of
  // them takes seconds).
  std::string body = "using namespace croq_dev;\n"
                     "template <int N> __device__ void mma_all(float* out) {\n"
                     "  __shared__ alignas(1024) unsigned char tile[16384];\n"
                     "  u64 a = make_kmajor_desc<64>(tile), b = make_kmajor_desc<32>(tile + 8192);\n"
                     "  float d[N / 2];\n  u32 h[N / 4];\n  wgmma_fence();\n"
                     "  wgmma_m64nNk16<N, __half>(d, a, b, 0);\n"
                     "  wgmma_m64nNk16<N, __nv_bfloat16>(d, a, b, 1);\n"
                     "  wgmma_m64nNk16<N, __half>(h, a, b, 0);\n"
                     "  wgmma_commit_group();\n  wgmma_wait_group<0>();\n  fence_accum(d);\n  fence_accum(h);\n"
                     "  store_accum_global<N>(d, out, N, 64, N);\n"
                     "  store_accum_global<N>(h, out + 64 * N, N, 64, N);\n}\n";
  for (int n = 8; n <= 256; n += 8)
    body += "extern \"C\" __global__ void mma" + std::to_string(n) + "(float* out) { mma_all<" + std::to_string(n) +
            ">(out); }\n";
  body += "extern \"C\" __global__ void all_ranks(const __grid_constant__ croq_tensor_map map, float* out) {\n"
          "  __shared__ alignas(1024) unsigned char tile[32768];\n  __shared__ u64 bar;\n";
  body += "  if (threadIdx.x == 0) {\n"
          "    tma_load_1d(tile, &map, &bar, 1);\n"
          "    tma_load_2d(tile, &map, &bar, 1, 2);\n"
          "    tma_load_3d(tile, &map, &bar, 1, 2, 3);\n"
          "    tma_load_4d(tile, &map, &bar, 1, 2, 3, 4);\n"
          "    tma_load_5d(tile, &map, &bar, 1, 2, 3, 4, 5);\n"
          "    tma_load_multicast_1d(tile, &map, &bar, 3, 1);\n"
          "    tma_load_multicast_5d(tile, &map, &bar, 3, 1, 2, 3, 4, 5);\n"
          "    tma_store_1d(&map, tile, 1);\n"
          "    tma_store_2d(&map, tile, 1, 2);\n"
          "    tma_store_3d(&map, tile, 1, 2, 3);\n"
          "    tma_store_4d(&map, tile, 1, 2, 3, 4);\n"
          "    tma_store_5d(&map, tile, 1, 2, 3, 4, 5);\n"
          "    bulk_load(tile, out, 256, &bar);\n"
          "    bulk_commit_group();\n    bulk_wait_group<0>();\n"
          "    mbar_expect_tx(&bar, 16);\n    mbar_arrive_cluster(&bar, cluster_ctarank() ^ 1);\n"
          "    mbar_arrive_cluster_release(&bar, cluster_ctarank() ^ 1);\n"
          "    mbar_wait_cluster(&bar, 0);\n  }\n  cluster_sync();\n}\n";
  jit::NvrtcOutput out = compile(body, "all_ranks");
  EXPECT_FALSE(out.cubin.empty());
  for (int n = 8; n <= 256; n += 8) {
    const std::string shape = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16";
    EXPECT_TRUE(contains(out.ptx, shape + ".f32.f16.f16")) << n;
    EXPECT_TRUE(contains(out.ptx, shape + ".f32.bf16.bf16")) << n;
    EXPECT_TRUE(contains(out.ptx, shape + ".f16.f16.f16")) << n;
  }
  for (int rank = 1; rank <= 5; ++rank) {
    const std::string d = std::to_string(rank) + "d";
    EXPECT_TRUE(contains(out.ptx, "cp.async.bulk.tensor." + d + ".shared::cluster.global")) << rank;
    EXPECT_TRUE(contains(out.ptx, "cp.async.bulk.tensor." + d + ".global.shared::cta.bulk_group")) << rank;
  }
  EXPECT_TRUE(contains(out.ptx, ".multicast::cluster"));
  EXPECT_TRUE(contains(out.ptx, "mapa.shared::cluster"));
}

TEST(HopperPrelude, IsIncludeGuardedAndQuickToCompile) {
  const std::string twice = std::string(hopper_prelude()) +
                            "\nextern \"C\" __global__ void nothing(const __grid_constant__ croq_tensor_map m) {\n"
                            "  if (threadIdx.x == 0) croq_dev::tma_prefetch_descriptor(&m);\n}\n";
  auto start = std::chrono::steady_clock::now();
  jit::NvrtcOutput out = compile(twice, "nothing");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(out.cubin.empty());
  RecordProperty("prelude_compile_ms", std::to_string(ms));
  std::printf("prelude (%zu bytes) + empty kernel: NVRTC %.0f ms\n", hopper_prelude().size(), ms);
}

// CUTLASS-style Swizzle<B, 4, 3>: the B bits above bit 7 are XORed into the
// B bits above bit 4. Written independently of hopper_swizzle_offset.
std::uint32_t reference_swizzle(std::uint32_t x, std::uint32_t span) {
  int bits = span == 128 ? 3 : span == 64 ? 2 : span == 32 ? 1 : 0;
  std::uint32_t yyy = ((1u << bits) - 1u) << 7;
  return x ^ ((x & yyy) >> 3);
}

TEST(HopperPrelude, SwizzleMatchesTmaPatterns) {
  // 128B: row r of a 1024-byte atom keeps its 16-byte chunk c at c ^ r.
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t chunk = 0; chunk < 8; ++chunk)
      EXPECT_EQ(hopper_swizzle_offset(row * 128 + chunk * 16 + 6, 128), row * 128 + ((chunk ^ (row % 8)) * 16) + 6);
  EXPECT_EQ(hopper_swizzle_offset(7 * 128 + 112, 128), 7u * 128);
  // 64B rows: chunk (0..3) ^ bits 7-8, i.e. row/2 % 4 for 64-byte rows.
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t chunk = 0; chunk < 4; ++chunk)
      EXPECT_EQ(hopper_swizzle_offset(row * 64 + chunk * 16, 64), row * 64 + ((chunk ^ ((row / 2) % 4)) * 16));
  // 32B rows: chunk (0..1) ^ bit 7, i.e. row/4 % 2 for 32-byte rows.
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t chunk = 0; chunk < 2; ++chunk)
      EXPECT_EQ(hopper_swizzle_offset(row * 32 + chunk * 16, 32), row * 32 + ((chunk ^ ((row / 4) % 2)) * 16));
  for (std::uint32_t span : {0u, 32u, 64u, 128u}) {
    std::set<std::uint32_t> seen;
    for (std::uint32_t x = 0; x < 4096; ++x) {
      EXPECT_EQ(hopper_swizzle_offset(x, span), reference_swizzle(x, span)) << span << " " << x;
      seen.insert(hopper_swizzle_offset(x, span));
    }
    EXPECT_EQ(seen.size(), 4096u) << "not a permutation for span " << span;
    EXPECT_EQ(*seen.rbegin(), 4095u);
  }
}

// The device-side constexpr helpers, compiled by NVRTC with static_asserts
// whose expected values come from host formulas.
TEST(HopperPrelude, DeviceHelpersAgreeWithHostFormulas) {
  std::string body = "using namespace croq_dev;\n";
  auto check = [&](const std::string& expr, unsigned long long expected) {
    body += "static_assert(" + expr + " == " + std::to_string(expected) + "ull, \"" + expr + "\");\n";
  };
  for (std::uint32_t span : {0u, 32u, 64u, 128u})
    for (std::uint32_t x = 0; x < 2048; x += 37)
      check("swizzle_offset(" + std::to_string(x) + "u, " + std::to_string(span) + "u)", reference_swizzle(x, span));
  // (row, byte) in a tile of 128-byte rows; element form for halves in 64-byte rows.
  check("swizzle_tile_offset(3u, 40u, 128u, 128u)", reference_swizzle(3 * 128 + 40, 128));
  check("swizzle_element<__half>(5u, 9u, 32u, 64u)", reference_swizzle((5 * 32 + 9) * 2, 64) / 2);
  // Fragment coordinates straight from the PTX figure of the m64nNk16 D
  // fragment: row = 16*warp + lane/4 (+8 for registers 2,3 of each 4),
  // col = 8*(i/4) + 2*(lane%4) (+1 for odd registers).
  for (int t = 0; t < 128; t += 5)
    for (int i = 0; i < 128; i += 3) {
      int warp = t / 32, lane = t % 32;
      int row = warp * 16 + lane / 4 + ((i % 4) >= 2 ? 8 : 0);
      int col = (i / 4) * 8 + (lane % 4) * 2 + (i % 2);
      check("accum_row(" + std::to_string(t) + ", " + std::to_string(i) + ")", row);
      check("accum_col(" + std::to_string(t) + ", " + std::to_string(i) + ")", col);
    }
  // Descriptor: address 0x1400 >> 4, LBO 16 >> 4, SBO 1024 >> 4, 128B swizzle = 1.
  check("smem_desc_encode(0x1400u, 16u, 1024u, 128u)", (0x1400ull >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62));
  check("smem_desc_encode(0x20u, 128u, 256u, 0u)", 2ull | (8ull << 16) | (16ull << 32));
  check("smem_desc_encode(0x0u, 16u, 512u, 64u)", (1ull << 16) | (32ull << 32) | (2ull << 62));
  check("smem_desc_encode(0x0u, 16u, 256u, 32u)", (1ull << 16) | (16ull << 32) | (3ull << 62));
  check("desc_advance(smem_desc_encode(0x400u, 16u, 1024u, 128u), 32u)",
        (0x420ull >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62));
  body += "extern \"C\" __global__ void helpers() {}\n";
  jit::NvrtcOutput out = compile(body, "helpers");
  EXPECT_FALSE(out.cubin.empty());
}

// croq_dev::wgmma_m64nNk16<n, ...> exists for the N the target accepts.
TEST(HopperPrelude, WgmmaExtents) {
  EXPECT_TRUE(target::mma_n_supported(8));
  EXPECT_TRUE(target::mma_n_supported(96));
  EXPECT_TRUE(target::mma_n_supported(256));
  EXPECT_FALSE(target::mma_n_supported(0));
  EXPECT_FALSE(target::mma_n_supported(12));
  EXPECT_FALSE(target::mma_n_supported(264));
  EXPECT_TRUE(contains(std::string(hopper_prelude()), "struct alignas(64) croq_tensor_map"));
}

}  // namespace
}  // namespace croq::pipeline
