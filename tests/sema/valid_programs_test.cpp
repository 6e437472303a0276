// No false positives: every kernel the project runs (the samples, the
// benchmarks, the kernels of tests/common and the valid .co files of
// tests/data) passes sema without a diagnostic, for every target arch.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/files.hpp"
#include "common/fragment_sources.hpp"
#include "common/cluster_sources.hpp"
#include "common/fp8_mma_sources.hpp"
#include "common/sparse_mma_sources.hpp"
#include "common/block_scale_sources.hpp"
#include "common/mma_block_warp_sources.hpp"
#include "common/mma_sync_sources.hpp"
#include "common/program_sources.hpp"
#include "common/runtime_extent_sources.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using croq::test::read_file;

// Every raw string literal holding a __co__ function (R"croq(...)croq",
// R"(...)") in the .cpp files of `dir`, by file.
std::vector<std::pair<std::string, std::string>> embedded_kernels(const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::string>> kernels;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = read_file(entry.path());
    for (std::size_t at = text.find("R\""); at != std::string::npos; at = text.find("R\"", at + 1)) {
      const std::size_t open = text.find('(', at);
      if (open == std::string::npos || open - at > 18) continue;
      const std::string close = ")" + text.substr(at + 2, open - at - 2) + "\"";
      const std::size_t end = text.find(close, open);
      if (end == std::string::npos) break;
      std::string body = text.substr(open + 1, end - open - 1);
      if (body.find("__co__") != std::string::npos) kernels.emplace_back(entry.path().filename().string(), body);
      at = end;
    }
  }
  return kernels;
}

// Sema for every arch lowering supports: the target rules must not fire either.
void expect_clean(const std::string& what, const std::string& source) {
  SCOPED_TRACE(what);
  for (const std::optional<target::Target>& arch :
       {std::optional<target::Target>{}, std::optional<target::Target>{target::parse_target("sm_90a")}}) {
    Options options;
    options.target = arch;
    auto e = sema_error(source, options, what);
    EXPECT_FALSE(e.has_value()) << (e ? e->what() : "");
  }
}

TEST(ValidPrograms, Samples) {
  auto kernels = embedded_kernels(CROQ_SAMPLES_DIR);
  EXPECT_GE(kernels.size(), 10u);
  for (const auto& [file, source] : kernels) expect_clean(file, source);
}

TEST(ValidPrograms, Benchmarks) {
  auto kernels = embedded_kernels(std::filesystem::path(CROQ_SAMPLES_DIR) / ".." / "bench");
  EXPECT_GE(kernels.size(), 2u);
  for (const auto& [file, source] : kernels) expect_clean(file, source);
}

