// Lowering of mma.fill / mma.load / mma.row.row / mma.commit / mma.store.
//
// mma.row.row acc, a, b: a is [64, K] (one warpgroup's rows), b is [N, K],
// both K-major tiles in shared memory. The Mma operation stays abstract; the
// instruction-selection pass picks WGMMA (sm_90a) or mma.sync (sm_80 and
// every other target from 80) and checks the operand layouts it needs. The
// accumulator keeps WGMMA's fragment layout either way, so fill and store
// are shared.
//
// Warp-level mma: directly in a `: group` level each warp owns a 16 x N
// accumulator (Accumulator::rows = 16) from a [16, K] lhs and a [N, K]
// (row.row) or [K, N] (row.col) rhs; always mma.sync, any target from sm_80.
#include <functional>

#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

// The flat index of the accumulator `v` selects in an array (`mc[0][i]`), or
// null for a single accumulator; an array must be selected down to one.
ExprRef selected_index(const ir::Kernel& kernel, const Value& v, const std::string& text,
                       const std::function<void(const std::string&)>& fail) {
  const auto& dims = kernel.accumulators[static_cast<std::size_t>(v.accumulator)].array_dims;
  if (v.accumulator_selected != dims.size())
    fail("an array of accumulators where sema's rule `" + std::string(sema::rule_id(sema::Rule::buffer_array_unselected)) +
         "` wants one (`" + text + "`)");
  return v.accumulator_index;
}

}  // namespace

