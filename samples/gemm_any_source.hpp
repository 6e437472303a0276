// One GEMM for every shape: C = A * B^T (A [M, K], B [N, K], C [M, N],
// f16 or bf16, fp32 accumulate), with its configuration chosen from the
// shape and the device. Shared by samples/gemm_any.cpp, the GPU and
// interpreter tests and bench/harness/bench_gemm_shapes.py (through the
// kernel_sources tool).
//
// The kernel is the persistent warp-specialized GEMM of
// samples/matmul_persistent.cpp with its sizes as #defines: CONSUMERS
// consumer warpgroups of 64 rows each (BM = 64 x CONSUMERS), BN output
// columns, STAGES TMA stages of TK = 64, BLOCKS persistent blocks, and
// SPLITS slices of the K loop. With SPLITS > 1 the function is a program of
// two kernels: the first walks (split, tile) units, each multiplying one
// K slice of one output tile and storing its f32 partial product in a
// program buffer [SPLITS, M + 1, N] (not filled: every element a slice covers is stored); the second sums the slices and rounds to
// the output type. Small M needs both: the GEMM is then a read of B, and at
// M = 16 a 4096 x 4096 B gives 16 tiles of 256 columns for 132 SMs. Tiles
// of 32 columns give 128, one per SM, but a block then waits on its loads
// for every 32 columns of a K tile (0.49x cuBLAS at 16 x 4096 x 14336); 128
// columns with the K loop in 4 slices give the same 128 units, each
// carrying 4 times as much of B per wait.
//
// `choose` picks the configuration from a per-SM roofline (cost_us): the
// units a block walks, each bounded by its tensor-core work and by the bytes
// it loads, against the whole call's DRAM traffic, plus the reduction's
// launch and traffic when split. `candidates` lists the best few, for
// croq::tune to refine on the device (they are #define sets of one text).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace gemm_any {

// The device as the cost model sees it.
struct Device {
  int sms = 132;                       // streaming multiprocessors
  double dram_bytes_per_s = 3.35e12;   // DRAM bandwidth
  double tensor_flops = 989e12;        // dense f16/bf16 tensor-core peak
  long long shared_bytes = 232448;     // shared memory a block may use (227 KiB on sm_90)
};

// H100 SXM figures, for choosing without a device at hand (interpreter,
// tests); samples/gemm_any.cpp reads the real ones (croq::device_peaks).
inline Device h100() { return Device{}; }

inline constexpr int kTileK = 64;

struct Config {
  int consumers = 2;  // consumer warpgroups; BM = 64 x consumers
  int bn = 256;       // output tile columns (32 to 256, a multiple of 16)
  int stages = 3;     // TMA pipeline depth
  int splits = 1;     // K slices (1: one kernel, the output stored directly)
  int blocks = 132;   // persistent blocks (at most the SMs; a multiple of cluster)
  int cluster = 1;    // blocks per cluster: 2 share one tile of an operand through a TMA multicast
  // Which operand a cluster shares: false, the rhs tile (its blocks take
  // `cluster` row tiles of one column tile); true, the lhs tile (they take
  // `cluster` column tiles of one row tile), for few rows, where every
  // block of a row reads the same A.
  bool cluster_shares_lhs = false;
  // The one-kernel form stores its tile through shared memory and a TMA
  // store (true), or from the accumulators' registers straight to global
  // memory (false), which leaves the output tile's shared memory to the
  // pipeline (4 stages of 128 x 256 instead of 3).
  bool store_through_shared = true;
  // Swapped operands for few rows (0: not): C^T = B A^T, 64 rows of B a
  // consumer's WGMMA M and `tokens` rows of A (a multiple of 8, 16 to 64) its
  // N, so A's box is not mostly zero-filled at M <= 64. An output tile is
  // tokens x 64 (one consumer, single blocks; bn is 64).
  int tokens = 0;

