// Names of futures and their life: one declaration per scope, `dma.any`
// placeholders (filled by a later copy, never copied themselves, never left
// unused), and `swap` of two futures.
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

std::string at_text(const SourceLocation& where) {
  return std::to_string(where.line) + ":" + std::to_string(where.column);
}

}  // namespace

// The scope a name is declared in for the one-declaration rule: the
// function body shares its scope with the parameters.
const Symbol* Checker::declared_here(const std::string& name) const {
  auto in = [&](const std::vector<std::pair<std::string, const Symbol*>>& scope) -> const Symbol* {
    for (const auto& entry : scope)
      if (entry.first == name) return entry.second;
    return nullptr;
  };
  if (scopes_.empty()) return nullptr;
  if (const Symbol* s = in(scopes_.back())) return s;
  if (scopes_.size() == 2) return in(scopes_.front());
  return nullptr;
}

void Checker::require_new_name(const std::string& name, const SourceLocation& at) {
  const Symbol* s = declared_here(name);
  if (!s || s->type.is_error()) return;  // an earlier error defined it: no cascade
  fail(Rule::redeclaration, at, "`" + name + "` is declared already in this scope, at " + at_text(s->where),
       s->origin == Origin::parameter ? "it is a parameter of the function; pick another name"
                                      : "pick another name; a future that several copies fill is declared first with "
                                        "`f = dma.any;`");
}

void Checker::pop() {
  for (const auto& [name, symbol] : scopes_.back()) {
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

// `f = dma.any;`: a future whose copy comes later.
void Checker::placeholder(const Stmt& s, const Copy& c) {
  limitation(Rule::unsupported_copy, c.op_location, "dma.any is not supported yet by libcroqjit");
  const auto* name = c.future ? std::get_if<Name>(&c.future->node) : nullptr;
  if (!name) return;
  require_new_name(name->name, c.future->location);
  Type t;
  t.kind = Kind::future;
  t.placeholder = true;
  t.refillable = true;
  define(name->name, t, Origin::copy_future, c.future->location, "dma.any");
  (void)s;
}

// The future a copy defines: a new name, or the placeholder (or refillable
// future) of that name in any enclosing scope.
void Checker::define_future(const std::string& name, Type tile, const SourceLocation& at, std::string detail) {
  if (const Symbol* existing = lookup(name); existing && existing->type.refillable) {
    tile.refillable = true;
    tile.placeholder = false;
    tile.from = existing;
    placeholders_used_.insert(existing);
    // The placeholder's symbol takes the copy's type in its own scope
    // (symbols live in out_.symbols, which the checker owns).
    const_cast<Symbol*>(existing)->type = std::move(tile);
    return;
  }
  require_new_name(name, at);
  define(name, std::move(tile), Origin::copy_future, at, std::move(detail));
}

// The scope index of a visible symbol, innermost first found.
std::size_t Checker::scope_of(const Symbol* symbol) const {
  for (std::size_t i = scopes_.size(); i-- > 0;)
    for (const auto& entry : scopes_[i])
      if (entry.second == symbol) return i;
  return scopes_.size();
}

void Checker::swap_statement(const Stmt& s, const Swap& sw) {
  placeholder_operand_ = true;
  Type a, b;
  try {
    a = expr(*sw.first);
    b = expr(*sw.second);
  } catch (const Abort&) {
    placeholder_operand_ = false;
    throw;
  }
  placeholder_operand_ = false;
  require_ok(a);
  require_ok(b);
  for (const auto* side : {&sw.first, &sw.second}) {
    const Type& t = side == &sw.first ? a : b;
    if (t.kind != Kind::future || !std::holds_alternative<Name>((*side)->node))
      fail(Rule::swap_operands, (*side)->location, "`swap` exchanges two named futures, got `" + text(**side) + "`", "",
           notes_of(t));
  }
  // Futures a dma.any declared move between scopes by design (rotations).
  if (!a.refillable && !b.refillable && a.from && b.from && scope_of(a.from) != scope_of(b.from))
    fail(Rule::swap_operands, sw.second->location,
         "`" + text(*sw.first) + "` (" + at_text(a.from->where) + ") and `" + text(*sw.second) + "` (" +
             at_text(b.from->where) + ") are declared in different scopes; `swap` exchanges futures of one scope",
         "declare both in the same block");
  if (!a.placeholder && !b.placeholder && a.async != b.async)
    fail(Rule::swap_operands, sw.second->location,
         "`swap` exchanges futures that are both asynchronous or both not: `" + text(*sw.first) + "` is " +
             (a.async ? "asynchronous" : "synchronous") + ", `" + text(*sw.second) + "` " +
             (b.async ? "asynchronous" : "synchronous"),
         "both copies need `.async`, or neither");
  fail(Rule::unsupported_statement, s.location, "`swap` is not supported yet by libcroqjit");
}

}  // namespace croq::sema::detail
