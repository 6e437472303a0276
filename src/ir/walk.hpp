// Walking IR statements: the nested bodies of a statement, and a pre-order
// visit of every statement, for passes that look at one kind of operation.
#pragma once

#include <type_traits>
#include <vector>

#include "ir/ir.hpp"

namespace croq::ir {

// The bodies nested in `s` (loop, branch and region bodies), in program
// order; a Seq's own list is not among them.
inline std::vector<StmtPtr*> nested_bodies(Stmt& s) {
  std::vector<StmtPtr*> out;
  std::visit([&](auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, For> || std::is_same_v<T, While> || std::is_same_v<T, Region> ||
                  std::is_same_v<T, WarpgroupRegion>) {
      if (n.body) out.push_back(&n.body);
    } else if constexpr (std::is_same_v<T, If>) {
      if (n.then_branch) out.push_back(&n.then_branch);
      if (n.else_branch) out.push_back(&n.else_branch);
    }
  }, s.node);
  return out;
}

// Calls f(stmt) for `s` and every statement inside it, in program order.
template <typename F>
void for_each_stmt(Stmt& s, F&& f) {
  f(s);
  if (auto* seq = std::get_if<Seq>(&s.node)) {
    for (auto& c : seq->body) for_each_stmt(*c, f);
    return;
  }
  for (StmtPtr* b : nested_bodies(s)) for_each_stmt(**b, f);
}

template <typename F>
void for_each_stmt(const Stmt& s, F&& f) {
  for_each_stmt(const_cast<Stmt&>(s), [&](Stmt& st) { f(static_cast<const Stmt&>(st)); });
}

// Calls f(node, stmt) for every statement holding a `Node`.
template <typename Node, typename F>
void for_each(Stmt& s, F&& f) {
  for_each_stmt(s, [&](Stmt& st) {
    if (auto* n = std::get_if<Node>(&st.node)) f(*n, st);
  });
}

}  // namespace croq::ir