  int bm() const { return 64 * consumers; }
  bool swapped() const { return tokens > 0; }
  // The output tile: rows of A and rows of B a unit loads per K tile.
  int tile_m() const { return swapped() ? tokens : bm(); }
  int tile_n() const { return swapped() ? 64 * consumers : bn; }
  // The #define overrides of the text (croq::CompileOptions::defines, TuneConfig).
  std::map<std::string, long long> defines() const {
    std::map<std::string, long long> d{{"CONSUMERS", consumers}, {"BN", bn},         {"STAGES", stages},
                                       {"SPLITS", splits},       {"BLOCKS", blocks}, {"CLUSTER", cluster}};
    if (swapped()) d.insert({{"SWAP", 1}, {"TOKENS", tokens}});
    if (cluster > 1 && cluster_shares_lhs) d.insert({"CLUSTER_N", 1});
    if (!store_through_shared) d.insert({"STORE_SHARED", 0});
    return d;
  }
  std::string name() const {
    return (swapped() ? "swap " : "") + std::to_string(tile_m()) + "x" + std::to_string(tile_n()) + " s" +
           std::to_string(stages) + " split" + std::to_string(splits) + " b" + std::to_string(blocks) +
           (cluster > 1 ? " c" + std::to_string(cluster) + (cluster_shares_lhs ? "n" : "") : "") +
           (store_through_shared ? "" : " direct");
  }
  friend bool operator==(const Config&, const Config&) = default;
};

inline long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

// Shared memory of one block as the compiler lays it out for sm_90
// (passes::lay_out_shared_memory): the 2 x STAGES events first, then each
// tile at a 1024-byte boundary (the 128B swizzle's period), so the events
// take a whole 1 KiB; the A and B rings (a stage of each is TK columns), the
// output tile of the one-kernel form (its TMA store goes through shared
// memory); and 1 KiB more, as the block's dynamic shared memory base is
// aligned to 1024 bytes at run time.
inline long long shared_bytes(int bm, int bn, int stages, int splits, bool store_through_shared = true) {
  auto align = [](long long bytes) { return (bytes + 1023) / 1024 * 1024; };
  const long long events = align(2LL * stages * 8);
  const long long rings = stages * (align(bm * kTileK * 2LL) + align(bn * kTileK * 2LL));
  const long long output = splits == 1 && store_through_shared ? align(bm * bn * 2LL) : 0;
  return events + rings + output + 1024;
}

// A configuration's block, as above.
inline long long shared_bytes(const Config& c) {
  return shared_bytes(c.tile_m(), c.tile_n(), c.stages, c.splits, c.store_through_shared);
}

// The deepest pipeline the shared memory holds (2 to `most` stages; 2 even
// where they do not fit, which the compiler then refuses). Swapped tiles
// are small: they take up to 16 (16 and 8 stages measured alike at M = 16).
inline int stages_for(int bm, int bn, int splits, const Device& d, int most = 8, bool store_through_shared = true) {
  int stages = most;
  while (stages > 2 && shared_bytes(bm, bn, stages, splits, store_through_shared) > d.shared_bytes) --stages;
  return stages;
}

// Tensor-core efficiency of a tile shape relative to 128 x 256: a WGMMA of
// N columns keeps the tensor cores busy about N / (N + 22) of the time
// (0.92 at 256, 0.85 at 128, 0.59 at 32), and one consumer warpgroup
// overlaps its issue less than two.
inline double tile_efficiency(int bm, int bn) {
  const double by_n = (bn / (bn + 22.0)) / (256 / 278.0);
  return bm >= 128 ? by_n : by_n * 0.9;
}

// Figures fitted to one H200 run of bench_gemm_shapes.py (132 SMs, every
// row against cuBLAS; docs/how-to/gemm-shapes.md):
// - the 128 x 256 tile reached 0.69 to 0.73 of the f16 tensor peak from
//   M = 1024 up, so a block computes at 0.72 of its share;
// - one-consumer 64 x 128 tiles at M = 256 loaded 82 GB/s per SM from L2
//   (2.25 x the DRAM bandwidth over the SMs);
// - a block waits about 1.5 us for a stage's TMA loads (64 rows at M = 64,
//   32 columns, 8 stages: 0.19 us per K tile whatever K), and 1.4 us more
//   when the A box lies past M and is zero-filled (M = 16: 0.35 us per K
//   tile at 32 and at 64 columns alike; M = 1 slower still). So a narrow
//   tile at small M streams B at a fixed number of K tiles per second,
//   whatever its width: 16 x 4096 x 14336 in 32-column tiles, one per SM,
//   ran at 0.49x cuBLAS, and wider tiles with split K carry more of B per
//   wait.
inline constexpr double kTensorFraction = 0.72;
inline constexpr double kSharedLoadPerDram = 2.25;
inline constexpr double kStageWaitS = 1.5e-6;
inline constexpr double kZeroFillWaitS = 1.4e-6;
inline constexpr double kSplitTrafficFactor = 4.0;
inline constexpr double kSplitLaunchS = 1.5e-6;

