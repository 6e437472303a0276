// Views and element access: .at, .chunkat, .subspan/.modspan/.step, .view/.from,
// .span, .span_as, .data, .zfill, and `[i]` on arrays of buffers or events.
// Ranks are checked here; extents (tiles that fit, indices in range) are
// bound per call.
#include <algorithm>

#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

std::string rank_text(int rank) { return "rank-" + std::to_string(rank); }

// `op` (`.at`, `.chunkat`, ...) on `t`, a tensor or tile of t.rank dims,
// takes one of `things` per dim; it got `got`.
void require_per_dim(Context& c, Rule rule, const Expr& e, const std::string& op, const char* things, std::size_t got,
                     const Type& t) {
  if (static_cast<int>(got) == t.rank) return;
  c.fail(rule, e.location,
         "`" + op + "` on a " + rank_text(t.rank) + " tensor takes " + std::to_string(t.rank) + " " + things + ", got " +
             std::to_string(got),
         "", c.notes_of(t));
}

// `.modspan(m...)` of a tensor of extents `dims`: each listed m becomes the
// tile's step (`modulus`) and the tile the remainder of the extent by it,
// one element where m divides the extent (as Croqtile); `_` keeps a dim whole.
void modspan_remainders(std::vector<std::optional<std::int64_t>>& tile, const std::vector<std::optional<std::int64_t>>& dims,
                        const std::vector<std::size_t>& wildcards, std::vector<std::optional<std::int64_t>>& modulus) {
  modulus = tile;
  for (std::size_t d = 0; d < tile.size(); ++d) {
    if (std::find(wildcards.begin(), wildcards.end(), d) != wildcards.end()) continue;
    const bool known = tile[d] && *tile[d] > 0 && d < dims.size() && dims[d];
    tile[d] = known ? std::optional<std::int64_t>(*dims[d] % *tile[d] == 0 ? 1 : *dims[d] % *tile[d]) : std::nullopt;
  }
}

// A placement coordinate that is not the constant 0 makes a window.
bool moves_origin(const Type& t) { return !(t.known_now() && t.value == 0); }

}  // namespace

void ExpressionChecker::require_selected(const Expr& e, const Type& t) {
  if ((t.is_tile() || t.kind == Kind::operand) && t.buffer && t.buffer->is_array && !t.slot_selected) {
    const std::string name = text(e);
    fail(Rule::buffer_array_unselected, e.location,
         "`" + name + "` is an array of buffers; say which one, e.g. `" + name + "[stage]`", "", notes_of(t));
  }
}

Type ExpressionChecker::element(const Expr& e, const Type& target, const ExprList& args) {
  std::vector<Type> idx = index_args(args);
  require_per_dim(cx_, Rule::at_arity, e, ".at", "indices", idx.size(), target);
  for (std::size_t d = 0; d < idx.size(); ++d) {
    const Expr& where = *args[std::min(d, args.size() - 1)];
    require_ok(idx[d]);
    if (!idx[d].is_number()) fail(Rule::index_not_integer, where.location, "an index must be an integer", "", notes_of(idx[d]));
    if (idx[d].is_float())
      fail(Rule::index_not_integer, where.location, "an index must be an integer, got `" + text(where) + "`", "",
           notes_of(idx[d]));
    const std::int64_t extent = d < target.dims.size() && target.dims[d] ? *target.dims[d] : -1;
    if (Verdict broken = idx[d].known_now() ? element_index(idx[d].value, d, extent) : std::nullopt)
      fail(where.location, std::move(*broken), idx[d].value < 0 ? std::vector<std::string>{} : notes_of(target));
  }
  Type r;
  r.kind = Kind::scalar;
  r.element = true;
  r.number = target.buffer && is_floating(target.buffer->dtype) ? Number::float_ : Number::int_;
  r.buffer = target.buffer;
  r.from = target.from;
  return r;
}

