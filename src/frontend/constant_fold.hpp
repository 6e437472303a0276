// Integer constant folding shared by `#if` evaluation (preprocess_expr.cpp)
// and the AST check (constant_check.cpp). Every operation is checked
// (support/checked_int.hpp): overflow, INT64_MIN / -1 and INT64_MIN % -1,
// division by zero and shifts outside 0..63 come back as a fault that the
// caller reports at the operator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "frontend/ast.hpp"
#include "support/checked_int.hpp"

namespace croq::frontend {

// The binary operators of integer expressions, by spelling (`+`, `<<`, `&&`);
// nullopt for any other text.
std::optional<ast::BinaryOp> integer_binary_op(std::string_view spelling);

// `a op b`; comparisons and logical operators give 0 or 1. `compose` (#) is
// not an integer operation: callers do not fold it.
support::CheckedInt fold_binary(ast::BinaryOp op, std::int64_t a, std::int64_t b);
// -a, +a, ~a, !a; other unary operators are not folded.
support::CheckedInt fold_unary(ast::UnaryOp op, std::int64_t a);
bool is_foldable(ast::UnaryOp op);

// "`9223372036854775807 + 1` overflows a 64-bit signed integer".
std::string fault_message(std::string_view expression, support::ArithmeticFault fault);
// `a op b` with the operand values, for a fault_message.
std::string binary_text(ast::BinaryOp op, std::int64_t a, std::int64_t b);

}  // namespace croq::frontend
