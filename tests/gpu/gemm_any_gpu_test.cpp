// The GEMM for every shape on the device (samples/gemm_any.hpp): every
// configuration class (one and two consumer warpgroups; tiles of 32 to 256
// columns; the one-kernel form and the split-K program) at shapes with
// tails, f16 and bf16; then the configurations chosen for model shapes (M =
// 1 and 16: narrow tiles, and split K at N = 1024; M = 256; M = 2048) and a
// tune over the model's candidates; each on fresh random data against a
// host reference in double (samples/gemm_check.hpp: relative Frobenius
// error <= 1e-2 and every element within its bound).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "../../samples/gemm_any.hpp"
#include "common/gemm_run.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using gemm_any::Config;

Config config(int consumers, int bn, int splits, int blocks) {
  Config c;
  c.consumers = consumers;
  c.bn = bn;
  c.splits = splits;
  c.stages = gemm_any::stages_for(c.bm(), bn, splits, gemm_any::h100());
  c.blocks = blocks;
  return c;
}

Config clustered(Config c) {
  c.cluster = 2;
  return c;
}

// The one-kernel form storing from the accumulators (no shared output tile, more stages).
Config direct(Config c) {
  c.store_through_shared = false;
  c.stages = gemm_any::stages_for(c.bm(), c.bn, 1, gemm_any::h100(), 8, false);
  return c;
}

// Clusters of two blocks sharing each lhs tile (two column tiles of a row tile).
Config clustered_along_n(Config c) {
  c.cluster = 2;
  c.cluster_shares_lhs = true;
  return c;
}

// The swapped form (few rows): `tokens` rows of A as the WGMMA's N.
Config swapped(int tokens, int splits, int blocks) {
  Config c;
  c.consumers = 1;
  c.bn = 64;
  c.tokens = tokens;
  c.splits = splits;
  c.stages = gemm_any::stages_for(tokens, 64, splits, gemm_any::h100(), 16);
  c.blocks = blocks;
  return c;
}

template <typename T>
void expect_every_class(const char* element) {
  gemm_any::Gemm gemm;
  // (class, M, N, K): tails in M and N; fewer blocks than units, so blocks
  // walk several; split K with slices that divide the K loop and, at K =
  // 1000 (16 tiles in 3 slices), slices that end past K.
  const std::tuple<Config, int, int, int> cases[] = {
      {config(1, 64, 1, 40), 200, 1000, 1032},   {config(1, 128, 1, 60), 100, 2056, 512},
      {config(1, 256, 1, 20), 64, 1800, 768},    {config(2, 64, 1, 50), 300, 1000, 1032},
      {config(2, 128, 1, 132), 777, 1544, 1024}, {config(2, 256, 1, 100), 1000, 1000, 1032},
      {config(1, 64, 4, 132), 16, 4096, 2048},   {config(1, 128, 3, 100), 5, 2056, 1000},
      {config(2, 128, 2, 132), 130, 2056, 2048}, {config(2, 256, 8, 132), 200, 1032, 4096},
      // the narrow and uneven widths the model picks at small M (N / BN = 128 tiles)
      {config(1, 32, 1, 128), 16, 4096, 2048},   {config(1, 48, 1, 128), 37, 6144, 1024},
      {config(1, 112, 1, 128), 1, 14336, 1024},  {config(2, 224, 1, 64), 260, 1792, 1024},
      {config(1, 32, 4, 128), 16, 1024, 4096},
      // clusters of two blocks sharing each rhs tile: an odd number of row tiles, and split K
      {clustered(config(2, 256, 1, 132)), 1000, 1000, 1032}, {clustered(config(1, 128, 2, 100)), 200, 2056, 1024},
      // clusters sharing each lhs tile: an odd number of column tiles, several row tiles, and split K
      {clustered_along_n(config(1, 32, 1, 128)), 64, 4128, 2048}, {clustered_along_n(config(2, 96, 1, 100)), 300, 1000, 1032},
      {clustered_along_n(config(1, 64, 2, 128)), 37, 4096, 1024},
      // stores from the accumulators: tails in M and N
      {direct(config(2, 256, 1, 100)), 1000, 1000, 1032}, {direct(config(1, 48, 1, 128)), 37, 6144, 1024},
      // the swapped form: split at M = 1, 16 and 37 (slices past K at K = 1000), one kernel with M and N tails
      {swapped(16, 2, 128), 1, 4096, 2048},     {swapped(16, 4, 132), 16, 1032, 4096},
      {swapped(40, 3, 100), 37, 2056, 1000},    {swapped(64, 1, 40), 61, 1000, 1032},
  };
  for (const auto& [c, m, n, k] : cases) {
    SCOPED_TRACE(std::string(element) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                 " with " + c.name());
    const GemmCheck check = croq::test::gemm_on_random_data<T>(gemm.kernel(element, c), m, n, k);
    EXPECT_TRUE(check.passed()) << describe(check);
  }
}

