// `x.chunk(n0, n1, ...)`: x cut into n0 x n1 x ... chunks, each
// cdiv(extent, n) elements in its dimension; `.at` picks one as it picks a
// `.subspan` tile (so the last chunk of a dimension the counts do not divide
// is guarded like a subspan's tail). `x.chunkat(p, q)` is
// `x.chunk(#p, #q).at(p, q)`.
#include "lower/lowering.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

// The window `.subspan` / `.chunk` start: a tile of a window stays in it.
Value ExprLowering::unplaced_window(const Value& obj) const {
  Value r = obj;
  r.kind = Value::Kind::view;
  bool window = false;
  for (const auto& o : obj.view.origin) window = window || !ir::is_zero(o);
  r.view.parent.clear();
  if (window) r.view.parent = obj.view.extent;
  return r;
}

// A chunk's extent in dimension d, split into `count` chunks: known when
// lowering, so the dimension's extent must be.
std::int64_t ExprLowering::chunk_extent(const Expr& arg, const View& v, std::size_t d, std::int64_t count) const {
  if (v.extent[d] < 0)
    fail(arg.location, "`chunkat` splits dimension " + std::to_string(d) + ", the dynamic dim `" + dim_name(v.buffer, d) +
                           "`, into chunks whose size must be known at compile time",
         "use `subspan(T, ...).at(...)` with a constant tile extent");
  return support::checked_cdiv(v.extent[d], count).value;  // both positive: no fault
}

Value ExprLowering::chunk_window(const Expr& e, const Member& m, const Value& obj) {
  std::vector<std::pair<const Expr*, std::int64_t>> counts;  // a tuple stands for its values
  for (const auto& a : m.args) {
    Value x = expr(*a);
    if (x.kind != Value::Kind::tuple) {
      counts.emplace_back(a.get(), const_int(*a, sema::what::chunk_count));
      continue;
    }
    for (const Value& el : x.elements) {
      if (!el.constant)  // sema let through what specialization fixes
        fail(a->location, "the chunk counts `" + source_text(*a) + "` are not constants once the kernel is specialized");
      counts.emplace_back(a.get(), *el.constant);
    }
  }
  if (counts.size() != obj.view.extent.size()) unchecked(e.location, sema::Rule::chunk_arity);
  Value r = unplaced_window(obj);
  for (std::size_t d = 0; d < counts.size(); ++d) {
    if (counts[d].second <= 0) unchecked(counts[d].first->location, sema::Rule::chunk_count);
    r.view.extent[d] = chunk_extent(*counts[d].first, obj.view, d, counts[d].second);
  }
  r.view.pending = View::Pending::subspan;
  return r;
}

// `x.modspan(m0, m1, ...)`: in each dim the remainder of x's extent by m
// (one element where m divides it, as Croqtile), a subspan whose `.at(i)`
// starts at i * m; without `.at` it is the remainder itself, at the extent
// rounded down to m (`place_at_origin`). `_` keeps a dim whole.
Value ExprLowering::modspan_window(const Expr& e, const Member& m, Value obj) {
  place_at_origin(obj);  // a modspan of an unplaced subspan divides its first tile
  const View parent = obj.view;
  std::vector<bool> whole;
  Value r = window_member(e, m, obj, &whole);  // the extents: each dim's m
  View& v = r.view;
  for (const ExprRef& limit : v.limit)
    if (limit) unchecked(e.location, "a `.modspan` step computed in the kernel");
  v.step = v.extent;
  v.remainder_at.assign(v.extent.size(), 0);
  for (std::size_t d = 0; d < v.extent.size(); ++d) {
    if (whole[d]) continue;
    if (parent.extent[d] < 0)
      fail(e.location, "`.modspan` of dimension " + std::to_string(d) + ", the dynamic dim `" +
                           dim_name(parent.buffer, d) + "`, has a remainder known only at run time",
           "use `subspan(T, ...).at(...)` with a constant tile extent");
    if (v.extent[d] <= 0) unchecked(e.location, sema::Rule::extent_positive);
    const std::int64_t remainder = parent.extent[d] % v.extent[d];
    v.remainder_at[d] = parent.extent[d] - remainder;
    v.extent[d] = remainder == 0 ? 1 : remainder;
  }
  return r;
}

}  // namespace croq::lower::detail
