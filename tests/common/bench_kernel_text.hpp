// The text of a benchmark kernel (bench/harness/kernels/FILE) with its
// element type replaced, as bench/harness/kernel_text.py does, so the tests
// check the kernels the benchmarks time.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace croq::test {

// `file` with the element type `written` (a whole word) replaced by `element`.
inline std::string bench_kernel_text(const std::string &file,
                                     const std::string &written,
                                     const std::string &element) {
  std::ifstream in(std::string(CROQ_SAMPLES_DIR) +
                   "/../bench/harness/kernels/" + file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty())
      << "cannot read bench/harness/kernels/" << file;
  return std::regex_replace(text.str(), std::regex("\\b" + written + "\\b"),
                            element);
}

} // namespace croq::test