Type ExpressionChecker::member(const Expr& e, const Member& m) {
  Type obj = expr(*m.object);
  require_ok(obj);
  if (!m.space.empty())
    fail(Rule::buffer_map_target, e.location,
         "explicit buffer mapping (`." + m.name + "<" + m.space + ">`) is not supported by CUDA targets: a GPU has no "
         "hardware that maps global memory into a thread's local memory",
         "copy the window instead, e.g. `dma.copy " + text(*m.object) + ".view(size).from(offset) => local;`");
  if (obj.kind == Kind::accumulator && m.kind == MemberKind::span && !m.has_args) {
    // `apply {i, j} in acc.span`: a warpgroup's 64 x N registers.
    Type shape;
    shape.kind = Kind::shape;
    shape.rank = 2;
    shape.elements.assign(2, Type{Kind::scalar});
    for (Type& d : shape.elements) d.known = Known::at_specialization;
    return shape;
  }
  if (obj.kind == Kind::accumulator && m.kind == MemberKind::at && m.args.size() == 2) {
    for (const auto& arg : m.args) require_ok(expr(*arg));
    Type element;
    element.kind = Kind::scalar;
    element.number = Number::float_;
    element.element = true;
    return element;
  }
  if (obj.kind == Kind::accumulator && (m.kind == MemberKind::span || m.kind == MemberKind::at))
    fail(Rule::unsupported_fragment, e.location,
         "reading an mma accumulator as a fragment (`" + text(e) + "`) is not supported yet by libcroqjit",
         "store it first (`mma.store`) and read the stored tile");
  if (m.kind == MemberKind::data) {
    if (obj.kind != Kind::future)
      fail(Rule::data_needs_future, e.location, "`.data` needs the future of a copy, got `" + text(*m.object) + "`", "",
           notes_of(obj));
    obj.kind = Kind::tensor;
    return obj;
  }
  if (m.kind == MemberKind::step) {
    if (!obj.is_tile() || obj.pending != Pending::subspan)
      fail(Rule::step_needs_subspan, e.location, "`.step(...)` follows `.subspan(...)`");
    if (static_cast<int>(m.args.size()) != obj.rank)
      fail(Rule::step_arity, e.location,
           "`.step` on a " + rank_text(obj.rank) + " tile takes " + std::to_string(obj.rank) + " steps, got " +
               std::to_string(m.args.size()),
           "", notes_of(obj));
    for (const auto& a : m.args) constant(*a, what::step, true);
    obj.stepped = true;
    return obj;
  }
  if (m.kind == MemberKind::from) {
    if (!obj.is_tile() || obj.pending != Pending::view) fail(Rule::from_needs_view, e.location, "`.from(...)` follows `.view(...)`");
    std::vector<Type> idx = index_args(m.args);
    if (static_cast<int>(idx.size()) != obj.rank)
      fail(Rule::from_arity, e.location,
           "`.from` takes " + std::to_string(obj.rank) + " offsets, got " + std::to_string(idx.size()), "", notes_of(obj));
    for (std::size_t d = 0; d < idx.size(); ++d) {
      require_ok(idx[d]);
      if (!idx[d].is_number() || idx[d].is_float())
        fail(Rule::index_not_integer, m.args[std::min(d, m.args.size() - 1)]->location, "an offset must be an integer", "",
             notes_of(idx[d]));
      obj.window = obj.window || moves_origin(idx[d]);
      if (!obj.strided && idx[d].known_now() && d < obj.tiled.size() && obj.tiled[d] && idx[d].value >= *obj.tiled[d])
        fail(Rule::index_range, m.args[std::min(d, m.args.size() - 1)]->location,
             "offset " + std::to_string(idx[d].value) + " is past dimension " + std::to_string(d) + ", which has " +
                 std::to_string(*obj.tiled[d]) + " elements",
             "", notes_of(obj));
    }
    obj.kind = Kind::tensor;
    obj.pending = Pending::none;
    obj.tiled.clear();
    return obj;
  }
  if (m.kind == MemberKind::other && m.name == "sqz") {
    // It drops the extent-1 dimensions an explicit shape gave the view.
    bool shaped = false;
    for (const Expr* o = m.object.get(); !shaped;) {
      const auto* inner = std::get_if<Member>(&o->node);
      if (!inner || inner->kind == MemberKind::data) break;
      shaped = inner->kind == MemberKind::subspan || inner->kind == MemberKind::modspan || inner->kind == MemberKind::view || inner->kind == MemberKind::span_as;
      o = inner->object.get();
    }
    if (!shaped)
      fail(Rule::sqz_needs_reshape, e.location,
           "`.sqz()` drops the extent-1 dimensions of an explicit shape; `" + text(*m.object) + "` has none",
           "shape the view first, e.g. `.subspan(1, N).at(i, 0).sqz()`");
    if (obj.is_tile() && obj.dims.size() == static_cast<std::size_t>(obj.rank)) {
      std::vector<std::optional<std::int64_t>> kept;
      std::vector<bool> dropped;
      for (const auto& d : obj.dims) {
        dropped.push_back(d && *d == 1);
        if (!dropped.back()) kept.push_back(d);
      }
      if (!cx_.trial_) cx_.out_.squeezed_dims[&e] = std::move(dropped);  // lowering drops these, whatever the arguments
      obj.kind = Kind::tensor;
      obj.rank = static_cast<int>(kept.size());
      obj.dims = std::move(kept);
      return obj;
    }
  }
  if (m.kind == MemberKind::other && m.name != "chunk")
    fail(Rule::unsupported_member, e.location, "`." + m.name + "` is not supported yet by libcroqjit");
  // The members below need a tensor (or a future, standing for its tile).
  if (obj.kind == Kind::event && m.kind == MemberKind::at) {  // one event of the ring, at a generation
    event_order(e, m, obj);
    obj.event_selected = true;
    return obj;
  }
  if (!obj.is_tile())
    fail(Rule::member_needs_tensor, e.location, "`." + m.name + "` needs a tensor, got `" + text(*m.object) + "`", "",
         notes_of(obj));
  // A tile of an array of arrays that is still an array (`b[1]` of `b[2][3]`);
  // `.span_as` may see such a part as one tile.
  if (m.kind != MemberKind::span && m.kind != MemberKind::span_as && obj.buffer && obj.buffer->array_dims.size() > 1)
    require_selected(*m.object, obj);
  if (m.kind == MemberKind::span_as && obj.buffer && obj.buffer->array_dims.size() > 1 && !obj.slot_selected &&
      obj.selected > 0)
    limitation(Rule::unsupported_array_of_arrays, e.location,
               "a part of an array of arrays seen as one tile (`" + text(*m.object) +
                   ".span_as(...)`) is not supported yet by libcroqjit",
               "select one buffer (`s[i][j]`) and give it the shape");
  return view_member(e, m, std::move(obj));
}

