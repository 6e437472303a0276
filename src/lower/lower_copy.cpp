// Lowering of dma.copy, dma.transp and dma.pad into CopyTiles operations
// (the backend prints their element loops; the vectorization pass picks the
// access width).
#include <algorithm>

#include "lower/lowering.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

namespace {

constexpr const char* redundant_zfill = "`.zfill` is redundant: the source tile always covers the destination";

}  // namespace

void MemoryLowering::require_static(const View& v, const Expr& where) {
  for (std::size_t d = 0; d < v.extent.size(); ++d)
    if (v.extent[d] < 0)
      fail(where.location, "the copied tile's extent in dimension " + std::to_string(d) + " is the dynamic dim `" +
                               dim_name(v.buffer, d) + "`; a copy's shape must be known at compile time",
           "copy tiles of a constant size, e.g. `subspan(64, ...).at(...)`");
}

// dma.pad<low, high, mid, value>: per dimension, `low` elements before the
// source, `high` after it and `mid` between neighbouring source elements,
// all holding `value`; the padded extent is low + high + n + (n - 1) * mid.
ir::Padding MemoryLowering::padding(const Copy& c, const std::vector<std::int64_t>& extent) {
  if (!facts_.paddings.count(&c)) unchecked(c.op_location, "a padding sema did not decode");
  const sema::Padding& decoded = facts_.padding(c);  // sema checked its form
  static const char* const names[] = {"low", "high", "mid"};
  ir::Padding p;
  std::vector<std::int64_t>* parts[] = {&p.low, &p.high, &p.mid};
  for (int k = 0; k < 3; ++k) {
    if (decoded.parts[k].size() != extent.size()) unchecked(c.op_location, "a padding of another rank");
    for (const Expr* el : decoded.parts[k]) {
      std::int64_t v = const_int(*el, sema::what::padding);
      if (sema::Verdict broken = sema::pad_padding(names[k], v)) fail(el->location, *broken);
      if (v > kInt32Max)
        fail(el->location, std::string("`") + names[k] + "` padding must be below 2^31, got " + std::to_string(v));
      parts[k]->push_back(v);
    }
  }
  Value value = expr(*decoded.value);
  if (value.kind != Value::Kind::scalar || value.guard || (!value.constant && !value.is_float))
    unchecked(decoded.value->location, "a padding value that is not a number");
  p.value = value.expr;
  return p;
}

// Runtime extents (`view(1, X)`, `subspan(1, X)`) on either side: the copy
// covers the smaller static extent of each such dim and its elements below
// the limits (the backend guards them); a limit past that extent would
// leave elements uncopied, so it stops the kernel (__trap).
void MemoryLowering::limit_extents(const Stmt& s, const Copy& c, View& src, View& dst, std::vector<std::int64_t>& dst_extent) {
  auto limited = [](const View& v, std::size_t d) { return d < v.limit.size() && v.limit[d]; };
  bool any = false;
  for (std::size_t d = 0; d < std::max(src.extent.size(), dst.extent.size()); ++d) any = any || limited(src, d) || limited(dst, d);
  if (!any) return;
  if (c.op != CopyOp::copy)
    fail(c.op_location, "dma." + std::string(copy_op_name(c.op)) +
                            " of a tile whose extent is computed in the kernel is not supported yet by libcroqjit");
  if (src.extent.size() != dst.extent.size()) return;  // the shape check reports it
  for (std::size_t d = 0; d < dst.extent.size(); ++d) {
    if (!limited(src, d) && !limited(dst, d)) continue;
    const std::int64_t common = std::min(src.extent[d], dst.extent[d]);
    ExprRef checked;  // one check when both sides name the same value
    for (const View* side : {&src, &dst}) {
      if (!limited(*side, d)) continue;
      const ExprRef& limit = side->limit[d];
      const bool same = checked && (checked == limit || (checked->kind == ir::ExprKind::var &&
                                                         limit->kind == ir::ExprKind::var && checked->text == limit->text));
      if (!same) emit_node(ir::Trap{ir::binary("<=", limit, ir::int_const(common))}, s.location);
      checked = limit;
    }
    src.extent[d] = dst.extent[d] = dst_extent[d] = common;
  }
}

// dma.transp<p...>: the destination's extents (dst dim d takes src dim
// p[d]) and the inverse permutation (src dim p[d] reads dst index d).
std::vector<std::int64_t> MemoryLowering::transposition(const Copy& c, const std::vector<std::int64_t>& src_extent,
                                                 std::vector<std::int64_t>& dst_extent) {
  std::vector<std::int64_t> perm;
  for (const auto& a : c.op_args) perm.push_back(const_int(*a, sema::what::transp_dimension));
  std::vector<bool> seen(perm.size());
  if (perm.size() != dst_extent.size())
    unchecked(c.op_location, sema::Rule::transp_arity);
  for (auto p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(perm.size()) || seen[p])
      unchecked(c.op_location, sema::Rule::transp_permutation);
    seen[p] = true;
  }
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t d = 0; d < perm.size(); ++d) {
    dst_extent[d] = src_extent[perm[d]];
    inverse[perm[d]] = static_cast<std::int64_t>(d);
  }
  return inverse;
}