void MmaLowering::mma_statement(const Stmt& s, const Mma& m) {
  if (!target_.mma_sync())
    unchecked(s.location, sema::Rule::needs_sm80);
  line_mark(s.location);
  auto operand_count = [&](std::size_t n) {
    if (m.operands.size() != n)
      fail(s.location, "mma." + std::string(mma_op_name(m.op)) + " takes " + std::to_string(n) + " operand" +
                           (n == 1 ? "" : "s") + ", got " + std::to_string(m.operands.size()));
  };
  switch (m.op) {
    case MmaOp::fill: {
      if (m.operands.size() == 2 && !m.result) {  // `mma.fill acc, v;` refills
        Value acc_value = expr(*m.operands[0]);
        if (acc_value.kind != Value::Kind::accumulator)
          unchecked(m.operands[0]->location, sema::Rule::accumulator_expected);
        const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(acc_value.accumulator)];
        Value fill = expr(*m.operands[1]);
        if (fill.kind != Value::Kind::scalar) unchecked(m.operands[1]->location, sema::Rule::mma_fill_value);
        ir::MmaFill refill{acc_value.accumulator, "=", ir::coerce(fill.expr, ir::Type::element(acc.dtype)), nullptr};
        refill.index = selected_index(kernel_, acc_value, source_text(*m.operands[0]),
                                      [&](const std::string& why) { fail(m.operands[0]->location, why); });
        emit_node(std::move(refill), s.location);
        return;
      }
      operand_count(1);
      const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr;
      if (!name) unchecked(s.location, sema::Rule::mma_result);
      // Filled at block scope, the accumulator is each warp's own in the
      // `: group` level that multiplies into it (registers are per thread).
      // So is a `frag` at the top of the kernel (sema: outside every parallel
      // statement of a function of one kernel).
      const bool per_warp = on_single_warps() || at_block_scope() || (m.frag_declaration && scope_ == Scope::kernel);
      if (!on_whole_warpgroups() && !per_warp)
        unchecked(s.location, sema::Rule::mma_warpgroups);
      ir::Accumulator acc;
      acc.warp = per_warp;
      acc.rows = per_warp ? 0 : 64;  // a warp's rows: from its first mma
      acc.dtype = mma_protocol(s, m).accumulator;
      Value fill = expr(*m.operands[0]);
      if (fill.kind != Value::Kind::scalar) unchecked(m.operands[0]->location, sema::Rule::mma_fill_value);
      acc.fill = ir::coerce(fill.expr, ir::Type::element(acc.dtype));
      for (const ExprPtr& dim : m.array_dims) {  // `frag mc[2][3] {0.0f}`
        Value d = expr(*dim);
        if (!d.constant || *d.constant < 1) fail(dim->location, "an array of accumulators has constant sizes of at least 1");
        if (!per_warp) fail(dim->location, "arrays of accumulators are a warp's (filled in or above a `: group` level)");
        acc.array_dims.push_back(*d.constant);
      }
      acc.name = fresh(name->name);
      kernel_.accumulators.push_back(acc);
      const int id = static_cast<int>(kernel_.accumulators.size()) - 1;
      emit_node(ir::MmaFill{id, "", nullptr}, s.location);
      Value v;
      v.kind = Value::Kind::accumulator;
      v.accumulator = id;
      define(name->name, v);
      return;
    }
    case MmaOp::load: {
      if (m.operands.size() == 2 && !m.result) return mma_load_fragment(s, m, mma_protocol(s, m));  // mma.load src, frag
      operand_count(1);
      const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr;
      if (!name) unchecked(s.location, sema::Rule::mma_result);
      const sema::MmaProtocol& protocol = mma_protocol(s, m);
      if (protocol.to_registers) return mma_load_fragment(s, m, protocol);
      if (protocol.accumulator_load) return accumulator_load(s, m, name->name, protocol);
      Value v = expr(*m.operands[0]);
      if (v.kind == Value::Kind::future) v.kind = Value::Kind::view;
      // From global or local memory only at warp level (gathered fragments;
      // each lane reads its own copy of a local tile).
      const bool direct = v.kind == Value::Kind::view && (buffer(v.view.buffer).space == ir::Space::global ||
                                                          buffer(v.view.buffer).space == ir::Space::local);
      if (v.kind != Value::Kind::view || (buffer(v.view.buffer).space != ir::Space::shared && !(direct && on_single_warps())))
        unchecked(m.operands[0]->location, sema::Rule::mma_operand_kind);
      if (buffer(v.view.buffer).slots > 0 && !v.view.slot) fail_buffer_array(*m.operands[0]);
      if (direct) {
        v.kind = Value::Kind::operand;
        v.swizzle = 0;
        define(name->name, v);
        return;
      }
      ask_barrier_before_shared_read(v.view.buffer);
      const int span = protocol.swizzle ? swizzle_span(*protocol.swizzle) : 0;
      ir::Buffer& b = buffer(v.view.buffer);
      if (b.swizzle >= 0 && b.swizzle != span)
        unchecked(s.location, sema::Rule::swizzle_layout);
      // The first use fixes the tile's layout, so a copy written later in the
      // source (a consumer region before the producer's) must match it.
      if (b.swizzle < 0) b.swizzle = span;
      v.kind = Value::Kind::operand;
      v.swizzle = span;
      define(name->name, v);
      return;
    }
    case MmaOp::commit:
      emit_node(ir::MmaCommit{}, s.location);
      return;
    case MmaOp::multiply:
      // Sema accepted five operands as mma.row.row.scale only (lower_mma_scale.cpp).
      m.operands.size() == 5 ? mma_scaled_multiply(s, m) : mma_multiply(s, m);
      // `f = mma.row.row.async acc, a, b;`: f names the multiply's completion,
      // which a `wait f` (a completion point of every group) reaches.
      if (const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr) {
        Value f;
        f.kind = Value::Kind::mma_future;
        define(name->name, f);
      }
      return;
    case MmaOp::store:
      mma_store(s, m);
      return;
    case MmaOp::scale:
      mma_scale(s, m);  // lower_mma_scale.cpp
      return;
  }
}

