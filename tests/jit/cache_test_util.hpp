// Small helpers shared by the cache tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/files.hpp"
#include "common/process.hpp"
#include "jit/disk_cache.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::jit::test {

using croq::test::read_file;

inline const std::string kSaxpyPath = CROQ_TEST_DATA_DIR "/jit/saxpy.cu";

// saxpy.cu with `tag` appended as a comment: a new kernel for each tag.
inline JitRequest saxpy_request(const std::string& tag = "") {
  JitRequest r;
  r.cuda_source = read_file(kSaxpyPath) + (tag.empty() ? "" : "\n// " + tag + "\n");
  r.entry = "saxpy";
  r.arch = "sm_90a";
  r.source_name = "saxpy.cu";
  return r;
}

inline std::string tiny_kernel_source(const std::string& name) {
  return "extern \"C\" __global__ void " + name + "(int* p) { p[0] = 7; }\n";
}

// A one-line kernel named `name`: a cache entry of its own per name.
inline JitRequest tiny_kernel(const std::string& name, const std::string& arch = "sm_90a") {
  JitRequest r;
  r.cuda_source = tiny_kernel_source(name);
  r.entry = name;
  r.arch = arch;
  return r;
}

// croq-cache --dir DIR ARGS...
inline croq::test::ProcessResult croq_cache(const std::filesystem::path& dir, std::vector<std::string> args) {
  croq::test::TempDir logs;
  args.insert(args.begin(), {CROQ_BINARY_DIR "/cache/croq-cache", "--dir", dir.string()});
  return croq::test::run_process(args, {}, logs.path());
}

inline DiskCacheSettings cache_in(const std::filesystem::path& dir, bool shared = false) {
  DiskCacheSettings s;
  s.dir = dir;
  s.shared = shared;
  return s;
}


}  // namespace croq::jit::test
