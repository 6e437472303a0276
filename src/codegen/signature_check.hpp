// The signature checks of bind/signature_check.hpp for this generator's
// ArgSignature: parameter dims evaluate with checked 64-bit arithmetic,
// extents are non-negative (or -1 exactly where a dynamic dim stands), and
// every tensor's size in bytes fits in 64 bits.
#pragma once

#include <string>
#include <vector>

#include "bind/signature_check.hpp"
#include "codegen/kernel_codegen.hpp"
#include "frontend/ast.hpp"

namespace croq::codegen {

using bind::ParameterDim;
using bind::parameter_dim;

// bind::check_argument_extents on `args`.
void check_argument_extents(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                            const std::vector<ArgSignature>& args, const std::vector<std::string>& dynamic_dims);

}  // namespace croq::codegen
