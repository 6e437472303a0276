// `: cluster` levels (docs/guide/targets.md): the launch shape (grid =
// clusters x blocks per cluster along x, cluster dims {B, 1, 1}), the index
// arithmetic of the generated CUDA (cluster = blockIdx.x / B, block in the
// cluster = blockIdx.x % B, row-major), dynamic cluster counts, NVRTC for
// sm_90a (the cluster GEMM keeps TMA and WGMMA), the cache metadata, and the
// errors with their exact message and location. No GPU needed; the GPU side
// is tests/gpu/cluster_gpu_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "common/cluster_sources.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::count;

using test::generate;
using test::generate_cuda;
using test::tensor;

CompileOptions options(const std::string& name = "cluster.co") {
  CompileOptions o;
  o.source_name = name;
  return o;
}

GeneratedKernel generate_dynamic(const std::string& source, const std::vector<ArgSignature>& args,
                                 const std::vector<std::string>& dynamic) {
  auto program = frontend::parse_program(source, options());
  const auto& fn = frontend::select_entry(*program, options(), program->source);
  return generate_cuda(*program, fn, args, 227 * 1024, dynamic);
}

std::array<unsigned, 3> dims(unsigned x) { return {x, 1, 1}; }

// ---------------------------------------------------------------- launch shape

struct IdsShape {
  std::int64_t clusters, blocks, threads;
};

class ClusterLaunch : public ::testing::TestWithParam<IdsShape> {};

