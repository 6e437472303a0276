// Persistent GEMMs whose block is one warpgroup: the accumulator is filled
// and stored at block scope, the multiplies run in `parallel p by 1 :
// group-4` inside the K loop, TMA loads and a TMA store of the output tile
// stand at block scope, and the tile order comes from two schedule tensors
// written on the host. C = A * B^T on random inputs, the output poisoned
// first, compared with a double-precision host reference (relative
// Frobenius error <= 1e-2, samples/gemm_check.hpp), for a row-major and a
// shuffled schedule and shapes with tails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <span>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "../../samples/gemm_check.hpp"
#include "../../samples/upstream_readme.hpp"
#include "common/block_gemm_sources.hpp"

namespace croq {
namespace {

// Tile coordinates in row-major order, or shuffled with `seed` (any
// permutation must give the same product).
void make_schedule(std::int64_t tiles_m, std::int64_t tiles_n, std::uint64_t seed, spandata<s32>& order_m,
                   spandata<s32>& order_n) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(tiles_m * tiles_n));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  if (seed != 0) std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  for (std::size_t i = 0; i < order.size(); ++i) {
    order_m[i] = static_cast<s32>(order[i] / tiles_n);
    order_n[i] = static_cast<s32>(order[i] % tiles_n);
  }
}

struct Case {
  const char* name;
  const char* source;
};

// Runs `source` (a persistent GEMM over TM x TN output tiles) on shapes with
// and without tails, in row-major and shuffled tile order.
constexpr GemmShape kPersistentShapes[] = {{512, 512, 256}, {1536, 2048, 128}, {300, 520, 200}};

void expect_persistent_gemm_correct(const std::string& source, std::int64_t tm, std::int64_t tn,
                                    std::span<const GemmShape> shapes = kPersistentShapes) {
  Kernel kernel = compile(source);
  std::uint64_t seed = 77;
  for (const GemmShape& s : shapes) {
    for (const std::uint64_t order_seed : {std::uint64_t{0}, seed + 9}) {
      SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.k) + "] x [" + std::to_string(s.n) + ", " +
                   std::to_string(s.k) + "]^T, schedule seed " + std::to_string(order_seed));
      const std::int64_t tiles_m = (static_cast<std::int64_t>(s.m) + tm - 1) / tm;
      const std::int64_t tiles_n = (static_cast<std::int64_t>(s.n) + tn - 1) / tn;
      auto lhs = make_spandata<f16>(s.m, s.k);
      auto rhs = make_spandata<f16>(s.n, s.k);
      auto out = make_spandata<f16>(s.m, s.n);
      auto order_m = make_spandata<s32>(tiles_m * tiles_n);
      auto order_n = make_spandata<s32>(tiles_m * tiles_n);
      lhs.fill_random(-1, 1, seed);
      rhs.fill_random(-1, 1, seed + 1);
      out.fill_random(1e4, 2e4, seed + 2);  // poison: every element must be written
      make_schedule(tiles_m, tiles_n, order_seed, order_m, order_n);
      kernel(lhs.view(), rhs.view(), out.view(), order_m.view(), order_n.view());
      const GemmCheck check = check_gemm(lhs, rhs, out);
      EXPECT_TRUE(check.passed()) << describe(check);
      seed += 3;
    }
  }
}

class BlockAccumulatorGpu : public ::testing::TestWithParam<Case> {};

TEST_P(BlockAccumulatorGpu, PersistentGemmMatchesHostReference) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 9) GTEST_SKIP() << "WGMMA and TMA need sm_90";
  expect_persistent_gemm_correct(GetParam().source, 64, 128);
}

// Both forms' k loops are lowered as pipelines (a ring of 4 slots loaded 3
// passes ahead, the last pass in slot 0): k loops of 1, 2, 3, 4, 5 and 9
// passes, and a tail pass, with several tiles per block.
TEST(PipelinedKLoopGpu, WholeTileGemmWithAnyNumberOfPasses) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 9) GTEST_SKIP() << "WGMMA and TMA need sm_90";
  const GemmShape shapes[] = {{704, 1024, 64}, {704, 1024, 128}, {640, 768, 192}, {576, 512, 248},
                              {512, 640, 320}, {1088, 2176, 576}, {320, 256, 40}};
  for (const char* source : {test::kWholeTiles, test::kKSlices}) expect_persistent_gemm_correct(source, 64, 128, shapes);
}

INSTANTIATE_TEST_SUITE_P(Forms, BlockAccumulatorGpu,
                         ::testing::Values(Case{"WholeTiles", test::kWholeTiles}, Case{"KSlices", test::kKSlices}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// The persistent GEMM of Croqtile's own README, as written there: the test
// reads it from the README named by CROQ_UPSTREAM_README (the conformance
// runner sets it; the project does not carry upstream's text) and supplies
// only the #defines the README leaves to the user.
TEST(UpstreamReadmeGemmGpu, RunsAsWrittenAndMatchesHostReference) {
  const char* readme_path = std::getenv("CROQ_UPSTREAM_README");
  if (!readme_path || !*readme_path) GTEST_SKIP() << "CROQ_UPSTREAM_README names no upstream README.md";
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 9) GTEST_SKIP() << "WGMMA and TMA need sm_90";
  std::string error;
  const std::string source = upstream_readme_gemm_source(readme_path, error);
  ASSERT_FALSE(source.empty()) << error;
  expect_persistent_gemm_correct(source, kReadmeGemmTileM, kReadmeGemmTileN);
}

}  // namespace
}  // namespace croq