// The padded extent of each dimension: low + high + n + (n - 1) * mid.
std::vector<std::int64_t> MemoryLowering::padded_extents(const Copy& c, const ir::Padding& pad,
                                                  const std::vector<std::int64_t>& src_extent) {
  std::vector<std::int64_t> out(src_extent.size());
  for (std::size_t d = 0; d < out.size(); ++d) {
    // A gap term of INT64_MAX is tile_end's overflow.
    const std::int64_t n = src_extent[d];
    std::int64_t padded = 0;
    bool overflow = false;
    for (std::int64_t term : {pad.low[d], pad.high[d], n, tile_end(std::max<std::int64_t>(n - 1, 0), pad.mid[d], 0)}) {
      const support::CheckedInt next = support::checked_add(padded, term);
      overflow = overflow || !next.ok() || term == INT64_MAX;
      padded = next.value;
    }
    if (overflow)
      fail(c.op_location, "the padded extent of dimension " + std::to_string(d) + " overflows a 64-bit signed integer");
    out[d] = padded;
  }
  return out;
}

// `dma.copy.swiz<N>`: the TMA layout, written by threads, into a shared tile
// whose rows are N bytes; the tile's first writer fixes its layout.
void MemoryLowering::swizzled_destination(const Modifier& swiz, int dst) {
  int span = swizzle_span(swiz);
  ir::Buffer& b = buffer(dst);
  if (b.space != ir::Space::shared)
    unchecked(swiz.location, sema::Rule::swizzle_needs_shared);
  const std::int64_t row_bytes = b.dims.back().value * static_cast<std::int64_t>(dtype_size(b.dtype));
  if (span > 0 && row_bytes != span)
    fail(swiz.location, "dma.copy.swiz<" + std::to_string(span) + "> needs tile rows of exactly " + std::to_string(span) +
                            " bytes, got " + std::to_string(row_bytes),
         "match the innermost tile extent to the swizzle span");
  if (b.swizzle >= 0 && b.swizzle != span)
    unchecked(swiz.location, sema::Rule::swizzle_layout);
  b.swizzle = span;
}

// `dma.copy ... after f, g`: the dma copies before it complete in program
// order, so the copy starts after theirs once the block has met at a
// barrier (sema accepts dma futures only), as `wait f, g;` does.
void MemoryLowering::copy_after(const Stmt& s, const Copy& c) {
  if (c.after.empty()) return;
  for (const auto& dependency : c.after) {
    const Value f = expr(*dependency);
    if (f.kind != Value::Kind::future || f.event >= 0 || !f.bound_event.empty())
      unchecked(s.location, sema::Rule::unsupported_after);
  }
  line_mark(s.location);
  if (scope_ == Scope::block) emit_barrier();
}