TEST_P(ClusterLaunch, GridIsClustersTimesBlocksAndClusterDimsAreTheBlocks) {
  const IdsShape& s = GetParam();
  GeneratedKernel k = generate(croq::test::kClusterIds, {tensor(DType::s32, {s.clusters, s.blocks, s.threads})});
  EXPECT_EQ(k.launch.grid, dims(static_cast<unsigned>(s.clusters * s.blocks)));
  EXPECT_EQ(k.launch.block, dims(static_cast<unsigned>(s.threads)));
  EXPECT_EQ(k.launch.cluster, dims(static_cast<unsigned>(s.blocks)));
  EXPECT_TRUE(k.launch.has_cluster());
  EXPECT_EQ(k.launch.shared_bytes, 0u);
  EXPECT_FALSE(k.runtime_grid.dynamic());
  // The cluster level is what needs Hopper: the diagnostic points at it.
  ASSERT_TRUE(k.needs_sm90.has_value());
  EXPECT_EQ(k.needs_sm90->message, "`: cluster` needs sm_90 (Hopper)");
  EXPECT_EQ(k.needs_sm90->line, 2);
  EXPECT_EQ(k.needs_sm90->column, 12);
  // Cluster index and block rank, then the thread level.
  const std::string b = std::to_string(s.blocks);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(k.ir, m,
                                std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x / " + b + "\\)\\n\\s*let i32 c_\\d+ = \\1\\n")))
      << k.ir;
  ASSERT_TRUE(std::regex_search(k.ir, m,
                                std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x % " + b + "\\)\\n\\s*let i32 b_\\d+ = \\1\\n")))
      << k.ir;
  EXPECT_NE(k.cuda_source.find("clusters of " + b + " blocks"), std::string::npos);
  // NVRTC accepts it for sm_90a.
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "ids.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

INSTANTIATE_TEST_SUITE_P(Shapes, ClusterLaunch,
                         ::testing::Values(IdsShape{4, 2, 32}, IdsShape{3, 8, 64}, IdsShape{1, 1, 32},
                                           IdsShape{7, 4, 128}, IdsShape{5, 3, 96}),
                         [](const auto& info) {
                           return std::to_string(info.param.clusters) + "x" + std::to_string(info.param.blocks) + "x" +
                                  std::to_string(info.param.threads);
                         });

TEST(Cluster, MultiIndexLevelsDecomposeRowMajorLastIndexFastest) {
  // [CM, CN] = [2, 3] clusters of [BX, BY] = [2, 2] blocks, comma form.
  GeneratedKernel k = generate(croq::test::kClusterIds2d, {tensor(DType::s32, {2, 3, 2, 2, 32})});
  EXPECT_EQ(k.launch.grid, dims(24));
  EXPECT_EQ(k.launch.cluster, dims(4));
  EXPECT_EQ(k.launch.block, dims(32));
  std::smatch m;
  EXPECT_TRUE(std::regex_search(k.ir, m,
                                std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x / 4\\)\\n\\s*"
                                           "let i32 cn_\\d+ = \\(\\1 % 3\\)\\n\\s*"
                                           "let i32 cm_\\d+ = \\(\\1 / 3\\)\\n")))
      << k.ir;
  EXPECT_TRUE(std::regex_search(k.ir, m,
                                std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x % 4\\)\\n\\s*"
                                           "let i32 by_\\d+ = \\(\\1 % 2\\)\\n\\s*"
                                           "let i32 bx_\\d+ = \\(\\1 / 2\\)\\n")))
      << k.ir;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "ids2d.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(Cluster, DynamicClusterCountSizesTheGridAtLaunch) {
  // C is dynamic: blocks = B * C, computed at launch from the argument.
  GeneratedKernel k = generate_dynamic(croq::test::kClusterIds, {tensor(DType::s32, {-1, 4, 32})}, {"C"});
  ASSERT_TRUE(k.runtime_grid.dynamic());
  EXPECT_EQ(k.runtime_grid.factor, 4);
  EXPECT_EQ(k.runtime_grid.per_block, 1);
  ASSERT_EQ(k.runtime_grid.terms.size(), 1u);
  EXPECT_EQ(k.runtime_grid.terms[0].source, (DimSource{0, 0}));
  EXPECT_EQ(k.runtime_grid.terms[0].divisor, 1);
  EXPECT_FALSE(k.runtime_grid.terms[0].ceil);
  EXPECT_EQ(k.launch.cluster, dims(4));
  EXPECT_NE(k.ir.find(" = (blockIdx.x / 4)\n"), std::string::npos) << k.ir;
  EXPECT_NE(k.ir.find(" = (blockIdx.x % 4)\n"), std::string::npos) << k.ir;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "ids.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());

  // The GEMM with a dynamic M: cdiv(M, 128) clusters of 2 blocks per column
  // tile, cdiv(N, 128) = 2 column tiles.
  GeneratedKernel g = generate_dynamic(croq::test::cluster_gemm_source(false),
                                       {tensor(DType::f16, {-1, 128}), tensor(DType::f16, {256, 128}),
                                        tensor(DType::f16, {-1, 256})},
                                       {"M"});
  ASSERT_TRUE(g.runtime_grid.dynamic());
  EXPECT_EQ(g.runtime_grid.factor, 2 * 2);
  EXPECT_EQ(g.runtime_grid.per_block, 1);
  ASSERT_EQ(g.runtime_grid.terms.size(), 1u);
  EXPECT_EQ(g.runtime_grid.terms[0].divisor, 128);
  EXPECT_TRUE(g.runtime_grid.terms[0].ceil);
  EXPECT_EQ(g.launch.cluster, dims(2));
  // For M = 300 the launch computes 4 * cdiv(300, 128) = 12 blocks, a whole
  // number of clusters, as the static specialization has.
  GeneratedKernel fixed = generate(croq::test::cluster_gemm_source(false),
                                   {tensor(DType::f16, {300, 128}), tensor(DType::f16, {256, 128}),
                                    tensor(DType::f16, {300, 256})});
  EXPECT_EQ(fixed.launch.grid, dims(12));
  EXPECT_EQ(fixed.launch.cluster, dims(2));
}

// ---------------------------------------------------------------- GEMM

struct GemmCase {
  bool comma;
  std::int64_t m, n, k;
};

class ClusterGemm : public ::testing::TestWithParam<GemmCase> {};