namespace {

bool is_update(const Expr& e) {
  const auto* u = std::get_if<Unary>(&e.node);
  return u && (u->op == UnaryOp::pre_increment || u->op == UnaryOp::post_increment ||
               u->op == UnaryOp::pre_decrement || u->op == UnaryOp::post_decrement);
}

// An `order++` somewhere inside `e` (below its top).
bool contains_update(const Expr& e) {
  if (const auto* b = std::get_if<Binary>(&e.node))
    return is_update(*b->lhs) || is_update(*b->rhs) || contains_update(*b->lhs) || contains_update(*b->rhs);
  if (const auto* u = std::get_if<Unary>(&e.node)) return is_update(*u->operand) || contains_update(*u->operand);
  return false;
}

}  // namespace

// `e.at(order)`: which arrival of an event array's ring a trigger or wait means.
void ExpressionChecker::event_order(const Expr& e, const Member& m, const Type& ev) {
  const std::string name = text(*m.object);
  if (!ev.event->is_array || ev.event_selected)
    fail(Rule::event_at_operand, e.location,
         "`" + name + ".at(...)` orders the arrivals of an event array; `" + name + "` is one event",
         "trigger or wait on it directly: `wait " + name + ";`", notes_of(ev));
  if (ev.event->dimensions > 1)
    fail(Rule::event_at_operand, e.location,
         "`.at(...)` orders the arrivals of a one-dimensional event array; `" + name + "` has " +
             std::to_string(ev.event->dimensions) + " dimensions",
         "", notes_of(ev));
  if (m.args.size() != 1) return;
  const Expr& order = *m.args[0];
  if (contains_update(order))
    fail(Rule::event_at_operand, order.location,
         "an update of the event order is the whole argument of `.at`, not part of `" + text(order) + "`",
         "write `" + name + ".at(order++)`, or update the order in a statement of its own");
  Type v = expr(order);
  require_ok(v);
  if (!v.is_number() || v.is_float() || v.number == Number::bool_)
    fail(Rule::event_at_operand, order.location, "the event order is an integer, got `" + text(order) + "`", "",
         notes_of(v));
}

