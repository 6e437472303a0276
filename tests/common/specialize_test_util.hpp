// Shared by the specialization tests: Croqtile source and a call signature
// through pipeline::generate (bind, lower, passes, CUDA backend).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/arg_signature.hpp"
#include "common/files.hpp"
#include "pipeline/specialize.hpp"
#include "croq/error.hpp"
#include "croq/options.hpp"
#include "frontend/frontend.hpp"

namespace croq::pipeline {
// The kernel ABI's types by their short names, as the tests spell them.
using abi::ArgSignature;
using abi::DimSource;
using abi::KernelParam;
using abi::RuntimeGrid;
}  // namespace croq::pipeline

namespace croq::pipeline::test {

using croq::test::read_file;
using croq::test::sample_source;
using croq::test::integer_scalar;
using croq::test::stream_argument;
using croq::test::tensor;

// pipeline::generate for `arch` with the IR verifier on, keeping the IR
// (GeneratedKernel::ir) for tests of lowering decisions.
inline GeneratedKernel generate_cuda(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                                     const std::vector<ArgSignature>& args, std::int64_t max_shared_bytes,
                                     const std::vector<std::string>& dynamic_dims = {},
                                     const std::string& arch = "sm_90a") {
  GenerateOptions options;
  options.max_shared_bytes = max_shared_bytes;
  options.dynamic_dims = dynamic_dims;
  options.verify_ir = true;
  options.keep_ir = true;
  return pipeline::generate(program, fn, args, target::parse_target(arch), options);
}

// How often `what` occurs in `text` (overlapping occurrences count).
inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The DType a Croqtile type name spells (a test failure when it is none).
inline DType dtype_of(const std::string& name) {
  DType t = DType::f32;
  EXPECT_TRUE(parse_dtype(name, t)) << name;
  return t;
}

// Parses `source` and generates its entry function for `args`.
inline GeneratedKernel generate(const std::string& source, const std::vector<ArgSignature>& args,
                                const std::string& name = "sample.co") {
  CompileOptions options;
  options.source_name = name;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, args, 227 * 1024);
}

// A misuse case's CompileError: exactly one error diagnostic with the
// case's message, hint, line and column (any type with those members).
template <typename Case>
void expect_single_error(const CompileError& e, const Case& c) {
  ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
  const Diagnostic& d = e.diagnostics()[0];
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.message, c.message) << e.what();
  EXPECT_EQ(d.hint, c.hint) << e.what();
  EXPECT_EQ(d.line, c.line) << e.what();
  EXPECT_EQ(d.column, c.column) << e.what();
}

}  // namespace croq::pipeline::test
