// `mma.scale acc, scale_a, scale_b` (DeepSeek-style block-scaled GEMMs): the
// mmas into acc before it in its block accumulate a partial product from
// zero, and mma.scale adds that partial times scale_a[row] times scale_b to
// acc. scale_a is a tile of f32 (one per accumulator row), scale_b one f32.
// `mma.row.row.scale acc, a, b, sa, sb` scales one multiply the same way.
#include "sema/checker.hpp"

namespace croq::sema::detail {

void MmaChecker::mma_scale(const Stmt& s, const Mma& m) {
  if (m.operands.size() != 3)
    fail(Rule::mma_operand_count, s.location,
         "mma.scale takes 3 operands (the accumulator and the scales of both sides), got " +
             std::to_string(m.operands.size()));
  Accumulator* acc = accumulator(*m.operands[0]);
  require_warpgroups(s, "mma.scale");
  if (!acc->written)
    fail(Rule::mma_scale_operands, s.location, "mma.scale of an accumulator that no mma has written",
         "scale after the mmas of the block they scale: `mma.row.row " + text(*m.operands[0]) + ", a, b;` then `mma.scale " +
             text(*m.operands[0]) + ", sa, sb;`");
  scale_operands(*m.operands[1], *m.operands[2], "mma.scale");
  if (!cx_.wgmma() || c_.levels.on_single_warps())
    limitation(Rule::unsupported_mma_form, s.location,
               "mma.scale is supported on WGMMA accumulators only (whole warpgroups, sm_90a)");
}

// The scales of both sides: a tile of f32 lhs scales (one per accumulator
// row) and one f32 rhs scale.
void MmaChecker::scale_operands(const Expr& a_expr, const Expr& b_expr, const std::string& op) {
  Type a = c_.expressions.expr(a_expr);
  require_ok(a);
  if (!a.is_tile() || !a.buffer || a.buffer->dtype != DType::f32)
    fail(Rule::mma_scale_operands, a_expr.location,
         "the lhs scales of " + op + " are a tile of f32 (one per accumulator row), got `" + text(a_expr) + "`" +
             (a.is_tile() && a.buffer ? ", a tile of " + std::string(dtype_name(a.buffer->dtype)) : std::string()),
         "DeepSeek-style block scales: `scale_lhs.subspan(64, 1).at(block_m, k)`", notes_of(a));
  Type b = c_.expressions.expr(b_expr);
  require_ok(b);
  const bool one_f32 = b.is_number() || (b.is_tile() && b.buffer && b.buffer->dtype == DType::f32);
  if (!one_f32)
    fail(Rule::mma_scale_operands, b_expr.location,
         "the rhs scale of " + op + " is one f32 value, got `" + text(b_expr) + "`",
         "name one element: `scale_rhs.at(block_n, k)`", notes_of(b));
}

// `mma.row.row.scale acc, a, b, sa, sb` (Croqtile's block-scaled mma with the
// scales of both sides): acc += (a x b) * sa[row] * sb, each statement's
// product scaled on its own (mma.scale's partial, opened and closed by the
// statement).
void MmaChecker::mma_scaled_multiply(const Stmt& s, const Mma& m) {
  mma_multiply(s, m);  // acc, a and b as for mma.row.row
  scale_operands(*m.operands[3], *m.operands[4], "mma.row.row.scale");
  if (!cx_.wgmma() || c_.levels.on_single_warps())
    limitation(Rule::unsupported_mma_form, s.location,
               "mma.row.row.scale is supported on WGMMA accumulators only (whole warpgroups, sm_90a)");
}

}  // namespace croq::sema::detail
