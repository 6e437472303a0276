// The one pipeline from Croqtile source to a loaded kernel image, used by
// the public API (croq::compile / Kernel), the croq command, the benchmarks
// and the tests:
//
//   check(source)            parse, pick the entry, sema (every shape-independent
//                            rule), resolve dynamic dims
//   choose_target(arch)      CompileOptions::arch / CROQ_ARCH / the device
//   generate(...)            bind -> lower -> passes -> CUDA (specialize.hpp)
//   build(...)               NVRTC through the two-layer cache (jit)
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/options.hpp"
#include "frontend/ast.hpp"
#include "jit/compiled_kernel.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "pipeline/specialize.hpp"
#include "sema/sema.hpp"
#include "target/target.hpp"

namespace croq::pipeline {

// A program that passed every check that needs no argument shapes.
struct CheckedProgram {
  std::unique_ptr<frontend::ast::Program> program;
  const frontend::ast::Function* function = nullptr;  // the entry
  CompileOptions options;
  // Dynamic dims: where each is read at launch, and every occurrence.
  std::map<std::string, std::vector<abi::DimSource>> dynamic_sources;
  std::string source_hash;  // XXH3-128 of the source text (hex)
  sema::CheckedProgram semantics;  // what sema proved about `function`
};

// Throws CompileError with every error found. Warnings are logged.
std::shared_ptr<const CheckedProgram> check(std::string_view source, const CompileOptions& options);

// sema::check of `fn`, with the arch rules when options.arch names the
// target (a malformed or unsupported arch is then a CompileError too).
sema::CheckedProgram check_semantics(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                                     const CompileOptions& options);

// What a specialization compiles for, and the device limit it must fit.
struct TargetChoice {
  target::Target target;
  std::int64_t max_shared_bytes = 227 * 1024;
};

// `requested` is CompileOptions::arch: "" or "auto" means CROQ_ARCH, else
// the architecture of `device` (when a driver and that device are present),
// else sm_90a. The shared-memory limit is the device's when there is one.
// Throws CompileError for a malformed arch or one this NVRTC cannot target.
TargetChoice choose_target(const std::string& requested, int device);

// A specialization: the generated kernels and their compiled images, in
// launch order.
struct Built {
  GeneratedProgram generated;
  std::vector<std::shared_ptr<const jit::CompiledKernel>> compiled;
  std::vector<jit::JitLookup> lookups;  // per kernel: where its image came from, and why
};

// Generates (pipeline::generate_program) and compiles each kernel through the JIT cache.
// A dynamic dim's extents in `args` may be the call's (bound once: checked
// against the other arguments, then left unbound) or -1.
// Warnings are logged once, when the code is generated. With `require_hit`
// a kernel that no cache layer has is a jit::CacheMiss instead of a compile.
Built build(const CheckedProgram& checked, const std::vector<abi::ArgSignature>& args, const TargetChoice& target,
            bool require_hit = false);

// NVRTC on generated code, without the cache (croq compile --emit ptx|cubin);
// NVRTC errors in copied device code point at the user's source.
jit::NvrtcOutput compile_image(const CheckedProgram& checked, const GeneratedKernel& generated,
                               const TargetChoice& target);

// generate_program() for a checked program (its entry, options and dynamic
// dims); with `keep_ir`, each kernel's IR text after stage `ir_after`
// (GenerateOptions).
GeneratedProgram generate(const CheckedProgram& checked, const std::vector<abi::ArgSignature>& args,
                          const TargetChoice& target, bool keep_ir = false, const std::string& ir_after = "",
                          ir::IrDetail ir_detail = ir::IrDetail::summary);

}  // namespace croq::pipeline
