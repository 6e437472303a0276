// Specialization: a checked __co__ function and one call signature ->
// CUDA text and its kernel ABI, through the middle end:
//   bind (dims against the signature) -> lower (tile IR) -> passes -> backend.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/error.hpp"
#include "frontend/ast.hpp"
#include "host/host_program.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "sema/sema.hpp"
#include "target/target.hpp"

namespace croq::pipeline {

// The CUDA text and the kernel ABI (entry, launch, parameters, output) of
// one specialization.
struct GeneratedKernel : abi::KernelAbi {
  std::string cuda_source;
  std::vector<Diagnostic> warnings;
  // The first construct that needs sm_90 (TMA, clusters, WGMMA), if any.
  std::optional<Diagnostic> needs_sm90;
  std::string ir;  // the IR after the passes (or GenerateOptions::ir_after), when asked for
  // The IR after the passes, when GenerateOptions::keep_kernel asks (interpret mode).
  std::shared_ptr<const ir::Kernel> kernel;
};

// A function's kernels (lower::kernel_count), launched in this order on one
// stream; they share the arguments, the output and the scratch buffers.
struct GeneratedProgram {
  std::vector<GeneratedKernel> kernels;
  // What a call runs on the host: the launches of `kernels`, and a host
  // program's statements around them (host/host_program.hpp).
  host::Program host;
};

struct GenerateOptions {
  std::int64_t max_shared_bytes = 227 * 1024;
  std::vector<std::string> dynamic_dims;
  // Keep the IR text in GeneratedKernel::ir: after stage `ir_after`
  // (passes::kLowered or a pass's name; empty: after the last pass), in
  // `ir_detail`. An unknown stage is an Error naming the stages.
  bool keep_ir = false;
  std::string ir_after;
  ir::IrDetail ir_detail = ir::IrDetail::summary;
  // Keep the IR after the passes in GeneratedKernel::kernel (the interpreter runs it).
  bool keep_kernel = false;
  // Run the IR verifier after lowering and after every pass; also on in
  // debug builds and under CROQ_VERIFY_IR=1. A violation is an internal
  // error naming the stage, with the IR.
  bool verify_ir = false;
  // The passes to run, in order; empty: passes::pass_list(). (Tests put a
  // faulty pass in to see the verifier name it.)
  std::span<const passes::Pass> passes;
  // Sema's facts of `function` (pipeline::CheckedProgram::semantics) when
  // they were checked for this target; null: generate_program checks the
  // function for the target itself (tests, and programs checked without an
  // arch), so lowering always reads sema's facts.
  const sema::CheckedFunction* semantics = nullptr;
};

// Whether CROQ_VERIFY_IR asks for the verifier (yes/no spellings; unset: no).
bool verify_ir_requested();

// Throws ArgumentError for a signature that does not fit the parameters and
// CompileError (with source locations) for what cannot be lowered.
GeneratedProgram generate_program(const frontend::ast::Program& program, const frontend::ast::Function& function,
                                  const std::vector<abi::ArgSignature>& args, const target::Target& target,
                                  const GenerateOptions& options = {});

// generate_program for a function of one kernel (an Error for more).
GeneratedKernel generate(const frontend::ast::Program& program, const frontend::ast::Function& function,
                         const std::vector<abi::ArgSignature>& args, const target::Target& target,
                         const GenerateOptions& options = {});

}  // namespace croq::pipeline
