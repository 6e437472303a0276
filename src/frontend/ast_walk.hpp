// The one walk over a statement tree that sema and lowering use to ask
// questions of a body (does it hold a parallel level, stage data in shared
// memory, use events or TMA ...): `visit` sees `s`, then every statement
// nested in it (block statements, loop, while, inthreads and parallel
// bodies, both branches of an if), in source order.
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

}  // namespace croq::frontend::ast
