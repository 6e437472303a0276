// Small helpers shared by the cache tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "jit/disk_cache.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::jit::test {

inline const std::string kSaxpyPath = CROQ_TEST_DATA_DIR "/jit/saxpy.cu";

// saxpy.cu with `tag` appended as a comment: a new kernel for each tag.
inline JitRequest saxpy_request(const std::string& tag = "") {
  std::ifstream in(kSaxpyPath);
  std::stringstream ss;
  ss << in.rdbuf();
  JitRequest r;
  r.cuda_source = ss.str() + (tag.empty() ? "" : "\n// " + tag + "\n");
  r.entry = "saxpy";
  r.arch = "sm_90a";
  r.source_name = "saxpy.cu";
  return r;
}

inline DiskCacheSettings cache_in(const std::filesystem::path& dir, bool shared = false) {
  DiskCacheSettings s;
  s.dir = dir;
  s.shared = shared;
  return s;
}

inline std::string read_file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace croq::jit::test
