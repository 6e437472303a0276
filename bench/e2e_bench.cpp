// End-to-end benchmark of croq::Kernel: f32 add bandwidth on 2^28 elements,
// hot k(args) overhead with device tensors against raw cuLaunchKernel of the
// same cubin, and cold compile (parse -> cubin) of the tutorial DMA matmul.
// bench/reference.py measures torch.add and Triton's compile in the same
// device run; scripts/gpu-check.sh prints the ratios.
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

const char* kAdd = R"(__co__ void add(f32 [N] a, f32 [N] b, f32 [N] c) {
  parallel i by N
    c.at(i) = a.at(i) + b.at(i);
}
)";

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
      lhs.fill_random(-3, 3);
      rhs.fill_random(-3, 3);
      Tensor dl = Tensor::copy_of(lhs.view()), dr = Tensor::copy_of(rhs.view());
      jit::driver().cuCtxSynchronize();
      auto t = Clock::now();
      Kernel fresh = compile(kMatmul);
      Tensor res = fresh(dl, dr);
      jit::driver().cuCtxSynchronize();
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
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

  // f32 add, 2^28 elements: 3 x 1 GiB of traffic per call.
  {
    const std::size_t n = std::size_t{1} << 28;
    Kernel add = compile(kAdd);
    Tensor a = Tensor::empty(DType::f32, Shape{n}), b = Tensor::empty(DType::f32, Shape{n}),
           c = Tensor::empty(DType::f32, Shape{n});
    CROQ_CU(cuMemsetD32, reinterpret_cast<CUdeviceptr>(a.data()), 0x3f800000u, n);
    CROQ_CU(cuMemsetD32, reinterpret_cast<CUdeviceptr>(b.data()), 0x40000000u, n);
    add(a, b, c);  // compile + warm up
    CUevent start, stop;
    CROQ_CU(cuEventCreate, &start, 0);
    CROQ_CU(cuEventCreate, &stop, 0);
    std::vector<double> ms;
    for (int r = 0; r < 30; ++r) {
      CROQ_CU(cuEventRecord, start, nullptr);
      add(a, b, c);
      CROQ_CU(cuEventRecord, stop, nullptr);
      CROQ_CU(cuEventSynchronize, stop);
      float e = 0;
      CROQ_CU(cuEventElapsedTime, &e, start, stop);
      ms.push_back(e);
    }
    float probe = 0;
    CROQ_CU(cuMemcpyDtoH, &probe, reinterpret_cast<CUdeviceptr>(c.data()) + 4 * (n - 1), 4);
    if (probe != 3.0f) { std::fprintf(stderr, "add produced %f, expected 3\n", probe); return 1; }
    double t = median(ms);
    out["add_f32_2p28_ms"] = t;
    out["add_f32_2p28_tbps"] = 3.0 * 4.0 * n / (t * 1e-3) / 1e12;
  }

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
  std::printf("  f32 add, 2^28 elements          : %.3f ms, %.2f TB/s\n", out["add_f32_2p28_ms"].get<double>(),
              out["add_f32_2p28_tbps"].get<double>());
  std::printf("  raw cuLaunchKernel (median)     : %.3f us\n", out["raw_launch_us"].get<double>());
  std::printf("  k(x, y) device tensors (median) : %.3f us  (%.3fx raw, goal <= 1.25x)\n",
              out["kernel_call_us"].get<double>(), out["kernel_call_over_raw"].get<double>());
  if (out.contains("cold_compile_median_ms"))
    std::printf("  cold compile DMA matmul         : first %.1f ms, median %.1f ms (compile + first call)\n",
                out["cold_compile_first_ms"].get<double>(), out["cold_compile_median_ms"].get<double>());
  if (!json_path.empty()) std::ofstream(json_path) << croq::support::json_text(out, 2) << "\n";
  return 0;
}