// Estimated microseconds of one call (see the header).
inline double cost_us(long long m, long long n, long long k, const Config& c, const Device& d) {
  const long long tiles = cdiv(m, c.tile_m()) * cdiv(n, c.tile_n());
  const long long units = tiles * c.splits;
  const long long k_tiles = cdiv(cdiv(k, kTileK), c.splits);
  const long long k_per_unit = k_tiles * kTileK;
  const double rows = double(std::min<long long>(m, c.tile_m()));  // TMA zero-fills rows past M without reading them
  const double unit_flops = 2.0 * c.tile_m() * c.tile_n() * double(k_per_unit);
  const double unit_bytes = (rows + c.tile_n()) * double(k_per_unit) * 2;
  // Per SM: its share of the tensor peak, of the L2-to-shared bandwidth,
  // and the stages' waits (STAGES loads in flight).
  // (Swapped, a WGMMA's N is the tokens.)
  const double sm_flops =
      d.tensor_flops / d.sms * (c.swapped() ? tile_efficiency(64, c.tokens) : tile_efficiency(c.bm(), c.bn)) * kTensorFraction;
  const double sm_bytes = kSharedLoadPerDram * d.dram_bytes_per_s / d.sms;
  const double stage_wait_s = (kStageWaitS + kZeroFillWaitS * (1.0 - rows / c.tile_m())) / c.stages;
  const double per_unit_s =
      std::max({unit_flops / sm_flops, unit_bytes / sm_bytes, double(k_tiles) * stage_wait_s});
  // DRAM: every byte once, spread over the units; a wave of w units draws
  // the share w / SMs of the bandwidth (at M = 16, 64 busy blocks of a
  // 132-SM H100 reached 0.69x cuBLAS), so a last wave of a few units costs
  // nearly as much as a full one.
  const double dram_bytes = (double(m) * k + double(n) * k + double(m) * n) * 2;
  auto wave_s = [&](long long busy) {
    const double share = std::min(1.0, double(busy) / d.sms);
    return std::max(per_unit_s, dram_bytes * double(busy) / double(units) / (d.dram_bytes_per_s * share));
  };
  double seconds = double(units / c.blocks) * wave_s(c.blocks);
  if (units % c.blocks != 0) seconds += wave_s(units % c.blocks);
  // Split: the f32 partials written and read back, at a quarter of the DRAM
  // bandwidth (scattered accumulator stores), and one more launch, which
  // starts early (programmatic launch); fitted to one H200 run of the
  // bench's shapes (their top candidates timed against each other).
  if (c.splits > 1) seconds += kSplitTrafficFactor * c.splits * double(m + 1) * n * 4 / d.dram_bytes_per_s + kSplitLaunchS;
  return seconds * 1e6;
}

