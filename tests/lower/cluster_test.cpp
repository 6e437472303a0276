// `: cluster` levels (docs/guide/targets.md): the launch shape (grid = the
// `: block` level's blocks along x, cluster dims {C, 1, 1} from the
// `: cluster` count), the index arithmetic of the generated CUDA (a
// cluster is C consecutive values of the first block index; the cluster
// index is the rank blockIdx.x % C), NVRTC for sm_90a (the cluster GEMM
// keeps TMA and WGMMA), the cache metadata, and the errors with their exact
// message and location. No GPU needed; the GPU side is
// tests/gpu/cluster_gpu_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "common/cluster_sources.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
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
  std::int64_t cluster, blocks, threads;
};

class ClusterLaunch : public ::testing::TestWithParam<IdsShape> {};

TEST_P(ClusterLaunch, GridIsTheBlockLevelAndClusterDimsAreTheClusterCount) {
  const IdsShape& s = GetParam();
  GeneratedKernel k = generate(croq::test::cluster_ids_source(s.cluster), {tensor(DType::s32, {s.blocks, s.threads})});
  EXPECT_EQ(k.launch.grid, dims(static_cast<unsigned>(s.blocks)));
  EXPECT_EQ(k.launch.block, dims(static_cast<unsigned>(s.threads)));
  EXPECT_EQ(k.launch.cluster, dims(static_cast<unsigned>(s.cluster)));
  EXPECT_TRUE(k.launch.has_cluster());
  EXPECT_EQ(k.launch.shared_bytes, 0u);
  EXPECT_FALSE(k.runtime_grid.dynamic());
  // The cluster level is what needs Hopper: the diagnostic points at it.
  ASSERT_TRUE(k.needs_sm90.has_value());
  EXPECT_EQ(k.needs_sm90->message, "`: cluster` needs sm_90 (Hopper)");
  EXPECT_EQ(k.needs_sm90->line, 2);
  EXPECT_EQ(k.needs_sm90->column, 12);
  // The rank in the cluster, then the block index (one index: blockIdx.x).
  const std::string c = std::to_string(s.cluster);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(k.ir, m,
                                std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x % " + c + "\\)\\n\\s*let i32 c_\\d+ = \\1\\n")))
      << k.ir;
  ASSERT_TRUE(std::regex_search(k.ir, m, std::regex("let i32 (lin_\\d+) = blockIdx\\.x\\n\\s*let i32 b_\\d+ = \\1\\n")))
      << k.ir;
  EXPECT_NE(k.cuda_source.find("clusters of " + c + " blocks"), std::string::npos);
  // NVRTC accepts it for sm_90a.
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "ids.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

INSTANTIATE_TEST_SUITE_P(Shapes, ClusterLaunch,
                         ::testing::Values(IdsShape{2, 8, 32}, IdsShape{8, 24, 64}, IdsShape{1, 1, 32},
                                           IdsShape{4, 28, 128}, IdsShape{3, 15, 96}),
                         [](const auto& info) {
                           return std::to_string(info.param.cluster) + "x" + std::to_string(info.param.blocks) + "x" +
                                  std::to_string(info.param.threads);
                         });

TEST(Cluster, AFirstCountNotAMultipleOfTheClusterRoundsTheGridUp) {
  // 6 blocks in clusters of 4: 8 launched, the last 2 run nothing.
  GeneratedKernel k = generate(croq::test::cluster_ids_source(4), {tensor(DType::s32, {6, 32})});
  EXPECT_EQ(k.launch.grid, dims(8));
  EXPECT_EQ(k.launch.cluster, dims(4));
  std::smatch m;
  EXPECT_TRUE(std::regex_search(k.ir, m, std::regex("let i32 (lin_\\d+) = blockIdx\\.x\\n\\s*if \\(\\1 < 6\\)"))) << k.ir;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "ids.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(Cluster, TheClusterTilesTheFirstBlockIndexAndItsRankDecomposesRowMajor) {
  // Clusters of [2, 2] = 4 blocks over [BX, BY] = [8, 3] blocks, comma form:
  // x = (q * 3 + by) * 4 + r holds bx = q * 4 + r.
  GeneratedKernel k = generate(croq::test::kClusterIds2d, {tensor(DType::s32, {8, 3, 32})});
  EXPECT_EQ(k.launch.grid, dims(24));
  EXPECT_EQ(k.launch.cluster, dims(4));
  EXPECT_EQ(k.launch.block, dims(32));
  std::smatch m;
  EXPECT_TRUE(std::regex_search(k.ir, m,
                                std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x % 4\\)\\n\\s*"
                                           "let i32 cn_\\d+ = \\(\\1 % 2\\)\\n\\s*"
                                           "let i32 cm_\\d+ = \\(\\1 / 2\\)\\n")))
      << k.ir;
  const std::string first_index = "((((((blockIdx.x / 4) / 3) * 4) + (blockIdx.x % 4)) * 3) + ((blockIdx.x / 4) % 3))";
  const std::size_t at = k.ir.find(" = " + first_index + "\n");
  ASSERT_NE(at, std::string::npos) << k.ir;
  const std::string after = k.ir.substr(at);
  EXPECT_TRUE(std::regex_search(after, m,
                                std::regex("\\s*let i32 by_\\d+ = \\(lin_\\d+ % 3\\)\\n\\s*let i32 bx_\\d+ = \\(lin_\\d+ / 3\\)\\n")))
      << k.ir;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "ids2d.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
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
  const std::int64_t blocks = ((c.m + 63) / 64 + 1) / 2 * 2 * ((c.n + 127) / 128);  // row tiles rounded up to pairs
  EXPECT_EQ(k.launch.grid, dims(static_cast<unsigned>(blocks)));
  EXPECT_EQ(k.launch.block, dims(128));
  EXPECT_EQ(k.launch.cluster, dims(2));
  ASSERT_TRUE(k.needs_sm90.has_value());
  EXPECT_EQ(k.needs_sm90->message, "`: cluster` needs sm_90 (Hopper)");
  EXPECT_EQ(k.needs_sm90->line, 5);
  // The rank in the cluster, and row tiles paired: x / 2 picks the pair
  // and the column tile, x % 2 the row tile of the pair.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(k.ir, m, std::regex("let i32 (lin_\\d+) = \\(blockIdx\\.x % 2\\)\\n"))) << k.ir;
  EXPECT_NE(k.ir.find("(blockIdx.x / 2)"), std::string::npos) << k.ir;
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

