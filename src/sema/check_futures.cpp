// Names of futures and their life: one declaration per scope, `dma.any`
// placeholders (filled by a later copy, never copied themselves, never left
// unused), and `swap` of two futures.
#include "frontend/ast_walk.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

std::string at_text(const SourceLocation& where) {
  return std::to_string(where.line) + ":" + std::to_string(where.column);
}

// The names `swap` and `rotate` statements of `s` exchange, one list each,
// then each placeholder's name alone.
std::vector<std::vector<std::string>> ring_lists(const Stmt& s) {
  std::vector<std::vector<std::string>> swapped, placeholders;
  walk_statements(s, [&](const Stmt& st) {
    if (const auto* c = std::get_if<Copy>(&st.node); c && c->op == CopyOp::any) {
      if (const auto* name = c->future ? std::get_if<Name>(&c->future->node) : nullptr)
        placeholders.push_back({name->name});
      return;
    }
    const auto* n = std::get_if<Swap>(&st.node);
    if (!n) return;
    std::vector<std::string> names;
    auto add = [&](const ExprPtr& e) {
      if (const auto* name = e ? std::get_if<Name>(&e->node) : nullptr) names.push_back(name->name);
    };
    add(n->first);
    add(n->second);
    for (const auto& e : n->more) add(e);
    swapped.push_back(std::move(names));
  });
  swapped.insert(swapped.end(), placeholders.begin(), placeholders.end());
  return swapped;
}

}  // namespace

std::vector<FutureRing> future_rings(const Function& fn) {
  std::vector<FutureRing> rings;
  if (!fn.body) return rings;
  std::map<std::string, std::size_t> ring_of;
  // Union of the lists that share a name, in order of first mention.
  for (const auto& list : ring_lists(*fn.body)) {
    std::optional<std::size_t> ring;
    for (const auto& name : list)
      if (auto it = ring_of.find(name); it != ring_of.end()) ring = it->second;
    if (!ring) {
      ring = rings.size();
      rings.emplace_back();
    }
    for (const auto& name : list) {
      auto it = ring_of.find(name);
      if (it != ring_of.end() && it->second != *ring) {  // merge the other ring into this one
        std::vector<std::string>& other = rings[it->second].futures;
        for (const auto& moved : other) {
          ring_of[moved] = *ring;
          rings[*ring].futures.push_back(moved);
        }
        other.clear();
      } else if (it == ring_of.end()) {
        ring_of[name] = *ring;
        rings[*ring].futures.push_back(name);
      }
    }
  }
  std::erase_if(rings, [](const FutureRing& r) { return r.futures.empty(); });
  return rings;
}

// The scope a name is declared in for the one-declaration rule: the
// function body shares its scope with the parameters.
const Symbol* Context::declared_here(const std::string& name) const {
  auto in = [&](const std::vector<std::pair<std::string, const Symbol*>>& scope) -> const Symbol* {
    for (const auto& entry : scope)
      if (entry.first == name) return entry.second;
    return nullptr;
  };
  if (scopes_.empty()) return nullptr;
  if (const Symbol* s = in(scopes_.back())) return s;
  if (scopes_.size() == 2) return in(scopes_.front());
  // A loop's or a parallel level's indices belong to its body: the body
  // does not declare them again.
  if (scopes_.size() > 2)
    if (const Symbol* s = in(scopes_[scopes_.size() - 2]);
        s && (s->origin == Origin::loop_index || s->origin == Origin::parallel_index))
      return s;
  return nullptr;
}

void Context::require_new_name(const std::string& name, const SourceLocation& at) {
  const Symbol* s = declared_here(name);
  if (!s || s->type.is_error()) return;  // an earlier error defined it: no cascade
  fail(Rule::redeclaration, at, "`" + name + "` is declared already in this scope, at " + at_text(s->where),
       s->origin == Origin::parameter ? "it is a parameter of the function; pick another name"
                                      : "pick another name; a future that several copies fill is declared first with "
                                        "`f = dma.any;`");
}

void Context::pop() {
  for (const auto& [name, symbol] : scopes_.back()) {
    // An asynchronous copy that nothing waits for may still run when its
    // data is used or the kernel ends.
    const Type& t = symbol->type;
    if (symbol->origin == Origin::copy_future && t.kind == Kind::future && t.async && !t.bound_event &&
        !named_futures_.count(symbol)) {
      named_futures_.insert(symbol);  // once
      report(Rule::async_not_waited, symbol->where,
             "`" + name + "` is the future of an asynchronous copy that is never waited for",
             "add `wait " + name + ";` before its data is used, or drop `.async`", {});
    }
    if (symbol->type.placeholder && !placeholders_used_.count(symbol) && !symbol->type.is_error()) {
      placeholders_used_.insert(symbol);  // once
      try {
        fail(Rule::placeholder_use, symbol->where,
             "`" + name + "` is a dma.any placeholder that no copy fills and nothing uses",
             "remove it, or give it a copy: `" + name + " = dma.copy ...;`");
      } catch (const Abort&) {
      }
    }
  }
  scopes_.pop_back();
}

