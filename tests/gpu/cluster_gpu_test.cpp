// `: cluster` levels on an sm_90 device (tests/common/cluster_sources.hpp;
// Croqtile's clusters: the `: cluster` count is the blocks of one cluster,
// the `: block` level the whole grid, a cluster C consecutive values of the
// first block index):
//  * every element written from the block index and the block's rank in its
//    cluster, exact, the output poisoned first, for cluster sizes 1 to 8 and
//    multi-index levels;
//  * the launch really is a cluster launch: the generated kernel, with a
//    probe added at its entry, records %cluster_ctarank, %cluster_nctarank
//    and %clusterid.x per block, which must equal blockIdx.x % C, C and
//    blockIdx.x / C (the indices lowering derives from blockIdx.x), and the
//    driver refuses the same launch with a grid that is not a whole number
//    of clusters;
//  * samples/matmul_wgmma's GEMM with row tiles paired into 2-block
//    clusters (its rhs tile a plain or a `.multicast` load), and a
//    warp-specialized one with `.multicast` loads and `trigger.cluster`,
//    against a double host reference (relative Frobenius error <= 1e-2),
//    square, non-square and tail shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "common/cluster_sources.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "../../samples/gemm_check.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"

namespace croq {
namespace {

using croq::test::DeviceBuffer;

// Thread block clusters need compute capability 9.0.
#define CROQ_REQUIRE_SM90()                                                                         \
  do {                                                                                              \
    CROQ_REQUIRE_GPU();                                                                             \
    if (jit::device_info(0).cc_major < 9) GTEST_SKIP() << "thread block clusters need sm_90 (Hopper)"; \
  } while (0)

constexpr std::int32_t kPoison = -7;

Kernel compile_named(const std::string& source, const std::string& name, std::vector<std::string> dynamic = {}) {
  CompileOptions options;
  options.source_name = name + ".co";
  options.dynamic_dims = std::move(dynamic);
  return compile(source, options);
}

// Runs the [B, T] kernel and checks out[b][t] == b * 1000 + (b % C) * 100 + t.
void expect_ids(Kernel& kernel, std::int64_t cluster, std::int64_t blocks, std::int64_t threads) {
  SCOPED_TRACE(std::to_string(blocks) + " blocks in clusters of " + std::to_string(cluster) + ", " +
               std::to_string(threads) + " threads");
  auto out = make_spandata<s32>(blocks, threads);
  out.fill(kPoison);
  kernel(out.view());
  std::size_t wrong = 0;
  for (std::int64_t b = 0; b < blocks; ++b)
    for (std::int64_t t = 0; t < threads; ++t) {
      const std::int32_t got = out.data()[b * threads + t];
      const std::int64_t want = b * 1000 + (b % cluster) * 100 + t;
      if (got != want && wrong++ < 8) ADD_FAILURE() << "out[" << b << "][" << t << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(wrong, 0u);
}

TEST(ClusterGpu, EveryElementFromBlockIndexAndRank) {
  CROQ_REQUIRE_SM90();
  for (std::int64_t cluster : {1, 2, 3, 4, 8}) {
    Kernel kernel = compile_named(test::cluster_ids_source(cluster), "cluster_ids_" + std::to_string(cluster));
    for (std::int64_t clusters : {1, 5, 132, 250}) {
      expect_ids(kernel, cluster, clusters * cluster, cluster == 8 ? 32 : 96);
      if (cluster > 1) expect_ids(kernel, cluster, clusters * cluster - 1, 64);  // the last cluster not full
    }
  }
}

TEST(ClusterGpu, MultiIndexLevelsCommaForm) {
  CROQ_REQUIRE_SM90();
  Kernel kernel = compile_named(test::kClusterIds2d, "cluster_ids2d");
  const std::int64_t shapes[][3] = {{8, 3, 32}, {4, 2, 64}, {12, 7, 32}, {4, 1, 32}, {6, 5, 32}};
  for (const auto& s : shapes) {
    const std::int64_t bx_n = s[0], by_n = s[1], t_n = s[2];
    SCOPED_TRACE("[" + std::to_string(bx_n) + ", " + std::to_string(by_n) + "] blocks in clusters of [2, 2]");
    auto out = make_spandata<s32>(bx_n, by_n, t_n);
    out.fill(kPoison);
    kernel(out.view());
    std::size_t wrong = 0, i = 0;
    for (std::int64_t bx = 0; bx < bx_n; ++bx)
      for (std::int64_t by = 0; by < by_n; ++by)
        for (std::int64_t t = 0; t < t_n; ++t, ++i) {
          const std::int64_t rank = bx % 4;
          const std::int64_t want = (rank / 2) * 1000000 + (rank % 2) * 100000 + bx * 1000 + by * 100 + t;
          if (out.data()[i] != want && wrong++ < 8)
            ADD_FAILURE() << "element " << i << " = " << out.data()[i] << ", want " << want;
        }
    EXPECT_EQ(wrong, 0u);
  }
}

// The generated kernel with a probe at its entry: thread 0 of each block
// stores the hardware's cluster rank, cluster size and cluster id.
std::string with_cluster_probe(std::string cuda) {
  const std::string signature_end = "int* __restrict__ arg_out) {\n";
  const std::size_t at = cuda.find(signature_end);
  if (at == std::string::npos) return {};
  cuda.replace(at, signature_end.size(),
               "int* __restrict__ arg_out, unsigned* croq_probe) {\n"
               "  if (threadIdx.x == 0) {\n"
               "    unsigned rank, size, id;\n"
               "    asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(rank));\n"
               "    asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(size));\n"
               "    asm volatile(\"mov.u32 %0, %%clusterid.x;\" : \"=r\"(id));\n"
               "    croq_probe[3 * blockIdx.x] = rank;\n"
               "    croq_probe[3 * blockIdx.x + 1] = size;\n"
               "    croq_probe[3 * blockIdx.x + 2] = id;\n"
               "  }\n");
  return cuda;
}

TEST(ClusterGpu, LaunchIsAClusterLaunchMatchingTheIndexArithmetic) {
  CROQ_REQUIRE_SM90();
  croq::test::TempDir dir;
  jit::DiskCacheSettings settings;
  settings.dir = dir.path();
  jit::JitCompiler jit(settings);
  const std::int64_t shapes[][3] = {{2, 12, 32}, {8, 40, 64}, {3, 27, 32}, {1, 4, 32}};  // cluster, blocks, threads
  for (const auto& s : shapes) {
    const std::int64_t cluster = s[0], blocks = s[1], threads = s[2];
    SCOPED_TRACE(std::to_string(blocks) + " blocks in clusters of " + std::to_string(cluster));
    pipeline::GeneratedKernel gen = pipeline::test::generate(test::cluster_ids_source(cluster),
                                                             {pipeline::test::tensor(DType::s32, {blocks, threads})});
    ASSERT_EQ(gen.launch.cluster, (std::array<unsigned, 3>{static_cast<unsigned>(cluster), 1, 1}));
    jit::JitRequest request;
    request.cuda_source = with_cluster_probe(gen.cuda_source);
    ASSERT_FALSE(request.cuda_source.empty()) << gen.cuda_source;
    request.entry = gen.entry;
    request.launch = gen.launch;
    auto kernel = jit.compile(request);

    const std::size_t grid = static_cast<std::size_t>(blocks), n = grid * threads;
    DeviceBuffer out(n * 4), probe(grid * 3 * 4);
    out.poison();
    probe.poison();
    CUdeviceptr out_ptr = out.ptr(), probe_ptr = probe.ptr();
    void* args[] = {&out_ptr, &probe_ptr};
    jit::launch(*kernel, gen.launch, args, nullptr, 0);
    CROQ_CU(cuCtxSynchronize);
    std::vector<std::uint32_t> p = probe.download<std::uint32_t>(grid * 3);
    for (std::size_t block = 0; block < grid; ++block) {
      EXPECT_EQ(p[3 * block], static_cast<std::uint32_t>(block % cluster)) << "%cluster_ctarank of block " << block;
      EXPECT_EQ(p[3 * block + 1], static_cast<std::uint32_t>(cluster)) << "%cluster_nctarank of block " << block;
      EXPECT_EQ(p[3 * block + 2], static_cast<std::uint32_t>(block / cluster)) << "%clusterid.x of block " << block;
    }
    std::vector<std::int32_t> o = out.download<std::int32_t>(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t t = i % threads, b = i / threads;
      ASSERT_EQ(o[i], static_cast<std::int32_t>(b * 1000 + (b % cluster) * 100 + t)) << "element " << i;
    }

    // A grid that is not a whole number of clusters is refused: the
    // cluster dimension does reach the driver.
    if (cluster > 1) {
      jit::LaunchConfig ragged = gen.launch;
      ragged.grid[0] += 1;
      EXPECT_THROW(jit::launch(*kernel, ragged, args, nullptr, 0), CudaError);
    }
  }
}

// ---------------------------------------------------------------- GEMM

const GemmShape kGemmShapes[] = {{256, 256, 256}, {192, 384, 128}, {300, 200, 136}};

// C = A * B^T on fresh random f16 data with a poisoned C, checked against a
// double reference (samples/gemm_check.hpp).
GemmCheck gemm_check(Kernel& kernel, const GemmShape& s, std::uint64_t seed) {
  auto lhs = make_spandata<f16>(s.m, s.k);
  auto rhs = make_spandata<f16>(s.n, s.k);
  auto out = make_spandata<f16>(s.m, s.n);
  lhs.fill_random(-1, 1, seed);
  rhs.fill_random(-1, 1, seed + 1);
  out.fill_random(1e4, 2e4, seed + 2);
  kernel(lhs.view(), rhs.view(), out.view());
  return check_gemm(lhs, rhs, out);
}

void expect_accurate(Kernel& kernel, const std::vector<GemmShape>& shapes = {std::begin(kGemmShapes), std::end(kGemmShapes)}) {
  std::uint64_t seed = 77;
  for (const GemmShape& s : shapes) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + "]^T");
    const GemmCheck check = gemm_check(kernel, s, seed);
    EXPECT_TRUE(check.passed()) << describe(check);
    seed += 3;
  }
}

TEST(ClusterGpu, WgmmaGemmInTwoBlockClusters) {
  CROQ_REQUIRE_SM90();
  Kernel kernel = compile_named(test::cluster_gemm_source(false), "cluster_gemm");
  expect_accurate(kernel);
}

TEST(ClusterGpu, WgmmaGemmInTwoBlockClustersCommaForm) {
  CROQ_REQUIRE_SM90();
  Kernel kernel = compile_named(test::cluster_gemm_source(true), "cluster_gemm_comma");
  expect_accurate(kernel);
}

TEST(ClusterGpu, WgmmaGemmWithMulticastRhsTiles) {
  CROQ_REQUIRE_SM90();
  Kernel kernel = compile_named(test::cluster_gemm_source(false, true), "cluster_gemm_multicast");
  expect_accurate(kernel);
}

TEST(ClusterGpu, WarpSpecializedGemmWithMulticastAndClusterTriggers) {
  CROQ_REQUIRE_SM90();
  Kernel kernel = compile_named(test::kClusterWsGemm, "cluster_ws_gemm");
  // Multiples of the tiles (no tails in this kernel); an odd number of row tiles included.
  expect_accurate(kernel, {{256, 256, 256}, {192, 384, 128}, {448, 128, 512}});
}

}  // namespace
}  // namespace croq