// Every configuration the model weighs for a shape, cheapest first.
inline std::vector<Config> candidates(long long m, long long n, long long k, const Device& d = h100()) {
  struct Scored {
    Config config;
    double us;
  };
  std::vector<Scored> all;
  const long long k_tiles = cdiv(k, kTileK);
  // BN in steps of 16 (WGMMA takes N in steps of 8; TMA boxes of up to 256
  // rows): N = 4096, 6144, 10240, 14336 or 28672 divide into 128 tiles of
  // 32, 48, 80, 112 or 224 columns, one per SM, where 64 or 128 leave SMs
  // idle or take a second wave.
  for (int consumers : {1, 2})
    for (int bn = 32; bn <= 256; bn += 16) {
      const long long tiles = cdiv(m, 64 * consumers) * cdiv(n, bn);
      for (int splits = 1; splits <= 16; ++splits) {
        // Each slice keeps at least 4 K tiles, and slices divide the K loop
        // evenly unless it is short (a slice past K would load zero tiles).
        if (splits > 1 && (k_tiles / splits < 4 || (k_tiles % splits != 0 && k_tiles >= 32))) continue;
        if (splits > 1 && tiles >= d.sms) break;  // the tiles alone fill the device
        Config c;
        c.consumers = consumers;
        c.bn = bn;
        c.splits = splits;
        c.blocks = static_cast<int>(std::min<long long>(tiles * splits, d.sms));
        // Two-consumer tiles at few rows, each block taking one or two of
        // them, store from the accumulators: the output tile's shared memory
        // becomes one or two more stages, which the B stream there needs
        // more than the epilogue's overlap with a next tile (H200, M = 64 to
        // 333: 1.00 to 1.16x the shared-memory store; at M = 1024 and more
        // tiles a block 0.89 to 0.99x).
        c.store_through_shared = !(consumers == 2 && splits == 1 && m <= 512 && tiles <= 2LL * c.blocks);
        c.stages = stages_for(c.bm(), bn, splits, d, 8, c.store_through_shared);
        all.push_back({c, cost_us(m, n, k, c, d)});
      }
    }
  // Few rows: the swapped form, its tokens the rows rounded up to 8 (at
  // least 16), tiles of 64 columns of B, with K split as above. Only split:
  // in one kernel its 64-column tiles leave SMs idle or take a second wave
  // (H200, M = 16 and 37: 0.88-0.90x cuBLAS where the plain form's one
  // kernel reached 0.93-0.95x), while split 2 to 4 it beat the plain split
  // form at M = 1 to 37 (1.00-1.04x against 0.93-0.98x).
  if (m <= 64) {
    Config c;
    c.consumers = 1;
    c.bn = 64;
    c.tokens = static_cast<int>(std::max<long long>(16, cdiv(m, 8) * 8));
    const long long tiles = cdiv(m, c.tokens) * cdiv(n, 64);
    for (int splits = 2; splits <= 16 && tiles < d.sms; ++splits) {
      if (k_tiles / splits < 4 || (k_tiles % splits != 0 && k_tiles >= 32)) continue;
      c.splits = splits;
      c.stages = stages_for(c.tokens, 64, splits, d, 16);
      c.blocks = static_cast<int>(std::min<long long>(tiles * splits, d.sms));
      all.push_back({c, cost_us(m, n, k, c, d)});
    }
  }
  // Cheapest first; a near tie (within 2%) goes to fewer rows computed past
  // M, then to fewer columns past N, then to fewer slices, then to 90% of the SMs busy or more (the
  // per-SM figures are the model's least certain part), then to the larger
  // tile.
  const int most_blocks = d.sms;
  std::stable_sort(all.begin(), all.end(), [m, n, most_blocks](const Scored& a, const Scored& b) {
    if (std::abs(a.us - b.us) > 0.02 * std::min(a.us, b.us)) return a.us < b.us;
    const long long pad_a = cdiv(m, a.config.tile_m()) * a.config.tile_m(),
                    pad_b = cdiv(m, b.config.tile_m()) * b.config.tile_m();
    if (pad_a != pad_b) return pad_a < pad_b;
    const long long cols_a = cdiv(n, a.config.tile_n()) * a.config.tile_n(),
                    cols_b = cdiv(n, b.config.tile_n()) * b.config.tile_n();
    if (cols_a != cols_b) return cols_a < cols_b;
    if (a.config.splits != b.config.splits) return a.config.splits < b.config.splits;
    const bool full_a = a.config.blocks * 10 >= most_blocks * 9, full_b = b.config.blocks * 10 >= most_blocks * 9;
    if (full_a != full_b) return full_a;
    return a.config.bm() * a.config.bn > b.config.bm() * b.config.bn;
  });
  std::vector<Config> out;
  for (const Scored& s : all) out.push_back(s.config);
  // The best one in clusters of two blocks sharing each rhs tile (one TMA
  // multicast for both), second, for croq::tune to weigh where several row
  // tiles share each column tile. Measured on an H200 (croq bench --tune
  // CLUSTER=1,2 at the model's configuration): within 0.5% either way from
  // M = 2048 up (8192^3 0.4% faster in f16 and bf16), 3% to 9% slower at
  // M = 1024 and below; so the model itself keeps single blocks.
  if (!out.empty() && m >= 2048 && out.front().splits == 1 && out.front().consumers == 2) {
    Config twin = out.front();
    twin.cluster = 2;
    twin.blocks = twin.blocks / 2 * 2;
    out.insert(out.begin() + 1, twin);
  }
  return out;
}

// The configuration for C [M, N] = A [M, K] * B [N, K]^T on `d`.
inline Config choose(long long m, long long n, long long k, const Device& d = h100()) {
  return candidates(m, n, k, d).front();
}

