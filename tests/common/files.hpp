// Files the tests read and write: one reader, one writer, and the Croqtile
// source of a sample program (the extraction the benchmarks use too,
// bench/sample_source.hpp).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../../bench/sample_source.hpp"

namespace croq::test {

// The bytes of `path` ("" when it cannot be read: tests compare the text).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to `dir`/`name` and returns the file's path.
inline std::string write_file(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The Croqtile source embedded in samples/<sample>.cpp as R"croq( ... )croq"
// (std::runtime_error when the file has not exactly one).
inline std::string sample_source(const std::string& sample) { return croq::bench::sample_source(sample); }

}  // namespace croq::test
