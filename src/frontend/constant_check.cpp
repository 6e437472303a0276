// The constant checks of constant_check.hpp: one walk over every expression
// of every __co__ function, folding integer constants bottom-up.
#include "frontend/constant_check.hpp"

#include <algorithm>
#include <optional>

#include "frontend/constant_fold.hpp"
#include "frontend/lexer.hpp"
#include "frontend/limits.hpp"
#include "support/format.hpp"

namespace croq::frontend {
namespace {

using namespace ast;
using support::ArithmeticFault;
using support::CheckedInt;

class ConstantChecker {
 public:
  ConstantChecker(const Program& program, std::vector<Diagnostic>& diagnostics)
      : program_(program), diags_(diagnostics) {}

  std::size_t run() {
    for (const Function& f : program_.functions) function(f);
    return dropped_;
  }

 private:
  void function(const Function& f) {
    exprs(f.specialization_args);
    shape(f.return_type, "the returned tensor");
    for (const Parameter& p : f.params) shape(p.type, "parameter " + quote(p.name));
    if (f.body) stmt(*f.body);
  }

  // ------------------------------------------------------------ reporting

  void report(const Expr& e, std::string message, std::string hint = {}, std::string rule = {}) {
    if (diags_.size() >= limits::kMaxDiagnostics) {
      ++dropped_;
      return;
    }
    Diagnostic d;
    d.message = std::move(message);
    d.hint = std::move(hint);
    d.rule = std::move(rule);
    d.line = e.location.line;
    d.column = e.location.column;
    d.length = std::max(1, e.location.length);
    // Underline the whole expression when it is on one line.
    if (e.source_begin >= 0 && e.source_begin <= e.location.offset && e.source_end > e.location.offset) {
      std::string_view source(program_.source);
      std::string_view before = source.substr(e.source_begin, e.location.offset - e.source_begin);
      std::string_view text = source.substr(e.source_begin, e.source_end - e.source_begin);
      if (before.find('\n') == std::string_view::npos && text.find('\n') == std::string_view::npos) {
        d.column = std::max(1, d.column - support::text_columns(before));
        d.length = static_cast<int>(text.size());
      }
    }
    diags_.push_back(std::move(d));
  }

  // The expression as the user wrote it.
  std::string text_of(const Expr& e, const std::string& fallback) const {
    if (e.source_begin < 0 || e.source_end <= e.source_begin) return fallback;
    return program_.source.substr(e.source_begin, e.source_end - e.source_begin);
  }

  // `values`: the operation with its operand values ("" when not all are
  // constants), shown when it says more than the text as written.
  void fault(const Expr& e, const std::string& values, ArithmeticFault f) {
    std::string written = text_of(e, values);
    std::string message = fault_message(quote_text(written), f);
    if (!values.empty() && without_spaces(written) != without_spaces(values)) message += " (" + values + ")";
    // The same rule as sema's: folding here only finds the fault first.
    report(e, message, f == ArithmeticFault::overflow ? "integer constants are 64-bit signed integers" : "",
           "constant-arithmetic");
  }

  static std::string without_spaces(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    return text;
  }

  // fault_message quotes its argument itself; long text is shortened first.
  static std::string quote_text(const std::string& text) {
    std::string q = quote(text, 80);
    return q.substr(1, q.size() - 2);
  }

  // ----------------------------------------------------------- expressions

  void exprs(const ExprList& list) {
    for (const ExprPtr& e : list)
      if (e) fold(*e);
  }
  void expr(const ExprPtr& e) {
    if (e) fold(*e);
  }

  // e's value when it is an integer constant; reports faults anywhere in e.
  std::optional<std::int64_t> fold(const Expr& e) {
    return std::visit([&](const auto& n) -> std::optional<std::int64_t> { return fold_node(e, n); }, e.node);
  }