TEST_P(ClusterGemm, CompilesForSm90aWithTmaAndWgmma) {
  const GemmCase& c = GetParam();
  GeneratedKernel k = generate(croq::test::cluster_gemm_source(c.comma),
                               {tensor(DType::f16, {c.m, c.k}), tensor(DType::f16, {c.n, c.k}),
                                tensor(DType::f16, {c.m, c.n})},
                               "cluster_gemm.co");
  const std::int64_t clusters = (c.m + 127) / 128 * ((c.n + 127) / 128);
  EXPECT_EQ(k.launch.grid, dims(static_cast<unsigned>(clusters * 2)));
  EXPECT_EQ(k.launch.block, dims(128));
  EXPECT_EQ(k.launch.cluster, dims(2));
  ASSERT_TRUE(k.needs_sm90.has_value());
  EXPECT_EQ(k.needs_sm90->message, "`: cluster` needs sm_90 (Hopper)");
  EXPECT_EQ(k.needs_sm90->line, 5);
  // Row tile cm # b = cm * 2 + b, with b the block's rank in its cluster.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(k.ir, m, std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x % 2\\)\\n"))) << k.ir;
  EXPECT_TRUE(std::regex_search(k.cuda_source, std::regex("\\(\\(cm_\\d+ \\* 2\\) \\+ b_\\d+\\)"))) << k.cuda_source;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "cluster_gemm.cu", k.entry, {"sm_90a", false, {}});
  ASSERT_FALSE(out.cubin.empty());
  EXPECT_GE(count(out.ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"), 2u);
  EXPECT_TRUE(std::regex_search(out.ptx, std::regex(R"(wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16)")));
  EXPECT_EQ(count(out.ptx, "mma.sync"), 0u);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ClusterGemm,
                         ::testing::Values(GemmCase{false, 256, 256, 256}, GemmCase{true, 256, 256, 256},
                                           GemmCase{false, 300, 200, 136}, GemmCase{true, 192, 384, 128}),
                         [](const auto& info) {
                           return std::string(info.param.comma ? "comma_" : "nested_") + std::to_string(info.param.m) +
                                  "x" + std::to_string(info.param.n) + "x" + std::to_string(info.param.k);
                         });

// ---------------------------------------------------------------- cache

TEST(Cluster, CacheMetadataKeepsTheClusterDims) {
  GeneratedKernel k = generate(croq::test::kClusterIds, {tensor(DType::s32, {3, 2, 32})});
  nlohmann::json j = k.launch;
  EXPECT_EQ(j.at("cluster"), nlohmann::json({2, 1, 1}));
  EXPECT_EQ(j.get<jit::LaunchConfig>().cluster, dims(2));

  croq::test::TempDir dir;
  jit::DiskCacheSettings settings;
  settings.dir = dir.path();
  jit::JitRequest request;
  request.cuda_source = k.cuda_source;
  request.entry = k.entry;
  request.arch = "sm_90a";
  request.launch = k.launch;
  {
    jit::JitCompiler first(settings);
    auto compiled = first.compile(request);
    EXPECT_EQ(compiled->source, jit::CacheSource::compiled);
    EXPECT_EQ(compiled->launch.cluster, dims(2));
    // The launch shape is part of the key: the same text without a cluster
    // is another entry.
    jit::JitRequest plain = request;
    plain.launch.cluster = {0, 0, 0};
    EXPECT_NE(first.cache_key(plain, "sm_90a").hex(), first.cache_key(request, "sm_90a").hex());
  }
  jit::JitCompiler second(settings);
  auto loaded = second.compile(request);
  EXPECT_EQ(loaded->source, jit::CacheSource::disk);
  EXPECT_EQ(loaded->launch.cluster, dims(2));
  EXPECT_EQ(loaded->launch.grid, dims(6));
}

// ---------------------------------------------------------------- errors

struct ErrorCase {
  std::string name;
  std::string source;
  int line, column;
  std::string message;
  std::string hint = "";
  std::vector<ArgSignature> args = {tensor(DType::s32, {8, 32})};
  std::vector<std::string> dynamic_dims = {};
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

const char* const kFollowHint =
    "write `parallel c by C : cluster, b by B : block { ... }`, or a `: block` level as the only statement of the "
    "cluster level";

std::vector<ErrorCase> error_cases() {
  const std::string head = "__co__ void f(global s32 [8, 32] out) {\n";
  return {
      {"InsideABlockLevel",
       head + "  parallel i by 2 : block {\n    parallel c by 2 : cluster, b by 2 : block {\n      out.at(i, 0) = 1;\n"
              "    }\n  }\n}\n",
       3, 14, "a `: cluster` level must be the outermost parallel level"},
      {"InsideTheBlocksOfAnotherCluster",
       head + "  parallel c by 2 : cluster, b by 2 : block {\n    parallel d by 2 : cluster, e by 2 : block {\n"
              "      out.at(c, b) = 1;\n    }\n  }\n}\n",
       3, 14, "a `: cluster` level must be the outermost parallel level"},
      {"FollowedByAThreadLevel", head + "  parallel c by 4 : cluster, t by 32 : thread\n    out.at(c, t) = 1;\n}\n", 2,
       12, "a `: cluster` level must be directly followed by a `: block` level", kFollowHint},
      {"FollowedByAnUnannotatedLevel",
       head + "  parallel c by 4 : cluster {\n    parallel t by 32\n      out.at(c, t) = 1;\n  }\n}\n", 2, 12,
       "a `: cluster` level must be directly followed by a `: block` level", kFollowHint},
      {"StatementBeforeTheBlockLevel",
       head + "  parallel c by 2 : cluster {\n    int x = 1;\n    parallel b by 2 : block {\n      out.at(c, b) = x;\n"
              "    }\n  }\n}\n",
       2, 12, "a `: cluster` level must be directly followed by a `: block` level", kFollowHint},
      {"ClusterOfClusters",
       head + "  parallel c by 2 : cluster {\n    parallel d by 2 : cluster, b by 2 : block {\n      out.at(c, d) = b;\n"
              "    }\n  }\n}\n",
       2, 12, "a `: cluster` level must be directly followed by a `: block` level", kFollowHint},
      {"NineBlocks",
       head + "  parallel c by 2 : cluster, b by 9 : block {\n    out.at(c, 0) = b;\n  }\n}\n", 2, 35,
       "a cluster holds at most 8 blocks, got 9", "8 is the portable cluster size"},
      {"NineBlocksOfTwoIndices",
       head + "  parallel c by 2 : cluster {\n    parallel {bx, by} by [3, 3] : block {\n      out.at(c, bx) = by;\n"
              "    }\n  }\n}\n",
       3, 26, "a cluster holds at most 8 blocks, got 9", "8 is the portable cluster size"},
      {"SixteenBlocksFromASymbolicDim", croq::test::kClusterIds, 3, 19, "a cluster holds at most 8 blocks, got 16",
       "8 is the portable cluster size", {tensor(DType::s32, {2, 16, 32})}},
      {"DynamicBlocksPerCluster", croq::test::kClusterIds, 3, 19,
       "the number of blocks in a cluster must be known at compile time, but `B` depends on a dynamic dim",
       "size the `: cluster` level with the dynamic dim instead", {tensor(DType::s32, {2, -1, 32})}, {"B"}},
      {"DynamicBlocksPerClusterQuotesTheSource",
       [] {
         std::string text = croq::test::kClusterIds;
         return text.replace(text.find("by B : block"), 12, "by (B  / 1) : block");
       }(),
       3, 20, "the number of blocks in a cluster must be known at compile time, but `(B / 1)` depends on a dynamic dim",
       "size the `: cluster` level with the dynamic dim instead", {tensor(DType::s32, {2, -1, 32})}, {"B"}},
      {"ZeroBlocks", croq::test::kClusterIds, 3, 19, "a parallel count must be positive, got 0", "",
       {tensor(DType::s32, {2, 0, 32})}},
      // (Two top-level statements are two kernels, and a host `if` around
      // them a host program; inside one block statement, two grids are refused.)
      {"SecondGridStatement",
       head + "  {\n  parallel c by 2 : cluster, b by 2 : block {\n    out.at(c, b) = 1;\n  }\n"
              "  parallel d by 2 : cluster, e by 2 : block {\n    out.at(d, e) = 2;\n  }\n  }\n}\n",
       6, 12, "only one block-level parallel statement per kernel is supported yet", "put every block-level statement in one `parallel ... : block`"},
  };
}

class ClusterErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ClusterErrors, ExactMessageHintAndLocation) {
  const ErrorCase& c = GetParam();
  try {
    generate_dynamic(c.source, c.args, c.dynamic_dims);
    FAIL() << "compiled without an error:\n" << c.source;
  } catch (const CompileError& e) {
    test::expect_single_error(e, c);
  }
}

INSTANTIATE_TEST_SUITE_P(Cluster, ClusterErrors, ::testing::ValuesIn(error_cases()),
                         [](const auto& info) { return info.param.name; });

// Through the public API, compiled for sm_80: croq::compile refuses it
// (the options name the arch), pointing at the cluster level.
TEST(ClusterErrorsApi, Sm80SaysClusterNeedsSm90) {
  CompileOptions o = options("ids.co");
  o.arch = "sm_80";
  try {
    croq::compile(croq::test::kClusterIds, o);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].message, "`: cluster` needs sm_90 (Hopper) (compiling for sm_80)");
    EXPECT_EQ(e.diagnostics()[0].line, 2);
    EXPECT_EQ(e.diagnostics()[0].column, 12);
  }
}

}  // namespace
}  // namespace croq::pipeline
