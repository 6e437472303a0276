// Evaluator of preprocessor constant expressions; see preprocess_expr.hpp.
#include "frontend/preprocess_expr.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "frontend/constant_fold.hpp"

namespace croq::frontend {
namespace {

// A value of a `#if` expression as C has it: 64 bits, signed (intmax_t) or
// unsigned (uintmax_t, from a `u` literal and what mixes with one).
struct PpValue {
  std::uint64_t bits = 0;
  bool is_unsigned = false;
  std::int64_t as_signed() const { return static_cast<std::int64_t>(bits); }
  std::string text() const { return is_unsigned ? std::to_string(bits) + "u" : std::to_string(as_signed()); }
};

PpValue signed_value(std::int64_t v) { return {static_cast<std::uint64_t>(v), false}; }

class ConstantEvaluator {
 public:
  explicit ConstantEvaluator(const std::vector<Token>& tokens) : t_(tokens) {}

  ConstantResult run() {
    PpValue v = conditional(0);
    if (!failed_ && i_ != t_.size()) fail_here("");
    if (!failed_) {
      result_.value = v.as_signed();
      result_.is_unsigned = v.is_unsigned;
    }
    return std::move(result_);
  }

 private:
  bool at(std::string_view s) const { return i_ < t_.size() && t_[i_].is(s) && t_[i_].kind == TokenKind::punct; }

  void fail_at(std::size_t token, std::string msg, std::string hint = {}) {
    if (failed_) return;
    failed_ = true;
    result_.error = std::move(msg);
    result_.hint = std::move(hint);
    result_.error_token = std::min(token, t_.empty() ? 0 : t_.size() - 1);
  }
  void fail_here(std::string msg) { fail_at(i_, std::move(msg)); }

  // A fault only counts where the operand is evaluated.
  void fault(std::size_t op_token, const std::string& expression, support::ArithmeticFault f) {
    if (skipping_ > 0 || failed_) return;
    fail_at(op_token, fault_message(expression, f), "");
    result_.arithmetic_fault = true;
  }

  template <typename F>
  PpValue unevaluated_if(bool skip, F parse) {
    skipping_ += skip;
    PpValue v = parse();
    skipping_ -= skip;
    return v;
  }

  // conditional = binary [ "?" conditional ":" conditional ]; the result has
  // the usual arithmetic conversion of both branches (unsigned if either is).
  PpValue conditional(int depth) {
    PpValue c = binary(0, depth);
    if (!at("?") || failed_) return c;
    ++i_;
    PpValue a = unevaluated_if(c.bits == 0, [&] { return conditional(depth + 1); });
    if (!at(":")) {
      fail_here("expected `:` in the conditional expression");
      return {};
    }
    ++i_;
    PpValue b = unevaluated_if(c.bits != 0, [&] { return conditional(depth + 1); });
    PpValue r = c.bits != 0 ? a : b;
    r.is_unsigned = a.is_unsigned || b.is_unsigned;
    return r;
  }

  static int precedence(std::string_view op) {
    static constexpr std::array<std::pair<std::string_view, int>, 18> table = {{
        {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6},
        {"<", 7}, {">", 7}, {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8},
        {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10}}};
    for (const auto& [name, p] : table)
      if (name == op) return p;
    return 0;
  }

  // `a op b` when either side is unsigned: C converts both to uintmax_t,
  // and unsigned arithmetic wraps (only division by zero and shifts out of
  // 0..63 fault). Comparisons and logical operators give a signed 0 or 1;
  // a shift has the type of its left operand.
  PpValue unsigned_binary(std::size_t op_token, ast::BinaryOp op, PpValue a, PpValue b) {
    using ast::BinaryOp;
    const std::uint64_t x = a.bits, y = b.bits;
    auto fault_here = [&](support::ArithmeticFault f) {
      fault(op_token, a.text() + " " + ast::binary_op_name(op) + " " + b.text(), f);
      return PpValue{0, true};
    };
    switch (op) {
      case BinaryOp::lt: return signed_value(x < y);
      case BinaryOp::gt: return signed_value(x > y);
      case BinaryOp::le: return signed_value(x <= y);
      case BinaryOp::ge: return signed_value(x >= y);
      case BinaryOp::eq: return signed_value(x == y);
      case BinaryOp::ne: return signed_value(x != y);
      case BinaryOp::logical_and: return signed_value(x && y);
      case BinaryOp::logical_or: return signed_value(x || y);
      case BinaryOp::shl: case BinaryOp::shr: {
        if ((b.is_unsigned ? y : static_cast<std::uint64_t>(b.as_signed() < 0 ? 64 : b.as_signed())) > 63)
          return fault_here(support::ArithmeticFault::bad_shift);
        if (!a.is_unsigned) {  // a signed left operand keeps C's signed rules
          support::CheckedInt r = fold_binary(op, a.as_signed(), static_cast<std::int64_t>(y));
          if (!r.ok()) fault(op_token, a.text() + " " + ast::binary_op_name(op) + " " + b.text(), r.fault);
          return signed_value(r.value);
        }
        return {op == BinaryOp::shl ? x << y : x >> y, true};
      }
      case BinaryOp::div: case BinaryOp::mod:
        if (y == 0) return fault_here(support::ArithmeticFault::divide_by_zero);
        return {op == BinaryOp::div ? x / y : x % y, true};
      case BinaryOp::add: return {x + y, true};
      case BinaryOp::sub: return {x - y, true};
      case BinaryOp::mul: return {x * y, true};
      case BinaryOp::bit_and: return {x & y, true};
      case BinaryOp::bit_xor: return {x ^ y, true};
      case BinaryOp::bit_or: return {x | y, true};
      case BinaryOp::compose: break;
    }
    return {0, true};
  }

