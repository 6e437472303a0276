// The persistent GEMM of Croqtile's own README, run as written (f16 in and
// out, f16 accumulate, one warpgroup per block on 64 x 128 tiles, the tile
// order given by the host): first checked against a host reference with a
// poisoned output, then timed as gemm_bench times (median of 20 samples of
// 10 back-to-back launches after 3 warm-up launches) at 4096³ and 8192³, in
// TFLOP/s, with the host walking tiles in groups of 8 tile rows (the order
// matmul_persistent computes on the device). bench/gemm_reference.py times
// torch.matmul (cuBLAS, fp32 accumulate) on the same shapes in the same run.
//   readme_gemm_bench UPSTREAM_README.md [--json FILE]
#include <algorithm>
#include <array>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "croq/croq.hpp"
#include "launch_timing.hpp"
#include "../samples/gemm_check.hpp"
#include "../samples/upstream_readme.hpp"
#include "support/utf8.hpp"

namespace {

constexpr int kWarmup = 3, kRuns = 20, kBatch = 10, kGroup = 8;

// Tile (m, n) of each position in the walk: groups of kGroup tile rows,
// column by column inside a group.
void grouped_schedule(long tiles_m, long tiles_n, croq::spandata<croq::s32>& order_m,
                      croq::spandata<croq::s32>& order_n) {
  for (long t = 0; t < tiles_m * tiles_n; ++t) {
    const long first_m = t / (kGroup * tiles_n) * kGroup;
    const long rows = std::min<long>(kGroup, tiles_m - first_m);
    order_m[static_cast<std::size_t>(t)] = static_cast<croq::s32>(first_m + t % (kGroup * tiles_n) % rows);
    order_n[static_cast<std::size_t>(t)] = static_cast<croq::s32>(t % (kGroup * tiles_n) / rows);
  }
}

struct Problem {
  croq::spandata<croq::f16> lhs, rhs, out;
  croq::spandata<croq::s32> order_m, order_n;
  Problem(std::size_t m, std::size_t n, std::size_t k)
      : lhs(croq::make_spandata<croq::f16>(m, k)), rhs(croq::make_spandata<croq::f16>(n, k)),
        out(croq::make_spandata<croq::f16>(m, n)),
        order_m(croq::make_spandata<croq::s32>(tiles(m, kReadmeGemmTileM) * tiles(n, kReadmeGemmTileN))),
        order_n(croq::make_spandata<croq::s32>(tiles(m, kReadmeGemmTileM) * tiles(n, kReadmeGemmTileN))) {
    lhs.fill_random(-1, 1, m * 7 + k);
    rhs.fill_random(-1, 1, n * 11 + k);
    out.fill_random(1e4, 2e4, m + n);  // poison: every element must be written
    grouped_schedule(tiles(m, kReadmeGemmTileM), tiles(n, kReadmeGemmTileN), order_m, order_n);
  }
  static long tiles(std::size_t extent, long tile) { return (static_cast<long>(extent) + tile - 1) / tile; }
};

}  // namespace

int main(int argc, char** argv) {
  std::string readme, json_path;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--json" && i + 1 < argc) json_path = argv[++i];
    else readme = argv[i];
  }
  if (readme.empty()) {
    std::cerr << "usage: readme_gemm_bench UPSTREAM_README.md [--json FILE]\n";
    return 2;
  }
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "readme_gemm_bench: needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  const std::string source = upstream_readme_gemm_source(readme, why);
  if (source.empty()) {
    std::cerr << "readme_gemm_bench: " << why << "\n";
    return 1;
  }
  croq::Kernel kernel = croq::compile(source);
  {
    Problem p(1024, 768, 256);
    kernel(p.lhs.view(), p.rhs.view(), p.out.view(), p.order_m.view(), p.order_n.view());
    const GemmCheck check = check_gemm(p.lhs, p.rhs, p.out);
    std::cout << "  check README GEMM on [1024, 256] x [768, 256]^T: " << describe(check) << "\n";
    if (!check.passed()) return 1;
  }
  nlohmann::json results = nlohmann::json::array();
  for (const std::array<std::size_t, 3>& s : {std::array<std::size_t, 3>{4096, 4096, 4096}, {8192, 8192, 8192}}) {
    const std::size_t m = s[0], n = s[1], k = s[2];
    Problem p(m, n, k);
    croq::Tensor a = croq::Tensor::copy_of(p.lhs.view(), croq::MemoryKind::device);
    croq::Tensor b = croq::Tensor::copy_of(p.rhs.view(), croq::MemoryKind::device);
    croq::Tensor c = croq::Tensor::copy_of(p.out.view(), croq::MemoryKind::device);
    croq::Tensor om = croq::Tensor::copy_of(p.order_m.view(), croq::MemoryKind::device);
    croq::Tensor on = croq::Tensor::copy_of(p.order_n.view(), croq::MemoryKind::device);
    const double median = croq::bench::median_event_ms([&] { kernel(a, b, c, om, on); }, kWarmup, kRuns, kBatch);
    const double tflops = 2.0 * m * n * k / (median * 1e-3) / 1e12;
    std::cout << "  croq README GEMM f16 " << m << "x" << n << "x" << k << ": median " << median << " ms, " << tflops
              << " TFLOP/s\n";
    results.push_back({{"dtype", "f16"}, {"out", "f16"}, {"m", m}, {"n", n}, {"k", k}, {"ms", median},
                       {"tflops", tflops}, {"kernel", "upstream README"}, {"config", "as written, f16 accumulate"}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << croq::support::json_text(results, 2) << "\n";
}
