// Small helpers shared by the cache tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "jit/disk_cache.hpp"

namespace croq::jit::test {

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
