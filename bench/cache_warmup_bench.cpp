// How long a fresh process takes to have the GEMM kernel ready to launch
// (croq::compile + prepare for one shape, the module loaded where there is
// a GPU; compiled only where there is none), by where its cubin comes from:
//
//   compile        an empty cache: NVRTC compiles it
//   bundle_disk    an empty cache and CROQ_CACHE_PRELOAD=BUNDLE: the bundle
//                  is verified and imported into the disk cache, then a disk hit
//   bundle_memory  CROQ_CACHE=0 and CROQ_CACHE_PRELOAD=BUNDLE: served from memory
//   disk           the cache directory has it already (steady state)
//
// Each run is a new process (this program again, with --child), so the
// library's one-time costs count as they do for a replica; the figure is
// the median over the runs of the time from the child's main() to ready,
// and of the whole process's wall time. The kernel is the persistent f16
// GEMM of samples/matmul_persistent.cpp at M = N = K = 4096.
//   cache_warmup_bench [--json FILE]
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_args.hpp"
#include "sample_source.hpp"
#include "croq/croq.hpp"
#include "jit/cache_bundle.hpp"
#include "launch_timing.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr int kRuns = 5;
constexpr std::int64_t kSize = 4096;

// The child: ready the kernel, print {"ready_ms", "source"}.
int child(Clock::time_point started) {
  try {
    const croq::Kernel k = croq::compile(croq::bench::sample_source("matmul_persistent"));
    const croq::Shape shape{static_cast<std::size_t>(kSize), static_cast<std::size_t>(kSize)};
    std::vector<croq::Arg> args;
    for (int i = 0; i < 3; ++i) args.emplace_back(croq::TensorView::contiguous(nullptr, croq::DType::f16, shape));
    k.prepare(args);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    const croq::SpecializationStats s = k.stats().specializations.at(0);
    std::cout << nlohmann::json{{"ready_ms", ms}, {"source", croq::image_source_name(s.source)},
                                {"compile_ms", s.compile_ms}}.dump()
              << std::endl;
    return 0;
  } catch (const croq::Error& e) {
    std::cerr << "cache_warmup_bench: " << e.what() << "\n";
    return 1;
  }
}

struct ChildResult {
  double ready_ms = 0, process_ms = 0, compile_ms = 0;
  std::string source;
};

// Runs this program with --child and `env` on top of the current environment.
ChildResult run_child(const std::string& self, const std::map<std::string, std::string>& env, const fs::path& out) {
  std::vector<std::string> strings;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (!env.count(kv.substr(0, kv.find('=')))) strings.push_back(kv);
  }
  for (const auto& [k, v] : env) strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv{const_cast<char*>(self.c_str()), const_cast<char*>("--child"), nullptr};
  for (auto& s : strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const auto started = Clock::now();
  pid_t pid = -1;
  if (posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0)
    throw std::runtime_error("cannot start " + self);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ChildResult r;
  r.process_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("a child run failed");
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  r.ready_ms = j["ready_ms"];
  r.compile_ms = j["compile_ms"];
  r.source = j["source"];
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = Clock::now();
  if (argc == 2 && std::string(argv[1]) == "--child") return child(started);
  croq::bench::BenchArgs args;
  if (!croq::bench::parse_bench_args(argc, argv, "cache_warmup_bench", {}, args)) return 2;
  const std::string self = fs::canonical("/proc/self/exe").string();
  const fs::path work = fs::temp_directory_path() / ("croq-warmup-bench-" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  int fresh = 0;
  auto new_dir = [&] { return (work / ("cache-" + std::to_string(fresh++))).string(); };
  const fs::path out = work / "child.json";

  // The bundle: the kernel compiled once into a cache, exported.
  const std::string bundled_cache = new_dir();
  run_child(self, {{"CROQ_CACHE_DIR", bundled_cache}, {"CROQ_CACHE", "1"}}, out);
  croq::jit::DiskCacheSettings settings;
  settings.dir = bundled_cache;
  std::size_t skipped = 0;
  const auto entries = croq::jit::DiskCache(settings).read_entries({}, &skipped);
  const fs::path bundle = work / "gemm.croqbundle";
  croq::jit::write_bundle(bundle, entries);

  struct Scenario {
    const char* name;
    std::function<std::map<std::string, std::string>()> env;
  };
  const std::vector<Scenario> scenarios{
      {"compile", [&] { return std::map<std::string, std::string>{{"CROQ_CACHE_DIR", new_dir()}, {"CROQ_CACHE", "1"}}; }},
      {"bundle_disk", [&] {
         return std::map<std::string, std::string>{
             {"CROQ_CACHE_DIR", new_dir()}, {"CROQ_CACHE", "1"}, {"CROQ_CACHE_PRELOAD", bundle.string()}};
       }},
      {"bundle_memory", [&] {
         return std::map<std::string, std::string>{
             {"CROQ_CACHE_DIR", new_dir()}, {"CROQ_CACHE", "0"}, {"CROQ_CACHE_PRELOAD", bundle.string()}};
       }},
      {"disk", [&] { return std::map<std::string, std::string>{{"CROQ_CACHE_DIR", bundled_cache}, {"CROQ_CACHE", "1"}}; }},
  };
  nlohmann::json results;
  results["kernel"] = "samples/matmul_persistent.cpp, f16, M = N = K = " + std::to_string(kSize);
  results["bundle_bytes"] = fs::file_size(bundle);
  results["runs"] = kRuns;
  results["gpu"] = croq::cuda_available();
  std::printf("%-14s %-9s %12s %14s %12s\n", "scenario", "source", "ready (ms)", "process (ms)", "nvrtc (ms)");
  for (const Scenario& s : scenarios) {
    std::vector<double> ready, process, nvrtc;
    std::string source;
    for (int i = 0; i < kRuns; ++i) {
      const ChildResult r = run_child(self, s.env(), out);
      ready.push_back(r.ready_ms);
      process.push_back(r.process_ms);
      nvrtc.push_back(r.compile_ms);
      source = r.source;
    }
    const double ready_ms = croq::bench::median(ready), process_ms = croq::bench::median(process);
    std::printf("%-14s %-9s %12.1f %14.1f %12.1f\n", s.name, source.c_str(), ready_ms, process_ms,
                croq::bench::median(nvrtc));
    results[s.name] = {{"source", source}, {"ready_ms_median", ready_ms}, {"process_ms_median", process_ms},
                       {"ready_ms", ready}, {"process_ms", process}};
  }
  const double compile = results["compile"]["ready_ms_median"], bundle_disk = results["bundle_disk"]["ready_ms_median"];
  results["bundle_disk_over_compile"] = bundle_disk / compile;
  std::printf("a fresh process is ready from a bundle in %.3fx the time of compiling (bundle %.1f KiB)\n",
              bundle_disk / compile, fs::file_size(bundle) / 1024.0);
  fs::remove_all(work);
  if (!args.json.empty()) std::ofstream(args.json) << results.dump(2) << "\n";
  return 0;
}
