// Facts of a function's statement structure that lowering reads: which
// trigger completes each TMA load, and whether the function needs the
// Hopper machinery (mbarriers, TMA, WGMMA), over its body and the bodies of
// the __co_device__ functions it calls. Computed once here from the
// AST; lowering no longer looks ahead in a block or reads modifiers for them.
#include <algorithm>

#include "frontend/ast_walk.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

bool is_async(const Copy& c) {
  for (const Modifier& m : c.modifiers)
    if (m.name == "async") return true;
  return false;
}

// The trigger later in `statements` (from `next`) that names `future` in
// its `after` list, or null.
const Trigger* trigger_after(const StmtList& statements, std::size_t next, const std::string& future) {
  for (std::size_t i = next; i < statements.size(); ++i)
    if (const auto* t = std::get_if<Trigger>(&statements[i]->node))
      for (const auto& f : t->after)
        if (const auto* n = std::get_if<Name>(&f->node); n && n->name == future) return t;
  return nullptr;
}

// A run of synchronous TMA copies followed by `trigger e;` (one event, no
// `after`): the copies complete on e, and the trigger's arrivals finish its
// phase. The trigger, or null.
const Trigger* trigger_closing_run(const StmtList& statements, std::size_t next) {
  for (std::size_t i = next; i < statements.size(); ++i) {
    const Stmt& s = *statements[i];
    if (const auto* c = std::get_if<Copy>(&s.node); c && c->engine == Engine::tma && !is_async(*c)) continue;
    if (const auto* t = std::get_if<Trigger>(&s.node); t && t->targets.size() == 1 && t->after.empty()) return t;
    return nullptr;
  }
  return nullptr;
}

// The __co_device__ functions `e` calls for a value (`call f(x)`), in `found`.
void value_calls(const Program& program, const Expr& e, std::vector<const Function*>& found) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        const auto each = [&](const ExprPtr& c) {
          if (c) value_calls(program, *c, found);
        };
        if constexpr (std::is_same_v<T, Call>) {
          const auto* name = std::get_if<Name>(&n.callee->node);
          if (const Function* f = n.with_call_keyword && name ? co_device_function(program, name->name) : nullptr)
            found.push_back(f);
          for (const auto& a : n.args) each(a);
        } else if constexpr (std::is_same_v<T, Unary> || std::is_same_v<T, Convert> || std::is_same_v<T, ElementCount>) {
          each(n.operand);
        } else if constexpr (std::is_same_v<T, Binary>) {
          each(n.lhs);
          each(n.rhs);
        } else if constexpr (std::is_same_v<T, Conditional>) {
          each(n.condition);
          each(n.then_value);
          each(n.else_value);
        } else if constexpr (std::is_same_v<T, Member>) {
          each(n.object);
          for (const auto& a : n.args) each(a);
        } else if constexpr (std::is_same_v<T, Subscript>) {
          each(n.object);
          for (const auto& a : n.indices) each(a);
        }
      },
      e.node);
}

// The __co_device__ functions statement `s` calls, directly (their bodies are
// expanded into the kernel: what they use, the kernel uses).
std::vector<const Function*> device_calls(const Program& program, const Stmt& s) {
  std::vector<const Function*> found;
  walk_statements(s, [&](const Stmt& st) {
    const auto scan = [&](const ExprPtr& e) {
      if (e) value_calls(program, *e, found);
    };
    if (const auto* c = std::get_if<CallStatement>(&st.node)) {
      if (const Function* f = co_device_function(program, c->callee)) found.push_back(f);
      for (const auto& a : c->args) scan(a);
    } else if (const auto* d = std::get_if<Declaration>(&st.node)) {
      for (const Declarator& decl : d->declarators)
        for (const auto& v : decl.init_values) scan(v);
    } else if (const auto* a = std::get_if<Assignment>(&st.node)) {
      scan(a->target);
      scan(a->value);
    } else if (const auto* x = std::get_if<ExprStatement>(&st.node)) {
      scan(x->expr);
    } else if (const auto* i = std::get_if<If>(&st.node)) {
      scan(i->condition);
    } else if (const auto* r = std::get_if<Return>(&st.node)) {
      scan(r->value);
    }
  });
  return found;
}

// The body of `fn` and of every __co_device__ function it calls, directly
// or through others, each once (sema refuses recursion; `seen` ends a
// cycle it did not check): a called body is expanded into the kernel.
std::vector<const Stmt*> bodies_of(const Program& program, const Function& fn) {
  std::vector<const Stmt*> bodies;
  std::vector<const Function*> pending{&fn}, seen;
  while (!pending.empty()) {
    const Function* f = pending.back();
    pending.pop_back();
    if (!f->body || std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
    seen.push_back(f);
    bodies.push_back(f->body.get());
    for (const Function* g : device_calls(program, *f->body)) pending.push_back(g);
  }
  return bodies;
}

}  // namespace

std::unordered_map<const Copy*, const Trigger*> completing_triggers(const Program& program, const Function& fn) {
  std::unordered_map<const Copy*, const Trigger*> found;
  for (const Stmt* body : bodies_of(program, fn)) walk_statements(*body, [&](const Stmt& s) {
    const auto* b = std::get_if<Block>(&s.node);
    if (!b) return;
    for (std::size_t i = 0; i < b->statements.size(); ++i) {
      const auto* c = std::get_if<Copy>(&b->statements[i]->node);
      if (!c || c->engine != Engine::tma) continue;
      const Trigger* t = nullptr;
      if (!is_async(*c)) t = trigger_closing_run(b->statements, i + 1);
      else if (const auto* future = c->future ? std::get_if<Name>(&c->future->node) : nullptr)
        t = trigger_after(b->statements, i + 1, future->name);
      if (t) found[c] = t;
    }
  });
  return found;
}

bool uses_hopper(const Program& program, const Function& fn) {
  bool found = false;
  for (const Stmt* body : bodies_of(program, fn)) walk_statements(*body, [&](const Stmt& st) {
    if (const auto* c = std::get_if<Copy>(&st.node)) {
      for (const Modifier& m : c->modifiers) found = found || m.name == "swiz";
      found = found || c->engine == Engine::tma;
    } else if (std::holds_alternative<Mma>(st.node)) {
      found = true;
    } else if (const auto* d = std::get_if<Declaration>(&st.node)) {
      found = found || d->type.kind == TypeKind::event;
    } else if (const auto* t = std::get_if<InThreads>(&st.node)) {
      found = found || t->is_async;
    }
  });
  return found;
}

}  // namespace croq::sema::detail
