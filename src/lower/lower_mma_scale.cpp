// Lowering of `mma.scale acc, scale_a, scale_b` (block-scaled GEMMs, as in
// DeepSeek's fp8 GEMMs): the mmas into acc that come before the mma.scale
// in its block accumulate a partial product, zeroed where the block starts
// (each iteration of a loop body); the mma.scale adds partial *
// scale_a[row] * scale_b to acc, once every WGMMA group is complete.
// scale_a is one f32 per accumulator row (a [64, 1], [1, 64] or [64] tile),
// scale_b one f32 (a number or a one-element tile). `mma.row.row.scale acc,
// a, b, sa, sb` is one multiply into a partial of its own, then its scale.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

// Where a block starts: a partial accumulator for each accumulator that an
// mma.scale of the block names, filled with zero here.
void MmaLowering::open_scale_partials(const StmtList& statements) {
  for (const auto& st : statements) {
    const auto* m = std::get_if<Mma>(&st->node);
    const auto* name = m && m->op == MmaOp::scale && !m->operands.empty() ? std::get_if<Name>(&m->operands[0]->node) : nullptr;
    // An accumulator filled inside this block is scaled from its fill on:
    // mma.scale then finds no partial and says so.
    const Value* acc = name ? lookup(name->name) : nullptr;
    if (!acc || acc->kind != Value::Kind::accumulator || scale_partials_.count(acc->accumulator)) continue;
    open_scale_partial(acc->accumulator, st->location);
  }
}

// A partial accumulator of `accumulator`'s shape, filled with zero here:
// the mmas into `accumulator` write it until the mma.scale that closes it.
int MmaLowering::open_scale_partial(int accumulator, const SourceLocation& at) {
  ir::Accumulator partial = kernel_.accumulators[static_cast<std::size_t>(accumulator)];
  partial.name = fresh(partial.name + "_partial");
  partial.fill = ir::coerce(ir::float_literal("0.0f"), ir::Type::element(partial.dtype));
  kernel_.accumulators.push_back(partial);
  const int id = static_cast<int>(kernel_.accumulators.size()) - 1;
  scale_partials_[accumulator] = id;
  emit_node(ir::MmaFill{id}, at);
  return id;
}

int MmaLowering::scale_target(int accumulator) const {
  const auto it = scale_partials_.find(accumulator);
  return it == scale_partials_.end() ? accumulator : it->second;
}

void MmaLowering::mma_scale(const Stmt& s, const Mma& m) {
  if (m.operands.size() != 3)
    unchecked(s.location, sema::Rule::mma_operand_count);
  scale_accumulator(s, *m.operands[0], *m.operands[1], *m.operands[2]);
}

// `mma.row.row.scale acc, a, b, sa, sb`: acc += (a x b) * sa[row] * sb, as a
// partial of this statement's own (filled with zero, multiplied into, then
// scaled into acc once its WGMMA groups are complete).
void MmaLowering::mma_scaled_multiply(const Stmt& s, const Mma& m) {
  if (m.operands.size() != 5)
    unchecked(s.location, sema::Rule::mma_operand_count);
  if (!target_.wgmma() || !on_whole_warpgroups())
    unchecked(s.location, sema::Rule::unsupported_mma_form);
  Value acc_value = expr(*m.operands[0]);
  if (acc_value.kind != Value::Kind::accumulator)
    unchecked(m.operands[0]->location, sema::Rule::accumulator_expected);
  if (scale_partials_.count(acc_value.accumulator))
    fail(s.location, "mma.row.row.scale into `" + source_text(*m.operands[0]) +
                         "` in a block whose mma.scale scales it: libcroqjit scales one or the other",
         "scale each multiply with mma.row.row.scale, or the block's multiplies with mma.scale");
  open_scale_partial(acc_value.accumulator, s.location);
  mma_multiply(s, m);  // into the partial (scale_target)
  scale_accumulator(s, *m.operands[0], *m.operands[3], *m.operands[4]);
}