// `.multicast`, as one load for the cluster. A plain tile loaded by the
// whole block: each block loads its slice of the rows into every block of
// the cluster, after a cluster barrier (no peer still reads the tile); the
// barriers are set up for the whole cluster and no block leaves before the
// others. The IR text keeps it all.
TEST(Cluster, MulticastIsOneLoadForTheClusterInSlices) {
  const std::vector<ArgSignature> args = {tensor(DType::f16, {256, 128}), tensor(DType::f16, {256, 128}),
                                          tensor(DType::f16, {256, 256})};
  GeneratedKernel plain = generate(croq::test::cluster_gemm_source(false, false), args, "cluster_gemm.co");
  GeneratedKernel multicast = generate(croq::test::cluster_gemm_source(false, true), args, "cluster_gemm.co");
  EXPECT_EQ(count(multicast.ir, " bytes (multicast in 2 slices of 64 rows, 4096 elements)"), 1u) << multicast.ir;
  EXPECT_EQ(count(multicast.ir, "sharing shared memory"), 1u);
  EXPECT_EQ(count(multicast.ir, "barrier cluster"), 2u);  // before the load, before leaving
  EXPECT_EQ(count(plain.ir, "multicast"), 0u);
  EXPECT_EQ(count(plain.ir, "barrier cluster") + count(plain.ir, "sharing shared memory"), 0u);
  const ir::Kernel parsed = ir::parse_kernel(multicast.ir);
  EXPECT_EQ(ir::print_kernel(parsed), multicast.ir);
  // Rank r loads rows 64 r.. of the [128, 64] box (its map's box is one
  // slice) into the tile 64 x 64 elements on, for both blocks.
  EXPECT_EQ(count(multicast.cuda_source, "+ ((blockIdx.x % 2)) * 4096, &croq_tmap_1"), 1u) << multicast.cuda_source;
  EXPECT_EQ(count(multicast.cuda_source, "(unsigned short)(((1 << 2) - 1)), (int)((iv_k"), 1u);
  EXPECT_EQ(count(multicast.cuda_source, "((blockIdx.x % 2)) * 64);"), 1u);
  EXPECT_EQ(count(multicast.cuda_source, "croq_dev::cluster_sync();"), 3u);  // set-up, load, exit
  EXPECT_EQ(count(plain.cuda_source, "croq_dev::cluster_sync();"), 0u);
  ASSERT_EQ(multicast.params.size(), plain.params.size());
  bool sliced_map = false;
  for (std::size_t i = 0; i < plain.params.size(); ++i)
    if (plain.params[i].box == std::vector<std::uint32_t>{128, 64})
      sliced_map = multicast.params[i].box == std::vector<std::uint32_t>{64, 64};
  EXPECT_TRUE(sliced_map);
}

