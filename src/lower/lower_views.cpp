// Lowering of views: .at (elements, or subspan tiles), .chunkat,
// .subspan/.view placed by .at or .from, .step, .modspan's remainders and
// span_as (counted chunks and chunkat windows: lower_view_chunk.cpp;
// strided views: lower_view_strided.cpp).
#include <cmath>
#include <numeric>

#include "frontend/constant_fold.hpp"
#include "frontend/frontend.hpp"
#include "lower/lowering.hpp"
#include "lower/multiples.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

// The view operations: .at (elements, or subspan tiles), .chunkat,
// .subspan/.view (pending until placed), .step and .from.
// `.subspan(...)` and `.view(...)`: the window's extents (a strided view's
// strides after them), placed later by `.at` or `.from`.
Value ExprLowering::window_member(const Expr& e, const Member& m, const Value& obj, std::vector<bool>* whole) {
  std::vector<const Expr*> args;  // the extents (a strided view's strides follow them)
  for (const auto& a : m.args) args.push_back(a.get());
  std::vector<std::int64_t> strides;
  if (m.kind == MemberKind::view) {
    frontend::ast::ViewArguments parts = frontend::ast::view_arguments(m);
    if (parts.malformed) unchecked(parts.malformed->location, sema::Rule::view_strides);
    args = std::move(parts.extents);
    strides = view_strides(parts.strides);
  }
  // One extent per dim: a tuple or shape argument (`subspan(tile, 9)`) gives one per element.
  struct Extent {
    const Expr* where;
    std::optional<Value> value;  // none for `_`, the whole dim
  };
  std::vector<Extent> extents;
  for (const Expr* a : args) {
    if (std::holds_alternative<Wildcard>(a->node)) {
      extents.push_back({a, std::nullopt});
      continue;
    }
    Value x = expr(*a);
    if (x.kind == Value::Kind::shape) x = tuple_of_extents(x);
    if (x.kind != Value::Kind::tuple) extents.push_back({a, std::move(x)});
    else
      for (Value& el : x.elements) extents.push_back({a, std::move(el)});
  }
  if (extents.size() != obj.view.extent.size() || (!strides.empty() && strides.size() != extents.size()))
    unchecked(e.location, "a window of another rank");
  Value placed = obj;  // a window of an unplaced subspan is one of its first tile's (a modspan's remainder's)
  place_at_origin(placed);
  Value r = unplaced_window(placed);  // a tile of a window (`x.subspan(...).at(...).subspan(...)`) stays in it
  if (whole) whole->assign(extents.size(), false);
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (!extents[d].value && whole) (*whole)[d] = true;
    if (!extents[d].value) continue;
    const Expr& a = *extents[d].where;
    const Value& x = *extents[d].value;
    if (x.kind == Value::Kind::scalar && x.constant) {
      r.view.extent[d] = non_negative(x, a, sema::what::tile_extent);
    } else if ((x.kind == Value::Kind::scalar || x.kind == Value::Kind::index) && x.expr && !x.is_float && !x.dynamic) {
      // Computed in the kernel: the window keeps the parent's extent as
      // its bound and the value as its limit.
      if (r.view.extent[d] < 0)
        fail(a.location, "a tile extent computed in the kernel (`" + source_text(a) +
                             "`) in a dimension of dynamic extent is not supported yet by libcroqjit");
      r.view.limit.resize(r.view.extent.size());
      r.view.limit[d] = x.expr;
    } else {
      r.view.extent[d] = non_negative(x, a, sema::what::tile_extent);
    }
  }
  r.view.pending = m.kind == MemberKind::view ? View::Pending::view : View::Pending::subspan;
  r.view.strides = std::move(strides);
  return r;
}

