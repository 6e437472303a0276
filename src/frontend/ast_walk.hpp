// The one walk over a statement tree that sema and lowering use to ask
// questions of a body (does it hold a parallel level, stage data in shared
// memory, use events or TMA ...): `visit` sees `s`, then every statement
// nested in it (block statements, loop, while, inthreads and parallel
// bodies, both branches of an if), in source order. And the one dispatch
// on the kind of a statement or an expression that sema's checker and
// lowering share (`Dispatch`).
#pragma once

#include <type_traits>
#include <variant>

#include "frontend/ast.hpp"

namespace croq::frontend::ast {

// `visit(const Stmt&)` returns void, or bool: true skips what is nested in
// that statement.
template <typename F>
void walk_statements(const Stmt& s, F&& visit) {
  if constexpr (std::is_same_v<std::invoke_result_t<F&, const Stmt&>, bool>) {
    if (visit(s)) return;
  } else {
    visit(s);
  }
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block>) {
      for (const auto& c : n.statements) walk_statements(*c, visit);
    } else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While> || std::is_same_v<T, InThreads> ||
                         std::is_same_v<T, Parallel>) {
      if (n.body) walk_statements(*n.body, visit);
    } else if constexpr (std::is_same_v<T, If>) {
      walk_statements(*n.then_branch, visit);
      if (n.else_branch) walk_statements(*n.else_branch, visit);
    }
  }, s.node);
}

// Whether some statement of `s` (itself included) satisfies `pred`.
template <typename P>
bool any_statement(const Stmt& s, P&& pred) {
  bool found = false;
  walk_statements(s, [&](const Stmt& st) { return found = found || pred(st); });
  return found;
}

// Whether `s` is or holds a parallel statement.
inline bool contains_parallel(const Stmt& s) {
  return any_statement(s, [](const Stmt& st) { return std::holds_alternative<Parallel>(st.node); });
}

// Sends a statement or an expression to the member of `v` (sema's checker,
// lowering) that handles its kind: the kinds both handle by a member of
// their own have one name here; every other kind goes to
// `v.other_statement(s, node)` / `v.other_expression(e, node)`, a member
// template of `v`. Classes that use it befriend it (`friend struct
// frontend::ast::Dispatch;`), so the members stay private.
struct Dispatch {
  template <typename V>
  static void statement(V& v, const Stmt& s) {
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Declaration>) v.declaration(s, n);
      else if constexpr (std::is_same_v<T, Assignment>) v.assignment(s, n);
      else if constexpr (std::is_same_v<T, Parallel>) v.parallel(s, n, 0);
      else if constexpr (std::is_same_v<T, Loop>) v.loop(s, n);
      else if constexpr (std::is_same_v<T, Copy>) v.copy(s, n);
      else if constexpr (std::is_same_v<T, Mma>) v.mma_statement(s, n);
      else if constexpr (std::is_same_v<T, Wait>) v.wait_statement(s, n);
      else if constexpr (std::is_same_v<T, Trigger>) v.trigger_statement(s, n);
      else if constexpr (std::is_same_v<T, Swap>) v.swap_statement(s, n);
      else if constexpr (std::is_same_v<T, Sync>) v.sync_statement(s, n);
      else if constexpr (std::is_same_v<T, Asm>) v.asm_statement(s, n);
      else v.other_statement(s, n);
    }, s.node);
  }

  template <typename V>
  static auto expression(V& v, const Expr& e) {
    return std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Name>) return v.name_value(e, n);
      else if constexpr (std::is_same_v<T, Unary>) return v.unary(e, n);
      else if constexpr (std::is_same_v<T, Binary>) return v.binary(e, n);
      else if constexpr (std::is_same_v<T, Call>) return v.call(e, n);
      else if constexpr (std::is_same_v<T, Member>) return v.member(e, n);
      else if constexpr (std::is_same_v<T, Subscript>) return v.subscript(e, n);
      else return v.other_expression(e, n);
    }, e.node);
  }
};

}  // namespace croq::frontend::ast