// `x.chunkat(i, _, ...)`: the tile of each index (`_` keeps a dimension whole).
Type ExpressionChecker::chunkat_member(const Expr& e, const Member& m, Type obj, std::vector<std::optional<std::int64_t>> dims) {
  // A tuple of indices stands for its indices.
  std::vector<std::pair<const Expr*, Type>> parts;
  for (const auto& a : m.args) {
    if (std::holds_alternative<Wildcard>(a->node)) {
      parts.emplace_back(a.get(), Type{});
      continue;
    }
    Type idx = index_arg(*a);
    require_ok(idx);
    if (idx.kind == Kind::tuple)
      for (const Type& el : idx.elements) parts.emplace_back(a.get(), el);
    else parts.emplace_back(a.get(), idx);
  }
  require_per_dim(cx_, Rule::chunkat_arity, e, ".chunkat", "arguments", parts.size(), obj);
  for (std::size_t d = 0; d < parts.size(); ++d) {
    const auto& [a, idx] = parts[d];
    if (std::holds_alternative<Wildcard>(a->node)) continue;
    if (idx.kind != Kind::index) fail(a->location, chunkat_index(text(*a)), notes_of(idx));
    if (idx.count_known == Known::at_run_time) runtime_value(*a, what::chunk_count, idx);  // a grid the launch counts
    obj.window = true;
    if (dims[d] && idx.count && *idx.count > *dims[d])
      fail(Rule::chunkat_too_many_tiles, a->location,
           "`" + text(*a) + "` splits dimension " + std::to_string(d) + " (extent " + std::to_string(*dims[d]) +
               ") into " + std::to_string(*idx.count) + " tiles: more tiles than elements",
           "split it by an index of at most " + std::to_string(*dims[d]) + " values", notes_of(obj));
    dims[d] = dims[d] && idx.count && *idx.count > 0 && *dims[d] % *idx.count == 0
                  ? std::optional<std::int64_t>(*dims[d] / *idx.count)
                  : std::nullopt;
  }
  obj.kind = Kind::tensor;
  obj.dims = std::move(dims);
  return obj;
}

// `x.chunk(n0, n1, ...)`: x cut into n0 x n1 x ... chunks of cdiv(extent, n)
// elements, one picked later by `.at` as a `.subspan` tile
// (`x.chunkat(p, q)` is `x.chunk(#p, #q).at(p, q)`).
Type ExpressionChecker::chunk_member(const Expr& e, const Member& m, Type obj, std::vector<std::optional<std::int64_t>> dims) {
  std::vector<std::pair<const Expr*, std::optional<std::int64_t>>> counts;  // a tuple stands for its values
  for (const auto& a : m.args) {
    Type v = expr(*a);
    require_ok(v);
    if (v.kind != Kind::tuple) {
      counts.emplace_back(a.get(), constant(*a, what::chunk_count, true));
      continue;
    }
    std::vector<Type> flat;  // nested tuples (`{bshape, 4}`) stand for their values
    const auto flatten = [&](const auto& self, const Type& t) -> void {
      if (t.kind != Kind::tuple) return flat.push_back(t);
      for (const Type& el : t.elements) self(self, el);
    };
    flatten(flatten, v);
    for (const Type& el : flat) {  // as constant() of each value
      const bool integer = el.kind == Kind::index || (el.kind == Kind::scalar && !el.is_float());
      if (integer && (el.kind == Kind::index || el.known == Known::at_run_time)) runtime_value(*a, what::chunk_count, el);
      if (!integer)
        fail(Rule::chunk_count, a->location, "`.chunk` takes integer chunk counts; `" + text(*a) + "` holds others",
             "count the chunks with constants or upper bounds (`#p`)", notes_of(v));
      counts.emplace_back(a.get(), el.known_now() ? std::optional<std::int64_t>(el.value) : std::nullopt);
    }
  }
  require_per_dim(cx_, Rule::chunk_arity, e, ".chunk", "counts", counts.size(), obj);
  std::vector<std::optional<std::int64_t>> chunk(dims.size());
  for (std::size_t d = 0; d < counts.size() && d < dims.size(); ++d) {
    const auto& [a, count] = counts[d];
    if (count && (*count <= 0 || (dims[d] && *count > *dims[d])))
      fail(Rule::chunk_count, a->location,
           "`.chunk` cuts dimension " + std::to_string(d) +
               (dims[d] ? " (extent " + std::to_string(*dims[d]) + ")" : std::string()) + " into " +
               std::to_string(*count) + " chunks",
           dims[d] ? "count from 1 to " + std::to_string(*dims[d]) + " chunks" : "count at least 1 chunk", notes_of(obj));
    if (count && dims[d]) chunk[d] = (*dims[d] + *count - 1) / *count;
  }
  obj.kind = Kind::tensor;
  obj.pending = Pending::subspan;
  obj.tiled = dims;
  obj.stepped = false;
  obj.dims = std::move(chunk);
  obj.unbounded_dims = 0;
  return obj;
}