Value ExprLowering::view_member(const Expr& e, const Member& m, Value obj) {
  auto place = [&](const std::vector<ExprRef>& offsets, const std::vector<std::int64_t>& multiples) {
    View v = obj.view;
    for (std::size_t d = 0; d < v.extent.size(); ++d) {
      std::int64_t before = ir::is_zero(v.origin[d]) ? 0 : (d < v.origin_multiple.size() ? v.origin_multiple[d] : 1);
      if (v.origin_multiple.size() < v.origin.size()) v.origin_multiple.resize(v.origin.size(), 1);
      for (std::size_t i = 0; i < v.origin.size(); ++i)
        if (ir::is_zero(v.origin[i])) v.origin_multiple[i] = 0;
      v.origin[d] = ir::add(v.origin[d], offsets[d]);
      v.origin_multiple[d] = ir::is_zero(offsets[d]) ? before : multiple_gcd(before, multiples[d]);
    }
    v.pending = View::Pending::none;
    v.parent.clear();
    v.remainder_at.clear();
    Value r;
    r.kind = Value::Kind::view;
    r.view = v;
    return r;
  };
  switch (m.kind) {
    case MemberKind::at: {
      if (obj.view.pending == View::Pending::subspan) {
        std::vector<Value> idx = index_args(m.args);
        if (idx.size() != obj.view.extent.size()) unchecked(e.location, "tile coordinates of another rank");
        std::vector<ExprRef> offsets;
        std::vector<std::int64_t> multiples;
        View& v = obj.view;
        for (std::size_t d = 0; d < idx.size(); ++d) {
          std::int64_t step = v.step.empty() ? v.extent[d] : v.step[d];
          if (v.step.empty() && d < v.limit.size() && v.limit[d]) {  // tiles of a runtime extent
            const bool first = idx[d].constant && *idx[d].constant == 0;  // stays inside the parent
            offsets.push_back(first ? ir::int_const(0) : ir::binary("*", idx[d].expr, v.limit[d]));
            multiples.push_back(first ? 0 : 1);
            if (!first) v.exact = false;
            continue;
          }
          offsets.push_back(scaled(idx[d].expr, step));
          multiples.push_back(multiple_product(idx[d].multiple, step));
          // The last tile may reach past the parent: guard unless tiles divide it.
          // -1 when dynamic: never provably inside
          std::int64_t parent = v.parent.empty() ? dim_value(v.buffer, d) : v.parent[d];
          std::optional<std::int64_t> last;               // the largest tile coordinate, when known
          const Expr& where = *m.args[std::min(d, m.args.size() - 1)];
          if (idx[d].constant && *idx[d].constant < 0)
            fail(where.location, "tile coordinate " + std::to_string(*idx[d].constant) + " is negative");
          if (idx[d].kind == Value::Kind::index && idx[d].count > 0) last = idx[d].count - 1;
          else if (idx[d].constant) last = *idx[d].constant;
          if (last && tile_end(*last, step, v.extent[d]) == INT64_MAX)
            fail_arithmetic(where, support::ArithmeticFault::overflow,
                            "tile " + std::to_string(*last) + " of " + std::to_string(step) + " elements ends past 2^63 - 1");
          if (last) fit_index(tile_end(*last, step, v.extent[d]));
          if (!(last && parent >= 0 && tile_end(*last, step, v.extent[d]) <= parent)) v.exact = false;
        }
        return place(offsets, multiples);
      }
      if (obj.view.pending != View::Pending::none) unchecked(e.location, "an element of an unplaced view");
      return element_ref(e, obj, m.args);
    }
    case MemberKind::chunkat: {
      const auto parts = chunkat_indices(m);
      if (parts.size() != obj.view.extent.size()) unchecked(e.location, "`chunkat` of another rank");
      View v = obj.view;
      std::vector<ExprRef> offsets(v.extent.size(), ir::int_const(0));
      std::vector<std::int64_t> multiples(v.extent.size(), 0);
      for (std::size_t d = 0; d < parts.size(); ++d) {
        if (!parts[d].second) continue;
        const Expr& arg = *parts[d].first;
        const Value& idx = *parts[d].second;
        if (idx.kind != Value::Kind::index || idx.count <= 0)
          fail(arg.location, sema::chunkat_index(source_text(arg)));
        std::int64_t chunk = chunk_extent(arg, v, d, idx.count);
        fit_index(tile_end(idx.count, chunk, 0));
        if (v.extent[d] % idx.count != 0) v.exact = false;
        offsets[d] = scaled(idx.expr, chunk);
        multiples[d] = multiple_product(idx.multiple, chunk);
        v.extent[d] = chunk;
      }
      obj.view = v;
      return place(offsets, multiples);
    }
    case MemberKind::subspan:
    case MemberKind::view:
      return window_member(e, m, obj);
    case MemberKind::modspan:
      return modspan_window(e, m, std::move(obj));
    case MemberKind::step: {
      if (obj.view.pending != View::Pending::subspan || m.args.size() != obj.view.extent.size())
        unchecked(e.location, "a `.step` of no subspan or of another rank");
      obj.view.step.clear();
      for (const auto& a : m.args) obj.view.step.push_back(non_negative_int(*a, sema::what::step));
      return obj;
    }
    case MemberKind::from: {
      if (obj.view.pending != View::Pending::view) unchecked(e.location, "a `.from` of no view");
      std::vector<Value> idx = index_args(m.args);
      if (idx.size() != obj.view.extent.size()) unchecked(e.location, "`.from` offsets of another rank");
      if (!obj.view.strides.empty()) return place_strided(e, m, obj, idx);
      std::vector<ExprRef> offsets;
      std::vector<std::int64_t> multiples;
      for (std::size_t d = 0; d < idx.size(); ++d) {
        if (idx[d].constant && *idx[d].constant < 0)
          fail(m.args[std::min(d, m.args.size() - 1)]->location,
               "`.from` offset " + std::to_string(*idx[d].constant) + " is negative");
        offsets.push_back(idx[d].expr);
        multiples.push_back(idx[d].multiple);
        std::int64_t parent = obj.view.parent.empty() ? dim_value(obj.view.buffer, d) : obj.view.parent[d];
        if (!(idx[d].constant && parent >= 0 && tile_end(*idx[d].constant, 1, obj.view.extent[d]) <= parent))
          obj.view.exact = false;  // a runtime offset: guard every access
      }
      return place(offsets, multiples);
    }
    default:
      unchecked(e.location, "a member sema does not know");
  }
}

