// Evaluator of preprocessor constant expressions; see preprocess_expr.hpp.
#include "frontend/preprocess_expr.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "frontend/constant_fold.hpp"

namespace croq::frontend {
namespace {

class ConstantEvaluator {
 public:
  explicit ConstantEvaluator(const std::vector<Token>& tokens) : t_(tokens) {}

  ConstantResult run() {
    std::int64_t v = conditional(0);
    if (!failed_ && i_ != t_.size()) fail_here("");
    if (!failed_) result_.value = v;
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
  std::int64_t unevaluated_if(bool skip, F parse) {
    skipping_ += skip;
    std::int64_t v = parse();
    skipping_ -= skip;
    return v;
  }

  // conditional = binary [ "?" conditional ":" conditional ]
  std::int64_t conditional(int depth) {
    std::int64_t c = binary(0, depth);
    if (!at("?") || failed_) return c;
    ++i_;
    std::int64_t a = unevaluated_if(!c, [&] { return conditional(depth + 1); });
    if (!at(":")) {
      fail_here("expected `:` in the conditional expression");
      return 0;
    }
    ++i_;
    std::int64_t b = unevaluated_if(c != 0, [&] { return conditional(depth + 1); });
    return c ? a : b;
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

  // binary = unary { op unary }   (precedence climbing)
  std::int64_t binary(int min_precedence, int depth) {
    std::int64_t lhs = unary(depth);
    while (i_ < t_.size() && t_[i_].kind == TokenKind::punct && !failed_) {
      int p = precedence(t_[i_].text);
      if (p == 0 || p <= min_precedence) break;
      ast::BinaryOp op = *integer_binary_op(t_[i_].text);
      std::size_t op_token = i_++;
      bool skip_rhs = (op == ast::BinaryOp::logical_and && !lhs) || (op == ast::BinaryOp::logical_or && lhs);
      std::int64_t rhs = unevaluated_if(skip_rhs, [&] { return binary(p, depth + 1); });
      if (failed_) return 0;
      support::CheckedInt r = fold_binary(op, lhs, rhs);
      if (!r.ok()) fault(op_token, binary_text(op, lhs, rhs), r.fault);
      lhs = r.value;
    }
    return lhs;
  }

  // unary = ( "-" | "+" | "!" | "~" ) unary | "(" conditional ")" | INTEGER | IDENT
  std::int64_t unary(int depth) {
    if (depth > 200) {
      fail_here("constant expression nested too deeply");
      return 0;
    }
    if (i_ >= t_.size()) {
      fail_here("expected a value, found end of line");
      return 0;
    }
    const Token& t = t_[i_];
    if (t.kind == TokenKind::punct) {
      if (t.text == "(") {
        ++i_;
        std::int64_t v = conditional(depth + 1);
        if (!at(")")) {
          fail_here("expected `)` in the constant expression");
          return 0;
        }
        ++i_;
        return v;
      }
      std::size_t op_token = i_;
      ++i_;
      if (t.text == "-") {
        std::int64_t operand = unary(depth + 1);
        support::CheckedInt r = fold_unary(ast::UnaryOp::negate, operand);
        if (!r.ok()) fault(op_token, "-(" + std::to_string(operand) + ")", r.fault);
        return r.value;
      }
      if (t.text == "+") return unary(depth + 1);
      if (t.text == "!") return !unary(depth + 1);
      if (t.text == "~") return ~unary(depth + 1);
      --i_;
    }
    if (t.kind == TokenKind::integer) {
      if (auto problem = integer_literal_problem(t.text)) {
        fail_at(i_, problem->message, problem->hint);
        return 0;
      }
      ++i_;
      return static_cast<std::int64_t>(integer_value(t.text).value_or(0));
    }
    if (t.kind == TokenKind::identifier) {  // names left after expansion are 0, as in C
      ++i_;
      return t.text == "true" ? 1 : 0;
    }
    fail_here("expected a value, found " + describe(t));
    return 0;
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