void TransferChecker::note_named_future(const Expr& e) {
  if (const auto* n = std::get_if<Name>(&e.node))
    if (const Symbol* s = lookup(n->name); s && s->type.kind == Kind::future) cx_.named_futures_.insert(s);
}

// `f = dma.any;` (or tma.any): a future whose copy comes later.
void TransferChecker::placeholder(const Stmt& s, const Copy& c) {
  const std::string engine = c.engine == Engine::tma ? "tma" : "dma";
  const auto* name = c.future ? std::get_if<Name>(&c.future->node) : nullptr;
  if (!name) return;
  cx_.require_new_name(name->name, c.future->location);
  Type t;
  t.kind = Kind::future;
  t.placeholder = true;
  t.refillable = true;
  define(name->name, t, Origin::copy_future, c.future->location, engine + ".any");
  (void)s;
}

// The future a copy defines: a new name, or the placeholder (or refillable
// future) of that name in any enclosing scope.
void TransferChecker::define_future(const std::string& name, Type tile, const SourceLocation& at, std::string detail) {
  if (const Symbol* existing = lookup(name); existing && existing->type.refillable) {
    tile.refillable = true;
    tile.placeholder = false;
    tile.from = existing;
    cx_.placeholders_used_.insert(existing);
    // The placeholder's symbol takes the copy's type in its own scope
    // (symbols live in out_.symbols, which the checker owns).
    const_cast<Symbol*>(existing)->type = std::move(tile);
    return;
  }
  cx_.require_new_name(name, at);
  define(name, std::move(tile), Origin::copy_future, at, std::move(detail));
}

// The scope index of a visible symbol, innermost first found.
std::size_t Context::scope_of(const Symbol* symbol) const {
  for (std::size_t i = scopes_.size(); i-- > 0;)
    for (const auto& entry : scopes_[i])
      if (entry.second == symbol) return i;
  return scopes_.size();
}

// swap a, b / rotate a, b, c, ...: named futures of one scope and one kind
// (all asynchronous or none, the same tile type). Futures a dma.any declared
// move between scopes by design (rotations).
void TransferChecker::swap_statement(const Stmt& s, const Swap& sw) {
  const std::string what = sw.rotate ? "`rotate`" : "`swap`";
  std::vector<const Expr*> operands = {sw.first.get(), sw.second.get()};
  for (const ExprPtr& e : sw.more) operands.push_back(e.get());
  std::vector<Type> types;
  for (const Expr* e : operands) note_named_future(*e);
  cx_.placeholder_operand_ = true;
  try {
    for (const Expr* e : operands) types.push_back(c_.expressions.expr(*e));
  } catch (const Abort&) {
    cx_.placeholder_operand_ = false;
    throw;
  }
  cx_.placeholder_operand_ = false;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    require_ok(types[i]);
    if (types[i].kind != Kind::future || !std::holds_alternative<Name>(operands[i]->node))
      fail(Rule::swap_operands, operands[i]->location, what + " exchanges named futures, got `" + text(*operands[i]) + "`",
           "", notes_of(types[i]));
  }
  const Type& a = types[0];
  const Expr& head = *operands[0];
  for (std::size_t i = 1; i < operands.size(); ++i) {
    const Type& b = types[i];
    const Expr& e = *operands[i];
    // The scopes that bind the names: a placeholder (`f = dma.any;`) binds
    // its name where it is declared, wherever a copy fills it later.
    const Symbol* bound_a = lookup(std::get<Name>(head.node).name);
    const Symbol* bound_b = lookup(std::get<Name>(e.node).name);
    auto declared_by_any = [](const Symbol* b) { return b->detail == "dma.any" || b->detail == "tma.any"; };
    // Two placeholders rotate freely between scopes (buffers of a pipeline).
    if (bound_a && bound_b && cx_.scope_of(bound_a) != cx_.scope_of(bound_b) &&
        !(declared_by_any(bound_a) && declared_by_any(bound_b)))
      fail(Rule::swap_operands, e.location,
           "`" + text(head) + "` (" + at_text(bound_a->where) + ") and `" + text(e) + "` (" + at_text(bound_b->where) +
               ") are declared in different scopes; " + what + " exchanges futures of one scope",
           "declare both in the same block");
    if (!a.placeholder && !b.placeholder && a.async != b.async)
      fail(Rule::swap_operands, e.location,
           what + " exchanges futures that are both asynchronous or both not: `" + text(head) + "` is " +
               (a.async ? "asynchronous" : "synchronous") + ", `" + text(e) + "` " +
               (b.async ? "asynchronous" : "synchronous"),
           "both copies need `.async`, or neither");
    if (!a.placeholder && !b.placeholder && a.buffer && b.buffer &&
        (a.buffer->dtype != b.buffer->dtype || a.rank != b.rank))
      fail(Rule::swap_operands, e.location,
           "`" + text(head) + "` and `" + text(e) + "` hold different tiles (" + std::string(dtype_name(a.buffer->dtype)) +
               " of rank " + std::to_string(a.rank) + ", " + std::string(dtype_name(b.buffer->dtype)) + " of rank " +
               std::to_string(b.rank) + ")",
           what + " exchanges futures of the same tile type");
  }
  (void)s;
}

}  // namespace croq::sema::detail
