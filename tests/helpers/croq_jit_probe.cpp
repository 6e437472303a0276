// Compiles one CUDA file through the process-wide jit compiler (configured
// from the environment, like an application) and prints what happened as
// JSON: {"nvrtc_compiles", "memory_hits", "disk_hits", "remote_hits",
// "remote_misses", "remote_errors", "source", "key", "notes", "image_bytes",
// "image_xxh3_64"} (source and notes: the last compile call's). Tests start
// it as a separate process to observe the disk and remote caches.
//
//   croq_jit_probe --source F.cu --entry NAME [--arch sm_90a] [--repeat N]
//                  [--without-bypass] [--define-tag TEXT]
//                  [--ready FILE --barrier FILE] [--image-out FILE]
//
// --without-bypass: enforce permission bits even for root (privileges.hpp),
// after reading the source, so the probe needs no access to the test tree.
// --ready/--barrier: create FILE --ready, then wait for --barrier to exist
// before compiling, so that many probes start together (load tests).
// --image-out: write the image the compiler returned there.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "croq/error.hpp"
#include "jit/jit_compiler.hpp"
#include "privileges.hpp"

int main(int argc, char** argv) {
  std::string source_path, entry, arch = "sm_90a", tag, ready, barrier, image_out;
  int repeat = 1;
  bool without_bypass = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--source") source_path = next();
    else if (a == "--entry") entry = next();
    else if (a == "--arch") arch = next();
    else if (a == "--repeat") repeat = std::stoi(next());
    else if (a == "--without-bypass") without_bypass = true;
    else if (a == "--define-tag") tag = next();
    else if (a == "--ready") ready = next();
    else if (a == "--barrier") barrier = next();
    else if (a == "--image-out") image_out = next();
    else { std::cerr << "unknown argument " << a << "\n"; return 2; }
  }
  std::ifstream in(source_path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "cannot read " << source_path << "\n";
    return 2;
  }
  // Root ignores permission bits; without the bypass a read-only directory
  // is really read-only for this process.
  if (without_bypass && !croq::test::drop_permission_bypass()) {
    std::perror("dropping CAP_DAC_OVERRIDE");
    return 3;
  }
  croq::jit::JitRequest request;
  request.cuda_source = text.str() + (tag.empty() ? "" : "\n// " + tag + "\n");
  request.entry = entry;
  request.arch = arch;
  request.source_name = source_path;
  try {
    auto& jit = croq::jit::JitCompiler::global();  // configured before the barrier: only the compile is timed together
    if (!ready.empty()) std::ofstream(ready) << "ready\n";
    while (!barrier.empty() && !std::filesystem::exists(barrier))
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    std::string source;
    std::shared_ptr<const croq::jit::CompiledKernel> kernel;
    croq::jit::JitLookup lookup;
    for (int r = 0; r < repeat; ++r) {
      kernel = jit.compile(request, &lookup);
      using croq::jit::CacheSource;
      source = lookup.source == CacheSource::disk     ? "disk"
               : lookup.source == CacheSource::memory ? "memory"
               : lookup.source == CacheSource::remote ? "remote"
                                                      : "compiled";
      if (r == 0 && source == "compiled" && kernel->cubin.empty()) return 4;
    }
    if (!image_out.empty()) {
      std::ofstream out(image_out, std::ios::binary);
      out.write(kernel->cubin.data(), static_cast<std::streamsize>(kernel->cubin.size()));
      if (!out) return 5;
    }
    auto stats = jit.stats();
    nlohmann::json out{{"nvrtc_compiles", stats.nvrtc_compiles},
                       {"memory_hits", stats.memory_hits},
                       {"disk_hits", stats.disk_hits},
                       {"remote_hits", stats.remote_hits},
                       {"remote_misses", stats.remote_misses},
                       {"remote_errors", stats.remote_errors},
                       {"source", source},
                       {"key", kernel->key.hex()},
                       {"notes", lookup.notes},
                       {"image_bytes", kernel->cubin.size()},
                       {"image_xxh3_64", croq::support::hex64(croq::support::checksum64(kernel->cubin.data(),
                                                                                       kernel->cubin.size()))},
                       {"disk_enabled", jit.disk().enabled()}};
    std::cout << out.dump() << std::endl;
    return 0;
  } catch (const croq::Error& e) {
    std::cerr << e.what() << std::endl;
    return 1;
  }
}
