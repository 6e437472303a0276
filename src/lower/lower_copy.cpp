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

void Lowerer::require_static(const View& v, const Expr& where) {
  for (std::size_t d = 0; d < v.extent.size(); ++d)
    if (v.extent[d] < 0)
      fail(where.location, "the copied tile's extent in dimension " + std::to_string(d) + " is the dynamic dim `" +
                               dim_name(v.buffer, d) + "`; a copy's shape must be known at compile time",
           "copy tiles of a constant size, e.g. `subspan(64, ...).at(...)`");
}

// dma.pad<low, high, mid, value>: per dimension, `low` elements before the
// source, `high` after it and `mid` between neighbouring source elements,
// all holding `value`; the padded extent is low + high + n + (n - 1) * mid.
ir::Padding Lowerer::padding(const Copy& c, const std::vector<std::int64_t>& extent) {
  const std::size_t rank = extent.size();
  if (c.op_args.size() != 4)
    fail(c.op_location, "dma.pad takes <low, high, mid, value>, got " + std::to_string(c.op_args.size()) +
                            " template argument" + (c.op_args.size() == 1 ? "" : "s"));
  static const char* const names[] = {"low", "high", "mid"};
  ir::Padding p;
  std::vector<std::int64_t>* parts[] = {&p.low, &p.high, &p.mid};
  for (int k = 0; k < 3; ++k) {
    const Expr& arg = *c.op_args[k];
    std::vector<const Expr*> elements;
    if (const auto* t = std::get_if<ITuple>(&arg.node)) {
      for (const auto& el : t->elements) elements.push_back(el.get());
    } else {
      elements.push_back(&arg);
    }
    if (elements.size() != rank)
      fail(arg.location, std::string("dma.pad on a rank-") + std::to_string(rank) + " tile takes " + std::to_string(rank) +
                             " `" + names[k] + "` padding" + (rank == 1 ? "" : "s") + ", got " +
                             std::to_string(elements.size()));
    for (const Expr* el : elements) {
      std::int64_t v = const_int(*el, "a padding");
      if (v < 0) fail(el->location, std::string("`") + names[k] + "` padding must not be negative, got " + std::to_string(v));
      if (v > kInt32Max)
        fail(el->location, std::string("`") + names[k] + "` padding must be below 2^31, got " + std::to_string(v));
      parts[k]->push_back(v);
    }
  }
  Value value = expr(*c.op_args[3]);
  if (value.kind != Value::Kind::scalar || value.guard || (!value.constant && !value.is_float))
    fail(c.op_args[3]->location, "the padding value must be a number, got `" + source_text(*c.op_args[3]) + "`");
  p.value = value.expr;
  return p;
}

namespace {

bool mentions(const ExprRef& e, const std::vector<std::string>& names) {
  if (!e) return false;
  if (e->kind == ir::ExprKind::var && std::find(names.begin(), names.end(), e->text) != names.end()) return true;
  for (const auto& o : e->operands)
    if (mentions(o, names)) return true;
  return false;
}

}  // namespace

bool Lowerer::mentions_group_index(const ir::Tile& t) const {
  if (group_vars_.empty()) return false;
  if (mentions(t.slot, group_vars_)) return true;
  for (const auto& o : t.origin)
    if (mentions(o, group_vars_)) return true;
  return false;
}

