// Lowering of register fragments: `frag f16 [64, K] a {v}`, `mma.load.frag`,
// and a fragment as the lhs of an mma (RS-mode WGMMA).
//
// A fragment belongs to a warpgroup and is spread over its 128 threads in
// the WGMMA accumulator layout: thread t holds, in register r of a [64, N]
// tile, element (16 (t / 32) + (t % 32) / 4 + 8 ((r >> 1) & 1),
// 8 (r >> 2) + 2 (t % 4) + (r & 1)), N / 2 registers in all; of a [64] row
// vector, rows 16 (t / 32) + (t % 32) / 4 + 8 r, r = 0, 1 (the rows of its
// accumulator elements, so element-wise work on a row of an accumulator
// finds the row's value in the same thread). That layout of a [64, K] f16
// tile is also WGMMA's A fragment, k16 slice s in registers 8s..8s+7.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

constexpr std::int64_t kWarpgroupRows = 64;

// The thread's index in its warpgroup.
ExprRef lane_in_warpgroup(const ExprRef& tid) { return ir::binary("%", tid, ir::int_const(128)); }

// Row of register `r`'s element for thread `t`: 16 (t / 32) + (t % 32) / 4 + 8 * half.
ExprRef row_of(const ExprRef& t, const ExprRef& half) {
  const ExprRef warp_row = ir::mul(ir::binary("/", t, ir::int_const(32)), 16);
  const ExprRef quad = ir::binary("/", ir::binary("%", t, ir::int_const(32)), ir::int_const(4));
  return ir::add(ir::add(warp_row, quad), ir::mul(half, 8));
}

}  // namespace

ExprRef fragment_row(const ExprRef& tid, const ExprRef& r) {
  return row_of(lane_in_warpgroup(tid), ir::binary("&", ir::binary(">>", r, ir::int_const(1)), ir::int_const(1)));
}

ExprRef fragment_col(const ExprRef& tid, const ExprRef& r) {
  const ExprRef t = lane_in_warpgroup(tid);
  return ir::add(ir::add(ir::mul(ir::binary(">>", r, ir::int_const(2)), 8), ir::mul(ir::binary("%", t, ir::int_const(4)), 2)),
                 ir::binary("&", r, ir::int_const(1)));
}

ExprRef fragment_row_of_vector(const ExprRef& tid, const ExprRef& r) { return row_of(lane_in_warpgroup(tid), r); }

void MmaLowering::for_each_register(std::int64_t registers, const std::function<void(const ExprRef&)>& body) {
  const std::string r = fresh("r");
  ir::For f;
  f.var = r;
  f.begin = ir::int_const(0);
  f.end = ir::int_const(registers);
  f.unroll = true;  // constant register indices keep the array in registers
  f.body = ir::make_stmt(ir::Seq{collect([&] { body(ir::var(r)); }), false});
  emit_node(std::move(f));
}

Value MmaLowering::fragment(const std::string& base, DType t, const std::vector<std::int64_t>& shape, const SourceLocation& where) {
  if (scope_ == Scope::thread) return thread_fragment(base, t, shape, where);
  if (!target_.wgmma())
    unchecked(where, sema::Rule::unsupported_fragment);
  if (scope_ != Scope::block)
    fail(where, "a register fragment belongs to a warpgroup: declare it at block level or in a `: group-4` level, "
                "not inside a thread level");
  // fp8: an mma's 8-bit register lhs (repacked for WGMMA's k32 A layout as it is read: emit_fp8_rs.cpp).
  if (t != DType::f32 && t != DType::f16 && t != DType::bf16 && !is_fp8(t))
    fail(where, "register fragments hold f32, f16, bf16, f8_e4m3 or f8_e5m2 elements, got " + std::string(dtype_name(t)));
  const bool tile = shape.size() == 2;
  if ((shape.size() != 1 && !tile) || shape[0] != kWarpgroupRows || (tile && (shape[1] % 8 != 0 || shape[1] < 8 || shape[1] > 256)))
    fail(where, "a register fragment is a warpgroup's [64, N] tile (N a multiple of 8 up to 256) or its [64] rows, got " +
                    shape_list(shape));
  const std::int64_t registers = tile ? shape[1] / 2 : 2;
  const int id = allocate(base, t, {registers}, ir::Space::local, where);
  buffer(id).fragment = shape;
  Value v;
  v.kind = Value::Kind::fragment;
  v.view.buffer = id;
  v.view.extent = shape;
  return v;
}

void MmaLowering::fill_fragment(int id, const ExprRef& value) {
  if (!thread_fragments_.count(id)) emit_node(ir::MmaCommit{{id}});  // an RS-mode mma may still read the registers
  const ir::Buffer& b = buffer(id);
  const ExprRef v = ir::coerce(value, ir::Type::element(b.dtype));
  for_each_register(b.dims[0].value, [&](const ExprRef& r) {
    emit_node(ir::Assign{ir::element(id, b.dtype, nullptr, {r}), "=", v, nullptr});
  });
}

