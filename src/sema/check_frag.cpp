// Register fragments beyond their declaration: `apply` over a thread level's
// fragment, `mma.load src, frag` into a declared fragment, and
// `all_reduce_sum(row)` of the partial row sums a warpgroup's apply made.
#include "sema/checker.hpp"

namespace croq::sema::detail {

// `apply {i, j} in x.span` inside a thread level: over a fragment that level
// declared (each thread visits the rows it holds).
bool MmaChecker::thread_apply(const Symbol& tile) {
  return tile.type.is_tile() && tile.type.buffer && thread_fragments_.count(tile.type.buffer);
}

// `apply {i, j} in acc.span { row.at(i) = row.at(i) + acc.at(i, j); }`: the
// four lanes holding a row each add their columns into their own copy of
// the [64] row fragment, which then holds partial sums.
void MmaChecker::note_row_partials(const Loop& l) {
  const auto* m = std::get_if<Member>(&l.bound->node);
  if (l.indices.size() != 2 || !m) return;
  frontend::ast::walk_statements(*l.body, [&](const Stmt& st) {
    const auto* a = std::get_if<Assignment>(&st.node);
    const auto* at = a ? std::get_if<Member>(&a->target->node) : nullptr;
    const auto* n = at && at->kind == MemberKind::at && at->args.size() == 1 ? std::get_if<Name>(&at->object->node) : nullptr;
    const Symbol* sym = n ? lookup(n->name) : nullptr;
    if (sym && sym->type.is_tile() && sym->type.buffer && sym->type.buffer->fragment && sym->type.rank == 1)
      row_partials_.insert(sym->type.buffer);
  });
}

void MmaChecker::all_reduce_sum(const Call& c) {
  const Expr& row = *c.args[0];
  Type v = c_.expressions.expr(row);
  require_ok(v);
  const bool fragment = v.is_tile() && v.buffer && v.buffer->fragment && v.rank == 1;
  if (fragment && thread_fragments_.count(v.buffer)) return;  // a thread level's row is one thread's: its sum is whole
  if (!fragment || !row_partials_.count(v.buffer) || !c_.levels.on_whole_warpgroups())
    fail(Rule::all_reduce_operand, row.location,
         "all_reduce_sum combines the partial sums of a warpgroup's row fragment, which an `apply` over a 2-D register "
         "tile accumulates into; `" + text(row) + "` holds none",
         "accumulate into it first: `apply {i, j} in acc.span row.at(i) = row.at(i) + acc.at(i, j);`", notes_of(v));
}

// mma.load src, frag: the warpgroup loads a shared [64, K] tile into the
// register fragment it declared (an RS-mode lhs).
void MmaChecker::fragment_load(const Stmt& s, const Mma& m) {
  require_warpgroups(s, "mma.load");
  Type src = c_.expressions.expr(*m.operands[0]);
  Type dst = c_.expressions.expr(*m.operands[1]);
  require_ok(src);
  require_ok(dst);
  if (!src.is_tile() || src.buffer->space != Space::shared)
    fail(Rule::mma_operand_kind, m.operands[0]->location, "mma.load reads a tile in shared memory, got `" + text(*m.operands[0]) + "`",
         "", notes_of(src));
  c_.expressions.require_selected(*m.operands[0], src);
  if (!dst.is_tile() || !dst.buffer || !dst.buffer->fragment || thread_fragments_.count(dst.buffer))
    fail(Rule::mma_operand_kind, m.operands[1]->location,
         "the second operand of mma.load is the warpgroup's fragment it fills, got `" + text(*m.operands[1]) + "`",
         "declare it at block level or in the `: group-4` level: `frag " + std::string(dtype_name(src.buffer->dtype)) +
             " [...] " + text(*m.operands[1]) + ";`",
         notes_of(dst));
  if (src.rank != 2 || dst.rank != 2)
    fail(Rule::mma_operand_rank, s.location, "mma.load into a fragment loads a 2-D tile into a 2-D fragment");
  if (src.buffer->dtype != dst.buffer->dtype)
    fail(Rule::mma_element_types, s.location,
         "mma.load copies elements as they are: `" + text(*m.operands[0]) + "` holds " +
             std::string(dtype_name(src.buffer->dtype)) + " but `" + text(*m.operands[1]) + "` holds " +
             std::string(dtype_name(dst.buffer->dtype)));
  int span = 0;
  for (const Modifier& mod : m.modifiers) {
    if (mod.name == "swiz") span = c_.transfers.swizzle_span(mod);
    else fail(Rule::unsupported_modifier, mod.location, "`." + mod.name + "` on mma.load into a fragment is not supported yet by libcroqjit");
  }
  Buffer& b = *src.buffer;
  if (!find_modifier(m.modifiers, "swiz")) span = std::max(0, b.swizzle);  // the tile's own layout
  if (b.swizzle >= 0 && b.swizzle != span)
    fail(Rule::swizzle_layout, s.location,
         "mma.load.swiz<" + std::to_string(span) + "> does not match the tile's layout: it was copied with " +
             (b.swizzle ? ".swiz<" + std::to_string(b.swizzle) + ">" : std::string("no swizzle")),
         "use the same .swiz<N> on the copy and on mma.load", notes_of(src));
  if (b.swizzle < 0) b.swizzle = span;
}

}  // namespace croq::sema::detail