  // binary = unary { op unary }   (precedence climbing)
  PpValue binary(int min_precedence, int depth) {
    PpValue lhs = unary(depth);
    while (i_ < t_.size() && t_[i_].kind == TokenKind::punct && !failed_) {
      int p = precedence(t_[i_].text);
      if (p == 0 || p <= min_precedence) break;
      ast::BinaryOp op = *integer_binary_op(t_[i_].text);
      std::size_t op_token = i_++;
      bool skip_rhs = (op == ast::BinaryOp::logical_and && lhs.bits == 0) ||
                      (op == ast::BinaryOp::logical_or && lhs.bits != 0);
      PpValue rhs = unevaluated_if(skip_rhs, [&] { return binary(p, depth + 1); });
      if (failed_) return {};
      if (lhs.is_unsigned || rhs.is_unsigned) {
        lhs = unsigned_binary(op_token, op, lhs, rhs);
        continue;
      }
      support::CheckedInt r = fold_binary(op, lhs.as_signed(), rhs.as_signed());
      if (!r.ok()) fault(op_token, binary_text(op, lhs.as_signed(), rhs.as_signed()), r.fault);
      lhs = signed_value(r.value);
    }
    return lhs;
  }

  // unary = ( "-" | "+" | "!" | "~" ) unary | "(" conditional ")" | INTEGER | IDENT
  PpValue unary(int depth) {
    if (depth > 200) {
      fail_here("constant expression nested too deeply");
      return {};
    }
    if (i_ >= t_.size()) {
      fail_here("expected a value, found end of line");
      return {};
    }
    const Token& t = t_[i_];
    if (t.kind == TokenKind::punct) {
      if (t.text == "(") {
        ++i_;
        PpValue v = conditional(depth + 1);
        if (!at(")")) {
          fail_here("expected `)` in the constant expression");
          return {};
        }
        ++i_;
        return v;
      }
      std::size_t op_token = i_;
      ++i_;
      if (t.text == "-") {
        PpValue operand = unary(depth + 1);
        if (operand.is_unsigned) return {0 - operand.bits, true};  // wraps, as in C
        support::CheckedInt r = fold_unary(ast::UnaryOp::negate, operand.as_signed());
        if (!r.ok()) fault(op_token, "-(" + std::to_string(operand.as_signed()) + ")", r.fault);
        return signed_value(r.value);
      }
      if (t.text == "+") return unary(depth + 1);
      if (t.text == "!") return signed_value(unary(depth + 1).bits == 0);
      if (t.text == "~") {
        PpValue operand = unary(depth + 1);
        return {~operand.bits, operand.is_unsigned};
      }
      --i_;
    }
    if (t.kind == TokenKind::integer) {
      if (auto problem = integer_literal_problem(t.text)) {
        fail_at(i_, problem->message, problem->hint);
        return {};
      }
      ++i_;
      // A `u` suffix makes the literal unsigned (uintmax_t), as in C; others
      // are signed (integer_literal_problem refused those above INT64_MAX).
      return {integer_value(t.text).value_or(0), literal_suffix(t.text, false).find_first_of("uU") != std::string_view::npos};
    }
    if (t.kind == TokenKind::identifier) {  // names left after expansion are 0, as in C
      ++i_;
      return signed_value(t.text == "true" ? 1 : 0);
    }
    fail_here("expected a value, found " + describe(t));
    return {};
  }

  const std::vector<Token>& t_;
  std::size_t i_ = 0;
  int skipping_ = 0;  // > 0 inside an operand C does not evaluate
  bool failed_ = false;
  ConstantResult result_;
};

}  // namespace

ConstantResult evaluate_constant(const std::vector<Token>& tokens) { return ConstantEvaluator(tokens).run(); }

}  // namespace croq::frontend
