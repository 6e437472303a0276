// __device__ helpers and __cok__ blocks are pasted verbatim into each
// generated kernel's CUDA, next to names libcroqjit generates: the kernel
// (`croq_F`) and the preludes' helpers, all with the prefix `croq_`. A user
// name with that prefix could redefine or overload one of them (a helper
// taking `int` where the generated call passes an `int` would win), so it is
// refused here, before any NVRTC run.
#include "sema/checker.hpp"

namespace croq::sema::detail {

void check_device_code(const frontend::ast::Program& program, std::vector<Diagnostic>& diagnostics, int& errors) {
  for (const frontend::ast::DeviceCode& code : program.device_code) {
    if (code.reserved_name.empty()) continue;
    Diagnostic d;
    d.message = "`" + code.reserved_name + "` in __device__ code: names starting with `croq_` are reserved for the " +
                "code libcroqjit generates (the kernel of `" + code.reserved_name.substr(5) + "` would be `" +
                code.reserved_name + "`)";
    d.hint = "rename it (for example `my_" + code.reserved_name.substr(5) + "`)";
    d.rule = rule_id(Rule::device_reserved_name);
    d.line = code.reserved_at.line;
    d.column = code.reserved_at.column;
    d.length = std::max(1, code.reserved_at.length);
    diagnostics.push_back(std::move(d));
    ++errors;
  }
}

}  // namespace croq::sema::detail
