// Strided views: `x.view(e0, e1 : s0, s1).from(o0, o1)` is a window of
// extents [e0, e1] whose element (i, j) is element (o0 + i) * s0 +
// (o1 + j) * s1 of x's storage (Croqtile's memory-layout strides, in
// elements of x). It lowers to a pointer into x (`DeclarePointer`) of a
// buffer that carries the strides (`ir::Buffer::strides`): later views of
// it (chunkat, subspan, `.at`) and copies address it as any buffer, and the
// backend and the interpreter multiply by its strides.
#include "lower/lowering.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

std::vector<std::int64_t> ExprLowering::view_strides(const std::vector<const Expr*>& strides) {
  std::vector<std::int64_t> out;
  for (std::size_t d = 0; d < strides.size(); ++d) {
    const std::int64_t s = const_int(*strides[d], sema::what::view_stride);
    if (sema::Verdict broken = sema::view_stride(s, d)) fail(strides[d]->location, *broken);
    out.push_back(s);
  }
  return out;
}

Value ExprLowering::place_strided(const Expr& e, const Member& m, const Value& obj, const std::vector<Value>& offsets) {
  const View& v = obj.view;
  const ir::Buffer& b = buffer(v.buffer);
  for (const ExprRef& o : v.origin)
    if (!ir::is_zero(o)) unchecked(e.location, "a strided view of a window");
  if (b.slots > 0 || !b.strides.empty() || b.space == ir::Space::shared || v.slot)
    unchecked(e.location, "a strided view of a shared tile, a ring or a strided view");
  for (std::size_t d = 0; d < v.extent.size(); ++d)
    if (v.extent[d] < 0 || (d < v.limit.size() && v.limit[d]))
      fail(e.location, "the extents of a strided view are constants or dims (known when the kernel is specialized)");
  // The first element (sum of offset * stride) and the last, relative to it
  // (sum of (extent - 1) * stride): all constants but the offsets.
  ExprRef first = ir::int_const(0);
  std::optional<std::int64_t> first_value = 0;
  support::CheckedInt span{0};
  for (std::size_t d = 0; d < offsets.size(); ++d) {
    const Expr& where = *m.args[std::min(d, m.args.size() - 1)];
    const Value& o = offsets[d];
    if (o.kind != Value::Kind::scalar && o.kind != Value::Kind::index) unchecked(where.location, "an offset that is no integer");
    if (o.constant && *o.constant < 0)
      fail(where.location, "`.from` offset " + std::to_string(*o.constant) + " is negative");
    first = ir::add(first, scaled(o.expr, v.strides[d]));
    const support::CheckedInt term = support::checked_mul(v.extent[d] > 0 ? v.extent[d] - 1 : 0, v.strides[d]);
    span = term.ok() ? support::checked_add(span.value, term.value) : term;
    if (first_value && o.constant) {
      const support::CheckedInt at = support::checked_mul(*o.constant, v.strides[d]);
      const support::CheckedInt sum = at.ok() ? support::checked_add(*first_value, at.value) : at;
      first_value = sum.ok() ? std::optional<std::int64_t>(sum.value) : std::nullopt;
      if (!sum.ok()) fail_arithmetic(where, sum.fault, "the strided view's first element");
    } else {
      first_value = std::nullopt;
    }
    if (!span.ok()) fail_arithmetic(where, span.fault, "the strided view's last element");
  }
  // The storage's element count: a constant, or a product of dynamic dims.
  std::optional<std::int64_t> count = 1;
  ExprRef count_expr = ir::int_const(1);
  for (std::size_t d = 0; d < b.dims.size(); ++d) {
    count_expr = d == 0 ? dim_expr(v.buffer, d) : ir::binary("*", count_expr, dim_expr(v.buffer, d));
    const std::int64_t n = dim_value(v.buffer, d);
    const support::CheckedInt product = count && n >= 0 ? support::checked_mul(*count, n) : support::CheckedInt{0};
    count = count && n >= 0 && product.ok() ? std::optional<std::int64_t>(product.value) : std::nullopt;
  }
  if (count) count_expr = ir::int_const(*count);
  fit_index(span.value);
  if (count) fit_index(*count);
  const auto* view = std::get_if<Member>(&m.object->node);  // `x.view(...)`: name x
  const std::string tensor = source_text(view ? *view->object : *m.object);
  if (first_value && count) {
    const support::CheckedInt last = support::checked_add(*first_value, span.value);
    if (sema::Verdict broken = sema::strided_view_end(tensor, last.ok() ? last.value : INT64_MAX, *count))
      fail(e.location, *broken);
    fit_index(last.value);
  } else {
    // Offsets computed in the kernel: the window must stay inside the
    // storage, or the kernel stops (as an assertion does).
    ExprRef inside = ir::less(ir::add(first, ir::int_const(span.value)), count_expr);
    for (const Value& o : offsets)
      if (!o.constant) inside = ir::all_of(ir::binary(">=", o.expr, ir::int_const(0)), inside);
    line_mark(e.location);
    emit_node(ir::Trap{inside}, e.location);
  }
  ir::Buffer alias;
  alias.name = fresh((b.name.rfind("arg_", 0) == 0 ? b.name.substr(4) : b.name) + "_strided");
  alias.dtype = b.dtype;
  for (std::int64_t n : v.extent) alias.dims.push_back(ir::Extent{n, ""});
  alias.strides = v.strides;
  alias.space = b.space;
  alias.align_bytes = static_cast<int>(dtype_size(b.dtype));
  alias.alias_of = b.alias_of >= 0 ? b.alias_of : v.buffer;
  const int source = v.buffer;
  kernel_.buffers.push_back(std::move(alias));
  const int id = static_cast<int>(kernel_.buffers.size()) - 1;
  // The first element's address: the flat offset in the source's last dim
  // (row-major, so the same element; addresses are not bounds-checked).
  std::vector<ExprRef> coords(buffer(source).dims.size(), ir::int_const(0));
  coords.back() = first;
  emit_node(ir::DeclarePointer{id, ir::address_of(ir::element(source, buffer(source).dtype, nullptr, std::move(coords)))},
            e.location);
  Value r;
  r.kind = Value::Kind::view;
  r.view = whole(id);
  return r;
}

}  // namespace croq::lower::detail
