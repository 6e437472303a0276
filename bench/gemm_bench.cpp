// GEMM benchmark: the persistent warp-specialized Croqtile GEMM of
// samples/matmul_persistent.cpp, f16 and bf16 inputs (fp32 accumulate), and
// its fp8 form samples/matmul_fp8.cpp (f8_e4m3 inputs, fp32 accumulate, bf16
// output), on device tensors; the median of 20 samples, each the mean of 10
// back-to-back launches between CUDA events, after 3 warm-up launches
// (bench/launch_timing.hpp), in TFLOP/s. The kernel is run in three tile
// configurations (its #defines overridden through CompileOptions), each
// first checked against a host reference (check_configuration); a shape's
// figure is its best configuration's, and the JSON lists them all.
// bench/gemm_reference.py measures torch.matmul (cuBLAS) on the same f16 and
// bf16 shapes and torch._scaled_mm (cuBLASLt fp8) on the fp8 ones, in the
// same device run; scripts/gpu-check.sh prints the ratios.
//   gemm_bench [--json FILE] [--only f16|bf16|fp8]
#include <array>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "croq/croq.hpp"
#include "bench_args.hpp"
#include "launch_timing.hpp"
#include "sample_source.hpp"
#include "../samples/gemm_check.hpp"

namespace {

constexpr int kWarmup = 3, kRuns = 20, kBatch = 10;

// Output tile BM x BN (BM = 128: two consumer warpgroups of 64 rows) and
// pipeline depth. Narrower tiles give skinny shapes more tiles to spread
// over the 132 SMs.
struct TileConfig {
  const char* name;
  std::int64_t bn, stages;
};
constexpr TileConfig kConfigs[] = {{"128x256, 3 stages", 256, 3}, {"128x128, 6 stages", 128, 6}, {"128x64, 8 stages", 64, 8}};

// C = A * B^T on random host data against the host reference, on a shape
// with a tile tail in every dimension and on one with more tiles than the
// kernel has blocks (so each block walks several tiles, carrying its event
// phases across them): the configuration must be right before it is timed.
// fp8 rows are K bytes, which TMA needs in multiples of 16.
template <typename In, typename Out>
bool check_configuration(const croq::Kernel& k, const char* what) {
  const bool fp8 = sizeof(In) == 1;
  const GemmShape shapes[] = {{300, 520, fp8 ? 208 : 200}, {2000, 2056, fp8 ? 144 : 136}};
  for (const GemmShape& s : shapes) {
    auto lhs = croq::make_spandata<In>(s.m, s.k), rhs = croq::make_spandata<In>(s.n, s.k);
    auto out = croq::make_spandata<Out>(s.m, s.n);
    lhs.fill_random(-1, 1);
    rhs.fill_random(-1, 1);
    out.fill_random(1e4, 2e4);  // poison
    k(lhs.view(), rhs.view(), out.view());
    const GemmCheck check = check_gemm(lhs, rhs, out);
    std::cout << "  check " << what << " on [" << s.m << ", " << s.k << "] x [" << s.n << ", " << s.k
              << "]^T: " << describe(check) << "\n";
    if (!check.passed()) return false;
  }
  return true;
}

// The Croqtile source of a sample; bf16 is matmul_persistent's f16 kernel with the type replaced.
std::string kernel_source(const std::string& sample, const std::string& element) {
  const std::string src = croq::bench::sample_source(sample);
  return element == "bf16" ? std::regex_replace(src, std::regex("\\bf16\\b"), element) : src;
}

// A [rows, cols] device tensor of uniform values in [-1, 1), reproducible per shape.
template <typename T>
croq::Tensor random_device_tensor(std::size_t rows, std::size_t cols) {
  auto host = croq::make_spandata<T>(rows, cols);
  host.fill_random(-1, 1, rows * 31 + cols);
  return croq::Tensor::copy_of(host.view(), croq::MemoryKind::device);
}

// One benchmarked element type: its kernel, its types and its shapes.
struct Mode {
  const char* name;     // the JSON's "dtype"
  const char* sample;   // samples/<sample>.cpp
  croq::DType in, out;
  std::vector<std::array<std::size_t, 3>> shapes;
};

croq::Tensor random_device_tensor(croq::DType t, std::size_t rows, std::size_t cols) {
  switch (t) {
    case croq::DType::f16: return random_device_tensor<croq::f16>(rows, cols);
    case croq::DType::bf16: return random_device_tensor<croq::bf16>(rows, cols);
    default: return random_device_tensor<croq::f8_e4m3>(rows, cols);
  }
}

bool check_mode(const Mode& mode, const croq::Kernel& k, const char* what) {
  switch (mode.in) {
    case croq::DType::f16: return check_configuration<croq::f16, croq::f16>(k, what);
    case croq::DType::bf16: return check_configuration<croq::bf16, croq::bf16>(k, what);
    default: return check_configuration<croq::f8_e4m3, croq::bf16>(k, what);
  }
}

// Checks and times `mode` in every configuration; appends one JSON row per
// shape. False when a configuration computes a wrong product.
bool bench_mode(const Mode& mode, nlohmann::json& results) {
  const std::string element = mode.name;
  std::vector<croq::Kernel> kernels;
  for (const TileConfig& config : kConfigs) {
    croq::CompileOptions options;
    options.defines["BN"] = config.bn;
    options.defines["STAGES"] = config.stages;
    kernels.push_back(croq::compile(kernel_source(mode.sample, element), options));
    const std::string what = element + " " + config.name;
    if (!check_mode(mode, kernels.back(), what.c_str())) {
      std::cerr << "gemm_bench: " << what << " computes a wrong product\n";
      return false;
    }
  }
  for (const auto& s : mode.shapes) {
    const std::size_t m = s[0], n = s[1], kk = s[2];
    croq::Tensor a = random_device_tensor(mode.in, m, kk), b = random_device_tensor(mode.in, n, kk);
    croq::Tensor c = croq::Tensor::empty(mode.out, croq::Shape{m, n}, croq::MemoryKind::device);
    nlohmann::json row = {{"dtype", element}, {"out", croq::dtype_name(mode.out)}, {"m", m}, {"n", n}, {"k", kk},
                          {"configs", nlohmann::json::array()}};
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const double median = croq::bench::median_event_ms([&] { kernels[i](a, b, c); }, kWarmup, kRuns, kBatch);
      const double tflops = 2.0 * m * n * kk / (median * 1e-3) / 1e12;
      std::cout << "  croq GEMM " << element << " " << m << "x" << n << "x" << kk << " (" << kConfigs[i].name
                << "): median " << median << " ms, " << tflops << " TFLOP/s\n";
      row["configs"].push_back({{"config", kConfigs[i].name}, {"ms", median}, {"tflops", tflops}});
      if (!row.contains("ms") || median < row["ms"].get<double>()) {
        row["ms"] = median;
        row["tflops"] = tflops;
        row["config"] = kConfigs[i].name;
      }
    }
    results.push_back(row);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  croq::bench::BenchArgs args;
  if (!croq::bench::parse_bench_args(argc, argv, "gemm_bench", {"f16", "bf16", "fp8"}, args)) return 2;
  const std::string& only = args.only;
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "gemm_bench: needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  const std::vector<std::array<std::size_t, 3>> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {128, 8192, 8192}};
  const Mode modes[] = {{"f16", "matmul_persistent", croq::DType::f16, croq::DType::f16, shapes},
                        {"bf16", "matmul_persistent", croq::DType::bf16, croq::DType::bf16, shapes},
                        {"fp8", "matmul_fp8", croq::DType::f8_e4m3, croq::DType::bf16,
                         {{4096, 4096, 4096}, {8192, 8192, 8192}}}};
  nlohmann::json results = nlohmann::json::array();
  for (const Mode& mode : modes)
    if ((only.empty() || only == mode.name) && !bench_mode(mode, results)) return 1;
  if (!args.json.empty()) std::ofstream(args.json) << results.dump(2) << "\n";
}