std::vector<std::pair<const Expr*, std::optional<Value>>> ExprLowering::chunkat_indices(const Member& m) {
  std::vector<std::pair<const Expr*, std::optional<Value>>> parts;
  for (const auto& a : m.args) {
    if (std::holds_alternative<Wildcard>(a->node)) {
      parts.emplace_back(a.get(), std::nullopt);
      continue;
    }
    Value idx = expr(*a);
    if (idx.kind == Value::Kind::tuple)
      for (const Value& el : idx.elements) parts.emplace_back(a.get(), el);
    else parts.emplace_back(a.get(), std::move(idx));
  }
  return parts;
}

// A copy's `x.subspan(...)` (or `.subspan(...).step(...)`) without `.at`
// is its first tile, as `.at(0, ...)`: exact where it fits in the parent.
// A `.modspan` without `.at` is the remainder tile, where its
// `remainder_at` says.
void ExprLowering::place_at_origin(Value& v) const {
  if ((v.kind != Value::Kind::view && v.kind != Value::Kind::future) || v.view.pending != View::Pending::subspan) return;
  View& view = v.view;
  for (std::size_t d = 0; d < view.extent.size(); ++d) {
    // -1 when dynamic: never provably inside
    const std::int64_t parent = view.parent.empty() ? dim_value(view.buffer, d) : view.parent[d];
    const std::int64_t start = d < view.remainder_at.size() ? view.remainder_at[d] : 0;
    if (!(parent >= 0 && view.extent[d] >= 0 && tile_end(1, start, view.extent[d]) <= parent)) view.exact = false;
    if (start == 0) continue;
    if (view.origin_multiple.size() < view.origin.size()) view.origin_multiple.resize(view.origin.size(), 1);
    const std::int64_t before = ir::is_zero(view.origin[d]) ? 0 : view.origin_multiple[d];
    view.origin[d] = ir::add(view.origin[d], ir::int_const(start));
    view.origin_multiple[d] = multiple_gcd(before, start);
  }
  view.pending = View::Pending::none;
  view.parent.clear();
  view.remainder_at.clear();
}

// x.span_as([d0, d1, ...]): the same elements, in the same row-major order,
// seen with another shape. No data moves, so `x` must be a whole buffer
// (every element of a contiguous block) and the element counts must agree.
Value ExprLowering::span_as(const Expr& e, const Member& m, const Value& obj) {
  if (m.args.empty()) unchecked(e.location, "`.span_as` without a shape");
  std::vector<std::int64_t> dims;
  for (const auto& a : m.args) {
    std::vector<std::int64_t> part = shape_of(*a);
    dims.insert(dims.end(), part.begin(), part.end());
  }
  const View& v = obj.view;
  for (std::size_t d = 0; d < v.extent.size(); ++d)
    if (v.extent[d] < 0)
      fail(e.location, "`.span_as` needs the element count at compile time, but dimension " + std::to_string(d) +
                           " is the dynamic dim `" + dim_name(v.buffer, d) + "`");
  if (sema::Verdict broken =
          sema::span_as_extents(std::all_of(dims.begin(), dims.end(), [](std::int64_t d) { return d > 0; }), shape_list(dims)))
    fail(m.args[0]->location, *broken);
  const std::optional<std::int64_t> count = support::checked_product(dims);
  if (!count) fail_arithmetic(e, support::ArithmeticFault::overflow, "the product of " + shape_list(dims));
  const std::optional<std::int64_t> before = support::checked_product(v.extent);
  if (!before) fail_arithmetic(e, support::ArithmeticFault::overflow, "the product of " + shape_list(v.extent));
  if (*count != *before)
    fail(e.location, "`.span_as(" + shape_list(dims) + ")` has " + std::to_string(*count) +
                         " elements but the tensor it reinterprets has " + std::to_string(*before) + " (" +
                         shape_list(v.extent) + ")",
         "the element count must stay the same");
  std::vector<std::int64_t> buffer_dims;
  for (std::size_t d = 0; d < buffer(v.buffer).dims.size(); ++d) buffer_dims.push_back(dim_value(v.buffer, d));
  bool is_whole = v.extent == buffer_dims && v.pending == View::Pending::none;
  for (const auto& o : v.origin) is_whole = is_whole && ir::is_zero(o);
  if (!is_whole) unchecked(e.location, "`.span_as` of a window");
  ir::Buffer alias = buffer(v.buffer);
  alias.alias_of = buffer(v.buffer).alias_of >= 0 ? buffer(v.buffer).alias_of : v.buffer;
  alias.dims.clear();
  for (auto d : dims) alias.dims.push_back(ir::Extent{d, ""});
  kernel_.buffers.push_back(std::move(alias));
  Value r = obj;
  r.view = whole(static_cast<int>(kernel_.buffers.size()) - 1);
  r.view.slot = v.slot;
  return r;
}

}  // namespace croq::lower::detail