ir::MmaOperand MmaLowering::mma_tile_operand(const Expr& e, View& tile, bool fragment_ok, bool global_ok) {
  Value v = expr(e);
  if (v.kind == Value::Kind::future) v.kind = Value::Kind::view;
  if (fragment_ok && v.kind == Value::Kind::fragment) {  // RS mode: the lhs from registers
    if (v.view.extent.size() != 2) unchecked(e.location, sema::Rule::mma_operand_rank);
    tile = v.view;
    ir::MmaOperand op;
    op.address = ir::int_const(0);
    op.tile.buffer = v.view.buffer;
    op.tile.origin = {ir::int_const(0)};
    op.tile.origin_multiple = {0};
    op.tile.extent = {v.view.extent[1] / 2};
    op.where = pos(e.location);
    return op;
  }
  if (v.kind == Value::Kind::view && buffer(v.view.buffer).space == ir::Space::shared) {
    ask_barrier_before_shared_read(v.view.buffer);
    ir::Buffer& b = buffer(v.view.buffer);
    v.swizzle = std::max(0, b.swizzle);  // direct operand: the tile's own layout
    // Not copied yet in the source (a consumer region written before the
    // producer's): it is read unswizzled, so fix that layout and a later
    // copy with a swizzle is an error rather than wrong results.
    if (b.swizzle < 0) b.swizzle = v.swizzle;
  } else if (v.kind == Value::Kind::view && global_ok && buffer(v.view.buffer).space == ir::Space::global) {
    v.swizzle = 0;  // a warp reads global tiles directly (gathered fragments)
  } else if (v.kind == Value::Kind::operand && buffer(v.view.buffer).space == ir::Space::local && !global_ok) {
    unchecked(e.location, sema::Rule::mma_operand_kind);  // an mma.load of local memory is a warp's
  } else if (v.kind != Value::Kind::operand) {
    unchecked(e.location, sema::Rule::mma_operand_kind);
  }
  if (buffer(v.view.buffer).slots > 0 && !v.view.slot) fail_buffer_array(e);
  if (v.view.extent.size() != 2) unchecked(e.location, sema::Rule::mma_operand_rank);
  const ir::Buffer& b = buffer(v.view.buffer);
  tile = v.view;
  ir::MmaOperand op;
  op.address = tile_address(v.view);
  op.pitch = b.dims.back().value * static_cast<std::int64_t>(dtype_size(b.dtype));
  op.leading = dim_expr(v.view.buffer, b.dims.size() - 1);
  op.swizzle = v.swizzle;
  op.space = b.space;
  op.tile = tile_of(v.view);
  op.where = pos(e.location);
  // A warp gathers a global tile element by element: where it may reach past
  // the tensor's edge (a tail tile), the elements past it read 0, as a
  // copy's zfill, instead of memory past the tensor.
  if (b.space == ir::Space::global && !v.view.exact && b.dims.size() >= 2) {
    const std::size_t rank = b.dims.size();
    op.rows = tile_rest(v.view, rank - 2, v.view.extent[0]);
    op.cols = tile_rest(v.view, rank - 1, v.view.extent[1]);
  }
  return op;
}

namespace {

// The accumulator types a warp's mma.sync has for each input type.
bool warp_input_fits(DType input, DType acc) {
  switch (input) {
    case DType::f16: return acc == DType::f32 || acc == DType::f16;
    case DType::bf16: return acc == DType::f32;
    case DType::f32: return acc == DType::f32;  // as tf32
    case DType::s8:
    case DType::u8: return acc == DType::s32;
    default: return false;
  }
}

}  // namespace

