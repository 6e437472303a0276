// jit-layer benchmark: hot launch overhead against raw cuLaunchKernel (same
// run, same kernel, same module), memory-hit and disk-hit lookup times, and
// cold NVRTC compile time. Prints a table and, with --json FILE, the figures;
// exit status 1 when the launch overhead is over its budget (1.25x raw).
//
// Launch overhead is host time per enqueue, measured over batches of 1000
// launches of a tiny 4-argument kernel with a synchronize after each batch
// (so the queue never fills); rounds alternate raw/jit and report medians.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jit/driver.hpp"
#include "bench_args.hpp"
#include "launch_timing.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/launcher.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "support/utf8.hpp"

using namespace croq::jit;
using Clock = std::chrono::steady_clock;

namespace {

using croq::bench::median;

// A jit launch may cost at most this much more host time than cuLaunchKernel.
constexpr double kJitOverRawBudget = 1.25;

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

JitRequest tiny_request(const std::string& tag) {
  JitRequest r;
  r.cuda_source = "extern \"C\" __global__ void tiny(float* a, const float* b, int n, float s) {\n"
                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  if (i < n) a[i] = b[i] * s; // " + tag + "\n}\n";
  r.entry = "tiny";
  r.arch = "";
  r.launch.block = {32, 1, 1};
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  croq::bench::BenchArgs args;
  if (!croq::bench::parse_bench_args(argc, argv, "jit_bench", {}, args)) return 2;
  const std::string& json_path = args.json;
  nlohmann::json out;
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("croq-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);

  // Cold NVRTC: a new source each time, no disk cache.
  {
    DiskCacheSettings off;
    off.enabled = false;
    JitCompiler jit(off);
    std::vector<double> ms;
    for (int i = 0; i < 8; ++i) {
      auto t = Clock::now();
      jit.compile(tiny_request("cold-" + std::to_string(i)));
      ms.push_back(us_since(t) / 1000);
    }
    out["cold_nvrtc_first_ms"] = ms[0];
    ms.erase(ms.begin());
    out["cold_nvrtc_median_ms"] = median(ms);
  }
  // Memory hit: same request again in the same process (hashing included).
  DiskCacheSettings on;
  on.dir = dir;
  {
    JitCompiler jit(on);
    jit.compile(tiny_request("hit"));
    std::vector<double> us;
    for (int i = 0; i < 2000; ++i) {
      auto t = Clock::now();
      jit.compile(tiny_request("hit"));
      us.push_back(us_since(t));
    }
    out["memory_hit_us"] = median(us);
  }
  // Disk hit: a fresh compiler (empty memory layer) over the populated dir.
  {
    std::vector<double> us;
    for (int i = 0; i < 200; ++i) {
      JitCompiler jit(on);
      auto t = Clock::now();
      auto k = jit.compile(tiny_request("hit"));
      us.push_back(us_since(t));
      if (k->source != CacheSource::disk) { std::fprintf(stderr, "expected a disk hit\n"); return 1; }
    }
    out["disk_hit_us"] = median(us);
  }
  fs::remove_all(dir);

  std::string why;
  if (!driver_available(&why) || device_count() == 0) {
    out["launch"] = "skipped: " + (why.empty() ? std::string("no CUDA device") : why);
  } else {
    make_current(0);
    out["device"] = device_info(0).name;
    DiskCacheSettings off;
    off.enabled = false;
    JitCompiler jit(off);
    auto kernel = jit.compile(tiny_request("launch"));
    CUfunction fn = load_function(*kernel, 0);
    CUdeviceptr a, b;
    CROQ_CU(cuMemAlloc, &a, 4096);
    CROQ_CU(cuMemAlloc, &b, 4096);
    int n = 32;
    float s = 2;
    void* args[] = {&a, &b, &n, &s};
    LaunchConfig cfg = kernel->launch;
    auto timing = croq::bench::compare_launch_paths(
        [&] { check(driver().cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel"); },
        [&] { launch(*kernel, cfg, args, nullptr, 0); });
    out["raw_launch_us"] = timing.reference_us;
    out["jit_launch_us"] = timing.candidate_us;
    out["jit_over_raw"] = timing.candidate_us / timing.reference_us;
    driver().cuMemFree(a);
    driver().cuMemFree(b);
  }

  std::printf("libcroqjit jit-layer benchmark (NVRTC %s)\n", nvrtc_version().c_str());
  std::printf("  cold NVRTC compile, first in process : %8.1f ms\n", out["cold_nvrtc_first_ms"].get<double>());
  std::printf("  cold NVRTC compile, median           : %8.1f ms\n", out["cold_nvrtc_median_ms"].get<double>());
  std::printf("  memory-hit lookup (median)           : %8.2f us\n", out["memory_hit_us"].get<double>());
  std::printf("  disk-hit lookup (median)             : %8.1f us\n", out["disk_hit_us"].get<double>());
  bool within = true;
  if (out.contains("jit_over_raw")) {
    std::printf("  device                               : %s\n", out["device"].get<std::string>().c_str());
    std::printf("  raw cuLaunchKernel enqueue (median)  : %8.3f us\n", out["raw_launch_us"].get<double>());
    std::printf("  jit launch enqueue (median)          : %8.3f us\n", out["jit_launch_us"].get<double>());
    within = out["jit_over_raw"].get<double>() <= kJitOverRawBudget;
    std::printf("  jit / raw                            : %8.3fx (budget <= %.2fx: %s)\n",
                out["jit_over_raw"].get<double>(), kJitOverRawBudget, within ? "within" : "OVER");
  } else {
    std::printf("  launch overhead                      : %s\n", out["launch"].get<std::string>().c_str());
  }
  out["within_budget"] = within;
  if (!json_path.empty()) std::ofstream(json_path) << croq::support::json_text(out, 2) << "\n";
  return within ? 0 : 1;
}
