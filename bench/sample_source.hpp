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
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string open = "R\"croq(", close = ")croq\"";
  const std::size_t begin = text.find(open);
  const std::size_t end = begin == std::string::npos ? begin : text.find(close, begin);
  if (end == std::string::npos || text.find(open, end) != std::string::npos)
    throw std::runtime_error(path + " does not hold exactly one R\"croq(...)croq\" source");
  return text.substr(begin + open.size(), end - begin - open.size());
}

}  // namespace croq::bench
