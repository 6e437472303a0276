// Text forms of the IR: a readable dump (`croq compile --emit ir`, the
// golden files of lowering tests) and the verifier that checks a kernel's
// invariants between passes.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace croq::ir {

std::string print_kernel(const Kernel& kernel);

// What a kernel must satisfy after lowering (stage "lowered") or after the
// passes (stage "final"): references in range, names that are identifiers,
// literals that are literals, and after the passes every layout, count and
// instruction decided. Returns the violations (empty: valid).
enum class VerifyStage { lowered, final };
std::vector<std::string> verify(const Kernel& kernel, VerifyStage stage);

}  // namespace croq::ir