void MmaLowering::scale_accumulator(const Stmt& s, const Expr& acc_expr, const Expr& a_expr, const Expr& b_expr) {
  if (!target_.wgmma() || !on_whole_warpgroups())
    unchecked(s.location, sema::Rule::unsupported_mma_form);
  Value acc_value = expr(acc_expr);
  if (acc_value.kind != Value::Kind::accumulator)
    unchecked(acc_expr.location, sema::Rule::accumulator_expected);
  const auto it = scale_partials_.find(acc_value.accumulator);
  if (it == scale_partials_.end())
    fail(s.location, "mma.scale of `" + source_text(acc_expr) +
                         "` in the block that fills it, or a second time in one block: libcroqjit scales the mmas of "
                         "a block into an accumulator filled before it",
         "fill the accumulator before the loop whose body multiplies and scales");
  const int partial = it->second;
  scale_partials_.erase(it);
  ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(acc_value.accumulator)];
  const std::int64_t n = kernel_.accumulators[static_cast<std::size_t>(partial)].n;
  if (n == 0) fail(s.location, "mma.scale of an accumulator that no mma of its block has written");
  if (acc.n != 0 && acc.n != n)
    fail(s.location, "the accumulator is 64 x " + std::to_string(acc.n) + " but the mmas it scales make 64 x " + std::to_string(n));
  acc.n = n;
  // The lhs scales: one f32 per row of the accumulator.
  Value a = expr(a_expr);
  if (a.kind == Value::Kind::future) a.kind = Value::Kind::view;
  if (a.kind != Value::Kind::view || buffer(a.view.buffer).dtype != DType::f32)
    unchecked(a_expr.location, sema::Rule::mma_scale_operands);
  const View& v = a.view;
  ir::MmaScale op;
  const bool rows_down = v.extent.size() == 1 || v.extent[0] == acc.rows;  // [64] or [64, 1]; else [1, 64]
  const std::size_t row_dim = v.extent.size() == 1 || rows_down ? 0 : 1;
  if (v.extent[row_dim] != acc.rows || (v.extent.size() == 2 && v.extent[1 - row_dim] != 1) || v.extent.size() > 2)
    fail(a_expr.location, "the lhs scales of mma.scale are " + std::to_string(acc.rows) + " f32 (a [" +
                              std::to_string(acc.rows) + ", 1] tile), got " + shape_text(DType::f32, v.extent));
  op.scale_a = tile_address(v);
  if (buffer(v.buffer).dims.size() != v.extent.size())
    fail(a_expr.location, "the lhs scales of mma.scale are a tile of a 1-D or 2-D f32 tensor");
  // Rows down a [64, 1] tile are a buffer row apart; along [64] or [1, 64], one element.
  op.scale_a_stride = v.extent.size() == 2 && row_dim == 0 ? dim_expr(v.buffer, 1) : ir::int_const(1);
  op.scale_a_rows = ir::int_const(acc.rows);
  if (!v.exact) op.scale_a_rows = ir::binary("-", dim_expr(v.buffer, row_dim), v.origin[row_dim]);
  // The rhs scale: one f32.
  Value b = expr(b_expr);
  if (b.kind == Value::Kind::future) b.kind = Value::Kind::view;
  if (b.kind == Value::Kind::view) {
    for (std::int64_t e : b.view.extent)
      if (e != 1) fail(b_expr.location, "the rhs scale of mma.scale is one f32 value, got " + shape_text(buffer(b.view.buffer).dtype, b.view.extent));
    b.expr = element_at(b.view, std::vector<ExprRef>(b.view.extent.size(), ir::int_const(0)));
  } else if (b.kind != Value::Kind::scalar) {
    unchecked(b_expr.location, sema::Rule::mma_scale_operands);
  }
  op.scale_b = ir::coerce(b.expr, ir::Type::f32());
  op.accumulator = acc_value.accumulator;
  op.partial = partial;
  emit_node(std::move(op), s.location);
}

}  // namespace croq::lower::detail
