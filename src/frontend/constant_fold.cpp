// Checked folding of integer operators; see constant_fold.hpp.
#include "frontend/constant_fold.hpp"

#include <array>
#include <utility>

namespace croq::frontend {

using ast::BinaryOp;
using ast::UnaryOp;
using support::CheckedInt;

std::optional<BinaryOp> integer_binary_op(std::string_view spelling) {
  static constexpr std::array<std::pair<std::string_view, BinaryOp>, 18> table = {{
      {"||", BinaryOp::logical_or}, {"&&", BinaryOp::logical_and}, {"|", BinaryOp::bit_or},
      {"^", BinaryOp::bit_xor},     {"&", BinaryOp::bit_and},      {"==", BinaryOp::eq},
      {"!=", BinaryOp::ne},         {"<", BinaryOp::lt},           {">", BinaryOp::gt},
      {"<=", BinaryOp::le},         {">=", BinaryOp::ge},          {"<<", BinaryOp::shl},
      {">>", BinaryOp::shr},        {"+", BinaryOp::add},          {"-", BinaryOp::sub},
      {"*", BinaryOp::mul},         {"/", BinaryOp::div},          {"%", BinaryOp::mod},
  }};
  for (const auto& [text, op] : table)
    if (text == spelling) return op;
  return std::nullopt;
}

CheckedInt fold_binary(BinaryOp op, std::int64_t a, std::int64_t b) {
  switch (op) {
    case BinaryOp::add: return support::checked_add(a, b);
    case BinaryOp::sub: return support::checked_sub(a, b);
    case BinaryOp::mul: return support::checked_mul(a, b);
    case BinaryOp::div: return support::checked_div(a, b);
    case BinaryOp::mod: {
      // C++ leaves a % b undefined whenever a / b is (INT64_MIN % -1 traps on x86).
      CheckedInt quotient = support::checked_div(a, b);
      return quotient.ok() ? support::checked_mod(a, b) : quotient;
    }
    case BinaryOp::shl: return support::checked_shl(a, b);
    case BinaryOp::shr: return support::checked_shr(a, b);
    case BinaryOp::lt: return {a < b};
    case BinaryOp::gt: return {a > b};
    case BinaryOp::le: return {a <= b};
    case BinaryOp::ge: return {a >= b};
    case BinaryOp::eq: return {a == b};
    case BinaryOp::ne: return {a != b};
    case BinaryOp::bit_and: return {a & b};
    case BinaryOp::bit_xor: return {a ^ b};
    case BinaryOp::bit_or: return {a | b};
    case BinaryOp::logical_and: return {a && b};
    case BinaryOp::logical_or: return {a || b};
    case BinaryOp::compose: break;
  }
  return {0};
}

bool is_foldable(UnaryOp op) {
  return op == UnaryOp::negate || op == UnaryOp::plus || op == UnaryOp::bit_not || op == UnaryOp::logical_not;
}

CheckedInt fold_unary(UnaryOp op, std::int64_t a) {
  switch (op) {
    case UnaryOp::negate: return support::checked_neg(a);
    case UnaryOp::bit_not: return {~a};
    case UnaryOp::logical_not: return {!a};
    default: return {a};
  }
}

std::string fault_message(std::string_view expression, support::ArithmeticFault fault) {
  return "`" + std::string(expression) + "` " + support::describe(fault);
}

std::string binary_text(BinaryOp op, std::int64_t a, std::int64_t b) {
  return std::to_string(a) + " " + ast::binary_op_name(op) + " " + std::to_string(b);
}

}  // namespace croq::frontend
