// End-to-end benchmark of croq::Kernel, the C++-only figures: hot k(args)
// overhead with device tensors against raw cuLaunchKernel of the same cubin
// (budget: at most 1.25x; over it the exit status is 1), and cold compile
// (parse -> cubin) of the tutorial DMA matmul. bench/reference.py measures
// Triton's compile in the same device run and bench/compare.py the ratio.
// Kernel bandwidth against torch is the harness's (bench/harness/bench_add.py).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_args.hpp"
#include "croq/croq.hpp"
#include "jit/driver.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"
#include "pipeline/pipeline.hpp"
#include "launch_timing.hpp"
#include "support/utf8.hpp"

using Clock = std::chrono::steady_clock;
using namespace croq;

namespace {

using croq::bench::median;

// The hot call of a Kernel with device tensors may cost at most this much
// more host time than cuLaunchKernel of the same function.
constexpr double kCallOverRawBudget = 1.25;

// The tutorial's DMA matmul with symbolic sizes, so each M is a new signature.
const char* kMatmul = R"(__co__ s32 [M, 256] matmul(s32 [M, 256] lhs, s32 [256, 256] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel {px, py} by [M / 16, 16] : block {
    foreach {tile_k} in [16] {
      lhs_load = dma.copy lhs.chunkat(px, tile_k) => shared;
      rhs_load = dma.copy rhs.chunkat(tile_k, py) => shared;
      parallel {qx, qy} by [16, 16] : thread {
        foreach k in [256 / #tile_k]
          output.at(px#qx, py#qy) += lhs_load.data.at(qx, k) * rhs_load.data.at(k, qy);
      }
    }
  }
  return output;
}
)";

const char* kScaleSource = R"(__co__ void scale(f32 [N] x, f32 [N] y) {
  parallel i by N
    y.at(i) = x.at(i) * 3.0f;
}
)";

// Why `got` is not lhs [M, 256] x rhs [256, 256] (exact, in s32); empty when it is.
std::string wrong_product(const spandata<s32>& lhs, const spandata<s32>& rhs, const Tensor& got) {
  const std::size_t m = lhs.shape()[0];
  const auto* out = static_cast<const std::int32_t*>(got.data());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < 256; ++j) {
      std::int64_t want = 0;
      for (std::size_t x = 0; x < 256; ++x) want += std::int64_t(lhs.data()[i * 256 + x]) * rhs.data()[x * 256 + j];
      if (out[i * 256 + j] != want)
        return "element [" + std::to_string(i) + ", " + std::to_string(j) + "] is " + std::to_string(out[i * 256 + j]) +
               ", expected " + std::to_string(want);
    }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  croq::bench::BenchArgs args;
  if (!croq::bench::parse_bench_args(argc, argv, "e2e_bench", {}, args)) return 2;
  const std::string& json_path = args.json;
  nlohmann::json out;

  // Cold compile: parse + check + generate + NVRTC, no cache (CROQ_CACHE=0
  // is set by the caller; new M each round also defeats the memory layer).
  {
    std::vector<double> ms;
    for (int round = 0; round < 6; ++round) {
      // Timed: compile (parse) + the first call with device tensors, which
      // specializes (generate + NVRTC + module load) and launches.
      std::string why;
      if (!cuda_available(&why)) {
        out["cold_compile"] = "skipped: " + why;
        break;
      }
      std::size_t m = 16 * (round + 1) + 1024;
      auto lhs = make_spandata<s32>(m, 256), rhs = make_spandata<s32>(256, 256);
      lhs.fill_random(-3, 3, 2026 + round);
      rhs.fill_random(-3, 3, 3026 + round);
      Tensor dl = Tensor::copy_of(lhs.view()), dr = Tensor::copy_of(rhs.view());
      jit::driver().cuCtxSynchronize();
      auto t = Clock::now();
      Kernel fresh = compile(kMatmul);
      Tensor res = fresh(dl, dr);
      jit::driver().cuCtxSynchronize();
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
      // What was timed computed the product (every element, after the timing).
      if (std::string wrong = wrong_product(lhs, rhs, res.to_host()); !wrong.empty()) {
        std::fprintf(stderr, "e2e_bench: cold-compiled DMA matmul, M = %zu: %s\n", m, wrong.c_str());
        return 1;
      }
    }
    if (!ms.empty()) {
      out["cold_compile_first_ms"] = ms.front();
      ms.erase(ms.begin());
      out["cold_compile_median_ms"] = median(ms);
    }
  }

  std::string why;
  if (!cuda_available(&why)) {
    std::printf("e2e_bench: needs a CUDA GPU (%s)\n", why.c_str());
    if (!json_path.empty()) std::ofstream(json_path) << croq::support::json_text(out, 2) << "\n";
    return 0;
  }
  jit::make_current(0);

  // Hot path: k(x, y) with device tensors vs raw cuLaunchKernel of the same function.
  {
    Kernel scale = compile(kScaleSource);
    Tensor x = Tensor::empty(DType::f32, Shape{32}), y = Tensor::empty(DType::f32, Shape{32});
    scale(x, y);
    CROQ_CU(cuCtxSynchronize);
    // The very function the Kernel launches: same generated CUDA, same
    // request, so the jit's memory layer hands back the same loaded cubin.
    auto checked = pipeline::check(kScaleSource, CompileOptions{});
    abi::ArgSignature sig;
    sig.shape = {32};
    auto stats_before = jit::JitCompiler::global().stats();
    auto same_kernel = pipeline::build(*checked, {sig, sig}, pipeline::choose_target("", 0)).compiled.at(0);
    if (jit::JitCompiler::global().stats().memory_hits != stats_before.memory_hits + 1) {
      std::fprintf(stderr, "e2e_bench: raw reference is not the Kernel's own cubin\n");
      return 1;
    }
    CUfunction fn = jit::load_function(*same_kernel, 0);
    CUdeviceptr px = reinterpret_cast<CUdeviceptr>(x.data()), py = reinterpret_cast<CUdeviceptr>(y.data());
    void* args[] = {&px, &py};
    auto timing = croq::bench::compare_launch_paths(
        [&] {
          jit::check(jit::driver().cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
        },
        [&] { scale(x, y); });
    out["raw_launch_us"] = timing.reference_us;
    out["kernel_call_us"] = timing.candidate_us;
    out["kernel_call_over_raw"] = timing.candidate_us / timing.reference_us;
  }

  std::printf("libcroqjit end-to-end benchmark on %s\n", jit::device_info(0).name.c_str());
  std::printf("  raw cuLaunchKernel (median)     : %.3f us\n", out["raw_launch_us"].get<double>());
  const bool within = out["kernel_call_over_raw"].get<double>() <= kCallOverRawBudget;
  out["within_budget"] = within;
  std::printf("  k(x, y) device tensors (median) : %.3f us  (%.3fx raw, budget <= %.2fx: %s)\n",
              out["kernel_call_us"].get<double>(), out["kernel_call_over_raw"].get<double>(), kCallOverRawBudget,
              within ? "within" : "OVER");
  if (out.contains("cold_compile_median_ms"))
    std::printf("  cold compile DMA matmul         : first %.1f ms, median %.1f ms (compile + first call)\n",
                out["cold_compile_first_ms"].get<double>(), out["cold_compile_median_ms"].get<double>());
  if (!json_path.empty()) std::ofstream(json_path) << croq::support::json_text(out, 2) << "\n";
  return within ? 0 : 1;
}