// frag f16 [64, 16] a {1.0f};
void MmaLowering::fragment_declaration(const Stmt& s, const Declaration& d) {
  const TypeRef& t = d.type;
  DType dtype;
  if (!parse_dtype(t.name, dtype)) unchecked(t.location, sema::Rule::unsupported_element_type);
  std::vector<std::int64_t> shape;
  for (const auto& dim : t.shape) {
    auto part = shape_of(*dim);
    shape.insert(shape.end(), part.begin(), part.end());
  }
  line_mark(s.location);
  for (const Declarator& decl : d.declarators) {
    Value v = fragment(decl.name, dtype, shape, decl.location);
    if (decl.init_values.size() > 1)
      fail(decl.init_values[1]->location, "a fragment is filled with one value, e.g. `{0.0f}`");
    if (!decl.init_values.empty()) {
      Value fill = require_scalar(expr(*decl.init_values[0]), *decl.init_values[0]);
      fill_fragment(v.view.buffer, fill.expr);
    }
    define(decl.name, v);
  }
}

// a = mma.load.frag tile;  each thread reads its registers' elements of the
// shared tile (through the tile's swizzle), or of a global tile (sema makes
// a warpgroup's mma.load of one a fragment, `.frag` or not).
// mma.load src, frag: the same into the fragment `frag` declared.
void MmaLowering::mma_load_fragment(const Stmt& s, const Mma& m, const sema::MmaProtocol& protocol) {
  const Expr& src = *m.operands[0];
  Value v = expr(src);
  if (v.kind == Value::Kind::future) v.kind = Value::Kind::view;
  const bool global = v.kind == Value::Kind::view && buffer(v.view.buffer).space == ir::Space::global;
  if (v.kind != Value::Kind::view || (buffer(v.view.buffer).space != ir::Space::shared && !(global && m.result)))
    fail(src.location, "mma.load.frag reads a tile in shared memory");
  if (buffer(v.view.buffer).slots > 0 && !v.view.slot) fail_buffer_array(src);
  if (v.view.extent.size() != 2) unchecked(src.location, sema::Rule::mma_operand_rank);
  ir::Buffer& b = buffer(v.view.buffer);
  if (protocol.swizzle && !global) {
    const int span = swizzle_span(*protocol.swizzle);
    if (b.swizzle >= 0 && b.swizzle != span)
      unchecked(s.location, sema::Rule::swizzle_layout);
    b.swizzle = span;
  }
  if (b.swizzle < 0 && !global) b.swizzle = 0;
  const DType t = b.dtype;
  if (t != DType::f16 && t != DType::bf16)
    fail(src.location, "mma.load.frag loads f16 or bf16 tiles (an mma's lhs), got " + std::string(dtype_name(t)));
  if (!global) ask_barrier_before_shared_read(v.view.buffer);
  line_mark(s.location);
  // A global tile may reach past the tensor's edge (a tail tile): the
  // elements past it read 0, as a copy's zfill, not memory past the tensor.
  ExprRef rows, cols;
  if (global && !v.view.exact && b.dims.size() >= 2) {
    rows = tile_rest(v.view, b.dims.size() - 2, v.view.extent[0]);
    cols = tile_rest(v.view, b.dims.size() - 1, v.view.extent[1]);
  }
  Value f;
  if (m.result) {
    f = fragment(std::get<Name>(m.result->node).name, t, v.view.extent, m.result->location);
  } else {
    f = expr(*m.operands[1]);
    if (f.kind != Value::Kind::fragment || thread_fragments_.count(f.view.buffer) || buffer(f.view.buffer).dtype != t)
      unchecked(m.operands[1]->location, sema::Rule::mma_operand_kind);
    if (f.view.extent != v.view.extent)
      fail(s.location, "mma.load into a fragment of " + shape_list(f.view.extent) + " from a tile of " + shape_list(v.view.extent),
           "load a tile of the fragment's shape");
  }
  const int id = f.view.buffer;
  emit_node(ir::MmaCommit{{id}}, s.location);  // an RS-mode mma may still read the registers
  for_each_register(buffer(id).dims[0].value, [&](const ExprRef& r) {
    const ExprRef row = fragment_row(tid(), r), col = fragment_col(tid(), r);
    ExprRef element = element_at(v.view, {row, col});
    if (rows)
      element = ir::select(ir::all_of(ir::less(row, rows), ir::less(col, cols)), element, ir::typed_zero(t));
    emit_node(ir::Assign{ir::element(id, t, nullptr, {r}), "=", element, nullptr});
  });
  if (m.result) define(std::get<Name>(m.result->node).name, f);
}

bool MmaLowering::names_fragment(const Expr& e) const {
  const auto* n = std::get_if<Name>(&e.node);
  const Value* v = n ? lookup(n->name) : nullptr;
  return v && v->kind == Value::Kind::fragment;
}

}  // namespace croq::lower::detail
