// Register fragments declared inside a `: thread` level: `frag f32 [64, 64] x;`
// in `parallel t by T : thread`, one logical tile spread over the level's T
// threads, and `apply`, `copy`, `reduce_max` / `reduce_sum` on them.
//
// Row i of a fragment (its first dim) belongs to thread i % T, which holds
// it whole in its registers of row block i / T: register
// (i / T) * R + (the element's flat index in the row), R the elements of a
// row. A fragment of the same leading dims has its row i in the same
// thread, so `apply {i, j} in acc.span { acc.at(i, j) -= row_max.at(i); }`
// reads and writes this thread's registers only, and a reduction of a row
// needs no other thread.
#include "lower/lowering.hpp"
#include "lower/row_major.hpp"

namespace croq::lower::detail {

namespace {

std::int64_t row_elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::size_t d = 1; d < shape.size(); ++d) n *= shape[d];
  return n;
}

std::int64_t row_blocks(std::int64_t rows, std::int64_t threads) { return (rows + threads - 1) / threads; }

}  // namespace

ExprRef thread_fragment_register(const ExprRef& row_block, const ExprRef& in_row, const std::vector<std::int64_t>& tile,
                                 const std::vector<std::int64_t>& operand) {
  if (operand.empty() || operand.size() > tile.size()) return nullptr;
  for (std::size_t d = 0; d < operand.size(); ++d)
    if (operand[d] != tile[d]) return nullptr;
  const std::int64_t row = row_elements(operand);
  if (row == 1) return row_block;
  const std::int64_t below = row_elements(tile) / row;  // the tile's elements per element of the operand's row
  const ExprRef column = below == 1 ? in_row : ir::binary("/", in_row, ir::int_const(below));
  return ir::add(ir::mul(row_block, row), column);
}

Value MmaLowering::thread_fragment(const std::string& base, DType t, const std::vector<std::int64_t>& shape,
                                   const SourceLocation& where) {
  if (thread_level_.threads <= 0) unchecked(where, sema::Rule::unsupported_fragment);
  std::int64_t registers = row_blocks(shape.at(0), thread_level_.threads);
  for (std::size_t d = 1; d < shape.size(); ++d) registers *= shape[d];
  if (registers > 1024)
    fail(where, "a thread holds " + std::to_string(registers) + " registers of this fragment (its " +
                    std::to_string(thread_level_.threads) + " threads hold " + shape_list(shape) +
                    " by rows); libcroqjit keeps at most 1024 per thread",
         "use a smaller fragment, or a shared tile");
  const int id = allocate(base, t, {registers}, ir::Space::local, where);
  thread_fragments_[id] = thread_level_;
  Value v;
  v.kind = Value::Kind::fragment;
  v.view.buffer = id;
  v.view.extent = shape;
  return v;
}

// apply {i, j} in x.span: each thread visits the rows it holds, every
// register of them; rows past the tile's (T does not divide them) are skipped.
void MmaLowering::thread_apply_loop(const Stmt& s, const Loop& l, const View& tile) {
  const auto found = thread_fragments_.find(tile.buffer);
  if (found == thread_fragments_.end() || found->second.index != thread_level_.index)
    fail(s.location, "`apply` over a thread level's fragment runs in the thread level that declares it");
  if (l.indices.size() != tile.extent.size())
    fail(l.bound->location, std::to_string(l.indices.size()) + " indices but the fragment has rank " +
                                std::to_string(tile.extent.size()));
  const std::int64_t threads = found->second.threads;
  const std::int64_t per_row = row_elements(tile.extent);
  ApplyContext context;
  for (const LoopIndex& index : l.indices) context.indices.push_back(index.name.name);
  context.rank = tile.extent.size();
  context.registers = buffer(tile.buffer).dims[0].value;
  context.extent = tile.extent;
  context.touched.push_back(tile.buffer);
  const std::string r = fresh("r");
  const ExprRef reg = ir::var(r);
  ir::For f;
  f.var = r;
  f.begin = ir::int_const(0);
  f.end = ir::int_const(context.registers);
  f.unroll = true;
  context.reg = reg;
  context.row_block = per_row == 1 ? reg : ir::binary("/", reg, ir::int_const(per_row));
  context.in_row = per_row == 1 ? ir::int_const(0) : ir::binary("%", reg, ir::int_const(per_row));
  const ExprRef row = ir::add(ir::mul(context.row_block, threads), found->second.index);
  // The other indices: the register's element of the row, row-major.
  std::vector<ExprRef> indices{row};
  for (ExprRef& c : row_major_coords(context.in_row, {tile.extent.begin() + 1, tile.extent.end()}))
    indices.push_back(std::move(c));
  ir::StmtList body = collect([&] { apply_body(*l.body, context, indices); });
  ir::StmtList guarded;
  guarded.push_back(ir::make_stmt(
      ir::If{ir::less(row, ir::int_const(tile.extent[0])), ir::make_stmt(ir::Seq{std::move(body), false}), nullptr}));
  f.body = ir::make_stmt(ir::Seq{std::move(guarded), false});
  line_mark(s.location);
  emit_node(std::move(f), s.location);
}