void MmaLowering::mma_multiply(const Stmt& s, const Mma& m) {
  // mma.row.row.sp acc, a, b, meta: 2:4 sparse lhs (lower_mma_sparse.cpp).
  if (m.operands.size() == 4) return mma_sparse_multiply(s, m);
  const bool wgmma = target_.wgmma();  // for the wording of messages only
  if (m.operands.size() != 3 && m.operands.size() != 5) fail(s.location, "mma." + std::string(mma_op_name(m.op)) + " takes 3 operands, got " +
                                                   std::to_string(m.operands.size()));
  if (!on_whole_warpgroups() && !on_single_warps())
    unchecked(s.location, sema::Rule::mma_warpgroups);
  Value acc_value = expr(*m.operands[0]);
  if (acc_value.kind != Value::Kind::accumulator)
    unchecked(m.operands[0]->location, sema::Rule::accumulator_expected);
  acc_value.accumulator = scale_target(acc_value.accumulator);  // a later mma.scale's partial
  ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(acc_value.accumulator)];
  if (acc.warp != on_single_warps())
    fail(s.location, acc.warp ? "this accumulator is one warp's (filled in a `: group` level or at block scope); multiply into it in a `: group` level"
                              : "this accumulator is a warpgroup's; multiply into it at its group-4 level");
  mma_protocol(s, m);  // sema accepted it whole: a dense mma has no modifiers
  const bool per_warp = acc.warp;
  // RS mode: lhs is a register fragment (lower_frag.cpp).
  const bool lhs_in_registers = names_fragment(*m.operands[1]);
  if (lhs_in_registers && per_warp)
    fail(m.operands[1]->location, "a register fragment is a warpgroup's lhs; a warp's mma reads its lhs from shared memory");
  // row.col: rhs is [K, N], N contiguous, as written; how the instruction
  // reads it (ldmatrix.trans at warp level, WGMMA's imm-trans-b) is the
  // selection pass's. Sema allows it on warps, on a register lhs and where
  // WGMMA multiplies.
  const bool n_major = m.layout == "row.col" || m.layout == "col.col";
  // col.*: lhs is [K, M], M contiguous (WGMMA's imm-trans-a, SS mode only).
  const bool m_major = m.layout == "col.row" || m.layout == "col.col";
  if (n_major && !per_warp && !lhs_in_registers && !target_.wgmma())
    unchecked(s.location, sema::Rule::unsupported_mma_layout);
  if (m_major && (per_warp || lhs_in_registers || !target_.wgmma()))
    unchecked(s.location, sema::Rule::unsupported_mma_layout);
  ir::MmaOperand operands[2];
  View tiles[2];
  for (int i = 0; i < 2; ++i) operands[i] = mma_tile_operand(*m.operands[1 + i], tiles[i], i == 0, per_warp);
  const View& a = tiles[0];
  const View& b = tiles[1];
  const DType t = buffer(a.buffer).dtype, tb = buffer(b.buffer).dtype;
  // fp8 (e4m3, e5m2, in any mix) multiplies on WGMMA only: the selection
  // pass refuses it for other targets.
  const bool fp8 = is_fp8(t) && is_fp8(tb);
  if (per_warp && fp8) fail(s.location, "warp-level mma (mma.sync) multiplies f16 or bf16 tiles, not fp8");
  if (n_major && !per_warp && (fp8 || acc.dtype != DType::f32))
    fp8 ? unchecked(s.location, sema::Rule::unsupported_mma_layout)
        : fail(s.location, "mma.row.col on WGMMA accumulates in f32 here: use mma.fill.f32");
  if (m_major && (fp8 || acc.dtype != DType::f32))
    fp8 ? unchecked(s.location, sema::Rule::unsupported_mma_layout)
        : fail(s.location, "mma." + m.layout + " on WGMMA accumulates in f32 here: use mma.fill.f32");
  if (m.layout != "row.row" && !n_major && !m_major)
    unchecked(s.location, sema::Rule::unsupported_mma_layout);
  if (per_warp) {
    if (t != tb || !warp_input_fits(t, acc.dtype))
      fail(s.location, "a warp's mma.sync multiplies f16 (f32 or f16 accumulator), bf16 or f32 as tf32 (f32 accumulator), "
                       "or s8 or u8 (s32 accumulator) tiles, both the same; got " + std::string(dtype_name(t)) + " and " +
                           std::string(dtype_name(tb)) + " into " + std::string(dtype_name(acc.dtype)));
  } else {
    if (!fp8 && (t != tb || (t != DType::f16 && t != DType::bf16)))
      unchecked(s.location, sema::Rule::mma_element_types);
    if (!fp8 && acc.dtype == DType::f16 && t != DType::f16)
      unchecked(s.location, sema::Rule::mma_element_types);
  }
  const std::int64_t b_k = b.extent[n_major ? 0 : 1];
  const std::int64_t a_m = a.extent[m_major ? 1 : 0], a_k = a.extent[m_major ? 0 : 1];
  if (m_major && a_m != 64)
    fail(m.operands[1]->location, "mma." + m.layout + " takes lhs as [K, M] with M = 64 (WGMMA m64), got " +
                                      shape_text(t, a.extent),
         "give each consumer warpgroup its own 64 columns, e.g. lhs_s.subspan(K, 64).at(0, p - 1)");
  if (!per_warp && a_m != 64)
    fail(m.operands[1]->location, std::string("one warpgroup's mma takes 64 rows of lhs (") +
                                      (wgmma ? "WGMMA m64" : "16 per warp") + "), got " + std::to_string(a.extent[0]),
         "give each consumer warpgroup its own 64 rows, e.g. lhs_s.subspan(64, K).at(p - 1, 0)");
  if (a_k != b_k)
    fail(s.location, "lhs has K = " + std::to_string(a_k) + " but rhs has K = " + std::to_string(b_k) +
                         " (mma." + m.layout + " takes rhs as " + (n_major ? "[K, N])" : "[N, K])"));
  const std::int64_t n = b.extent[n_major ? 1 : 0];
  if (!per_warp && !target::mma_n_supported(n))
    fail(m.operands[2]->location, std::string(wgmma ? "WGMMA's" : "mma's") +
                                      " N (rhs rows) must be a multiple of 8 up to 256, got " + std::to_string(n));
  const std::int64_t rows = per_warp ? a.extent[0] : 64;
  if ((acc.n != 0 && acc.n != n) || (acc.rows != 0 && acc.rows != rows))
    fail(s.location, "the accumulator is " + std::to_string(acc.rows) + " x " + std::to_string(acc.n) + " but this mma makes " +
                         std::to_string(rows) + " x " + std::to_string(n));
  acc.n = n;
  acc.rows = rows;
  ir::Mma op;
  op.accumulator = acc_value.accumulator;
  op.index = selected_index(kernel_, acc_value, source_text(*m.operands[0]),
                            [&](const std::string& why) { fail(m.operands[0]->location, why); });
  op.a = operands[0];
  op.b = operands[1];
  op.input = t;
  op.input_b = tb;
  op.k = a_k;
  op.b_n_major = n_major;
  op.a_m_major = m_major;
  op.where = pos(s.location);
  if (lhs_in_registers) {
    if (acc.dtype != DType::f32) fail(s.location, "an mma with a register lhs accumulates in f32: use mma.fill.f32");
    const std::int64_t step = fp8 ? 32 : 16;  // fp8: WGMMA k32
    if (op.k % step != 0)
      fail(m.operands[1]->location, "a register lhs" + std::string(fp8 ? " of fp8" : "") + " has K in steps of " +
                                        std::to_string(step) + " (WGMMA k" + std::to_string(step) + "), got " + std::to_string(op.k));
    op.a_fragment = a.buffer;
  }
  if (target_.wgmma() && !per_warp)
    for (const View& tile : tiles) fence_before_async_read(tile, s.location);  // lower_mma_proxy.cpp
  // RS mode reads the fragment's registers until the group completes: every
  // statement that writes a fragment (apply, reductions, copy, fill,
  // mma.load.frag) is a completion point first, so the group may stay in
  // flight past this statement (the next k tile's loads and multiplies).
  emit_node(std::move(op), s.location);
}