// `x.view(e0, e1 : s0, s1)`: element (i, j) of the window placed by
// `.from(o0, o1)` is element (o0 + i) * s0 + (o1 + j) * s1 of x's storage.
// libcroqjit takes it of a whole tensor (a view of its storage); the strides
// are integers known once the kernel is specialized.
void ExpressionChecker::strided_view(const Expr& e, const Member& m, const Type& obj, std::size_t extents,
                                     const std::vector<const Expr*>& strides) {
  if (strides.size() != extents)
    fail(Rule::view_strides, e.location,
         "this strided `.view` has " + std::to_string(extents) + " extent" + (extents == 1 ? "" : "s") + " and " +
             std::to_string(strides.size()) + " stride" + (strides.size() == 1 ? "" : "s") + "; it takes one stride per extent");
  for (std::size_t d = 0; d < strides.size(); ++d) {
    std::optional<std::int64_t> stride = constant(*strides[d], what::view_stride, true);
    if (Verdict broken = stride ? view_stride(*stride, d) : std::nullopt) fail(strides[d]->location, std::move(*broken));
  }
  const bool ring = obj.buffer && obj.buffer->is_array;
  const bool shared = obj.buffer && obj.buffer->space == Space::shared;
  if (obj.kind != Kind::tensor || obj.window || obj.strided || obj.pending != Pending::none || ring || shared)
    limitation(Rule::strided_view_use, e.location,
               "a strided `.view` of " +
                   std::string(obj.kind == Kind::future ? "a future's tile"
                               : ring                   ? "an array of buffers"
                               : shared                 ? "a shared tile"
                               : obj.strided            ? "a strided view"
                                                        : "a window") +
                   " (`" + text(*m.object) + "`) is not supported yet by libcroqjit",
               "take the strided view of the whole tensor; its strides count that tensor's elements");
}

// `x.subspan(...)` / `x.view(...)`: a tile of the listed extents, placed
// later by `.at` / `.from`.
Type ExpressionChecker::subspan_member(const Expr& e, const Member& m, Type obj, std::vector<std::optional<std::int64_t>> dims) {
  // A tuple (`b = {16, 18}; x.subspan(b, 9)`) stands for its values.
  std::size_t extents = 0;
  std::vector<std::optional<std::int64_t>> tile;  // the extents, where constants
  std::vector<std::size_t> wildcards;             // the dims `_` keeps whole
  std::vector<const Expr*> args;
  for (const auto& a : m.args) args.push_back(a.get());
  std::vector<const Expr*> strides;
  if (m.kind == MemberKind::view) {
    ViewArguments parts = view_arguments(m);
    if (parts.malformed)
      fail(Rule::view_strides, parts.malformed->location,
           "`.view` takes its extents, one `:`, then one stride per extent (`x.view(16, 8 : 64, 2)`), got `" +
               text(*parts.malformed) + "`");
    args = std::move(parts.extents);
    strides = std::move(parts.strides);
  }
  if (!strides.empty()) strided_view(e, m, obj, args.size(), strides);
  for (const Expr* a : args) {
    if (std::holds_alternative<Wildcard>(a->node)) {  // the whole dimension
      ++extents;
      wildcards.push_back(tile.size());
      tile.push_back(extents <= dims.size() ? dims[extents - 1] : std::nullopt);
      continue;
    }
    Type v = expr(*a);
    require_ok(v);
    if (v.kind == Kind::shape) {  // a named shape, `x.span` or `[b, 3]`: one extent per dim
      const std::size_t rank = std::max(static_cast<std::size_t>(v.rank), v.elements.size());
      for (std::size_t d = 0; d < rank; ++d)
        tile.push_back(d < v.elements.size() && v.elements[d].known_now() ? std::optional<std::int64_t>(v.elements[d].value)
                                                                          : std::nullopt);
      extents += rank;
      continue;
    }
    std::vector<const Type*> flat;  // nested tuples stand for their values
    const auto flatten = [&](const auto& self, const Type& t) -> void {
      if (t.kind != Kind::tuple) return flat.push_back(&t);
      for (const Type& el : t.elements) self(self, el);
    };
    if (v.kind == Kind::tuple) flatten(flatten, v);
    extents += v.kind == Kind::tuple ? flat.size() : 1;
    const bool device_value = v.kind == Kind::index || (v.kind == Kind::scalar && !v.is_float() && v.known == Known::at_run_time);
    if (cx_.tma_operands_ && device_value)
      fail(Rule::tma_box_runtime, a->location,
           "a tma.copy box extent is encoded on the host before the launch; `" + text(*a) +
               "` is computed in the kernel",
           "use a constant or an expression of the parameters' dims, and mask the tail instead", notes_of(v));
    if (m.kind == MemberKind::modspan && device_value)
      limitation(Rule::unsupported_expression, a->location,
                 "a `.modspan` step computed in the kernel (`" + text(*a) + "`) is not supported yet by libcroqjit",
                 "use a constant or an expression of the parameters' dims");
    if (v.kind != Kind::tuple && device_value) {
      tile.push_back(std::nullopt);  // a runtime extent: the copy guards it
    } else if (v.kind != Kind::tuple) {
      tile.push_back(constant(*a, what::tile_extent, true));
      if (tile.back() && *tile.back() <= 0)
        fail(Rule::extent_positive, a->location,
             "`." + m.name + "` takes tiles of extent " + std::to_string(*tile.back()) + " in dimension " +
                 std::to_string(tile.size() - 1) + "; a tile extent must be positive",
             "", notes_of(v));
    } else {
      for (const Type* el : flat)
        tile.push_back(el->known_now() && !el->is_float() ? std::optional<std::int64_t>(el->value) : std::nullopt);
    }
  }
  for (std::size_t d = 0; d < tile.size(); ++d)  // extents from a tuple (`b = {-4, 2}; x.subspan(b)`)
    if (tile[d] && *tile[d] <= 0)
      fail(Rule::extent_positive, e.location,
           "`." + m.name + "` takes tiles of extent " + std::to_string(*tile[d]) + " in dimension " +
               std::to_string(d) + "; a tile extent must be positive");
  require_per_dim(cx_, Rule::subspan_arity, e, "." + m.name, "extents", extents, obj);
  if (m.kind == MemberKind::subspan || m.kind == MemberKind::modspan)
    for (std::size_t d = 0; d < tile.size() && d < dims.size(); ++d)
      if (tile[d] && dims[d] && *tile[d] > *dims[d])
        fail(Rule::subspan_too_large, e.location,
             "`." + m.name + "` takes tiles of extent " + std::to_string(*tile[d]) + " in dimension " +
                 std::to_string(d) + ", which has only " + std::to_string(*dims[d]) + " elements",
             "a tile fits in the tensor; make it at most " + std::to_string(*dims[d]), notes_of(obj));
  obj.kind = Kind::tensor;
  obj.pending = m.kind == MemberKind::view ? Pending::view : Pending::subspan;
  obj.strided = obj.strided || !strides.empty();
  obj.modulus.clear();
  if (m.kind == MemberKind::modspan) modspan_remainders(tile, dims, wildcards, obj.modulus);
  obj.tiled = dims;
  obj.stepped = false;
  obj.dims = std::move(tile);
  obj.unbounded_dims = 0;  // the tile's extents are the listed ones
  return obj;
}