// The kernel's text; every size a #define, set per call from a Config.
inline constexpr const char* kSource = R"croq(
#define CONSUMERS 2
#define BN 256
#define STAGES 3
#define SPLITS 1
#define BLOCKS 132
#define CLUSTER 1
#define CLUSTER_N 0
#define STORE_SHARED 1
#define SWAP 0
#define TOKENS 16
#define BM (64 * CONSUMERS)
#define TK 64
#define GROUP 8
#if SWAP
// Few rows (tokens): C^T = B * A^T, so 64 rows of B fill each WGMMA's M and
// the TOKENS rows of A are its N; each consumer stores its accumulator
// transposed. An output tile is TOKENS x (64 * CONSUMERS).
#define TILE_M TOKENS
#define TILE_N (64 * CONSUMERS)
#else
#define TILE_M BM
#define TILE_N BN
#endif
// A cluster's blocks take CLUSTER row tiles of one column tile (sharing the
// rhs tile), or with CLUSTER_N, CLUSTER column tiles of one row tile
// (sharing the lhs tile); units are counted in those groups of tiles.
#if CLUSTER_N
#define ROW_GROUPS cdiv(M, TILE_M)
#define COL_GROUPS cdiv(N, TILE_N * CLUSTER)
#else
#define ROW_GROUPS cdiv(M, TILE_M * CLUSTER)
#define COL_GROUPS cdiv(N, TILE_N)
#endif

__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
#if SPLITS > 1
  // One row more than M: a slice of [1, 1, N] would lose both leading
  // dims to .sqz() at M = 1 (it drops every extent-1 dim it leads with).
  global f32 [SPLITS, M + 1, N] partial;
