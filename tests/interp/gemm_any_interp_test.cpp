// The GEMM for every shape (samples/gemm_any_source.hpp, gemm_any.hpp): its
// configuration model, and every configuration class run by the
// interpreter on small shapes with tails (one and two consumer
// warpgroups; tiles of 32 to 256 columns; the one-kernel form and the
// split-K program, slices that divide the K loop and slices past K) against
// a host reference of A * B^T, f16 and bf16.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "../../samples/gemm_any.hpp"
#include "common/gemm_run.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using gemm_any::Config;

croq::CompileOptions interpret_options() {
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = "sm_90a";
  return options;
}

Config config(int consumers, int bn, int stages, int splits, int blocks) {
  Config c;
  c.consumers = consumers;
  c.bn = bn;
  c.stages = stages;
  c.splits = splits;
  c.blocks = blocks;
  return c;
}

// The swapped form: `tokens` rows of A a WGMMA's N (64 columns a consumer).
Config swapped(Config c, int tokens) {
  c.tokens = tokens;
  c.bn = 64 * c.consumers;
  return c;
}

// In clusters of two blocks that share each rhs tile (a multicast load).
Config clustered(Config c) {
  c.cluster = 2;
  return c;
}

// Storing from the accumulators, no shared output tile.
Config direct(Config c) {
  c.store_through_shared = false;
  return c;
}

// In clusters of two blocks that share each lhs tile (two column tiles of one row tile).
Config clustered_along_n(Config c) {
  c.cluster = 2;
  c.cluster_shares_lhs = true;
  return c;
}

struct ClassCase {
  const char* what;
  Config config;
  int m, n, k;
};

// Each class at a shape that leaves a tail in M and N (K a multiple of 8,
// as TMA needs), with fewer blocks than units so blocks walk several.
const ClassCase kClasses[] = {
    {"one consumer, 64 columns, one kernel", config(1, 64, 4, 1, 3), 70, 136, 136},
    {"two consumers, 128 columns, one kernel", config(2, 128, 3, 1, 3), 130, 200, 264},
    {"two consumers, 256 columns, one kernel", config(2, 256, 2, 1, 2), 140, 264, 128},
    {"split K in 2, one consumer", config(1, 64, 2, 2, 4), 16, 128, 256},
    {"split K in 3, a slice past K", config(1, 64, 2, 3, 5), 17, 200, 200},
    {"split K in 2, two consumers, M tail", config(2, 128, 3, 2, 7), 130, 200, 264},
    {"split K in 8 at M = 1", config(1, 64, 2, 8, 8), 1, 64, 512},
    {"32 columns", config(1, 32, 3, 1, 3), 20, 104, 256},
    {"48 columns, split K in 2", config(1, 48, 3, 2, 4), 20, 104, 256},
    {"112 columns, two consumers", config(2, 112, 2, 1, 2), 130, 232, 128},
    {"128 columns, split K in 4 at M = 16, N tail", config(1, 128, 2, 4, 6), 16, 200, 512},
    {"144 columns, split K in 16, N tail", config(1, 144, 2, 16, 16), 5, 150, 1024},
    {"clusters of 2, an odd number of row tiles", clustered(config(2, 128, 3, 1, 4)), 300, 264, 200},
    {"clusters of 2, split K in 2", clustered(config(1, 64, 2, 2, 6)), 130, 136, 256},
    {"clusters of 2 along N, an odd number of column tiles", clustered_along_n(config(1, 32, 3, 1, 4)), 70, 168, 200},
    {"stores from the accumulators, M and N tails", direct(config(2, 128, 3, 1, 3)), 130, 200, 264},
    {"clusters of 2 along N, split K in 2", clustered_along_n(config(1, 48, 2, 2, 6)), 64, 200, 256},
    {"swapped, 16 tokens, split K in 2", swapped(config(1, 64, 4, 2, 5), 16), 13, 200, 256},
    {"swapped, 40 tokens, split K in 3, a slice past K", swapped(config(1, 64, 3, 3, 7), 40), 37, 136, 200},
    {"swapped, 16 tokens at M = 1, split K in 4", swapped(config(1, 64, 16, 4, 8), 16), 1, 128, 1024},
    {"swapped, 64 tokens, one kernel, M and N tails", swapped(config(1, 64, 3, 1, 3), 64), 70, 136, 136},
    {"swapped, two consumers, one kernel", swapped(config(2, 128, 3, 1, 2), 16), 20, 264, 128},
    {"swapped, two consumers, split K in 2", swapped(config(2, 128, 3, 2, 4), 16), 20, 264, 256},
};

TEST(InterpretGemmAny, EveryConfigurationClassMatchesTheHostF16) {
  for (const ClassCase& c : kClasses) {
    SCOPED_TRACE(std::string(c.what) + ": " + c.config.name());
    croq::Kernel kernel = croq::compile(gemm_any::source("f16"), gemm_any::options_for(c.config, interpret_options()));
    const GemmCheck check = croq::test::gemm_on_random_data<croq::f16>(kernel, c.m, c.n, c.k);
    EXPECT_TRUE(check.passed()) << describe(check);
  }
}

TEST(InterpretGemmAny, SplitAndOneKernelFormsMatchTheHostBf16) {
  for (const ClassCase& c : {kClasses[1], kClasses[4]}) {
    SCOPED_TRACE(std::string(c.what) + ": " + c.config.name());
    croq::Kernel kernel = croq::compile(gemm_any::source("bf16"), gemm_any::options_for(c.config, interpret_options()));
    const GemmCheck check = croq::test::gemm_on_random_data<croq::bf16>(kernel, c.m, c.n, c.k);
    EXPECT_TRUE(check.passed()) << describe(check);
  }
}