Type ExpressionChecker::view_member(const Expr& e, const Member& m, Type obj) {
  // The extents known before the member; each case says what they become.
  std::vector<std::optional<std::int64_t>> dims = std::move(obj.dims);
  obj.dims.clear();
  if (static_cast<int>(dims.size()) != obj.rank) dims.assign(static_cast<std::size_t>(std::max(obj.rank, 0)), std::nullopt);
  switch (m.kind) {
    case MemberKind::span: {
      if (!m.has_args) {
        Type r;
        r.kind = Kind::shape;
        r.rank = obj.rank;
        r.elements.resize(static_cast<std::size_t>(obj.rank));
        for (std::size_t i = 0; i < r.elements.size(); ++i) {
          Type& d = r.elements[i];
          d.kind = Kind::scalar;
          d.known = dims[i] && cx_.extents_now_ ? Known::now : Known::at_specialization;
          d.value = dims[i].value_or(0);
          d.unbounded = i < 32 && (obj.unbounded_dims >> i & 1u);
        }
        r.from = obj.from;
        return r;
      }
      if (m.args.size() != 1)
        fail(Rule::span_arity, e.location, "`.span(i)` takes one dimension, got " + std::to_string(m.args.size()));
      auto i = constant(*m.args[0], what::span_dimension);
      if (i && (*i < 0 || *i >= obj.rank))
        fail(Rule::span_dimension, e.location,
             "`.span(" + std::to_string(*i) + ")` on a " + rank_text(obj.rank) + " tensor", "dimensions count from 0",
             notes_of(obj));
      Type r;
      r.kind = Kind::scalar;
      r.known = Known::at_specialization;
      r.unbounded = i && *i < 32 && (obj.unbounded_dims >> *i & 1u);
      if (i && dims[static_cast<std::size_t>(*i)] && cx_.extents_now_) {
        r.known = Known::now;
        r.value = *dims[static_cast<std::size_t>(*i)];
      }
      return r;
    }
    case MemberKind::at: {
      if (obj.pending == Pending::subspan) {
        std::vector<Type> idx = index_args(m.args);
        if (static_cast<int>(idx.size()) != obj.rank)
          fail(Rule::at_arity, e.location,
               "`.at` after `subspan` takes " + std::to_string(obj.rank) + " tile coordinates, got " +
                   std::to_string(idx.size()),
               "", notes_of(obj));
        for (std::size_t d = 0; d < idx.size(); ++d) {
          require_ok(idx[d]);
          if (!idx[d].is_number() || idx[d].is_float())
            fail(Rule::index_not_integer, m.args[std::min(d, m.args.size() - 1)]->location,
                 "a tile coordinate must be an integer", "", notes_of(idx[d]));
          obj.window = obj.window || moves_origin(idx[d]);
          // A coordinate whose tile starts past the end (tiles of a tail
          // are shorter; a stepped subspan counts its tiles otherwise).
          const auto& tiled = d < obj.tiled.size() ? obj.tiled[d] : std::nullopt;
          const auto& step = d < obj.modulus.size() ? obj.modulus[d] : (d < dims.size() ? dims[d] : std::nullopt);
          if (!obj.stepped && idx[d].known_now() && tiled && d < dims.size() && dims[d] && step && *step > 0) {
            // A subspan's last tile may be partial; a modspan's tiles (the
            // remainder's extent, every m elements) end inside the extent.
            const bool modspan = d < obj.modulus.size();
            const std::int64_t count = !modspan ? (*tiled + *dims[d] - 1) / *dims[d]
                                       : *tiled < *dims[d] ? 1
                                                           : (*tiled - *dims[d]) / *step + 1;
            if (idx[d].value >= count)  // the tile's extents stand: later statements are checked with them
              report(Rule::index_range, m.args[std::min(d, m.args.size() - 1)]->location,
                   "tile coordinate " + std::to_string(idx[d].value) + " is out of range for dimension " +
                       std::to_string(d) + ": tiles of " + std::to_string(*dims[d]) +
                       (*step != *dims[d] ? " every " + std::to_string(*step) : std::string()) + " cover its " +
                       std::to_string(*tiled) + " elements in " + std::to_string(count),
                   "coordinates run from 0 to " + std::to_string(count - 1), notes_of(obj));
          }
        }
        obj.kind = Kind::tensor;
        obj.pending = Pending::none;
        obj.tiled.clear();
        obj.modulus.clear();
        obj.stepped = false;
        obj.dims = std::move(dims);  // the subspan's extents
        return obj;
      }
      if (obj.pending != Pending::none) fail(Rule::view_needs_from, e.location, "`.view(...)` must be placed with `.from(...)`");
      if (obj.kind == Kind::future)
        fail(Rule::future_element, e.location,
             "`" + text(*m.object) + "` is a future; read the elements of its tile through `.data`",
             "write `" + text(*m.object) + ".data.at(...)`", notes_of(obj));
      obj.dims = std::move(dims);  // the extents the indices run over
      return element(e, obj, m.args);
    }
    case MemberKind::chunkat:
      return chunkat_member(e, m, std::move(obj), std::move(dims));
    case MemberKind::subspan:
    case MemberKind::modspan:
    case MemberKind::view:
      return subspan_member(e, m, std::move(obj), std::move(dims));
    case MemberKind::span_as:
      obj.dims = std::move(dims);
      return span_as(e, m, obj);
    case MemberKind::zfill:  // `src.zfill => dst`: as dma.copy.zfill
      obj.zfill = true;
      obj.dims = std::move(dims);
      return obj;
    default:
      if (m.name == "chunk") return chunk_member(e, m, std::move(obj), std::move(dims));
      fail(Rule::unsupported_member, e.location, "`." + m.name + "` is not supported yet by libcroqjit");
  }
}

