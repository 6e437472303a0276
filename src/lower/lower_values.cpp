// Events and register tiles as values (lowering.hpp's ExprLowering):
// `e[i]`, `e.at(order)`, an event operand, and the members and registers of
// accumulators and fragments.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

std::int64_t ExprLowering::event_count(const Value& ev) const {
  return ev.counted_event ? counted_events_[static_cast<std::size_t>(ev.event)].count
                         : kernel_.events[static_cast<std::size_t>(ev.event)].count;
}

// The size of the dim the next `[i]` selects along.
std::int64_t ExprLowering::event_dim_size(const Value& ev) const {
  if (ev.event_selected_dims > 0) return ev.event_inner[ev.event_selected_dims - 1];
  std::int64_t first = event_count(ev);
  for (const std::int64_t n : ev.event_inner) first /= n;
  return first;
}

Value ExprLowering::event_value(const Expr& e, const char* /*what: sema names it in its messages*/) {
  Value v = expr(e);
  if (v.kind != Value::Kind::event) unchecked(e.location, "an event operand that is no event");
  if (!v.event_index) {
    const std::int64_t count = event_count(v);
    if (sema::Verdict broken = sema::event_unselected(source_text(e), count)) fail(e.location, *broken);
    v.event_index = ir::int_const(0);
  }
  return v;
}

// `trigger e;` / `wait e;`: the event selected, or each event of a whole
// array, in order (sema allows the whole array there only).
// A row of an array of arrays (`e[1]` of `e[2][3]`) is the events of the
// dims left: 3..5.
std::vector<Value> ExprLowering::each_event(const Expr& e) {
  const Value v = expr(e);
  if (v.kind != Value::Kind::event) unchecked(e.location, "an event operand that is no event");
  if (v.event_index) return {v};
  std::int64_t row_size = event_count(v);
  if (v.event_selected_dims > 0) {
    row_size = 1;
    for (std::size_t d = v.event_selected_dims - 1; d < v.event_inner.size(); ++d) row_size *= v.event_inner[d];
  }
  std::vector<Value> events;
  for (std::int64_t i = 0; i < row_size; ++i) {
    events.push_back(v);
    events.back().event_index =
        v.event_row ? ir::binary("+", ir::binary("*", v.event_row, ir::int_const(row_size)), ir::int_const(i)) : ir::int_const(i);
  }
  return events;
}

// `e.at(order)` of `event e[N]`: barrier order % N, generation order / N
// (its phase parity: (order / N) % 2, flipped for `= ready` events, whose
// first wait passes).
Value ExprLowering::event_at(const Expr& e, const Member& m, Value ev) {
  if (ev.event_index || m.args.size() != 1 || !ev.event_inner.empty())
    unchecked(e.location, "an event order of a selected event or an array of arrays");
  Value order = require_scalar(expr(*m.args[0]), *m.args[0]);
  if (order.is_float) unchecked(m.args[0]->location, "a float event order");
  if (ev.counted_event) {  // a count per event: generation order / N has passed once the count is above it
    const ExprRef n = ir::int_const(event_count(ev));
    ev.event_index = ir::binary("%", order.expr, n);
    ev.event_generation = ir::binary("/", order.expr, n);
    return ev;
  }
  const ir::Event& event = kernel_.events[static_cast<std::size_t>(ev.event)];
  const ExprRef n = ir::int_const(event.count);
  ev.event_index = ir::binary("%", order.expr, n);
  ExprRef parity = ir::binary("%", ir::binary("/", order.expr, n), ir::int_const(2));
  if (event.ready) parity = ir::binary("-", ir::int_const(1), parity);
  ev.event_parity = parity;
  return ev;
}

Value ExprLowering::subscript(const Expr& e, const Subscript& sub) {
  if (const auto* dims = shape_selection(e)) return selected_shape(e, sub, *dims);
  Value obj = expr(*sub.object);
  if (obj.kind == Value::Kind::accumulator) {  // mc[i][j]: one of an array of accumulators
    const auto& dims = kernel_.accumulators[static_cast<std::size_t>(obj.accumulator)].array_dims;
    for (const ExprPtr& index : sub.indices) {
      if (obj.accumulator_selected >= dims.size()) unchecked(e.location, "an accumulator selected past its dims");
      Value idx = expr(*index);
      if ((idx.kind != Value::Kind::scalar && idx.kind != Value::Kind::index) || idx.is_float)
        unchecked(index->location, "an array index that is no integer");
      const std::int64_t size = dims[obj.accumulator_selected++];
      if (sema::Verdict broken = idx.constant ? sema::array_index(*idx.constant, size) : std::nullopt)
        fail(index->location, *broken);
      obj.accumulator_index = obj.accumulator_index
                                  ? ir::binary("+", ir::binary("*", obj.accumulator_index, ir::int_const(size)), idx.expr)
                                  : idx.expr;
    }
    return obj;
  }
  if (sub.indices.size() != 1) unchecked(e.location, "a subscript of several indices");
  if (obj.kind == Value::Kind::view && !obj.view.array_left.empty()) return array_part(obj, *sub.indices[0]);
  Value idx = expr(*sub.indices[0]);
  if ((idx.kind != Value::Kind::scalar && idx.kind != Value::Kind::index) || idx.is_float)
    unchecked(sub.indices[0]->location, "an array index that is no integer");
  std::int64_t count = obj.kind == Value::Kind::event ? event_dim_size(obj)
                       : (obj.kind == Value::Kind::view && buffer(obj.view.buffer).slots > 0) ? buffer(obj.view.buffer).slots
                                                                                             : 0;
  if (count == 0 || (obj.kind == Value::Kind::event && obj.event_index) || (obj.kind == Value::Kind::view && obj.view.slot))
    unchecked(e.location, "a subscript of what is not an array");
  if (sema::Verdict broken = idx.constant ? sema::array_index(*idx.constant, count) : std::nullopt)
    fail(sub.indices[0]->location, *broken);
  if (obj.kind != Value::Kind::event) {
    obj.view.slot = idx.expr;
    return obj;
  }
  // Row-major: the row so far times this dim's size, plus the index.
  const ExprRef row = obj.event_row ? ir::binary("+", ir::binary("*", obj.event_row, ir::int_const(count)), idx.expr) : idx.expr;
  if (++obj.event_selected_dims > obj.event_inner.size()) {
    obj.event_index = row;
    obj.event_row = nullptr;
  } else {
    obj.event_row = row;
  }
  return obj;
}

