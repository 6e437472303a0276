// Checks of a call signature against a function's parameters that must hold
// before any arithmetic on its extents: parameter dims evaluate with checked
// 64-bit arithmetic, extents are non-negative (or -1 exactly where a
// dynamic dim stands), and every tensor's size in bytes fits in 64 bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "frontend/ast.hpp"

namespace croq::bind {

// What a parameter's dimension says: a constant (a literal, a #define, or
// arithmetic on them) or a symbolic dim bound by the arguments (`name`).
struct ParameterDim {
  std::optional<std::int64_t> constant;
  std::string name;
};

// CompileError at the dimension when it is neither, when its arithmetic
// overflows or divides by zero, or when the constant is negative.
ParameterDim parameter_dim(const frontend::ast::Program& program, const frontend::ast::Expr& dim);

// ArgumentError naming the argument: an extent below 0 other than a dynamic
// dim's -1, a -1 where the parameter's dim is not one of `dynamic_dims`, or
// a tensor whose element count times element size has no 64-bit value.
void check_argument_extents(const frontend::ast::Function& fn,
                            const std::vector<abi::ArgSignature>& args, const std::vector<std::string>& dynamic_dims);

// "s32 [128, ?]": a dtype and extents, a dynamic one (-1) as `?`.
std::string shape_text(DType t, const std::vector<std::int64_t>& dims);

}  // namespace croq::bind