// x.span_as([d0, d1, ...]): the same elements seen with another shape; `x`
// must be a whole buffer (the element count is checked per call).
Type ExpressionChecker::span_as(const Expr& e, const Member& m, const Type& obj) {
  if (m.args.empty())
    fail(Rule::span_as_shape, e.location, "`.span_as` takes the new shape, such as `.span_as([rows, cols])`");
  std::vector<std::optional<std::int64_t>> dims;
  for (const auto& a : m.args) {
    auto part = shape_dims(*a);
    dims.insert(dims.end(), part.begin(), part.end());
  }
  bool all_known = true, positive = true;
  std::string list = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    all_known = all_known && dims[i].has_value();
    positive = positive && (!dims[i] || *dims[i] > 0);
    list += (i ? ", " : "") + (dims[i] ? std::to_string(*dims[i]) : std::string("?"));
  }
  if (Verdict broken = all_known ? span_as_extents(positive, list + "]") : std::nullopt)
    fail(m.args[0]->location, std::move(*broken));
  if (obj.window || obj.pending != Pending::none)
    fail(Rule::span_as_window, e.location, "`.span_as` of a window into a larger tensor is not supported yet by libcroqjit",
         "copy the tile first, then reinterpret its `.data`", notes_of(obj));
  std::optional<std::int64_t> before = 1, after = 1;
  const auto times = [](std::optional<std::int64_t> a, const std::optional<std::int64_t>& d) -> std::optional<std::int64_t> {
    std::int64_t v = 0;
    if (!a || !d || __builtin_mul_overflow(*a, *d, &v)) return std::nullopt;
    return v;
  };
  for (const auto& d : obj.dims) before = times(before, d);
  for (const auto& d : dims) after = times(after, d);
  if (static_cast<int>(obj.dims.size()) == obj.rank && before && after && *before != *after)
    fail(Rule::span_as_size, e.location,
         "`.span_as` sees the " + std::to_string(*before) + " elements of `" + text(*m.object) + "` as " + list +
             "], which has " + std::to_string(*after),
         "the new shape keeps the element count", notes_of(obj));
  Type r = obj;
  r.dims = dims;
  // A new buffer with the same storage, as lowering makes one: its layout is tracked apart.
  Buffer& b = cx_.out_.buffers.emplace_back(*obj.buffer);
  b.rank = static_cast<int>(dims.size());
  r.buffer = &b;
  r.rank = b.rank;
  return r;
}