// Runtime extents (`view(1, X)`, `subspan(1, X)`) on either side: the copy
// covers the smaller static extent of each such dim and its elements below
// the limits (the backend guards them); a limit past that extent would
// leave elements uncopied, so it stops the kernel (__trap).
void Lowerer::limit_extents(const Stmt& s, const Copy& c, View& src, View& dst, std::vector<std::int64_t>& dst_extent) {
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

void Lowerer::copy(const Stmt& s, const Copy& c) {
  if (c.op == CopyOp::any) {
    placeholder(s, c);
    return;
  }
  if (c.engine == Engine::tma) {
    tma_copy(s, c);
    return;
  }
  if (c.op != CopyOp::copy && c.op != CopyOp::transp && c.op != CopyOp::pad)
    fail(c.op_location, "dma." + std::string(copy_op_name(c.op)) + " is not supported yet by libcroqjit");
  bool zfill = false, async = false;
  const Modifier* swiz = nullptr;
  for (const Modifier& m : c.modifiers) {
    if (m.name == "zfill") zfill = true;
    else if (m.name == "async") async = true;
    else if (m.name == "swiz") swiz = &m;
    else fail(m.location, "`." + m.name + "` on dma.copy is not supported yet by libcroqjit");
  }
  if (!c.after.empty()) fail(s.location, "`after` is not supported yet by libcroqjit");
  Value src = expr(*c.source);
  place_at_origin(src);
  zfill = zfill || src.zfill;
  if (src.kind == Value::Kind::future) src.kind = Value::Kind::view;
  if (src.kind != Value::Kind::view || src.view.pending != View::Pending::none)
    fail(c.source->location, "the source of a copy must be a tensor or a placed tile, got `" + source_text(*c.source) + "`");
  require_static(src.view, *c.source);
  barrier_before_shared_read(src.view.buffer);
  const DType src_dtype = buffer(src.view.buffer).dtype;
  std::vector<std::int64_t> perm;
  std::vector<std::int64_t> dst_extent = src.view.extent;
  if (c.op == CopyOp::transp) {
    for (const auto& a : c.op_args) perm.push_back(const_int(*a, "a transp<> dimension"));
    std::vector<bool> seen(perm.size());
    if (perm.size() != dst_extent.size())
      fail(c.op_location, "dma.transp on a rank-" + std::to_string(dst_extent.size()) + " tile takes " +
                              std::to_string(dst_extent.size()) + " dimensions, got " + std::to_string(perm.size()));
    for (auto p : perm) {
      if (p < 0 || p >= static_cast<std::int64_t>(perm.size()) || seen[p])
        fail(c.op_location, "dma.transp<...> must be a permutation of 0.." + std::to_string(perm.size() - 1));
      seen[p] = true;
    }
    // dst dim d takes src dim perm[d]; src dim perm[d] reads dst index d.
    std::vector<std::int64_t> inverse(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d) {
      dst_extent[d] = src.view.extent[perm[d]];
      inverse[perm[d]] = static_cast<std::int64_t>(d);
    }
    perm = inverse;
  }
  // A future that swap statements exchange (or a placeholder's) fills a ring.
  const auto* future = c.future ? std::get_if<Name>(&c.future->node) : nullptr;
  if (c.future && !future) fail(c.future->location, "a copy's future must be a plain name");
  const std::string future_name = future ? future->name : "";
  FutureRing* ring = future ? ring_of(future_name) : nullptr;
  std::optional<ir::Padding> pad;
  if (c.op == CopyOp::pad) {
    pad = padding(c, src.view.extent);
    for (std::size_t d = 0; d < dst_extent.size(); ++d) {
      // low + high + n + (n - 1) * mid; a gap term of INT64_MAX is tile_end's overflow.
      const std::int64_t n = src.view.extent[d];
      std::int64_t padded = 0;
      bool overflow = false;
      for (std::int64_t term : {pad->low[d], pad->high[d], n, tile_end(std::max<std::int64_t>(n - 1, 0), pad->mid[d], 0)}) {
        const support::CheckedInt next = support::checked_add(padded, term);
        overflow = overflow || !next.ok() || term == INT64_MAX;
        padded = next.value;
      }
      if (overflow)
        fail(c.op_location, "the padded extent of dimension " + std::to_string(d) + " overflows a 64-bit signed integer");
      dst_extent[d] = padded;
    }
  }
  View dst;
  if (c.destination_storage == Storage::shared || c.destination_storage == Storage::local) {
    if (scope_ == Scope::kernel) fail(s.location, "a copy into shared or local memory must be inside a parallel level");
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
  } else if (c.destination) {
    if (ring) fail(s.location, "`" + future_name + "` is swapped: its copies go into `=> shared`");
    Value d = expr(*c.destination);
    place_at_origin(d);
    if (d.kind != Value::Kind::view || d.view.pending != View::Pending::none)
      fail(c.destination->location, "the destination of a copy must be a tensor or a placed tile");
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
      fail(c.destination->location, "copy between different element types (" + std::string(dtype_name(src_dtype)) + " to " +
                                        std::string(dtype_name(dst_dtype)) + ")");
    mark_written(dst.buffer);
    if (buffer(dst.buffer).space == ir::Space::shared && buffer(dst.buffer).slots == 0) complete_shared_readers(dst.buffer);
    if (scope_ == Scope::block) emit_barrier();
  } else {
    fail(s.location, "a copy needs a destination after `=>`");
  }
  if (swiz) {  // the TMA layout, written by threads
    int span = swizzle_span(*swiz);
    ir::Buffer& b = buffer(dst.buffer);
    if (b.space != ir::Space::shared)
      fail(swiz->location, "`.swiz<N>` lays out a tile in shared memory; the destination is not shared");
    const std::int64_t row_bytes = b.dims.back().value * static_cast<std::int64_t>(dtype_size(b.dtype));
    if (span > 0 && row_bytes != span)
      fail(swiz->location, "dma.copy.swiz<" + std::to_string(span) + "> needs tile rows of exactly " + std::to_string(span) +
                               " bytes, got " + std::to_string(row_bytes),
           "match the innermost tile extent to the swizzle span");
    if (b.swizzle >= 0 && b.swizzle != span)
      fail(swiz->location, "this copy writes the tile with swizzle " + std::to_string(span) +
                               " but it was written with swizzle " + std::to_string(b.swizzle) + " before");
    b.swizzle = span;
  }
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