void MemoryLowering::copy(const Stmt& s, const Copy& c) {
  if (c.op == CopyOp::any) {
    placeholder(s, c);
    return;
  }
  if (c.engine == Engine::tma) {
    tma_copy(s, c);
    return;
  }
  if (c.op != CopyOp::copy && c.op != CopyOp::transp && c.op != CopyOp::pad)
    unchecked(c.op_location, sema::Rule::unsupported_copy);
  if (!facts_.copies.count(&c)) unrecorded(c.op_location, "a copy");
  const sema::CopyProtocol& protocol = facts_.protocol(c);
  bool zfill = protocol.zfill;
  const bool async = protocol.async;
  const Modifier* swiz = protocol.swizzle;
  copy_after(s, c);
  Value src = expr(*c.source);
  place_at_origin(src);
  zfill = zfill || src.zfill;
  if (src.kind == Value::Kind::future) src.kind = Value::Kind::view;
  if (src.kind != Value::Kind::view || src.view.pending != View::Pending::none)
    unchecked(c.source->location, sema::Rule::copy_source);
  require_static(src.view, *c.source);
  ask_barrier_before_shared_read(src.view.buffer);
  ask_barrier_before_thread_copy(src.view.buffer);
  const DType src_dtype = buffer(src.view.buffer).dtype;
  std::vector<std::int64_t> perm;
  std::vector<std::int64_t> dst_extent = src.view.extent;
  if (c.op == CopyOp::transp) perm = transposition(c, src.view.extent, dst_extent);
  // A future that swap statements exchange (or a placeholder's) fills a ring.
  const Name* future = protocol.future;
  if (c.future && !future) unchecked(c.future->location, sema::Rule::future_name);
  const std::string future_name = future ? future->name : "";
  FutureRing* ring = future ? ring_of(future_name) : nullptr;
  std::optional<ir::Padding> pad;
  if (c.op == CopyOp::pad) {
    pad = padding(c, src.view.extent);
    dst_extent = padded_extents(c, *pad, src.view.extent);
  }
  View dst;
  if (c.destination_storage == Storage::shared || c.destination_storage == Storage::local) {
    if (scope_ == Scope::kernel) unchecked(s.location, sema::Rule::copy_outside_parallel);
    const std::size_t barrier_at = out_.back()->size();
    if (c.destination_storage == Storage::shared && scope_ == Scope::block) emit_barrier();
    if (ring && c.destination_storage == Storage::shared) {
      dst = ring_destination(future_name, src_dtype, dst_extent, s.location);
    } else {
      if (ring) fail(s.location, "`" + future_name + "` is swapped: its copies go into `=> shared`");
      int id = allocate(c.future ? "future" : "tile", src_dtype, dst_extent,
                        c.destination_storage == Storage::shared ? ir::Space::shared : ir::Space::local, s.location);
      dst = whole(id);
      // The tile of the previous iteration may still be read by a multiply:
      // complete it before the barrier (every warpgroup's, before any writes).
      if (c.destination_storage == Storage::shared && scope_ == Scope::block)
        out_.back()->insert(out_.back()->begin() + static_cast<std::ptrdiff_t>(barrier_at), shared_readers_completion(id));
    }
    if (zfill && src.view.exact) warn(s, redundant_zfill);
    if (!src.view.exact && !zfill)
      warn(s, "the source tile can reach past its tensor; elements past the end are filled with zero",
           "add `.zfill` to say so");
  } else if (c.destination_storage == Storage::global) {
    // Outside every parallel statement (sema): a new global buffer of the call.
    if (scope_ != Scope::kernel || ring) unchecked(s.location, sema::Rule::unsupported_copy);
    if (std::any_of(dst_extent.begin(), dst_extent.end(), [](std::int64_t e) { return e < 0; }))
      fail(s.location, "a copy of a tile with a dynamic extent into a new global buffer is not supported yet by libcroqjit",
           "copy into a global tensor declared at function scope");
    dst = whole(scratch_buffer(fresh(c.future ? "future" : "tile"), src_dtype, dst_extent, s.location));
  } else if (c.destination) {
    if (ring) fail(s.location, "`" + future_name + "` is swapped: its copies go into `=> shared`");
    Value d = expr(*c.destination);
    place_at_origin(d);
    if (d.kind != Value::Kind::view || d.view.pending != View::Pending::none)
      unchecked(c.destination->location, sema::Rule::copy_destination);
    dst = d.view;
    require_static(dst, *c.destination);
    limit_extents(s, c, src.view, dst, dst_extent);
    const DType dst_dtype = buffer(dst.buffer).dtype;
    // A destination larger than the source tile (never smaller) takes the
    // tile in its leading corner; `.zfill` zeroes the rest.
    bool larger = false, fits = dst.extent.size() == dst_extent.size();
    for (std::size_t i = 0; fits && i < dst_extent.size(); ++i) {
      fits = dst.extent[i] >= dst_extent[i];
      larger = larger || dst.extent[i] > dst_extent[i];
    }
    if (!fits || (larger && pad))
      fail(c.destination->location, "copy destination has shape " + shape_text(dst_dtype, dst.extent) +
                                        " but the source tile has " + shape_text(src_dtype, dst_extent));
    // The elements the source does not cover are zero, `.zfill` or not (as
    // Croqtile's predicated copies leave them).
    if (larger && !zfill)
      warn(s, "the destination " + shape_text(dst_dtype, dst.extent) + " is larger than the source tile " +
                  shape_text(src_dtype, dst_extent) + "; the elements it does not cover are filled with zero",
           "add `.zfill` to say so");
    zfill = zfill || larger;
    if (zfill && !larger && src.view.exact) warn(s, redundant_zfill);
    if (dst_dtype != src_dtype)
      unchecked(c.destination->location, sema::Rule::copy_element_type);
    mark_written(dst.buffer);
    if (buffer(dst.buffer).space == ir::Space::shared && buffer(dst.buffer).slots == 0) complete_shared_readers(dst.buffer);
    if (scope_ == Scope::block) emit_barrier();
  } else {
    unchecked(s.location, sema::Rule::copy_destination);
  }
  if (swiz) swizzled_destination(*swiz, dst.buffer);
  if (!support::checked_product(dst.extent))
    fail(s.location, "this copy's destination tile " + shape_list(dst.extent) + " has more elements than fit in 64 bits");
  line_mark(s.location);
  ir::CopyTiles op;
  op.src = tile_of(src.view);
  op.dst = tile_of(dst);
  op.zfill = zfill;
  op.perm = perm;
  op.pad = pad;
  op.cooperative = scope_ == Scope::block && buffer(dst.buffer).space != ir::Space::local;
  if (op.cooperative && (mentions_group_index(op.src) || mentions_group_index(op.dst)))
    fail(s.location, "a copy whose tile depends on the index of a `: group` or `: group-4` level is not supported yet by "
                     "libcroqjit: the block copies it cooperatively, once",
         "copy the tiles of all groups in one copy at block scope, or copy inside a `: thread` level");
  op.set = set_;
  emit_node(std::move(op), s.location);
  if (scope_ == Scope::block && buffer(dst.buffer).space == ir::Space::shared) emit_barrier();
  if (future) {
    Value f;
    f.kind = Value::Kind::future;
    f.view = dst;
    f.is_async = async;
    define_future(future_name, f);
  }
}

}  // namespace croq::lower::detail
