// Compiles one CUDA file through the process-wide jit compiler (configured
// from the environment, like an application) and prints what happened as
// JSON: {"nvrtc_compiles", "memory_hits", "disk_hits", "source", "notes", "key"}
// (source and notes: the last compile call's).
// Tests start it as a separate process to observe the disk cache.
//
//   croq_jit_probe --source F.cu --entry NAME [--arch sm_90a] [--repeat N]
//                  [--without-bypass] [--define-tag TEXT]
//
// --without-bypass: enforce permission bits even for root (privileges.hpp),
// after reading the source, so the probe needs no access to the test tree.
#include <unistd.h>

#include <cstdio>
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
  std::string source_path, entry, arch = "sm_90a", tag;
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
    std::string source;
    std::string key;
    croq::jit::JitLookup lookup;
    for (int r = 0; r < repeat; ++r) {
      auto kernel = croq::jit::JitCompiler::global().compile(request, &lookup);
      key = kernel->key.hex();
      source = lookup.source == croq::jit::CacheSource::disk     ? "disk"
               : lookup.source == croq::jit::CacheSource::memory ? "memory"
               : lookup.source == croq::jit::CacheSource::remote ? "remote"
                                                                 : "compiled";
      if (r == 0 && source == "compiled" && kernel->cubin.empty()) return 4;
    }
    auto stats = croq::jit::JitCompiler::global().stats();
    nlohmann::json out{{"nvrtc_compiles", stats.nvrtc_compiles},
                       {"memory_hits", stats.memory_hits},
                       {"disk_hits", stats.disk_hits},
                       {"source", source},
                       {"notes", lookup.notes},
                       {"key", key},
                       {"disk_enabled", croq::jit::JitCompiler::global().disk().enabled()}};
    std::cout << out.dump() << std::endl;
    return 0;
  } catch (const croq::Error& e) {
    std::cerr << e.what() << std::endl;
    return 1;
  }
}