View ExprLowering::registers_of(const Value& v, const Expr& where) {
  if (v.kind == Value::Kind::fragment) return v.view;
  if (v.kind != Value::Kind::accumulator)
    fail(where.location, "expected a register fragment or an mma accumulator, got `" + source_text(where) + "`");
  ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(v.accumulator)];
  if (acc.rows != 64)
    fail(where.location, "element-wise work on a warp's own accumulator (a `: group` level) is not supported yet by libcroqjit");
  if (acc.dtype != DType::f32)
    unchecked(where.location, sema::Rule::mma_element_types);
  if (acc.registers < 0) {
    // The accumulator's own array, under its name: declared by mma.fill.
    ir::Buffer b;
    b.name = acc.name;
    b.dtype = DType::f32;
    b.dims = {ir::Extent{acc.n > 0 ? acc.n / 2 : 0, ""}};
    b.space = ir::Space::local;
    b.align_bytes = 4;
    b.fragment = {64, acc.n};
    kernel_.buffers.push_back(std::move(b));
    acc.registers = static_cast<int>(kernel_.buffers.size()) - 1;
  }
  View r;
  r.buffer = acc.registers;
  r.extent = {64, acc.n > 0 ? acc.n : -1};
  return r;
}

Value ExprLowering::register_member(const Expr& e, const Member& m, const Value& obj) {
  const View tile = registers_of(obj, *m.object);
  if (m.kind == MemberKind::span) {
    if (m.has_args) fail(e.location, "`.span(i)` of a register fragment is not supported yet by libcroqjit");
    Value r;
    r.kind = Value::Kind::shape;
    r.dims = tile.extent;
    r.dim_names.assign(r.dims.size(), "");
    return r;
  }
  if (!apply_)
    fail(e.location, "libcroqjit reads the elements of a register fragment or an accumulator only inside an `apply` over one",
         "write `apply {i, j} in " + source_text(*m.object) + ".span { ... }`");
  const std::size_t rank = tile.extent.size();
  bool same = m.args.size() == rank && rank <= apply_->rank;
  for (std::size_t d = 0; same && d < rank; ++d) {
    const auto* n = std::get_if<Name>(&m.args[d]->node);
    same = n && n->name == apply_->indices[d];
  }
  if (!same)
    fail(e.location, "inside `apply`, a register tile is indexed by the apply's own indices, in order (`" +
                         source_text(*m.object) + ".at(" + apply_->indices[0] + (rank == 2 && apply_->indices.size() > 1 ? ", " + apply_->indices[1] : "") + ")`)",
         "each thread holds only the elements the apply visits");
  const ir::Buffer& b = buffer(tile.buffer);
  apply_->touched.push_back(tile.buffer);
  ExprRef reg = apply_->reg;
  if (!apply_->extent.empty()) {  // a thread level's fragments (lower_frag_thread.cpp)
    reg = thread_fragment_register(apply_->row_block, apply_->in_row, apply_->extent, tile.extent);
    if (!reg)
      fail(e.location, "`" + source_text(*m.object) + "` is " + shape_list(tile.extent) + " but the apply walks a tile of " +
                           shape_list(apply_->extent) + "; inside it, a thread holds the elements of fragments whose shape is the tile's leading dims",
           "each thread holds whole rows: index fragments of the tile's shape or of its leading dims");
  } else if (rank == 2) {
    if (b.dims[0].value > 0 && apply_->registers > 0 && b.dims[0].value != apply_->registers)
      fail(e.location, "`" + source_text(*m.object) + "` is " + shape_list(tile.extent) + " but the apply walks a tile of " +
                           std::to_string(2 * apply_->registers) + " columns");
  } else if (apply_->rank == 2) {
    reg = ir::binary("&", ir::binary(">>", reg, ir::int_const(1)), ir::int_const(1));  // row r / 8 % 2 of the pair
  }
  Value r;
  r.expr = ir::element(tile.buffer, b.dtype, nullptr, {reg});
  r.element_of = tile.buffer;
  r.is_float = is_floating(b.dtype);
  return r;
}

}  // namespace croq::lower::detail
