#include "pipeline/specialize.hpp"

#include "backend/cuda/cuda_backend.hpp"
#include "bind/bind.hpp"
#include "ir/printer.hpp"
#include "lower/lower.hpp"
#include "passes/passes.hpp"

namespace croq::pipeline {

namespace {

void check_ir(const frontend::ast::Program& program, const ir::Kernel& kernel, ir::VerifyStage stage) {
  std::vector<std::string> problems = ir::verify(kernel, stage);
  if (problems.empty()) return;
  std::string what = "internal error: invalid IR for `" + kernel.function + "` (" +
                     (stage == ir::VerifyStage::lowered ? "after lowering" : "after the passes") + "): " + problems.front();
  if (problems.size() > 1) what += " (and " + std::to_string(problems.size() - 1) + " more)";
  throw CompileError({Diagnostic{Severity::error, what, 0, 0, 1, "please report this with the source"}}, program.source,
                     program.source_name);
}

}  // namespace

GeneratedProgram generate_program(const frontend::ast::Program& program, const frontend::ast::Function& function,
                                  const std::vector<abi::ArgSignature>& args, const target::Target& target,
                                  const GenerateOptions& options) {
#ifndef NDEBUG
  const bool verify = true;
#else
  const bool verify = options.verify_ir;
#endif
  GeneratedProgram out;
  bind::BoundFunction bound = bind::bind_function(program, function, args, options.dynamic_dims);
  const int count = lower::kernel_count(function);
  for (int k = 0; k < count; ++k) {
    GeneratedKernel& generated = out.kernels.emplace_back();
    try {
      ir::Kernel kernel =
          lower::lower_function(bound, target, generated.warnings, backend::cuda::expression_text_size, k);
      if (verify) check_ir(program, kernel, ir::VerifyStage::lowered);
      passes::run_passes(kernel, target, options.max_shared_bytes);
      if (verify) check_ir(program, kernel, ir::VerifyStage::final);
      generated.cuda_source = backend::cuda::emit_kernel(kernel);
      if (options.keep_ir) generated.ir = ir::print_kernel(kernel);
      static_cast<abi::KernelAbi&>(generated) = std::move(kernel.abi);
      generated.needs_sm90 = kernel.needs_sm90;
    } catch (const ir::SourceError& e) {
      throw CompileError({Diagnostic{Severity::error, e.message, e.where.line, e.where.column, e.where.length, e.hint, "",
                                     bind::derivation_notes(bound, e.where.line)}},
                         program.source, program.source_name);
    }
  }
  return out;
}

GeneratedKernel generate(const frontend::ast::Program& program, const frontend::ast::Function& function,
                         const std::vector<abi::ArgSignature>& args, const target::Target& target,
                         const GenerateOptions& options) {
  GeneratedProgram generated = generate_program(program, function, args, target, options);
  if (generated.kernels.size() != 1)
    throw Error("internal error: `" + function.name + "` is a program of " + std::to_string(generated.kernels.size()) +
                " kernels; use generate_program");
  return std::move(generated.kernels.front());
}

}  // namespace croq::pipeline
