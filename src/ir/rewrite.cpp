#include "ir/rewrite.hpp"

#include "ir/walk.hpp"

namespace croq::ir {

ExprRef rewrite(const ExprRef& e, const ExprRewrite& f) {
  if (!e) return e;
  std::vector<ExprRef> operands;
  operands.reserve(e->operands.size());
  bool changed = false;
  for (const ExprRef& o : e->operands) {
    operands.push_back(rewrite(o, f));
    changed = changed || operands.back() != o;
  }
  ExprRef current = e;
  if (changed) {
    auto copy = std::make_shared<Expr>(*e);
    copy->operands = std::move(operands);
    current = std::move(copy);
  }
  ExprRef replaced = f(*current);
  return replaced ? replaced : current;
}

ExprRef substitute(const ExprRef& e, const std::string& var, const ExprRef& value) {
  return rewrite(e, [&](const Expr& x) { return x.kind == ExprKind::var && x.text == var ? value : nullptr; });
}

ExprRef add_slot(const ExprRef& e, int buffer, const ExprRef& slot) {
  return rewrite(e, [&](const Expr& x) -> ExprRef {
    if (x.kind != ExprKind::element || x.buffer != buffer || x.operands.empty() || x.operands[0]) return nullptr;
    auto copy = std::make_shared<Expr>(x);
    copy->operands[0] = slot;
    return copy;
  });
}

namespace {

template <typename F>
void each_statement(Stmt& s, bool nested, F&& f) {
  if (nested) for_each_stmt(s, f);
  else f(s);
}

void slot_tile(Tile& t, int buffer, const ExprRef& slot) {
  if (t.buffer == buffer && !t.slot) t.slot = slot;
}

}  // namespace

void substitute(Stmt& s, const std::string& var, const ExprRef& value) {
  for_each_stmt(s, [&](Stmt& st) { for_each_expr(st, [&](ExprRef& e) { e = substitute(e, var, value); }); });
}

void add_slot(Stmt& s, int buffer, const ExprRef& slot, bool nested) {
  each_statement(s, nested, [&](Stmt& st) {
    for_each_expr(st, [&](ExprRef& e) { e = add_slot(e, buffer, slot); });
    if (auto* m = std::get_if<Mma>(&st.node)) {
      slot_tile(m->a.tile, buffer, slot);
      slot_tile(m->b.tile, buffer, slot);
    } else if (auto* c = std::get_if<CopyTiles>(&st.node)) {
      slot_tile(c->src, buffer, slot);
      slot_tile(c->dst, buffer, slot);
    }
  });
}

}  // namespace croq::ir