// Where the last cluster is not whole (3 row tiles in clusters of 2), the
// first block loads the whole tile into the blocks that run.
TEST(Cluster, MulticastIntoAnIncompleteClusterIsTheFirstBlocksLoad) {
  const std::vector<ArgSignature> args = {tensor(DType::f16, {192, 128}), tensor(DType::f16, {256, 128}),
                                          tensor(DType::f16, {192, 256})};
  GeneratedKernel k = generate(croq::test::cluster_gemm_source(false, true), args, "cluster_gemm.co");
  EXPECT_EQ(count(k.ir, " bytes (multicast in 1 slices of 128 rows, 8192 elements)"), 1u) << k.ir;
  EXPECT_EQ(count(k.cuda_source, "if (((blockIdx.x % 2)) == 0) croq_dev::tma_load_multicast_2d("), 1u) << k.cuda_source;
  // The mask names the blocks that run: 3 - 2 * (cluster index) of them, at most 2.
  EXPECT_EQ(count(k.cuda_source, "(unsigned short)(((1 << (((3 - (((blockIdx.x / 2) / 2) * 2)) < 2) ? "), 1u);
}

// The warp-specialized form: stages freed with `trigger.cluster` (each
// block's empty barriers count the consumers of both blocks, each arrival
// goes to every block), the multicast tile in slices.
TEST(Cluster, ClusterTriggersArriveInEveryBlock) {
  const std::vector<ArgSignature> args = {tensor(DType::f16, {256, 256}), tensor(DType::f16, {256, 256}),
                                          tensor(DType::f16, {256, 256})};
  GeneratedKernel k = generate(croq::test::kClusterWsGemm, args, "cluster_ws_gemm.co");
  EXPECT_EQ(count(k.ir, ", from the cluster"), 1u) << k.ir;  // empty, not full
  EXPECT_EQ(count(k.ir, " in every block of the cluster"), 3u);  // the first frees, the loop's, after the loop
  EXPECT_EQ(count(k.ir, "(multicast in 2 slices of 64 rows, 4096 elements)"), 1u);
  EXPECT_EQ(count(k.ir, "barrier cluster"), 1u);  // before leaving; the stages' events order the loads
  EXPECT_EQ(ir::print_kernel(ir::parse_kernel(k.ir)), k.ir);
  EXPECT_EQ(count(k.cuda_source, ", 4 * (2));"), 1u) << k.cuda_source;
  EXPECT_EQ(count(k.cuda_source, "for (unsigned r = 0; r < (unsigned)(2); ++r) croq_dev::mbar_arrive_cluster("), 3u);
  EXPECT_EQ(count(k.cuda_source, "croq_dev::cluster_sync();"), 2u);
}

// ---------------------------------------------------------------- cache

TEST(Cluster, CacheMetadataKeepsTheClusterDims) {
  GeneratedKernel k = generate(croq::test::cluster_ids_source(2), {tensor(DType::s32, {6, 32})});
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

// A cluster count from a symbolic dim (line 2, column 17).
const char* const kSymbolicCluster =
    "__co__ void f(global s32 [C, B] out) {\n"
    "  parallel c by C : cluster {\n"
    "    parallel b by B : block\n"
    "      out.at(c, b) = b;\n"
    "  }\n"
    "}\n";

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
       head + "  parallel c by 9 : cluster, b by 18 : block {\n    out.at(0, 0) = b;\n  }\n}\n", 2, 17,
       "a cluster holds at most 8 blocks, got 9", "8 is the portable cluster size"},
      {"NineBlocksOfTwoIndices",
       head + "  parallel {cx, cy} by [3, 3] : cluster {\n    parallel b by 9 : block {\n      out.at(cx, cy) = b;\n"
              "    }\n  }\n}\n",
       2, 24, "a cluster holds at most 8 blocks, got 9", "8 is the portable cluster size"},
      {"SixteenBlocksFromASymbolicDim", kSymbolicCluster, 2, 17, "a cluster holds at most 8 blocks, got 16",
       "8 is the portable cluster size", {tensor(DType::s32, {16, 32})}},
      {"DynamicBlocksPerCluster", kSymbolicCluster, 2, 17,
       "the blocks of a cluster are counted at compile time, but `C` depends on a dynamic dim",
       "give the `: cluster` level a constant count (at most 8)", {tensor(DType::s32, {-1, 32})}, {"C"}},
      {"DynamicBlocksPerClusterQuotesTheSource",
       [] {
         std::string text = kSymbolicCluster;
         return text.replace(text.find("by C : cluster"), 14, "by (C  / 1) : cluster");
       }(),
       2, 18, "the blocks of a cluster are counted at compile time, but `(C / 1)` depends on a dynamic dim",
       "give the `: cluster` level a constant count (at most 8)", {tensor(DType::s32, {-1, 32})}, {"C"}},
      {"DynamicClusteredGrid", croq::test::cluster_ids_source(2), 3, 19,
       "the blocks of a clustered grid are counted at compile time, but `B` depends on a dynamic dim",
       "specialize the kernel for that dim (leave it out of the dynamic dims)", {tensor(DType::s32, {-1, 32})}, {"B"}},
      {"ZeroBlocks", croq::test::cluster_ids_source(2), 3, 19, "a parallel count must be positive, got 0", "",
       {tensor(DType::s32, {0, 32})}},
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
    croq::compile(croq::test::cluster_ids_source(2), o);
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
