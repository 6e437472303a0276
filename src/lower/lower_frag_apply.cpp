// Element-wise work on a warpgroup's accumulators and register fragments:
// `apply {i, j} in acc.span { ... }`, `reduce_max` / `reduce_sum` over a
// tile's rows, and `copy(dst, src)` of fragments.
//
// Each thread visits only the elements its registers hold (the layout in
// lower_frag.cpp): the apply becomes an unrolled loop over the registers,
// with i and j the logical row and column of register r, and `x.at(i, j)`
// register r of x (a [64] row vector's `v.at(i)` is its register for that
// row). A row reduction folds the thread's registers of each of its two
// rows, then the four lanes of the quad that share the rows (shuffles).
// Accumulators may be written, and fragments read, by WGMMA still in
// flight: each of these statements is a completion point first, for the
// groups that touch the registers it reads or writes.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

// The registers per thread of a tile whose accumulator width is not known
// when the statement is lowered (the mma comes later in the source): a
// constant the backend declares with the accumulator.
ExprRef register_count(const ir::Kernel& k, const View& v) {
  const ir::Buffer& b = k.buffers[static_cast<std::size_t>(v.buffer)];
  if (b.dims[0].value > 0) return ir::int_const(b.dims[0].value);
  return ir::var(b.name + "_registers");
}

}  // namespace

void MmaLowering::apply_loop(const Stmt& s, const Loop& l) {
  const auto* m = l.bound ? std::get_if<Member>(&l.bound->node) : nullptr;
  if (!m || m->kind != MemberKind::span || m->has_args)
    fail(s.location, "libcroqjit runs `apply` over a register fragment or an mma accumulator: `apply {i, j} in acc.span`");
  if (apply_) fail(s.location, "an `apply` inside another `apply` is not supported yet by libcroqjit");
  if (scope_ == Scope::thread) return thread_apply_loop(s, l, registers_of(expr(*m->object), *m->object));
  if (scope_ != Scope::block || !on_whole_warpgroups())
    fail(s.location, "`apply` over registers runs on the warpgroup that holds them: put it in the `: group-4` level");
  const View tile = registers_of(expr(*m->object), *m->object);
  if (l.indices.size() != tile.extent.size())
    fail(l.bound->location, std::to_string(l.indices.size()) + " indices but `" + source_text(*m->object) + "` has rank " +
                                std::to_string(tile.extent.size()));
  ApplyContext context;
  for (const LoopIndex& index : l.indices) context.indices.push_back(index.name.name);
  context.rank = tile.extent.size();
  context.registers = buffer(tile.buffer).dims[0].value;
  context.touched.push_back(tile.buffer);
  std::vector<int> touched;
  const std::string r = fresh("r");
  ir::For f;
  f.var = r;
  f.begin = ir::int_const(0);
  f.end = register_count(kernel_, tile);
  f.unroll = true;
  const ExprRef reg = ir::var(r);
  context.reg = reg;
  f.body = ir::make_stmt(ir::Seq{collect([&] {
                                   touched = context.rank == 2
                                                 ? apply_body(*l.body, context, {fragment_row(tid(), reg), fragment_col(tid(), reg)})
                                                 : apply_body(*l.body, context, {fragment_row_of_vector(tid(), reg)});
                                 }),
                                 false});
  // WGMMA may still write or read these registers: complete its groups
  // that do (a group that touches none of them may stay in flight).
  emit_node(ir::MmaCommit{std::move(touched)}, s.location);
  line_mark(s.location);
  emit_node(std::move(f), s.location);
}

std::vector<int> MmaLowering::apply_body(const Stmt& body, ApplyContext context, const std::vector<ExprRef>& index_values) {
  push();
  for (std::size_t d = 0; d < index_values.size(); ++d) {
    Value v;
    v.expr = index_values[d];
    define(context.indices[d], v);
  }
  apply_ = std::move(context);
  try {
    block(body);
  } catch (...) {
    apply_.reset();
    throw;
  }
  std::vector<int> touched = apply_->touched;
  apply_.reset();
  pop();
  return touched;
}