// copy(dst, src) of fragments of one shape; reduce_max / reduce_sum(dst,
// src, d) of a fragment's last dim d into the fragment of its other dims:
// each thread folds its own rows.
void MmaLowering::thread_fragment_statement(const Stmt& s, const Call& c, const std::string& name) {
  const bool copy = name == "copy";
  const View dst = registers_of(expr(*c.args[0]), *c.args[0]);
  const View src = registers_of(expr(*c.args[1]), *c.args[1]);
  const auto d_layout = thread_fragments_.find(dst.buffer), s_layout = thread_fragments_.find(src.buffer);
  if (d_layout == thread_fragments_.end() || s_layout == thread_fragments_.end() ||
      d_layout->second.index != thread_level_.index || s_layout->second.index != thread_level_.index)
    fail(s.location, "`" + name + "` of a thread level's fragments runs in the thread level that declares them");
  const ir::Buffer& d = buffer(dst.buffer);
  const ir::Buffer& sb = buffer(src.buffer);
  line_mark(s.location);
  if (copy) {
    if (dst.extent != src.extent)
      fail(s.location, "copy between register tiles of different shapes: " + shape_list(dst.extent) + " and " + shape_list(src.extent));
    const int di = dst.buffer, si = src.buffer;
    const DType dt = d.dtype, st = sb.dtype;
    for_each_register(d.dims[0].value, [&](const ExprRef& r) {
      emit_node(ir::Assign{ir::element(di, dt, nullptr, {r}), "=",
                           ir::coerce(ir::element(si, st, nullptr, {r}), ir::Type::element(dt)), nullptr});
    });
    return;
  }
  const std::int64_t dim = const_int(*c.args[2], "the dimension of a reduction");
  std::vector<std::int64_t> kept = src.extent;
  if (src.extent.size() < 2 || dim != static_cast<std::int64_t>(src.extent.size()) - 1 ||
      (kept.pop_back(), kept != dst.extent))
    fail(s.location, "libcroqjit reduces a thread level's fragment along its last dim into the fragment of its other dims, "
                     "e.g. `" + name + "(row, acc, 1)` with acc [M, N] and row [M]");
  const bool max = name == "reduce_max";
  const std::int64_t width = src.extent.back();
  const ir::Type f32 = ir::Type::f32();
  const int si = src.buffer, di = dst.buffer;
  const DType st = sb.dtype, dt = d.dtype;
  auto src_reg = [&](const ExprRef& r) { return ir::coerce(ir::element(si, st, nullptr, {r}), f32); };
  for_each_register(d.dims[0].value, [&](const ExprRef& r) {
    const std::string v = fresh(max ? "row_max" : "row_sum");
    const ExprRef var = ir::var(v, f32);
    const ExprRef first = ir::mul(r, width);
    emit_node(ir::Let{v, f32, false, src_reg(first)});
    ir::For f;
    f.var = fresh("j");
    f.begin = ir::int_const(1);
    f.end = ir::int_const(width);
    f.unroll = true;
    const ExprRef next = src_reg(ir::add(first, ir::var(f.var)));
    f.body = ir::make_stmt(ir::Seq{collect([&] {
                                     emit_node(ir::Assign{var, "=", max ? ir::math("max", {var, next}, f32) : ir::binary("+", var, next), nullptr});
                                   }),
                                   false});
    emit_node(std::move(f));
    emit_node(ir::Assign{ir::element(di, dt, nullptr, {r}), "=", ir::coerce(var, ir::Type::element(dt)), nullptr});
  });
}

}  // namespace croq::lower::detail