TEST(GemmAnyGpu, EveryConfigurationClassF16) {
  CROQ_REQUIRE_HOPPER("the WGMMA GEMM");
  expect_every_class<croq::f16>("f16");
}

TEST(GemmAnyGpu, EveryConfigurationClassBf16) {
  CROQ_REQUIRE_HOPPER("the WGMMA GEMM");
  expect_every_class<croq::bf16>("bf16");
}

// The swapped form with two consumers (not a model choice): each consumer
// stores its 64 transposed columns through a shared tile of its own, in one
// kernel and split. An earlier draft's one-kernel form gave wrong results
// on the GPU while the interpreter matched the host.
TEST(GemmAnyGpu, SwappedFormWithTwoConsumers) {
  CROQ_REQUIRE_HOPPER("the WGMMA GEMM");
  gemm_any::Gemm gemm;
  for (int splits : {1, 2}) {
    Config c = swapped(16, splits, 40);
    c.consumers = 2;
    c.bn = 128;
    c.stages = gemm_any::stages_for(16, 128, splits, gemm_any::h100(), 8);
    SCOPED_TRACE(c.name());
    const GemmCheck check = croq::test::gemm_on_random_data<croq::f16>(gemm.kernel("f16", c), 20, 1032, 1024);
    EXPECT_TRUE(check.passed()) << describe(check);
  }
}

TEST(GemmAnyGpu, ChosenConfigurationsAtModelShapes) {
  CROQ_REQUIRE_HOPPER("the WGMMA GEMM");
  gemm_any::Gemm gemm;
  EXPECT_GT(gemm.config_for(16, 1024, 8192).splits, 1);
  // (the host reference is a naive loop in double: a few billion products at most)
  for (auto [m, n, k] : {std::tuple{1, 4096, 4096}, std::tuple{16, 4096, 4096}, std::tuple{16, 1024, 8192},
                         std::tuple{256, 2048, 4096}, std::tuple{2048, 512, 1024}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " with " +
                 gemm.config_for(m, n, k).name());
    const GemmCheck check = croq::test::gemm_on_random_data<croq::bf16>(gemm, m, n, k);
    EXPECT_TRUE(check.passed()) << describe(check);
  }
}

// tune times the model's best candidates on the device and the call uses
// the fastest from then on; its output is right on fresh data.
TEST(GemmAnyGpu, TuneRefinesTheChoiceForOneShape) {
  CROQ_REQUIRE_HOPPER("the WGMMA GEMM");
  gemm_any::Gemm gemm;
  const int m = 16, n = 2048, k = 4096;
  auto lhs = croq::make_spandata<croq::f16>(m, k);
  auto rhs = croq::make_spandata<croq::f16>(n, k);
  auto out = croq::make_spandata<croq::f16>(m, n);
  lhs.fill_random(-1, 1, croq::test::next_seed());
  rhs.fill_random(-1, 1, croq::test::next_seed());
  const croq::TuneResult tuned = gemm.tune(lhs.view(), rhs.view(), out.view(), 3);
  const auto ranked = gemm_any::candidates(m, n, k, gemm_any::device_model());
  bool among = false;
  for (std::size_t i = 0; i < 3 && i < ranked.size(); ++i) among = among || gemm.config_for(m, n, k) == ranked[i];
  EXPECT_TRUE(among) << gemm.config_for(m, n, k).name();
  if (!tuned.from_cache) EXPECT_EQ(tuned.trials.size(), 3u);
  const GemmCheck check = croq::test::gemm_on_random_data<croq::f16>(gemm, m, n, k);
  EXPECT_TRUE(check.passed()) << describe(check);
}

}  // namespace
