// Facts of a function's statement structure that lowering reads: which
// trigger completes each TMA load, and whether the function needs the
// Hopper machinery (mbarriers, TMA, WGMMA), over its body and the bodies of
// the __co_device__ functions it calls. Computed once here from the
// AST; lowering no longer looks ahead in a block or reads modifiers for them.
#include "frontend/ast_walk.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

bool is_async(const Copy& c) { return find_modifier(c.modifiers, "async") != nullptr; }

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

// The body of `fn` and of the __co_device__ functions sema expanded into
// it (each checked once, at its first call): what they use, the kernel uses.
std::vector<const Stmt*> bodies_of(const Function& fn, const std::vector<const Function*>& called) {
  std::vector<const Stmt*> bodies;
  for (const Function* f : called)
    if (f->body) bodies.push_back(f->body.get());
  if (fn.body) bodies.push_back(fn.body.get());
  return bodies;
}

}  // namespace

std::unordered_map<const Copy*, const Trigger*> completing_triggers(const Function& fn,
                                                                   const std::vector<const Function*>& called) {
  std::unordered_map<const Copy*, const Trigger*> found;
  for (const Stmt* body : bodies_of(fn, called)) walk_statements(*body, [&](const Stmt& s) {
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

bool uses_hopper(const Function& fn, const std::vector<const Function*>& called) {
  bool found = false;
  for (const Stmt* body : bodies_of(fn, called)) walk_statements(*body, [&](const Stmt& st) {
    if (const auto* c = std::get_if<Copy>(&st.node)) {
      found = found || c->engine == Engine::tma || find_modifier(c->modifiers, "swiz") != nullptr;
    } else if (std::holds_alternative<Mma>(st.node)) {
      found = true;
    } else if (const auto* d = std::get_if<Declaration>(&st.node)) {
      found = found || (d->type.kind == TypeKind::event && d->type.storage == Storage::shared);  // mbarriers
    } else if (const auto* t = std::get_if<InThreads>(&st.node)) {
      found = found || t->is_async;
    }
  });
  return found;
}

bool calls_named_barriers(const Function& fn, const std::vector<const Function*>& called) {
  bool found = false;
  for (const Stmt* body : bodies_of(fn, called)) walk_statements(*body, [&](const Stmt& st) {
    const auto* e = std::get_if<ExprStatement>(&st.node);
    const auto* c = e ? std::get_if<Call>(&e->expr->node) : nullptr;
    const auto* name = c ? std::get_if<Name>(&c->callee->node) : nullptr;
    found = found || (name && (name->name == "__bar_arrive" || name->name == "__bar_sync"));
  });
  return found;
}

}  // namespace croq::sema::detail
