#pragma once
// Which `: block` level is one warp (shared by sema and lowering, which
// must agree on the block's threads).
#include "frontend/ast_walk.hpp"

namespace croq::frontend::ast {

// Whether a `: block` level whose body is `body` runs as one warp: it holds
// an mma multiply and no parallel statement or inthreads region, so its
// statements run at block scope. Croqtile runs such an mma on the block's
// threads; libcroqjit gives the block one warp (32 threads), whose mma is
// the warp form (mma.sync m16n8), as directly in a `: group` level.
inline bool block_of_one_warp(const Stmt& body) {
  bool multiplies = false, nested = false;
  walk_statements(body, [&](const Stmt& st) {
    if (std::holds_alternative<Parallel>(st.node) || std::holds_alternative<InThreads>(st.node)) nested = true;
    if (const auto* m = std::get_if<Mma>(&st.node); m && m->op == MmaOp::multiply) multiplies = true;
  });
  return multiplies && !nested;
}

}  // namespace croq::frontend::ast
