// A pass over the parsed program that needs no types or shapes: integer
// arithmetic on constants is folded with checked operations, so overflow,
// INT64_MIN / -1 (and % -1), division by zero and shifts outside 0..63 are
// errors at the expression, before lowering or NVRTC see it. Division by a
// constant zero and shifts by a constant out of range are errors whatever
// the other operand is. Dims of parameter, return and declared shapes that
// are constants must be positive, and their product must fit in 64 bits.
#pragma once

#include <vector>

#include "croq/error.hpp"
#include "frontend/ast.hpp"

namespace croq::frontend {

// Appends at most limits::kMaxDiagnostics errors; returns how many more it found.
std::size_t check_constants(const ast::Program& program, std::vector<Diagnostic>& diagnostics);

}  // namespace croq::frontend