TEST(ValidPrograms, SharedTestKernels) {
  expect_clean("cluster_ids_source(2)", croq::test::cluster_ids_source(2));
  expect_clean("kClusterIds2d", croq::test::kClusterIds2d);
  expect_clean("cluster_gemm_source(comma)", croq::test::cluster_gemm_source(true));
  expect_clean("cluster_gemm_source(nested)", croq::test::cluster_gemm_source(false));
  expect_clean("cluster_gemm_source(multicast)", croq::test::cluster_gemm_source(false, true));
  expect_clean("kClusterWsGemm", croq::test::kClusterWsGemm);
  expect_clean("kMmaSyncPipelined", croq::test::kMmaSyncPipelined);
  expect_clean("kReverseTwice", croq::test::kReverseTwice);
  expect_clean("kAsyncRegions", croq::test::kAsyncRegions);
  expect_clean("kCooperativeExchange", croq::test::kCooperativeExchange);
  expect_clean("kChunkedRows", croq::test::kChunkedRows);
  expect_clean("kTwoStreams", croq::test::kTwoStreams);
  for (const auto& g : croq::test::mma_sync_gemm_cases()) expect_clean(g.name(), g.source());
  for (const auto& g : croq::test::fp8_gemm_cases()) expect_clean(g.name(), g.source());
  for (const auto& g : croq::test::sparse_gemm_cases()) expect_clean(g.name(), g.source());
  expect_clean("block_scaled_gemm_source", croq::test::block_scaled_gemm_source());
  expect_clean("kRsGemmFromLoadedFragment", croq::test::kRsGemmFromLoadedFragment);
  expect_clean("kRsGemmConstantFragment", croq::test::kRsGemmConstantFragment);
  expect_clean("kRsGemmFromGlobalLhs", croq::test::kRsGemmFromGlobalLhs);
  expect_clean("attention_source(non-causal)", croq::test::attention_source(false));
  expect_clean("attention_source(causal)", croq::test::attention_source(true));
  expect_clean("online_attention_source(non-causal)", croq::test::online_attention_source(false));
  expect_clean("online_attention_source(causal)", croq::test::online_attention_source(true));
  expect_clean("kHeadsBySqueeze", croq::test::kHeadsBySqueeze);
  expect_clean("kRowColGemm", croq::test::kRowColGemm);
  expect_clean("kBlockWarpGemm", croq::test::kBlockWarpGemm);
  expect_clean("kBlockWarpIntegerGemm", croq::test::kBlockWarpIntegerGemm);
}

// mma.sync targets (no WGMMA) accept the same kernels.
TEST(ValidPrograms, MmaSyncKernelsOnSm80) {
  Options sm80;
  sm80.target = target::parse_target("sm_80");
  for (const auto& g : croq::test::mma_sync_gemm_cases()) {
    auto e = sema_error(g.source(), sm80, g.name());
    EXPECT_FALSE(e.has_value()) << (e ? e->what() : "");
  }
  auto e = sema_error(croq::test::kMmaSyncPipelined, sm80);
  EXPECT_FALSE(e.has_value()) << (e ? e->what() : "");
}

// A warpgroup's mma.col.row / mma.col.col: lhs [K, M] from shared memory
// (WGMMA's imm-trans-a).
TEST(ValidPrograms, WarpgroupMmaWithAnMMajorLhs) {
  sm90a::expect_clean(wg("      mma.col.row mc, ta.data, ta.data;\n"));
  sm90a::expect_clean(wg("      mma.col.col mc, ta.data, ta.data;\n"));
}

// Warp-level mma (each warp of a `: group` level its own m16n8k16 tiles,
// row.row and row.col) on sm_90a and on sm_80: mma.sync on both.
TEST(ValidPrograms, WarpLevelMmaOnSm90aAndSm80) {
  for (const std::string arch : {"sm_90a", "sm_80"}) {
    Options options;
    options.target = target::parse_target(arch);
    for (const auto& g : croq::test::warp_mma_gemm_cases()) {
      auto e = sema_error(g.source(), options, g.name());
      EXPECT_FALSE(e.has_value()) << arch << " " << g.name() << ": " << (e ? e->what() : "");
    }
  }
}

// The copy, view and loop forms of upstream's end-to-end programs that the
// GPU tests run.
TEST(ValidPrograms, CopyFormsGpuKernels) {
  std::size_t count = 0;
  for (const auto& [file, source] : embedded_kernels(std::filesystem::path(CROQ_TEST_DATA_DIR) / ".." / "gpu"))
    if (file == "copy_forms_gpu_test.cpp") {
      expect_clean(file, source);
      ++count;
    }
  EXPECT_GE(count, 5u);
}

TEST(ValidPrograms, DataFiles) {
  const std::filesystem::path data(CROQ_TEST_DATA_DIR);
  for (const char* file : {"cli/add.co", "frontend/corpus/ch2_tiled_add.co", "frontend/corpus/ch3_matmul.co",
                           "frontend/bench_200_lines.co"})
    expect_clean(file, read_file(data / file));
}

}  // namespace
}  // namespace croq::sema::test