void MmaLowering::accumulator_update(const Stmt& s, const Assignment& a, const Value& target) {
  const int accumulator = target.accumulator;
  const ExprRef index = selected_index(kernel_, target, source_text(*a.target),
                                       [&](const std::string& why) { fail(a.target->location, why); });
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(accumulator)];
  const std::string op = assign_op_name(a.op);
  if (!acc.warp || (op != "=" && op != "+=" && op != "-=" && op != "*=" && op != "/="))
    fail(a.target->location, "element-wise arithmetic on an accumulator is supported on a warp's accumulators, with "
                             "=, +=, -=, *= or /= and a number");
  Value value = expr(*a.value);
  if (value.kind != Value::Kind::scalar)
    fail(a.value->location, "an accumulator is updated element-wise with a number, got `" + source_text(*a.value) + "`");
  const ir::Type type = acc.dtype == DType::s32 ? ir::Type::i32() : ir::Type::f32();
  ir::MmaFill update{accumulator, op, ir::coerce(value.expr, type), index};
  emit_node(std::move(update), s.location);
}

void MmaLowering::mma_store(const Stmt& s, const Mma& m) {
  const sema::MmaProtocol& protocol = mma_protocol(s, m);  // sema accepted the operands (a mask's guards too)
  if (!on_whole_warpgroups() && !on_single_warps())
    unchecked(s.location, sema::Rule::mma_warpgroups);
  Value acc_value = expr(*m.operands[0]);
  if (acc_value.kind != Value::Kind::accumulator)
    unchecked(m.operands[0]->location, sema::Rule::accumulator_expected);
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(acc_value.accumulator)];
  if (acc.n == 0) unchecked(s.location, sema::Rule::mma_store_unwritten);
  Value d = expr(*m.operands[1]);
  if (d.kind != Value::Kind::view || d.view.pending != View::Pending::none || d.view.extent.size() != 2)
    unchecked(m.operands[1]->location, sema::Rule::mma_store_destination);
  View& v = d.view;
  ir::Buffer& b = buffer(v.buffer);
  if (b.slots > 0 && !v.slot) fail_buffer_array(*m.operands[1]);
  if (acc.warp != on_single_warps())
    fail(s.location, "store a warp's accumulator in its `: group` level, a warpgroup's in its group-4 level");
  const bool transpose = protocol.transpose;  // stored as [N, M]
  const std::int64_t rows = transpose ? acc.n : acc.rows, cols = transpose ? acc.rows : acc.n;
  if (v.extent[0] != rows || v.extent[1] != cols)
    fail(m.operands[1]->location, "the accumulator is " + std::to_string(acc.rows) + " x " + std::to_string(acc.n) +
                                      (transpose ? " (stored transposed)" : "") + " but the destination tile is " +
                                      shape_text(b.dtype, v.extent));
  if (acc.dtype == DType::s32 ? b.dtype != DType::s32 : (b.dtype != DType::f32 && b.dtype != DType::f16 && b.dtype != DType::bf16))
    unchecked(m.operands[1]->location, sema::Rule::mma_store_destination);
  ir::MmaStore op;
  op.transpose = transpose;
  op.index = selected_index(kernel_, acc_value, source_text(*m.operands[0]),
                            [&](const std::string& why) { fail(m.operands[0]->location, why); });
  op.accumulator = acc_value.accumulator;
  op.destination = tile_address(v);
  op.leading = dim_expr(v.buffer, 1);
  op.space = b.space;
  if (b.space == ir::Space::shared) {
    // `.swiz<N>`, or the tile's own layout: sema accepted either.
    const int span = protocol.swizzle ? swizzle_span(*protocol.swizzle) : std::max(0, b.swizzle);
    if (span > 0) {
      if (transpose || protocol.mask_rows) unchecked(m.operands[1]->location, sema::Rule::mma_store_swizzled);
      // The swizzle permutes the 16-byte chunks of each row of `span`
      // bytes, in atoms of 8 rows: the tile's rows are the span, and the
      // destination starts an atom.
      const std::size_t last = b.dims.size() - 1;
      const std::int64_t row_bytes = dim_value(v.buffer, last) * static_cast<std::int64_t>(dtype_size(b.dtype));
      if (row_bytes != span)
        fail(m.operands[1]->location, "mma.store.swiz<" + std::to_string(span) + "> writes tiles whose rows are " +
                                          std::to_string(span) + " bytes; this tile's rows are " + std::to_string(row_bytes),
             "store into a tile of " + std::to_string(span / static_cast<int>(dtype_size(b.dtype))) + " columns");
      if (!ir::is_zero(v.origin.back()) || v.extent.back() != dim_value(v.buffer, last))
        fail(m.operands[1]->location, "mma.store.swiz<" + std::to_string(span) + "> writes whole rows of the tile",
             "store into whole rows: `.subspan(64, N).at(i, 0)`");
    }
    if (b.swizzle >= 0 && b.swizzle != span) unchecked(m.operands[1]->location, sema::Rule::swizzle_layout);
    b.swizzle = span;
    op.swizzle = span;
    wait_before_tile_write(v, s.location);
    note_generic_write(v.buffer);  // a WGMMA reading it fences first
  } else if (b.space == ir::Space::global) {
    op.rows = ir::int_const(rows);
    op.cols = ir::int_const(cols);
    if (!v.exact) {
      op.rows = tile_rest(v, 0, rows);
      op.cols = tile_rest(v, 1, cols);
    }
    mark_written(v.buffer);
  } else {
    unchecked(m.operands[1]->location, sema::Rule::mma_store_destination);
  }
  if (protocol.mask_rows) {
    op.rows = store_guard(*protocol.mask_rows, rows, op.rows);
    if (protocol.mask_cols) op.cols = store_guard(*protocol.mask_cols, cols, op.cols);
    else if (!op.cols) op.cols = ir::int_const(cols);  // a shared tile's: every column
  }
  emit_node(std::move(op), s.location);
}

