// Attention benchmark: the flash attention forward of
// samples/flash_attention.cpp (samples/attention_source.hpp), f16 and bf16,
// on device tensors [B, H, S, D]: B=4, H=16, S=T=4096, D=128 and B=8, H=16,
// S=T=2048, D=64, causal and not, in the configurations of kConfigs (128
// or 192 query rows per block, consumers with and without ping-pong; a
// row's figure is the fastest's, and the JSON lists all). Each kernel is first
// checked against the double host reference on a small shape with tails
// (both masks); then timed as gemm_bench times GEMMs: the median of 20
// samples, each the mean of 10 back-to-back launches between CUDA events,
// after 3 warm-ups (bench/launch_timing.hpp). TFLOP/s count 4 B H S T D flops (two GEMMs),
// halved when causal (the convention FlashAttention and cuDNN use).
// bench/attention_reference.py times torch SDPA (cuDNN and FlashAttention-2
// backends) on the same shapes in the same device run and prints ratios.
//   attention_bench [--json FILE] [--only f16|bf16]
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "croq/croq.hpp"
#include "bench_args.hpp"
#include "launch_timing.hpp"
#include "../samples/attention_check.hpp"
#include "../samples/attention_source.hpp"
#include "support/utf8.hpp"

namespace {

constexpr int kWarmup = 3, kRuns = 20, kBatch = 10;

struct BenchShape {
  int batch, heads, seq, d;
};

template <typename T>
bool check_kernel(const croq::Kernel& kernel, int d, const char* what) {
  const attention::Shape s{1, 2, 300, 300};
  for (bool causal : {false, true}) {
    auto q = croq::make_spandata<T>(s.batch, s.heads, s.queries, d), o = croq::make_spandata<T>(s.batch, s.heads, s.queries, d);
    auto k = croq::make_spandata<T>(s.batch, s.heads, s.keys, d), v = croq::make_spandata<T>(s.batch, s.heads, s.keys, d);
    q.fill_random(-2, 2);
    k.fill_random(-2, 2);
    v.fill_random(-1, 1);
    o.fill_random(1e4, 2e4);  // poison
    kernel(q.view(), k.view(), v.view(), o.view(), causal ? 1 : 0);
    const attention::Check c = attention::check(q, k, v, o, s, d, causal);
    std::cout << "  check " << what << (causal ? " causal" : " non-causal") << ": relative error " << c.relative_error
              << ", worst element " << c.worst_ratio << " of its tolerance\n";
    if (!c.passed()) return false;
  }
  return true;
}

template <typename T>
croq::Tensor random_device_tensor(const BenchShape& s, double lo, double hi, std::uint64_t seed) {
  auto host = croq::make_spandata<T>(s.batch, s.heads, s.seq, s.d);
  host.fill_random(lo, hi, seed);
  return croq::Tensor::copy_of(host.view(), croq::MemoryKind::device);
}

// Key / value rows per step (BN, overriding the source's #define), whether
// the consumer warpgroups take turns (ping-pong), and how many there are
// (64 query rows each). Three consumers have 160 registers a thread: too
// few for D=128's accumulators, so only D=64 tries them.
struct Config {
  int bn;
  bool ping_pong;
  int consumers;
};
constexpr Config kConfigs[] = {{128, true, 2}, {128, false, 2}, {128, true, 3}, {128, false, 3}};

bool config_fits(const Config& c, int d) { return c.consumers * 64 <= 128 || d <= 64; }

std::string config_name(const Config& c) {
  return "BM=" + std::to_string(64 * c.consumers) + " BN=" + std::to_string(c.bn) + (c.ping_pong ? " ping-pong" : "");
}

template <typename T>
bool bench_element(const char* element, croq::DType dtype, nlohmann::json& results) {
  const BenchShape shapes[] = {{4, 16, 4096, 128}, {8, 16, 2048, 64}};
  for (const BenchShape& s : shapes) {
    std::vector<croq::Kernel> kernels;
    std::vector<Config> configs;
    for (const Config& c : kConfigs) {
      if (!config_fits(c, s.d)) continue;
      configs.push_back(c);
      const std::string what = std::string(element) + " D=" + std::to_string(s.d) + " " + config_name(c);
      croq::CompileOptions options;
      options.defines["BN"] = c.bn;
      kernels.push_back(croq::compile(attention::source(element, s.d, c.ping_pong, c.consumers), options));
      if (!check_kernel<T>(kernels.back(), s.d, what.c_str())) {
        std::cerr << "attention_bench: " << what << " computes a wrong result\n";
        return false;
      }
    }
    croq::Tensor q = random_device_tensor<T>(s, -2, 2, 1), k = random_device_tensor<T>(s, -2, 2, 2),
                 v = random_device_tensor<T>(s, -1, 1, 3);
    croq::Tensor o = croq::Tensor::empty(dtype, croq::Shape{std::size_t(s.batch), std::size_t(s.heads), std::size_t(s.seq),
                                                            std::size_t(s.d)},
                                         croq::MemoryKind::device);
    for (bool causal : {false, true}) {
      const double flops = 4.0 * s.batch * s.heads * double(s.seq) * s.seq * s.d / (causal ? 2 : 1);
      nlohmann::json row = {{"dtype", element}, {"b", s.batch}, {"h", s.heads}, {"s", s.seq}, {"t", s.seq},
                            {"d", s.d}, {"causal", causal}, {"configs", nlohmann::json::array()}};
      for (std::size_t i = 0; i < kernels.size(); ++i) {
        const croq::Kernel& kernel = kernels[i];
        const double ms =
            croq::bench::median_event_ms([&] { kernel(q, k, v, o, causal ? 1 : 0); }, kWarmup, kRuns, kBatch);
        const double tflops = flops / (ms * 1e-3) / 1e12;
        std::cout << "  croq attention " << element << " B=" << s.batch << " H=" << s.heads << " S=" << s.seq
                  << " D=" << s.d << (causal ? " causal" : " non-causal") << " " << config_name(configs[i])
                  << ": median " << ms << " ms, " << tflops << " TFLOP/s\n";
        row["configs"].push_back(
            {{"bm", 64 * configs[i].consumers}, {"bn", configs[i].bn}, {"ping_pong", configs[i].ping_pong}, {"ms", ms},
             {"tflops", tflops}});
        if (!row.contains("ms") || ms < row["ms"].get<double>()) {
          row["ms"] = ms;
          row["tflops"] = tflops;
          row["bm"] = 64 * configs[i].consumers;
          row["bn"] = configs[i].bn;
          row["ping_pong"] = configs[i].ping_pong;
        }
      }
      results.push_back(row);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  croq::bench::BenchArgs args;
  if (!croq::bench::parse_bench_args(argc, argv, "attention_bench", {"f16", "bf16"}, args)) return 2;
  const std::string& only = args.only;
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "attention_bench: needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  nlohmann::json results = nlohmann::json::array();
  if ((only.empty() || only == "f16") && !bench_element<croq::f16>("f16", croq::DType::f16, results)) return 1;
  if ((only.empty() || only == "bf16") && !bench_element<croq::bf16>("bf16", croq::DType::bf16, results)) return 1;
  if (!args.json.empty()) std::ofstream(args.json) << croq::support::json_text(results, 2) << "\n";
}