Type ExpressionChecker::subscript(const Expr& e, const Subscript& s) {
  Type obj = expr(*s.object);
  require_ok(obj);
  if (s.braces || obj.kind == Kind::shape || (cx_.deriving_shape_ && obj.kind == Kind::tensor && !obj.buffer->is_array))
    return pick(e, s, obj);
  if (s.indices.size() != 1)
    fail(Rule::subscript_arity, e.location, "`[...]` selects one element of an array of buffers or events");
  const Expr& index = *s.indices[0];
  Type idx = expr(index);
  require_ok(idx);
  if (!idx.is_number()) fail(Rule::array_index_not_integer, index.location, "an array index must be an integer", "", notes_of(idx));
  if (idx.is_float())
    fail(Rule::array_index_not_integer, index.location, "an array index must be an integer, got " + text(index));
  const bool event = obj.kind == Kind::event;
  const bool buffers = obj.kind == Kind::tensor && obj.buffer && obj.buffer->is_array;
  // frag mc[2][3]: each `[i]` selects along the next dim.
  const bool accumulators = obj.kind == Kind::accumulator && obj.accumulator;
  if (accumulators && obj.selected_dims >= obj.accumulator->array_dims.size())
    fail(Rule::not_an_array, e.location, "`" + text(*s.object) + "` is one accumulator, not an array of them", "",
         notes_of(obj));
  if ((!event && !buffers && !accumulators) || (event && obj.event_selected) || (buffers && obj.slot_selected))
    fail(Rule::not_an_array, e.location,
         "`" + text(*s.object) + "` is not an array of buffers or events; use `.at(...)` for elements", "", notes_of(obj));
  // An array of arrays: each `[i]` selects along its next dimension.
  const std::size_t nested = buffers ? obj.buffer->array_dims.size() : 0;
  // An array of arrays of events: `[i]` selects along its next dimension;
  // the first one's size is the count.
  std::optional<std::int64_t> count =
      accumulators ? obj.accumulator->array_dims[obj.selected_dims]
      : event      ? (obj.selected == 0 ? obj.event->count : obj.event->inner_counts[static_cast<std::size_t>(obj.selected - 1)])
                   : obj.buffer->slots;
  if (nested > 1) count = obj.buffer->array_dims[static_cast<std::size_t>(obj.selected)];
  if (Verdict broken = idx.known_now() && count ? array_index(idx.value, *count) : std::nullopt)
    fail(index.location, std::move(*broken), notes_of(obj));
  // (Inside an inthreads region the condition narrows the index: not modelled.)
  if (!idx.known_now() && idx.range && count && !cx_.region_.active && (idx.range->first < 0 || idx.range->second >= *count))
    fail(Rule::array_index_range, index.location,
         "`" + text(index) + "` takes the values " + std::to_string(idx.range->first) + ".." +
             std::to_string(idx.range->second) + ", outside the " + std::to_string(*count) + " elements of `" +
             text(*s.object) + "`",
         "", notes_of(idx));
  if (idx.kind == Kind::index && idx.count && count && *idx.count > *count && !cx_.region_.active)
    fail(Rule::array_index_range, index.location,
         "`" + text(index) + "` takes the values 0.." + std::to_string(*idx.count - 1) + ", outside the " +
             std::to_string(*count) + " elements of `" + text(*s.object) + "`",
         "", notes_of(idx));
  if (accumulators) ++obj.selected_dims;
  else if (event) obj.event_selected = ++obj.selected >= obj.event->dimensions;
  else obj.slot_selected = ++obj.selected >= static_cast<int>(std::max<std::size_t>(nested, 1));
  return obj;
}

}  // namespace croq::sema::detail
