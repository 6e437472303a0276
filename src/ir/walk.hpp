// Walking IR statements: the nested bodies of a statement, a pre-order
// visit of every statement, for passes that look at one kind of operation,
// and the expressions a statement holds, for passes that rewrite them.
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

namespace detail {

template <typename F>
void tile_exprs(Tile& t, F& f) {
  f(t.slot);
  for (ExprRef& o : t.origin) f(o);
  for (ExprRef& l : t.limit) f(l);
}

template <typename F>
void set_exprs(ThreadSet& s, F& f) {
  f(s.tid);
  f(s.count);
}

}  // namespace detail

// Calls f(ExprRef&) for every expression `s` holds itself (not those of
// the statements nested in it; null fields too), so a pass can replace them.
template <typename F>
void for_each_expr(Stmt& s, F&& f) {
  std::visit([&](auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Let>) {
      f(n.init);
    } else if constexpr (std::is_same_v<T, Assign>) {
      f(n.target);
      f(n.value);
      f(n.guard);
    } else if constexpr (std::is_same_v<T, Eval>) {
      f(n.value);
    } else if constexpr (std::is_same_v<T, For>) {
      f(n.begin);
      f(n.end);
      f(n.step);
    } else if constexpr (std::is_same_v<T, If> || std::is_same_v<T, While> || std::is_same_v<T, Trap>) {
      f(n.condition);
    } else if constexpr (std::is_same_v<T, Barrier>) {
      detail::set_exprs(n.set, f);
    } else if constexpr (std::is_same_v<T, InlineAsm>) {
      for (auto* list : {&n.outputs, &n.inputs})
        for (InlineAsm::Operand& o : *list) f(o.value);
    } else if constexpr (std::is_same_v<T, Print>) {
      for (Print::Part& p : n.parts) f(p.value);
      f(n.guard);
    } else if constexpr (std::is_same_v<T, CopyTiles>) {
      detail::tile_exprs(n.src, f);
      detail::tile_exprs(n.dst, f);
      if (n.pad) f(n.pad->value);
      detail::set_exprs(n.set, f);
    } else if constexpr (std::is_same_v<T, DeclarePointer>) {
      f(n.address);
    } else if constexpr (std::is_same_v<T, Arrive>) {
      f(n.index);
      detail::set_exprs(n.set, f);
    } else if constexpr (std::is_same_v<T, WaitEvent>) {
      f(n.index);
      f(n.parity);
    } else if constexpr (std::is_same_v<T, WaitCounter>) {
      f(n.counter);
      f(n.above);
    } else if constexpr (std::is_same_v<T, TmaLoad>) {
      f(n.destination);
      for (ExprRef& c : n.coords) f(c);
      f(n.event_index);
      f(n.leader);
    } else if constexpr (std::is_same_v<T, TmaStore>) {
      f(n.source);
      for (ExprRef& c : n.coords) f(c);
      f(n.leader);
    } else if constexpr (std::is_same_v<T, MmaFill>) {
      f(n.value);
      f(n.index);
    } else if constexpr (std::is_same_v<T, Mma>) {
      for (MmaOperand* o : {&n.a, &n.b}) {
        f(o->address);
        f(o->leading);
        f(o->rows);
        f(o->cols);
        detail::tile_exprs(o->tile, f);
      }
      f(n.index);
      f(n.metadata);
    } else if constexpr (std::is_same_v<T, MmaStore>) {
      f(n.destination);
      f(n.leading);
      f(n.rows);
      f(n.cols);
      f(n.index);
    } else if constexpr (std::is_same_v<T, MmaLoad>) {
      f(n.source);
      f(n.leading);
      f(n.rows);
      f(n.cols);
    } else if constexpr (std::is_same_v<T, MmaScale>) {
      f(n.scale_a);
      f(n.scale_a_stride);
      f(n.scale_a_rows);
      f(n.scale_b);
    } else if constexpr (std::is_same_v<T, WarpgroupRegion>) {
      f(n.condition);
      detail::set_exprs(n.set, f);
    }
    // Seq, LineMark, Comment, Region, Fence, AllocShared, DeclareLocal,
    // DeclareEvent, BarrierPrologue, FenceProxyAsync, BulkStoreWait,
    // MmaWait, MmaCommit, SetMaxNReg: no expressions.
  }, s.node);
}

}  // namespace croq::ir
