#include "pipeline/pipeline.hpp"

#include <mutex>

#include "bind/bind.hpp"
#include "frontend/frontend.hpp"
#include "jit/driver.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "support/env.hpp"
#include "support/hash.hpp"
#include "support/log.hpp"

namespace croq::pipeline {

std::shared_ptr<const CheckedProgram> check(std::string_view source, const CompileOptions& options) {
  auto checked = std::make_shared<CheckedProgram>();
  checked->options = options;
  checked->program = frontend::parse_program(source, options);
  checked->function = &frontend::select_entry(*checked->program, options, checked->program->source);
  for (const Diagnostic& w : checked->program->warnings)
    support::log().warn("{}", render_diagnostics({w}, checked->program->source, checked->program->source_name));
  checked->semantics = check_semantics(*checked->program, *checked->function, options);
  checked->dynamic_sources = bind::dynamic_dim_sources(*checked->program, *checked->function, options.dynamic_dims);
  support::Hasher128 h;
  h.field(source);
  checked->source_hash = h.digest().hex();
  return checked;
}

sema::CheckedProgram check_semantics(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                                     const CompileOptions& options) {
  sema::Options checks;
  if (!options.arch.empty() && options.arch != "auto") {
    checks.target = target::parse_target(options.arch);  // a malformed name, before NVRTC's list
    jit::validate_arch(options.arch);
  } else if (auto env = support::env_string("CROQ_ARCH"); env && *env != "auto") {
    // The arch the first call will use: refused now, not at that call.
    try {
      target::parse_target(*env);
      jit::validate_arch(*env);
    } catch (const CompileError& e) {
      std::vector<Diagnostic> named = e.diagnostics();
      for (Diagnostic& d : named) d.message = "CROQ_ARCH=" + *env + ": " + d.message;
      throw CompileError(std::move(named), e.source(), "<environment>");
    }
  }
  return sema::check(program, {&fn}, checks);
}

TargetChoice choose_target(const std::string& requested, int device) {
  TargetChoice choice;
  std::string arch = requested == "auto" ? std::string() : requested;
  if (arch.empty())
    if (auto env = support::env_string("CROQ_ARCH"); env && *env != "auto") arch = *env;
  std::string why;
  const bool has_device = jit::driver_available(&why) && device >= 0 && jit::device_count() > device;
  if (has_device) {
    const jit::DeviceInfo& info = jit::device_info(device);
    choice.max_shared_bytes = info.max_shared_per_block_optin;
    if (arch.empty()) arch = target::arch_for_compute_capability(info.cc_major, info.cc_minor);
  }
  if (arch.empty()) {
    static std::once_flag once;
    std::call_once(once, [&] {
      support::log().info("no CUDA device ({}); compiling for sm_90a (set CROQ_ARCH to choose)", why);
    });
    arch = "sm_90a";
  }
  choice.target = target::parse_target(arch);  // a malformed name, before NVRTC's list
  if (!has_device) choice.max_shared_bytes = choice.target.max_shared_bytes_per_block();
  jit::validate_arch(arch);
  return choice;
}

GeneratedProgram generate(const CheckedProgram& checked, const std::vector<abi::ArgSignature>& args,
                          const TargetChoice& target, bool keep_ir, const std::string& ir_after,
                          ir::IrDetail ir_detail) {
  GenerateOptions options;
  options.max_shared_bytes = target.max_shared_bytes;
  options.dynamic_dims = checked.options.dynamic_dims;
  options.keep_ir = keep_ir;
  options.ir_after = ir_after;
  options.ir_detail = ir_detail;
  // Sema's facts serve a target whose arch rules it checked; otherwise
  // generate_program checks the function for this one.
  if (checked.semantics.target && checked.semantics.target->arch == target.target.arch)
    options.semantics = checked.semantics.find(checked.function->name);
  return generate_program(*checked.program, *checked.function, args, target.target, options);
}

namespace {

// The JIT's view of a generated kernel: its text, entry and launch, named
// after the user's source so NVRTC errors can be mapped back to it.
jit::JitRequest jit_request(const CheckedProgram& checked, const GeneratedKernel& generated,
                            const TargetChoice& target) {
  jit::JitRequest request;
  request.cuda_source = generated.cuda_source;
  request.entry = generated.entry;
  request.source_name = checked.program->source_name + ".cu";
  request.arch = target.target.arch;
  request.line_info = checked.options.debug_line_info;
  request.launch = generated.launch;
  request.croq_source_hash = checked.source_hash;
  request.origin = {checked.program->source_name, checked.program->source};
  return request;
}

}  // namespace

Built build(const CheckedProgram& checked, const std::vector<abi::ArgSignature>& args, const TargetChoice& target,
            bool require_hit) {
  Built built;
  built.generated = generate(checked, args, target);
  for (const GeneratedKernel& kernel : built.generated.kernels) {
    for (const Diagnostic& w : kernel.warnings)
      support::log().warn("{}", render_diagnostics({w}, checked.program->source, checked.program->source_name));
    jit::JitRequest request = jit_request(checked, kernel, target);
    request.require_hit = require_hit;
    built.lookups.emplace_back();
    built.compiled.push_back(jit::JitCompiler::global().compile(request, &built.lookups.back()));
  }
  return built;
}

jit::NvrtcOutput compile_image(const CheckedProgram& checked, const GeneratedKernel& generated,
                               const TargetChoice& target) {
  const jit::JitRequest r = jit_request(checked, generated, target);
  return jit::nvrtc_compile(r.cuda_source, r.source_name, r.entry, {r.arch, r.line_info, {}}, r.origin);
}

}  // namespace croq::pipeline
