// Shared by the IR tests: sample kernels through the middle end.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "common/arg_signature.hpp"
#include "common/files.hpp"
#include "frontend/frontend.hpp"
#include "pipeline/specialize.hpp"

namespace croq::ir::test {

using croq::test::read_file;
using croq::test::sample_source;
using croq::test::integer_scalar;
using croq::test::tensor;

// `source`'s entry through bind, lowering and the passes with options `g`
// (the IR kept and the verifier on), for `arch`.
inline pipeline::GeneratedKernel lower_with(const std::string& source, const std::vector<abi::ArgSignature>& args,
                                            const std::string& arch, pipeline::GenerateOptions g) {
  CompileOptions options;
  options.source_name = "kernel.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  g.keep_ir = true;
  g.verify_ir = true;
  return pipeline::generate(*program, fn, args, target::parse_target(arch), g);
}

// lower_with for `arch`; its IR text is the one after stage `ir_after` (the
// last pass when empty).
inline pipeline::GeneratedKernel lower_for(const std::string& source, const std::vector<abi::ArgSignature>& args,
                                           const std::string& arch = "sm_90a", std::int64_t max_shared = 227 * 1024,
                                           const std::string& ir_after = "") {
  pipeline::GenerateOptions g;
  g.max_shared_bytes = max_shared;
  g.ir_after = ir_after;
  return lower_with(source, args, arch, std::move(g));
}

inline bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace croq::ir::test