#endif
#if CLUSTER > 1
  // Clusters of CLUSTER blocks share one operand's tile: one multicast
  // load for them, and a stage is loaded again once the consumers of every
  // block of the cluster have freed it.
  parallel rank by CLUSTER : cluster, block_id by BLOCKS : block {
#else
  parallel block_id by BLOCKS : block {
#endif
    shared event full[STAGES], empty[STAGES] = ready;
    shared f16 [TILE_M, TK] lhs_s[STAGES];
    shared f16 [TILE_N, TK] rhs_s[STAGES];
#if SPLITS == 1 && SWAP
    shared f16 [TOKENS, 64] out_s[CONSUMERS];
#elif SPLITS == 1 && STORE_SHARED
    shared f16 [BM, BN] out_s;
#endif
    parallel p by CONSUMERS + 1 : group-4 {
      inthreads.async (p == 0) {
        foreach {unit_iter} in [cdiv(ROW_GROUPS * COL_GROUPS * SPLITS, BLOCKS / CLUSTER)] {
#if CLUSTER > 1
          unit = unit_iter * (BLOCKS / CLUSTER) + block_id / CLUSTER;
#else
          unit = unit_iter # block_id;
#endif
          if (unit < ROW_GROUPS * COL_GROUPS * SPLITS) {
            split = unit / (ROW_GROUPS * COL_GROUPS);
            tile = unit % (ROW_GROUPS * COL_GROUPS);
            first_m = tile / (GROUP * COL_GROUPS) * GROUP;
            rows = ROW_GROUPS - first_m < GROUP ? ROW_GROUPS - first_m : GROUP;
#if CLUSTER > 1 && CLUSTER_N
            bm = first_m + tile % (GROUP * COL_GROUPS) % rows;
            bn = tile % (GROUP * COL_GROUPS) / rows * CLUSTER + block_id % CLUSTER;
#elif CLUSTER > 1
            bm = (first_m + tile % (GROUP * COL_GROUPS) % rows) * CLUSTER + block_id % CLUSTER;
            bn = tile % (GROUP * COL_GROUPS) / rows;
#else
            bm = first_m + tile % (GROUP * COL_GROUPS) % rows;
            bn = tile % (GROUP * COL_GROUPS) / rows;
#endif
            foreach {iv_k} in [cdiv(cdiv(K, TK), SPLITS)] {
              stage = iv_k % STAGES;
              wait empty[stage];
#if CLUSTER > 1 && CLUSTER_N
              tma.copy.multicast.swiz<128> lhs.subspan(TILE_M, TK).at(bm, split * cdiv(cdiv(K, TK), SPLITS) + iv_k).zfill => lhs_s[stage];
#else
              tma.copy.swiz<128> lhs.subspan(TILE_M, TK).at(bm, split * cdiv(cdiv(K, TK), SPLITS) + iv_k).zfill => lhs_s[stage];
#endif
#if CLUSTER > 1 && !CLUSTER_N
              tma.copy.multicast.swiz<128> rhs.subspan(TILE_N, TK).at(bn, split * cdiv(cdiv(K, TK), SPLITS) + iv_k).zfill => rhs_s[stage];
#else
              tma.copy.swiz<128> rhs.subspan(TILE_N, TK).at(bn, split * cdiv(cdiv(K, TK), SPLITS) + iv_k).zfill => rhs_s[stage];
#endif
              trigger full[stage];
            }
          }
        }
      }
      inthreads.async (p >= 1) {
        foreach {unit_iter} in [cdiv(ROW_GROUPS * COL_GROUPS * SPLITS, BLOCKS / CLUSTER)] {
#if CLUSTER > 1
          unit = unit_iter * (BLOCKS / CLUSTER) + block_id / CLUSTER;
#else
          unit = unit_iter # block_id;
#endif
          if (unit < ROW_GROUPS * COL_GROUPS * SPLITS) {
            split = unit / (ROW_GROUPS * COL_GROUPS);
            tile = unit % (ROW_GROUPS * COL_GROUPS);
            first_m = tile / (GROUP * COL_GROUPS) * GROUP;
            rows = ROW_GROUPS - first_m < GROUP ? ROW_GROUPS - first_m : GROUP;
#if CLUSTER > 1 && CLUSTER_N
            bm = first_m + tile % (GROUP * COL_GROUPS) % rows;
            bn = tile % (GROUP * COL_GROUPS) / rows * CLUSTER + block_id % CLUSTER;
#elif CLUSTER > 1
            bm = (first_m + tile % (GROUP * COL_GROUPS) % rows) * CLUSTER + block_id % CLUSTER;
            bn = tile % (GROUP * COL_GROUPS) / rows;
#else
            bm = first_m + tile % (GROUP * COL_GROUPS) % rows;
            bn = tile % (GROUP * COL_GROUPS) / rows;
#endif
            mc = mma.fill.f32 0.0f;
            foreach {iv_k} in [cdiv(cdiv(K, TK), SPLITS)] {
              stage = iv_k % STAGES;
              wait full[stage];
#if SWAP
              mma.row.row mc, rhs_s[stage].subspan(64, TK).at(p - 1, 0), lhs_s[stage];
#else
              mma.row.row mc, lhs_s[stage].subspan(64, TK).at(p - 1, 0), rhs_s[stage];
#endif
#if CLUSTER > 1
              trigger.cluster empty[stage];
#else
              trigger empty[stage];
#endif
            }
#if SPLITS == 1 && SWAP
            // Each consumer's 64 columns of the tile, through a shared tile of its own.
            mma.store.transp mc, out_s[p - 1];
            tma.copy out_s[p - 1] => output.subspan(TOKENS, TILE_N).at(bm, bn).subspan(TOKENS, 64).at(0, p - 1);
#elif SPLITS == 1 && STORE_SHARED
            // Through shared memory and a TMA store: the warpgroup goes on to
            // the next tile while the copy engine writes this one.
            mma.store mc, out_s.subspan(64, BN).at(p - 1, 0);
            tma.copy out_s.subspan(64, BN).at(p - 1, 0) => output.subspan(BM, BN).at(bm, bn).subspan(64, BN).at(p - 1, 0);
#elif SPLITS == 1
            // Straight from the accumulators (rows and columns past the output left out).
            mma.store mc, output.subspan(BM, BN).at(bm, bn).subspan(64, BN).at(p - 1, 0);
#else
            // This slice's f32 partial product, rows past M left out.
            slice = partial.subspan(1, M + 1, N).at(split, 0, 0).sqz();
#if SWAP
            mma.store.transp mc, slice.subspan(TOKENS, 64).at(bm, bn * CONSUMERS + p - 1);
#else
            mma.store mc, slice.subspan(64, BN).at(bm * CONSUMERS + p - 1, bn);
#endif
#endif
          }
        }
      }
    }
  }
#if SPLITS > 1
  // The slices summed in a fixed order (the same bits every call), rounded once.
  parallel {m, n} by [M, N] {
    f32 acc = 0.0f;
    foreach s in [SPLITS]
      acc = acc + partial.at(s, m, n);
    output.at(m, n) = acc;
  }
#endif
}
)croq";

// The text for `element` ("f16" or "bf16").
inline std::string source(const std::string& element) {
  return element == "f16" ? std::string(kSource) : std::regex_replace(kSource, std::regex("\\bf16\\b"), element);
}

}  // namespace gemm_any