// 64-bit kernels clamp the rest to the tile first so the int cannot wrap.
ExprRef MmaLowering::tile_rest(const View& v, std::size_t d, std::int64_t tile) {
  const ExprRef rest = ir::binary("-", dim_expr(v.buffer, d), v.origin[d]);
  const ExprRef clamped = ir::by_index_width(rest, ir::select(ir::less(rest, ir::int_const(tile)), rest, ir::int_const(tile)));
  return ir::convert(clamped, ir::Type::i32());
}

// `mc = mma.load tile;` where an mma accumulates into mc (sema's
// accumulator_load): a warp accumulator of the tile's shape, declared
// zero, then read from the tile (global or shared; a global tile's tail
// reads 0).
void MmaLowering::accumulator_load(const Stmt& s, const Mma& m, const std::string& name, const sema::MmaProtocol& protocol) {
  if (!on_single_warps()) unchecked(s.location, sema::Rule::unsupported_mma_form);
  Value v = expr(*m.operands[0]);
  if (v.kind == Value::Kind::future) v.kind = Value::Kind::view;
  if (v.kind != Value::Kind::view || v.view.extent.size() != 2) unchecked(m.operands[0]->location, sema::Rule::mma_operand_kind);
  ir::Buffer& b = buffer(v.view.buffer);
  if (b.space != ir::Space::global && b.space != ir::Space::shared) unchecked(m.operands[0]->location, sema::Rule::unsupported_mma_form);
  if (b.slots > 0 && !v.view.slot) fail_buffer_array(*m.operands[0]);
  const View& tile = v.view;
  if (tile.extent[0] < 1 || tile.extent[1] < 1)
    fail(m.operands[0]->location, "an accumulator's mma.load reads a tile of constant extents, got " + shape_text(b.dtype, tile.extent));
  ir::Accumulator acc;
  acc.warp = true;
  acc.rows = tile.extent[0];
  acc.n = tile.extent[1];
  acc.dtype = protocol.accumulator;
  acc.fill = ir::coerce(ir::int_const(0), ir::Type::element(acc.dtype));
  acc.name = fresh(name);
  kernel_.accumulators.push_back(acc);
  const int id = static_cast<int>(kernel_.accumulators.size()) - 1;
  emit_node(ir::MmaFill{id, "", nullptr}, s.location);
  ir::MmaLoad op;
  op.accumulator = id;
  op.source = tile_address(tile);
  op.leading = dim_expr(tile.buffer, b.dims.size() - 1);
  op.space = b.space;
  if (b.space == ir::Space::shared) {
    ask_barrier_before_shared_read(tile.buffer);
    if (b.swizzle > 0) unchecked(m.operands[0]->location, sema::Rule::swizzle_layout);
    b.swizzle = 0;
  } else if (!tile.exact) {
    op.rows = tile_rest(tile, 0, acc.rows);
    op.cols = tile_rest(tile, 1, acc.n);
  }
  emit_node(std::move(op), s.location);
  Value a;
  a.kind = Value::Kind::accumulator;
  a.accumulator = id;
  define(name, a);
}

// The rows (or columns) a masked store writes: the guard clamped to the
// tile's `extent` (so the int cannot wrap) and to `bound`, what the
// destination has left (null: all of it). A negative guard writes nothing.
ExprRef MmaLowering::store_guard(const Expr& guard, std::int64_t extent, const ExprRef& bound) {
  Value g = expr(guard);
  if (g.kind != Value::Kind::scalar) unchecked(guard.location, sema::Rule::mma_store_mask);
  const ExprRef wide = ir::convert(g.expr, ir::Type::i64());
  const ExprRef tile = ir::int_const(extent, ir::Type::i64());
  const ExprRef clamped = ir::convert(ir::select(ir::less(wide, tile), wide, tile), ir::Type::i32());
  return bound ? ir::select(ir::less(clamped, bound), clamped, bound) : clamped;
}

}  // namespace croq::lower::detail