  std::optional<std::int64_t> fold_node(const Expr&, const IntegerLiteral& n) {
    if (n.value > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;  // reported by the parser
    return static_cast<std::int64_t>(n.value);
  }
  std::optional<std::int64_t> fold_node(const Expr&, const BoolLiteral& n) { return n.value ? 1 : 0; }

  std::optional<std::int64_t> fold_node(const Expr& e, const Unary& n) {
    std::optional<std::int64_t> v = fold(*n.operand);
    if (!v || !is_foldable(n.op)) return std::nullopt;
    CheckedInt r = fold_unary(n.op, *v);
    if (r.ok()) return r.value;
    fault(e, std::string(unary_op_name(n.op)) + "(" + std::to_string(*v) + ")", r.fault);
    return std::nullopt;
  }

  std::optional<std::int64_t> fold_node(const Expr& e, const Binary& n) {
    std::optional<std::int64_t> a = fold(*n.lhs), b = fold(*n.rhs);
    if (n.op == BinaryOp::compose || !b) return std::nullopt;
    if (a) {
      CheckedInt r = fold_binary(n.op, *a, *b);
      if (r.ok()) return r.value;
      fault(e, binary_text(n.op, *a, *b), r.fault);
      return std::nullopt;
    }
    check_divisor_or_shift(e, n.op, *b);
    return std::nullopt;
  }

  // `x / 0`, `x % 0`, `x << 64`: wrong whatever x is.
  static std::optional<ArithmeticFault> divisor_or_shift_fault(BinaryOp op, std::int64_t b) {
    if ((op == BinaryOp::div || op == BinaryOp::mod) && b == 0) return ArithmeticFault::divide_by_zero;
    if ((op == BinaryOp::shl || op == BinaryOp::shr) && (b < 0 || b >= 64)) return ArithmeticFault::bad_shift;
    return std::nullopt;
  }
  void check_divisor_or_shift(const Expr& e, BinaryOp op, std::int64_t b) {
    if (auto f = divisor_or_shift_fault(op, b)) fault(e, "", *f);
  }

  std::optional<std::int64_t> fold_node(const Expr&, const Conditional& n) {
    std::optional<std::int64_t> c = fold(*n.condition), a = fold(*n.then_value), b = fold(*n.else_value);
    if (!c) return std::nullopt;
    return *c ? a : b;
  }

  std::optional<std::int64_t> fold_node(const Expr& e, const Call& n) {
    fold(*n.callee);
    exprs(n.template_args);
    std::vector<std::optional<std::int64_t>> args;
    for (const ExprPtr& a : n.args) args.push_back(a ? fold(*a) : std::nullopt);
    const auto* callee = std::get_if<Name>(&n.callee->node);
    if (!callee || callee->name != "cdiv" || args.size() != 2 || !args[1]) return std::nullopt;
    if (!args[0]) {
      if (*args[1] == 0) fault(e, "", ArithmeticFault::divide_by_zero);
      return std::nullopt;
    }
    CheckedInt r = support::checked_cdiv(*args[0], *args[1]);
    if (r.ok()) return r.value;
    fault(e, "cdiv(" + std::to_string(*args[0]) + ", " + std::to_string(*args[1]) + ")", r.fault);
    return std::nullopt;
  }

  std::optional<std::int64_t> fold_node(const Expr&, const Convert& n) {
    expr(n.operand);
    return std::nullopt;
  }
  std::optional<std::int64_t> fold_node(const Expr&, const Member& n) {
    expr(n.object);
    exprs(n.args);
    return std::nullopt;
  }
  std::optional<std::int64_t> fold_node(const Expr&, const Subscript& n) {
    expr(n.object);
    exprs(n.indices);
    return std::nullopt;
  }
  std::optional<std::int64_t> fold_node(const Expr&, const ITuple& n) {
    exprs(n.elements);
    return std::nullopt;
  }
  std::optional<std::int64_t> fold_node(const Expr&, const ShapeList& n) {
    exprs(n.dims);
    return std::nullopt;
  }
  std::optional<std::int64_t> fold_node(const Expr&, const ElementCount& n) {
    expr(n.operand);
    return std::nullopt;
  }
  std::optional<std::int64_t> fold_node(const Expr&, const Range& n) {
    expr(n.start);
    expr(n.end);
    expr(n.stride);
    return std::nullopt;
  }
  // Leaves that are no integer constant. (Explicit overloads: clang 14 does
  // not instantiate a member template reached through std::visit here.)
  std::optional<std::int64_t> fold_node(const Expr&, const FloatLiteral&) { return std::nullopt; }
  std::optional<std::int64_t> fold_node(const Expr&, const StringLiteral&) { return std::nullopt; }
  std::optional<std::int64_t> fold_node(const Expr&, const Name&) { return std::nullopt; }
  std::optional<std::int64_t> fold_node(const Expr&, const Wildcard&) { return std::nullopt; }

  // ----------------------------------------------------------------- shapes

  void shape(const TypeRef& type, const std::string& owner) {
    expr(type.rank);
    expr(type.arrivals);
    std::optional<std::int64_t> elements = 1;
    for (std::size_t i = 0; i < type.shape.size(); ++i) {
      const Expr& dim = *type.shape[i];
      std::optional<std::int64_t> v = fold(dim);
      if (!v) {
        elements.reset();
        continue;
      }
      if (*v <= 0) {
        report(dim, "dimension " + std::to_string(i) + " of " + owner + " is " + std::to_string(*v) +
                        "; a dimension must be positive");
        elements.reset();
      } else if (elements) {
        CheckedInt product = support::checked_mul(*elements, *v);
        if (!product.ok())
          report(dim, "the shape of " + owner + " has more than 2^63 elements; no tensor that large exists");
        elements = product.ok() ? std::optional<std::int64_t>(product.value) : std::nullopt;
      }
    }
  }

  // ------------------------------------------------------------- statements

  void stmt(const Stmt& s) {
    for (const Attribute& a : s.attributes) exprs(a.args);
    std::visit([&](const auto& n) { stmt_node(n); }, s.node);
  }
  void stmt(const StmtPtr& s) {
    if (s) stmt(*s);
  }

  void stmt_node(const Block& n) {
    for (const StmtPtr& s : n.statements) stmt(s);
  }
  void stmt_node(const Declaration& n) {
    shape(n.type, n.declarators.empty() ? std::string("the declaration") : quote(n.declarators.front().name));
    for (const Declarator& d : n.declarators) {
      expr(d.array_size);
      exprs(d.more_array_dims);
      exprs(d.init_values);
    }
  }
  void stmt_node(const Assignment& n) {
    expr(n.target);
    if (!n.value) return;
    std::optional<std::int64_t> v = fold(*n.value);
    static const std::pair<AssignOp, BinaryOp> compound[] = {{AssignOp::div, BinaryOp::div},
                                                             {AssignOp::mod, BinaryOp::mod},
                                                             {AssignOp::shl, BinaryOp::shl},
                                                             {AssignOp::shr, BinaryOp::shr}};
    for (const auto& [assign, binary] : compound) {
      std::optional<ArithmeticFault> f = v && n.op == assign ? divisor_or_shift_fault(binary, *v) : std::nullopt;
      if (f)
        report(*n.value, fault_message(std::string(assign_op_name(assign)) + " " + quote_text(text_of(*n.value, "")), *f),
               "", "constant-arithmetic");
    }
  }
  void stmt_node(const ExprStatement& n) { expr(n.expr); }
  void stmt_node(const Parallel& n) {
    for (const ParallelLevel& l : n.levels) expr(l.count);
    stmt(n.body);
  }
  void stmt_node(const Loop& n) {
    for (const LoopIndex& i : n.indices) expr(i.range);
    expr(n.bound);
    stmt(n.body);
  }
  void stmt_node(const While& n) {
    expr(n.condition);
    stmt(n.body);
  }
  void stmt_node(const If& n) {
    expr(n.condition);
    stmt(n.then_branch);
    stmt(n.else_branch);
  }
  void modifiers(const std::vector<Modifier>& list) {
    for (const Modifier& m : list) exprs(m.template_args);
  }
  void stmt_node(const Copy& n) {
    expr(n.future);
    exprs(n.op_args);
    modifiers(n.modifiers);
    expr(n.source);
    expr(n.destination);
    exprs(n.after);
  }
  void stmt_node(const Mma& n) {
    expr(n.result);
    exprs(n.array_dims);
    modifiers(n.modifiers);
    exprs(n.operands);
  }
  void stmt_node(const Wait& n) { exprs(n.targets); }
  void stmt_node(const Trigger& n) {
    exprs(n.targets);
    exprs(n.after);
  }
  void stmt_node(const InThreads& n) {
    expr(n.condition);
    stmt(n.body);
  }
  void stmt_node(const Return& n) { expr(n.value); }
  void stmt_node(const CallStatement& n) {
    exprs(n.template_args);
    exprs(n.args);
  }
  void stmt_node(const Assert& n) {
    expr(n.condition);
    expr(n.message);
  }
  void stmt_node(const Swap& n) {
    expr(n.first);
    expr(n.second);
  }
  void stmt_node(const Yield& n) { expr(n.value); }
  void stmt_node(const Asm& n) {
    for (const AsmOperand& o : n.outputs) expr(o.value);
    for (const AsmOperand& o : n.inputs) expr(o.value);
  }
  void stmt_node(const Sync&) {}
  void stmt_node(const Break&) {}
  void stmt_node(const Continue&) {}

  const Program& program_;
  std::vector<Diagnostic>& diags_;
  std::size_t dropped_ = 0;
};

}  // namespace

std::size_t check_constants(const ast::Program& program, std::vector<Diagnostic>& diagnostics) {
  return ConstantChecker(program, diagnostics).run();
}

}  // namespace croq::frontend
