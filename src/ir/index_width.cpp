// The index width applied to expressions (see index_width.hpp).
#include "ir/index_width.hpp"

#include "ir/builder.hpp"

namespace croq::ir {

namespace {

// The type builders give a node of these operands (ir::unary, binary,
// select, address_of, zero_like); the others keep theirs.
Type derived_type(const Expr& e) {
  switch (e.kind) {
    case ExprKind::unary: return e.op == "!" ? Type::boolean() : e.operands[0]->type;
    case ExprKind::binary: return binary_type(e.op, e.operands[0]->type, e.operands[1]->type);
    case ExprKind::select: return common_type(e.operands[1]->type, e.operands[2]->type);
    case ExprKind::address_of: case ExprKind::zero_like: return e.operands[0]->type;
    default: return e.type;
  }
}

}  // namespace

ExprRef IndexWidth::operator()(const ExprRef& e) {
  if (!e) return e;
  if (auto found = memo_.find(e.get()); found != memo_.end()) return found->second.second;
  ExprRef out = e;
  if (e->kind == ExprKind::by_index_width) {
    out = (*this)(e->operands.at(wide_ ? 1 : 0));
  } else if (e->kind == ExprKind::var && e->index_var) {
    auto v = std::make_shared<Expr>(*e);
    v->index_var = false;
    v->type = wide_ ? Type::i64() : Type::i32();
    out = v;
  } else {
    std::vector<ExprRef> operands;
    bool changed = false;
    for (const ExprRef& o : e->operands) {
      operands.push_back((*this)(o));
      changed = changed || operands.back() != o;
    }
    if (changed) {
      auto n = std::make_shared<Expr>(*e);
      n->operands = std::move(operands);
      n->type = derived_type(*n);
      out = n;
    }
  }
  memo_[e.get()] = {e, out};
  return out;
}

Type IndexWidth::type(const Type& declared) const {
  if (declared.kind != Type::Kind::index) return declared;
  return wide_ ? Type::i64() : Type::i32();
}

Type wide_type(const ExprRef& e) { return IndexWidth(true)(e)->type; }

}  // namespace croq::ir