// reduce_max(dst, src, 1) / reduce_sum(dst, src, 1) / copy(dst, src).
void MmaLowering::fragment_statement(const Stmt& s, const Call& c, const std::string& name) {
  const bool copy = name == "copy";
  if (c.args.size() != (copy ? 2u : 3u))
    fail(s.location, "`" + name + "` takes " + (copy ? "2 operands (destination, source)" : "3 operands (destination, source, dimension)"));
  if (scope_ == Scope::thread) return thread_fragment_statement(s, c, name);
  if (scope_ != Scope::block || !on_whole_warpgroups())
    fail(s.location, "`" + name + "` of registers runs on the warpgroup that holds them: put it in the `: group-4` level");
  const View dst = registers_of(expr(*c.args[0]), *c.args[0]);
  const View src = registers_of(expr(*c.args[1]), *c.args[1]);
  const ir::Buffer& d = buffer(dst.buffer);
  const ir::Buffer& sb = buffer(src.buffer);
  emit_node(ir::MmaCommit{{dst.buffer, src.buffer}}, s.location);
  line_mark(s.location);
  if (copy) {
    if (dst.extent.size() != src.extent.size() || (dst.extent.back() > 0 && src.extent.back() > 0 && dst.extent != src.extent))
      fail(s.location, "copy between register tiles of different shapes: " + shape_list(dst.extent) + " and " + shape_list(src.extent));
    const int di = dst.buffer, si = src.buffer;
    const DType dt = d.dtype, st = sb.dtype;
    for_each_register(d.dims[0].value > 0 ? d.dims[0].value : sb.dims[0].value, [&](const ExprRef& r) {
      emit_node(ir::Assign{ir::element(di, dt, nullptr, {r}), "=",
                           ir::coerce(ir::element(si, st, nullptr, {r}), ir::Type::element(dt)), nullptr});
    });
    return;
  }
  const std::int64_t dim = const_int(*c.args[2], "the dimension of a reduction");
  if (dim != 1 || src.extent.size() != 2 || dst.extent.size() != 1)
    fail(s.location, "libcroqjit reduces a register tile's rows (dimension 1) into a [64] row fragment, e.g. `" + name +
                         "(row, acc, 1)`");
  const bool max = name == "reduce_max";
  const ir::Type f32 = ir::Type::f32();
  auto combine = [&](const ExprRef& a, const ExprRef& b) { return max ? ir::math("max", {a, b}, f32) : ir::binary("+", a, b); };
  auto src_reg = [&](const ExprRef& r) { return ir::coerce(ir::element(src.buffer, sb.dtype, nullptr, {r}), f32); };
  for (int half = 0; half < 2; ++half) {  // the thread's rows g and g + 8
    const std::string v = fresh(max ? "row_max" : "row_sum");
    const ExprRef var = ir::var(v, f32);
    emit_node(ir::Let{v, f32, false, combine(src_reg(ir::int_const(2 * half)), src_reg(ir::int_const(2 * half + 1)))});
    ir::For f;
    f.var = fresh("j");
    f.begin = ir::int_const(1);
    f.end = ir::binary("/", register_count(kernel_, src), ir::int_const(4));
    f.unroll = true;
    const ExprRef j = ir::var(f.var);
    const ExprRef first = ir::add(ir::mul(j, 4), ir::int_const(2 * half));
    f.body = ir::make_stmt(ir::Seq{collect([&] {
                                     emit_node(ir::Assign{var, "=", combine(var, src_reg(first)), nullptr});
                                     emit_node(ir::Assign{var, "=", combine(var, src_reg(ir::add(first, ir::int_const(1)))), nullptr});
                                   }),
                                   false});
    emit_node(std::move(f));
    // The quad's four lanes hold the row's other columns.
    emit_node(ir::Assign{ir::element(dst.buffer, d.dtype, nullptr, {ir::int_const(half)}), "=",
                         ir::coerce(ir::math(max ? "quad_max" : "quad_sum", {var}, f32), ir::Type::element(d.dtype)), nullptr});
  }
}

// all_reduce_sum(row): a warpgroup's [64] row fragment holds, in each of
// the four lanes of a quad, its partial sums of the quad's two rows (an
// apply over a [64, N] tile added its columns): each register becomes the
// sum over the quad, in every lane. Sema proved the operand holds partials.
// A thread level's row is one thread's whole, so its sums are complete.
void MmaLowering::all_reduce_sum(const Stmt& s, const Call& c) {
  if (c.args.size() != 1) unchecked(s.location, sema::Rule::all_reduce_operand);
  const View row = registers_of(expr(*c.args[0]), *c.args[0]);
  if (thread_fragments_.count(row.buffer)) return;
  if (scope_ != Scope::block || !on_whole_warpgroups() || row.extent.size() != 1)
    unchecked(s.location, sema::Rule::all_reduce_operand);
  const ir::Buffer& b = buffer(row.buffer);
  const ir::Type f32 = ir::Type::f32();
  emit_node(ir::MmaCommit{{row.buffer}}, s.location);
  line_mark(s.location);
  const int id = row.buffer;
  const DType t = b.dtype;
  for_each_register(b.dims[0].value, [&](const ExprRef& r) {
    const ExprRef element = ir::element(id, t, nullptr, {r});
    emit_node(ir::Assign{element, "=", ir::coerce(ir::math("quad_sum", {ir::coerce(element, f32)}, f32), ir::Type::element(t)),
                         nullptr});
  });
}

}  // namespace croq::lower::detail
