#include "pipeline/specialize.hpp"

#include <cstdio>

#include "backend/cuda/cuda_backend.hpp"
#include "bind/bind.hpp"
#include "ir/parser.hpp"
#include "ir/verifier.hpp"
#include "lower/lower.hpp"
#include "passes/passes.hpp"
#include "pipeline/generated_dump.hpp"
#include "support/env.hpp"

namespace croq::pipeline {

namespace {

// A point between stages: "lower" or a pass's name; an Error naming the
// stages for anything else. `what` says where the name came from.
std::string checked_stage(const std::string& name, const std::string& what) {
  if (name == passes::kLowered || passes::find_pass(name)) return name;
  throw Error(what + " names no stage; the stages are " + passes::stage_names());
}

// What happens between stages: the verifier, CROQ_PRINT_IR_AFTER and the
// IR text a caller keeps.
class StageWatch {
 public:
  StageWatch(const frontend::ast::Program& program, const GenerateOptions& options)
      : program_(program), options_(options) {
#ifndef NDEBUG
    verify_ = true;
#else
    verify_ = options.verify_ir || verify_ir_requested();
#endif
    if (auto env = support::env_string("CROQ_PRINT_IR_AFTER"))
      print_after_ = *env == "all" ? *env : checked_stage(*env, "CROQ_PRINT_IR_AFTER=" + *env);
    if (options.keep_ir && !options.ir_after.empty()) checked_stage(options.ir_after, "ir_after=" + options.ir_after);
  }

  // After stage `stage`, whose decisions and the earlier stages' are `made`.
  void after(std::string_view stage, const ir::Kernel& kernel, ir::Decisions made, GeneratedKernel& generated) const {
    if (verify_) check(stage, kernel, made);
    if (print_after_ == "all" || print_after_ == stage) {
      const std::string text = "// CROQ_PRINT_IR_AFTER: after " + std::string(stage) + "\n" +
                               ir::print_kernel(kernel, ir::IrDetail::full);
      std::fwrite(text.data(), 1, text.size(), stderr);
    }
    const auto list = options_.passes.empty() ? passes::pass_list() : options_.passes;
    const bool last = stage == list.back().name;
    if (options_.keep_ir && (options_.ir_after.empty() ? last : options_.ir_after == stage))
      generated.ir = ir::print_kernel(kernel, options_.ir_detail);
  }

 private:
  // The verifier's problems, then whether the IR's full text reads back as
  // the same kernel (what CROQ_PRINT_IR_AFTER shows and tests/passes/ holds
  // must be all a pass sees). A text past 1 MiB (runaway expressions that
  // the backend's 4 MiB cap then refuses; the samples' largest is 24 KB) is
  // not read back: that would take seconds per stage.
  void check(std::string_view stage, const ir::Kernel& kernel, ir::Decisions made) const {
    std::vector<std::string> problems = ir::verify(kernel, made);
    if (!problems.empty()) fail(stage, kernel, std::move(problems));
    const std::string text = ir::print_kernel(kernel, ir::IrDetail::full);
    if (text.size() > (std::size_t{1} << 20)) return;
    std::string again;
    try {
      again = ir::print_kernel(ir::parse_kernel(text), ir::IrDetail::full);
    } catch (const Error& e) {
      fail(stage, kernel, {std::string("its text does not read back: ") + e.what()});
    }
    if (again != text) fail(stage, kernel, {"its text reads back as another kernel: " + first_difference(text, again)});
  }

  // "line N `printed` reads back as `reprinted`".
  static std::string first_difference(const std::string& printed, const std::string& reprinted) {
    std::size_t at = 0, line = 1;
    while (at < printed.size() && at < reprinted.size() && printed[at] == reprinted[at])
      if (printed[at++] == '\n') ++line;
    // Both share the text before `at`, so the line starts at the same place.
    const std::size_t from = at == 0 ? 0 : printed.rfind('\n', at - 1) + 1;  // npos + 1: the first line
    const auto line_of = [&](const std::string& text) { return text.substr(from, text.find('\n', from) - from); };
    return "line " + std::to_string(line) + " `" + line_of(printed) + "` reads back as `" + line_of(reprinted) + "`";
  }

  [[noreturn]] void fail(std::string_view stage, const ir::Kernel& kernel, std::vector<std::string> problems) const {
    const std::string when = stage == passes::kLowered ? "after lowering" : "after pass `" + std::string(stage) + "`";
    std::string what = "internal error: invalid IR for `" + kernel.function + "` " + when + ": " + problems.front();
    if (problems.size() > 1) what += " (and " + std::to_string(problems.size() - 1) + " more)";
    std::vector<std::string> notes(problems.begin() + 1, problems.end());
    notes.push_back("the IR " + when + ":\n" + ir::print_kernel(kernel, ir::IrDetail::full));
    throw CompileError({Diagnostic{Severity::error, what, 0, 0, 1, "please report this with the source", "", notes}},
                       program_.source, program_.source_name);
  }

  const frontend::ast::Program& program_;
  const GenerateOptions& options_;
  bool verify_ = false;
  std::string print_after_;
};

}  // namespace

bool verify_ir_requested() { return support::env_flag("CROQ_VERIFY_IR", false); }

GeneratedProgram generate_program(const frontend::ast::Program& program, const frontend::ast::Function& function,
                                  const std::vector<abi::ArgSignature>& args, const target::Target& target,
                                  const GenerateOptions& options) {
  const StageWatch watch(program, options);
  const passes::PassContext context{target, options.max_shared_bytes};
  GeneratedProgram out;
  bind::BoundFunction bound = bind::bind_function(program, function, args, options.dynamic_dims);
  std::optional<sema::CheckedProgram> checked_here;
  bound.semantics = options.semantics;
  if (!bound.semantics) {  // a caller that skipped sema (tests): its facts, errors or not
    sema::Options checks;
    checks.target = target;
    checks.keep_going = true;
    checked_here = sema::check(program, {&function}, checks);
    bound.semantics = checked_here->find(function.name);
  }
  const int count = lower::kernel_count(function);
  out.host = host::lower_host(bound, count);
  for (int k = 0; k < count; ++k) {
    GeneratedKernel& generated = out.kernels.emplace_back();
    try {
      ir::Kernel kernel = lower::lower_function(bound, target, generated.warnings, k);
      ir::Decisions made;
      watch.after(passes::kLowered, kernel, made, generated);
      for (const passes::Pass& pass : options.passes.empty() ? passes::pass_list() : options.passes) {
        pass.run(kernel, context);
        made = made | pass.decides;
        watch.after(pass.name, kernel, made, generated);
      }
      passes::complete_launch_abi(kernel, target);
      generated.cuda_source = backend::cuda::emit_kernel(kernel);
      static_cast<abi::KernelAbi&>(generated) = std::move(kernel.abi);
      generated.needs_sm90 = kernel.needs_sm90;
      if (const std::string& dir = generated_dump_dir(); !dir.empty())
        dump_generated(dir, program, function, bound.args, target, options, k, generated);
      if (options.keep_kernel) generated.kernel = std::make_shared<const ir::Kernel>(std::move(kernel));
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
