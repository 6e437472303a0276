// The persistent GEMM of Croqtile's own README, for the test and the
// benchmark that run it as written: the first fenced code block holding a
// __co__ function, with only the #defines the README leaves to the user. The
// project does not carry upstream's text; callers name the README file.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

// The README GEMM's output tile, as the #defines below set it.
inline constexpr long kReadmeGemmTileM = 64, kReadmeGemmTileN = 128;

// The whole text of a file; false with `error` set when it cannot be read.
inline bool read_text_file(const std::string& path, std::string& text, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read " + path;
    return false;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

// Empty with `error` set when the file cannot be read or has no such block.
inline std::string upstream_readme_gemm_source(const std::string& path, std::string& error) {
  std::string readme;
  if (!read_text_file(path, readme, error)) return "";
  std::string code;
  for (std::size_t open = readme.find("```"); open != std::string::npos && code.empty();) {
    const std::size_t body = readme.find('\n', open);
    const std::size_t close = body == std::string::npos ? body : readme.find("\n```", body);
    if (close == std::string::npos) break;
    std::string block = readme.substr(body + 1, close - body);
    if (block.find("__co__") != std::string::npos) code = block;
    open = readme.find("```", close + 4);
  }
  if (code.empty()) {
    error = "no __co__ code block in " + path;
    return "";
  }
  return "#define WARP_M 64\n#define WARP_N 128\n#define TILE_K 64\n#define NUM_SMS 132\n" + code;
}
