// __device__ helpers and __cok__ blocks are pasted verbatim into each
// generated kernel's CUDA, next to names libcroqjit generates: the kernel
// (`croq_F`) and the preludes' helpers, all with the prefix `croq_`. A user
// name with that prefix could redefine or overload one of them (a helper
// taking `int` where the generated call passes an `int` would win), so it is
// refused here, before any NVRTC run.
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

void report_program_error(std::vector<Diagnostic>& diagnostics, int& errors, Rule rule,
                          const frontend::ast::SourceLocation& at, std::string message, std::string hint) {
  Diagnostic d;
  d.message = std::move(message);
  d.hint = std::move(hint);
  d.rule = rule_id(rule);
  d.line = at.line;
  d.column = at.column;
  d.length = std::max(1, at.length);
  diagnostics.push_back(std::move(d));
  ++errors;
}

}  // namespace

// Program-wide rules: reserved names in __device__ code and in intrinsic registrations.
void check_device_code(const frontend::ast::Program& program, std::vector<Diagnostic>& diagnostics, int& errors) {
  for (const frontend::ast::DeviceCode& code : program.device_code) {
    if (code.reserved_name.empty()) continue;
    report_program_error(diagnostics, errors, Rule::device_reserved_name, code.reserved_at,
                         "`" + code.reserved_name + "` in __device__ code: names starting with `croq_` are reserved "
                         "for the code libcroqjit generates (the kernel of `" + code.reserved_name.substr(5) +
                             "` would be `" + code.reserved_name + "`)",
                         "rename it (for example `my_" + code.reserved_name.substr(5) + "`)");
  }
  for (const frontend::ast::IntrinsicPragma& r : program.intrinsic_pragmas) {
    if (r.name != "croq" && r.name.rfind("croq::", 0) != 0) continue;
    report_program_error(diagnostics, errors, Rule::intrinsic_reserved, r.location,
                         std::string("`#pragma croq intrinsic ") + (r.is_namespace ? "namespace " : "prefix ") + r.name +
                             "` registers names of the namespace `croq`, which Croqtile reserves for its builtins",
                         "register the namespace or prefix of the intrinsics themselves (`arch`, `hw_`)");
  }
}

}  // namespace croq::sema::detail
