// The GEMM configuration model (samples/gemm_any_source.hpp) against the
// first GPU run of bench/harness/bench_gemm_shapes.py: one H200 (132 SMs),
// f16, each row's configuration as the previous model chose it, its median
// time and cuBLAS's in the same run (bench_gemm_shapes.json). The model
// keeps the choices that matched cuBLAS, moves the narrow tiles at small M
// (one block per SM waiting on 32 or 64 columns of B at a time) to wider
// tiles with split K, and predicts what the run measured where it can: the
// time per K tile of a narrow tile, and the large tiles' times.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

#include "../../samples/gemm_any_source.hpp"

namespace {

using gemm_any::Config;

// The figures the bench gave the model on that card (croq::device_peaks).
gemm_any::Device h200() {
  gemm_any::Device d;
  d.sms = 132;
  d.dram_bytes_per_s = 4.814304e12;
  d.tensor_flops = 1.07053056e15;
  return d;
}

struct MeasuredRow {
  long long m, n, k;
  Config config;  // consumers, BN, stages, splits, blocks
  double croq_us, cublas_us;
  std::string shape() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
};

const MeasuredRow kH200F16[] = {
    {16, 6144, 4096, {1, 48, 8, 1, 128}, 29.1, 21.9},
    {16, 4096, 4096, {1, 32, 8, 1, 128}, 27.0, 17.8},
    {16, 14336, 4096, {1, 112, 8, 1, 128}, 42.2, 39.3},
    {16, 4096, 14336, {1, 32, 8, 1, 128}, 83.6, 41.1},
    {16, 10240, 8192, {1, 80, 8, 1, 128}, 62.0, 57.0},
    {16, 8192, 8192, {1, 64, 8, 1, 128}, 59.1, 44.0},
    {16, 28672, 8192, {1, 224, 5, 1, 128}, 122.8, 126.4},
    {16, 8192, 28672, {1, 64, 8, 1, 128}, 166.8, 126.0},
    {64, 6144, 4096, {1, 48, 8, 1, 128}, 23.1, 22.8},
    {64, 4096, 4096, {1, 32, 8, 1, 128}, 20.4, 17.5},
    {64, 14336, 4096, {1, 112, 8, 1, 128}, 40.1, 41.2},
    {64, 4096, 14336, {1, 32, 8, 1, 128}, 50.9, 43.8},
    {64, 10240, 8192, {1, 80, 8, 1, 128}, 52.6, 55.2},
    {64, 8192, 8192, {1, 64, 8, 1, 128}, 46.1, 45.7},
    {64, 28672, 8192, {1, 224, 5, 1, 128}, 123.6, 127.9},
    {64, 8192, 28672, {1, 64, 8, 1, 128}, 123.9, 131.2},
    {256, 6144, 4096, {2, 96, 7, 1, 128}, 27.0, 27.1},
    {256, 4096, 4096, {1, 128, 8, 1, 128}, 23.3, 23.5},
    {256, 14336, 4096, {2, 224, 3, 1, 128}, 56.7, 51.2},
    {256, 4096, 14336, {2, 128, 7, 2, 128}, 56.3, 52.6},
    {256, 10240, 8192, {2, 160, 5, 1, 128}, 65.0, 65.3},
    {256, 8192, 8192, {2, 128, 6, 1, 128}, 54.0, 52.6},
    {256, 28672, 8192, {2, 224, 3, 1, 132}, 187.9, 189.5},
    {256, 8192, 28672, {2, 256, 4, 2, 128}, 189.0, 180.8},
    {1024, 6144, 4096, {2, 192, 4, 1, 132}, 73.0, 71.6},
    {1024, 4096, 4096, {2, 256, 3, 1, 128}, 52.1, 48.0},
    {1024, 14336, 4096, {2, 224, 3, 1, 132}, 168.3, 159.3},
    {1024, 4096, 14336, {2, 256, 3, 1, 128}, 159.4, 154.7},
    {1024, 10240, 8192, {2, 224, 3, 1, 132}, 240.4, 227.2},
    {1024, 8192, 8192, {2, 256, 3, 1, 132}, 184.5, 181.4},
    {1024, 28672, 8192, {2, 256, 3, 1, 132}, 639.5, 638.0},
    {1024, 8192, 28672, {2, 256, 3, 1, 132}, 644.2, 642.6},
    {4096, 6144, 4096, {2, 256, 3, 1, 132}, 288.1, 275.8},
    {4096, 4096, 4096, {2, 256, 3, 1, 132}, 191.3, 183.6},
    {4096, 14336, 4096, {2, 256, 3, 1, 132}, 667.1, 645.2},
    {4096, 4096, 14336, {2, 256, 3, 1, 132}, 637.9, 625.3},
    {4096, 10240, 8192, {2, 256, 3, 1, 132}, 940.0, 928.3},
    {4096, 8192, 8192, {2, 256, 3, 1, 132}, 741.8, 723.7},
    {4096, 28672, 8192, {2, 256, 3, 1, 132}, 2822.9, 2856.5},
    {4096, 8192, 28672, {2, 256, 3, 1, 132}, 2834.1, 2808.7},
    {16384, 6144, 4096, {2, 256, 3, 1, 132}, 1238.3, 1174.2},
    {16384, 4096, 4096, {2, 256, 3, 1, 132}, 775.3, 851.6},
    {16384, 14336, 4096, {2, 256, 3, 1, 132}, 2981.3, 2865.0},
    {16384, 4096, 14336, {2, 256, 3, 1, 132}, 2881.6, 2899.4},
    {16384, 10240, 8192, {2, 256, 3, 1, 132}, 4115.1, 4007.9},
    {16384, 8192, 8192, {2, 256, 3, 1, 132}, 3322.8, 3308.0},
    {16384, 28672, 8192, {2, 256, 3, 1, 132}, 11570.8, 11312.0},
    {16384, 8192, 28672, {2, 256, 3, 1, 132}, 11441.1, 11547.7},
    {4096, 4096, 4096, {2, 256, 3, 1, 132}, 199.3, 192.3},
    {8192, 8192, 8192, {2, 256, 3, 1, 132}, 1616.5, 1626.7},
    {128, 8192, 8192, {1, 128, 8, 1, 128}, 46.5, 45.2},
    {1, 4096, 4096, {1, 32, 8, 1, 128}, 30.9, 17.8},
    {1, 14336, 4096, {1, 112, 8, 1, 128}, 43.3, 39.8},
    {37, 6144, 4096, {1, 48, 8, 1, 128}, 25.3, 22.3},
    {1000, 1000, 1032, {1, 128, 8, 1, 128}, 12.6, 10.4},
    {4000, 4000, 4000, {2, 256, 3, 1, 132}, 192.2, 175.5},
    {333, 10240, 8192, {2, 240, 3, 1, 129}, 95.7, 87.0},
    {16, 1024, 8192, {1, 32, 8, 4, 128}, 17.4, 12.5},
};

std::string label(const MeasuredRow& r) {
  return r.shape() + " (measured " + r.config.name() + ", now " + gemm_any::choose(r.m, r.n, r.k, h200()).name() + ")";
}

// A choice as the rows above ran it: one that now stores its tile from the
// accumulators keeps its tiles, with the stages the output tile's shared
// memory gave back.
Config as_measured(Config c) {
  if (!c.store_through_shared) {
    c.store_through_shared = true;
    c.stages = gemm_any::stages_for(c.bm(), c.bn, c.splits, h200());
  }
  return c;
}

TEST(GemmAnyModel, KeepsTheChoicesThatMatchedCuBlas) {
  int kept = 0;
  for (const MeasuredRow& r : kH200F16)
    if (r.croq_us <= r.cublas_us) {
      SCOPED_TRACE(label(r));
      EXPECT_EQ(as_measured(gemm_any::choose(r.m, r.n, r.k, h200())), r.config);
      ++kept;
    }
  EXPECT_GE(kept, 10);
}

// The rows below 0.8x cuBLAS were tiles of 32 to 64 columns at M <= 16, one
// per SM: now a split K loop over tiles at least twice as wide, or over the
// swapped form's (A's box no longer zero-filled), which the model prices
// below the measured configuration.
TEST(GemmAnyModel, MovesTheSlowNarrowTilesAtSmallMToSplitK) {
  int moved = 0;
  for (const MeasuredRow& r : kH200F16)
    if (r.m <= 16 && r.config.bn <= 64 && r.croq_us > 1.25 * r.cublas_us) {
      SCOPED_TRACE(label(r));
      const Config now = gemm_any::choose(r.m, r.n, r.k, h200());
      EXPECT_GT(now.splits, r.config.splits);
      // Wider tiles, or the swapped form (its A box not zero-filled).
      if (!now.swapped()) EXPECT_GE(now.bn, 2 * r.config.bn);
      EXPECT_GE(now.blocks, h200().sms * 9 / 10);
      EXPECT_LT(gemm_any::cost_us(r.m, r.n, r.k, now, h200()), gemm_any::cost_us(r.m, r.n, r.k, r.config, h200()));
      ++moved;
    }
  EXPECT_GE(moved, 6);
}

const MeasuredRow& row(long long m, long long n, long long k) {
  for (const MeasuredRow& r : kH200F16)
    if (r.m == m && r.n == n && r.k == k) return r;
  throw std::logic_error("no measured row " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
}

// Same configuration, K of 4096 and 14336: the difference is 160 K tiles
// per block. At M = 64 each took 0.19 us, at M = 16 (A's box mostly
// zero-filled) 0.35 us; the model's within 15%.
TEST(GemmAnyModel, PredictsTheTimePerKTileOfANarrowTile) {
  for (long long m : {16, 64}) {
    const MeasuredRow &short_k = row(m, 4096, 4096), &long_k = row(m, 4096, 14336);
    ASSERT_EQ(short_k.config, long_k.config);
    const double measured = (long_k.croq_us - short_k.croq_us) / 160;
    const double model = (gemm_any::cost_us(m, 4096, 14336, long_k.config, h200()) -
                          gemm_any::cost_us(m, 4096, 4096, short_k.config, h200())) / 160;
    SCOPED_TRACE("M = " + std::to_string(m) + ": measured " + std::to_string(measured) + " us, model " +
                 std::to_string(model) + " us");
    EXPECT_NEAR(model / measured, 1.0, 0.15);
  }
  EXPECT_GT(row(16, 4096, 14336).croq_us, 1.5 * row(64, 4096, 14336).croq_us);  // the zero-filled box's wait
}

// From M = 1024 the calls are tensor-bound: the model (0.72 of the peak
// for 128 x 256 tiles) is at most 20% under the measured time, never over.
TEST(GemmAnyModel, PredictsTheLargeTilesTimes) {
  for (const MeasuredRow& r : kH200F16)
    if (r.m >= 1024) {
      SCOPED_TRACE(r.shape() + " " + r.config.name());
      const double model = gemm_any::cost_us(r.m, r.n, r.k, r.config, h200());
      EXPECT_LE(model, r.croq_us * 1.02);
      EXPECT_GE(model, r.croq_us * 0.8);
    }
}

// Every candidate the model weighs (croq::tune and --explore time the best
// few) fits the shared memory, on an H100's figures and the H200's.
TEST(GemmAnyModel, EveryCandidateFitsTheSharedMemory) {
  for (const gemm_any::Device& d : {gemm_any::h100(), h200()})
    for (long long m : {1, 16, 37, 64, 256, 333, 1024, 4096})
      for (long long n : {1000, 4096, 6144, 14336, 28672})
        for (long long k : {1032, 4096, 14336}) {
          const auto ranked = gemm_any::candidates(m, n, k, d);
          ASSERT_FALSE(ranked.empty());
          for (const Config& c : ranked)
            EXPECT_LE(gemm_any::shared_bytes(c), d.shared_bytes)
                << m << "x" << n << "x" << k << ": " << c.name();
        }
  // The candidate the first --explore run refused (233472 bytes).
  EXPECT_EQ(gemm_any::shared_bytes(64, 144, 8, 1), 233472);
  EXPECT_EQ(gemm_any::stages_for(64, 144, 1, h200()), 7);
}

// From M = 2048 the second candidate is the first in clusters of two
// blocks (croq::tune weighs it); the model's own choice stays single blocks,
// and no smaller M gets a clustered candidate.
TEST(GemmAnyModel, TheBestConfigurationInClustersIsSecondFromM2048) {
  const auto large = gemm_any::candidates(4096, 4096, 4096, h200());
  ASSERT_GE(large.size(), 2u);
  EXPECT_EQ(large[0].cluster, 1);
  Config twin = large[0];
  twin.cluster = 2;
  twin.blocks = twin.blocks / 2 * 2;
  EXPECT_EQ(large[1], twin);
  EXPECT_EQ(large[1].name(), large[0].name().substr(0, large[0].name().rfind(" b")) + " b" +
                                 std::to_string(twin.blocks) + " c2");
  EXPECT_EQ(large[1].defines().at("CLUSTER"), 2);
  for (long long m : {1, 16, 256, 1024})
    for (const Config& c : gemm_any::candidates(m, 4096, 4096, h200())) EXPECT_EQ(c.cluster, 1) << m;
}

}  // namespace

// Fifteenth session, H200, bf16, the model's top candidates timed against
// each other in one run (scratch probe): two-consumer tiles at few rows
// stored from the accumulators with the stages that frees (256 x 14336 x
// 4096: 128 x 224 in 5 stages 0.960x cuBLAS, through shared memory in 3
// 0.826x; 256 x 28672 x 8192 1.055x against 0.986x), and not at 1024 rows
// and more, where a block walks several tiles and the TMA store overlaps
// the next one (0.89 to 0.99x the shared-memory form).
TEST(GemmAnyModel, StoresFromTheAccumulatorsAtFewRowsOnly) {
  for (auto [m, n, k] : {std::tuple{256, 14336, 4096}, std::tuple{256, 28672, 8192}, std::tuple{333, 10240, 8192}}) {
    const Config c = gemm_any::choose(m, n, k, h200());
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + ": " + c.name());
    EXPECT_EQ(c.consumers, 2);
    EXPECT_FALSE(c.store_through_shared);
    EXPECT_GT(c.stages, gemm_any::stages_for(c.bm(), c.bn, c.splits, h200()));
    EXPECT_LE(gemm_any::shared_bytes(c), h200().shared_bytes);
  }
  for (long long m : {1024, 4096, 16384})
    for (long long n : {4096, 14336, 28672}) {
      const Config c = gemm_any::choose(m, n, 8192, h200());
      EXPECT_TRUE(c.store_through_shared) << m << "x" << n << ": " << c.name();
    }
}

// The same run: split K's partial products cost more than their bytes at
// the DRAM's peak (their scattered stores; fitted as 4x) and its second
// launch less than before (it starts early). 16 x 10240 x 8192 split in 2
// over 160 columns ran 1.00x cuBLAS, one kernel over 80 columns 0.90x; 64
// x 4096 x 4096 split in 2 over 64 columns 0.96x, one kernel over 32
// columns 0.86x; 128 x 8192 x 8192 in one kernel 1.00x, split 0.87x.
TEST(GemmAnyModel, SplitsWhereTheRunFoundItFaster) {
  EXPECT_EQ(gemm_any::choose(16, 10240, 8192, h200()).splits, 2);
  EXPECT_EQ(gemm_any::choose(64, 4096, 4096, h200()).splits, 2);
  EXPECT_EQ(gemm_any::choose(128, 8192, 8192, h200()).splits, 1);
}