// The one call: the configuration chosen for each shape (split K at M = 1).
TEST(InterpretGemmAny, TheChosenConfigurationRunsEachShape) {
  gemm_any::Gemm gemm(gemm_any::h100(), interpret_options());
  EXPECT_GT(gemm.config_for(1, 128, 2048).splits, 1);
  for (auto [m, n, k] : {std::tuple{1, 128, 2048}, std::tuple{3, 72, 520}, std::tuple{96, 136, 256}}) {
    SCOPED_TRACE(gemm.config_for(m, n, k).name());
    const GemmCheck check = croq::test::gemm_on_random_data<croq::f16>(gemm, m, n, k);
    EXPECT_TRUE(check.passed()) << describe(check);
  }
}

TEST(GemmAnyConfig, RefusesWhatIsNotAMatrixOfF16OrBf16) {
  gemm_any::Gemm gemm(gemm_any::h100(), interpret_options());
  auto f32 = croq::make_spandata<float>(16, 64);
  auto vec = croq::make_spandata<croq::f16>(64);
  auto mat = croq::make_spandata<croq::f16>(16, 64);
  try {
    gemm(f32.view(), f32.view(), f32.view());
    FAIL() << "an f32 GEMM ran";
  } catch (const croq::ArgumentError& e) {
    EXPECT_STREQ(e.what(), "gemm_any: f16 or bf16 matrices, got f32");
  }
  try {
    gemm(vec.view(), mat.view(), mat.view());
    FAIL() << "a vector was taken for a matrix";
  } catch (const croq::ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("gemm_any: lhs and rhs must be matrices, got f16 [64]", 0), 0u) << e.what();
  }
}

// Llama-class projections: N, K in {4096, ..., 28672}, M from 1 to 16384.
TEST(GemmAnyConfig, EveryModelShapeGetsAConfigurationThatFits) {
  const gemm_any::Device d = gemm_any::h100();
  for (long long m : {1, 16, 64, 256, 1024, 4096, 16384})
    for (long long n : {4096, 6144, 8192, 10240, 14336, 28672})
      for (long long k : {4096, 6144, 8192, 10240, 14336, 28672}) {
        const Config c = gemm_any::choose(m, n, k, d);
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + ": " + c.name());
        const long long units = gemm_any::cdiv(m, c.tile_m()) * gemm_any::cdiv(n, c.tile_n()) * c.splits;
        EXPECT_LE(c.blocks, d.sms);
        EXPECT_EQ(c.blocks, std::min<long long>(units, d.sms));
        EXPECT_LE(gemm_any::shared_bytes(c), d.shared_bytes);
        EXPECT_GE(c.stages, 2);
        const long long k_tiles = gemm_any::cdiv(k, 64);
        EXPECT_EQ(k_tiles % c.splits, 0);  // these K divide evenly
        EXPECT_GE(k_tiles / c.splits, 4);
        if (m <= 64) EXPECT_EQ(c.tile_m(), c.swapped() ? std::max<long long>(16, (m + 7) / 8 * 8) : 64) << "rows computed past M";
        if (c.swapped()) EXPECT_GT(c.splits, 1);
        if (m >= 4096) EXPECT_EQ(c.splits, 1);
      }
}

// Small M is a read of B: the chosen units keep most SMs loading it, in one
// wave; split K where the tiles wide enough to carry B (64 columns and up)
// are too few.
TEST(GemmAnyConfig, SmallMFillsTheDeviceInOneWave) {
  const gemm_any::Device d = gemm_any::h100();
  for (auto [m, n, k] : {std::tuple{1, 4096, 4096}, std::tuple{16, 4096, 4096}, std::tuple{16, 14336, 4096},
                         std::tuple{16, 1024, 8192}, std::tuple{64, 6144, 4096}, std::tuple{16, 4096, 14336}}) {
    const Config c = gemm_any::choose(m, n, k, d);
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + ": " + c.name());
    const long long units = gemm_any::cdiv(n, c.tile_n()) * c.splits;
    EXPECT_GE(units, d.sms * 9 / 10);
    EXPECT_LE(units, d.sms);
    EXPECT_EQ(c.splits > 1, n <= 4096);
    if (n <= 4096) EXPECT_GE(c.tile_n(), 64);
    if (m <= 16 && n <= 4096) EXPECT_TRUE(c.swapped()) << "A's box mostly zero-filled";
  }
  // Large M: the 128 x 256 tile of the persistent sample, one kernel.
  const Config big = gemm_any::choose(4096, 4096, 4096, d);
  EXPECT_EQ(big, config(2, 256, 3, 1, 132));
}

TEST(GemmAnyConfig, CandidatesAreDistinctAndStartWithTheChoice) {
  const auto ranked = gemm_any::candidates(16, 4096, 4096);
  for (const Config& c : ranked) {
    EXPECT_TRUE(c.bn % 16 == 0 && c.bn >= 32 && c.bn <= 256) << c.name();
    if (c.swapped()) EXPECT_TRUE(c.tokens % 8 == 0 && c.tokens >= 16 && c.tokens <= 64 && c.consumers == 1) << c.name();
  }
  ASSERT_GE(ranked.size(), 4u);
  EXPECT_EQ(ranked.front(), gemm_any::choose(16, 4096, 4096));
  std::set<std::string> names;
  for (const Config& c : ranked) EXPECT_TRUE(names.insert(c.name()).second) << c.name();
}

}  // namespace
