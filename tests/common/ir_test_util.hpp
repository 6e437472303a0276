// Shared by the IR tests: sample kernels through the middle end.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "frontend/frontend.hpp"
#include "pipeline/specialize.hpp"

namespace croq::ir::test {

inline abi::ArgSignature tensor(DType t, std::vector<std::int64_t> shape) {
  abi::ArgSignature a;
  a.dtype = t;
  a.shape = std::move(shape);
  return a;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The Croqtile source embedded in samples/<sample>.cpp as R"croq( ... )croq".
inline std::string sample_kernel(const std::string& sample) {
  std::string text = read_text(std::string(CROQ_SAMPLES_DIR) + "/" + sample + ".cpp");
  std::size_t begin = text.find("R\"croq(");
  std::size_t end = text.find(")croq\"");
  if (begin == std::string::npos || end == std::string::npos) {
    ADD_FAILURE() << "no R\"croq(...)croq\" kernel in " << sample;
    return {};
  }
  return text.substr(begin + 7, end - begin - 7);
}

// `source`'s entry through bind, lowering and the passes (the IR verifier
// on), for `arch`.
inline pipeline::GeneratedKernel lower_for(const std::string& source, const std::vector<abi::ArgSignature>& args,
                                           const std::string& arch = "sm_90a", std::int64_t max_shared = 227 * 1024) {
  CompileOptions options;
  options.source_name = "kernel.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  pipeline::GenerateOptions g;
  g.keep_ir = true;
  g.verify_ir = true;
  g.max_shared_bytes = max_shared;
  return pipeline::generate(*program, fn, args, target::parse_target(arch), g);
}

inline bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace croq::ir::test
