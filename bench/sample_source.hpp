// The Croqtile source of a sample program (samples/<name>.cpp: the text
// between its R"croq( and )croq" delimiters), so that benchmarks measure
// the kernels the samples check.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#ifndef CROQ_SAMPLES_DIR
#define CROQ_SAMPLES_DIR "samples"
#endif

namespace croq::bench {

inline std::string sample_source(const std::string& sample) {
  const std::string path = std::string(CROQ_SAMPLES_DIR) + "/" + sample + ".cpp";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::size_t open = text.find("R\"croq("), close = text.find(")croq\"");
  if (open == std::string::npos || close == std::string::npos || close < open)
    throw std::runtime_error("no R\"croq( ... )croq\" source in " + path);
  return text.substr(open + 7, close - open - 7);
}

}  // namespace croq::bench
