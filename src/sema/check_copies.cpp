// Copies: dma.copy / dma.transp / dma.pad and tma.copy. Element types,
// ranks, memory spaces, modifiers, swizzle layouts (in source order, as
// lowering fixes them) and where a copy may run; tile extents and TMA box
// limits are checked per call.
#include "sema/checker.hpp"

namespace croq::sema::detail {

// `.swiz<N>`: 0..3 name the modes (none, 32B, 64B, 128B); 32, 64 and 128
// are the byte spans themselves.
int TransferChecker::swizzle_span(const Modifier& m) {
  const Expr* arg = m.template_args.size() == 1 ? m.template_args[0].get() : nullptr;
  const auto* lit = arg ? std::get_if<IntegerLiteral>(&arg->node) : nullptr;
  const std::int64_t n = lit ? static_cast<std::int64_t>(lit->value) : -1;
  int span = 0;
  switch (n) {
    case 0: span = 0; break;
    case 1: case 32: span = 32; break;
    case 2: case 64: span = 64; break;
    case 3: case 128: span = 128; break;
    default:
      fail(Rule::swizzle_mode, m.location,
           "`.swiz<" + (n < 0 && arg ? text(*arg) : std::to_string(n)) + ">` is not a swizzle mode",
           "use swiz<0..3> (none, 32B, 64B, 128B) or the byte span swiz<32|64|128>");
  }
  if (!cx_.trial_) cx_.out_.swizzle_spans[&m] = span;  // lowering reads the span
  return span;
}

// The modifiers of a dma.copy or tma.copy (rule unsupported-modifier) and
// its future's name, recorded for lowering before the operands are checked.
CopyProtocol TransferChecker::copy_protocol(const Copy& c) {
  CopyProtocol p;
  for (const Modifier& m : c.modifiers) {
    if (m.name == "async") {
      p.async = true;
      if (m.has_template_args && c.engine == Engine::tma) p.bound = &m;
    } else if (m.name == "swiz") {
      p.swizzle = &m;
      if (c.engine == Engine::tma) swizzle_span(m);  // reported before the modifiers after it
    } else if (m.name == "zfill") {
      p.zfill = true;
    } else if (m.name == "multicast" && c.engine == Engine::tma) {
      p.multicast = &m;
    } else if (m.name.rfind("evict_", 0) == 0 && c.engine == Engine::tma) {
      p.l2_eviction = m.name;  // the parser allows the three on tma.load only
    } else {
      fail(Rule::unsupported_modifier, m.location,
           "`." + m.name + "` on " + (c.engine == Engine::tma ? "tma" : "dma") + ".copy is not supported yet by libcroqjit");
    }
  }
  p.future = c.future ? std::get_if<Name>(&c.future->node) : nullptr;
  if (!cx_.trial_) cx_.out_.copies[&c] = p;
  return p;
}

void TransferChecker::copy(const Stmt& s, const Copy& c) {
  // A copy into a placeholder fills it, even when the copy itself has an error.
  if (const auto* name = c.future && c.op != CopyOp::any ? std::get_if<Name>(&c.future->node) : nullptr)
    if (const Symbol* existing = lookup(name->name); existing && existing->type.refillable)
      cx_.placeholders_used_.insert(existing);
  if (c.engine == Engine::tma) tma_copy(s, c);
  else dma_copy(s, c);
}

// A copy's `x.subspan(...)` without `.at` is its first tile: `.at(0, ...)`.
void TransferChecker::place_at_origin(Type& t) {
  if (t.is_tile() && t.pending == Pending::subspan) t.pending = Pending::none;
}

Type TransferChecker::copy_source(const Copy& c) {
  Type src = c_.expressions.expr(*c.source);
  require_ok(src);
  place_at_origin(src);
  if (!src.is_tile() || src.pending != Pending::none)
    fail(Rule::copy_source, c.source->location,
         "the source of a copy must be a tensor or a placed tile" +
             (c.engine == Engine::dma ? ", got `" + text(*c.source) + "`" : std::string()),
         src.pending != Pending::none ? "place it with `.at(...)` (after subspan) or `.from(...)` (after view)" : "",
         notes_of(src));
  src.kind = Kind::tensor;
  return src;
}

std::vector<std::optional<std::int64_t>> TransferChecker::transpose(const Copy& c, int rank) {
  std::vector<std::optional<std::int64_t>> perm;
  for (const auto& a : c.op_args) perm.push_back(c_.expressions.constant(*a, what::transp_dimension));
  if (static_cast<int>(perm.size()) != rank)
    fail(Rule::transp_arity, c.op_location,
         "dma.transp on a rank-" + std::to_string(rank) + " tile takes " + std::to_string(rank) + " dimensions, got " +
             std::to_string(perm.size()));
  std::vector<bool> seen(perm.size());
  for (const auto& p : perm) {
    if (!p) continue;
    if (*p < 0 || *p >= rank || seen[static_cast<std::size_t>(*p)])
      fail(Rule::transp_permutation, c.op_location,
           "dma.transp<...> must be a permutation of 0.." + std::to_string(rank - 1));
    seen[static_cast<std::size_t>(*p)] = true;
  }
  return perm;
}

// dma.pad<low, high, mid, value>: one low, high and mid padding per dimension.
void TransferChecker::padding(const Copy& c, int rank) {
  static const char* const names[] = {"low", "high", "mid"};
  Padding decoded;
  for (std::size_t k = 0; k < 3 && k < c.op_args.size(); ++k) {
    const Expr& arg = *c.op_args[k];
    std::vector<const Expr*>& elements = decoded.parts[k];
    if (const auto* t = std::get_if<ITuple>(&arg.node)) {
      for (const auto& el : t->elements) elements.push_back(el.get());
    } else {
      elements.push_back(&arg);
    }
    if (static_cast<int>(elements.size()) != rank)
      fail(Rule::pad_arity, arg.location,
           "dma.pad on a rank-" + std::to_string(rank) + " tile takes " + std::to_string(rank) + " `" + names[k] +
               "` padding" + (rank == 1 ? "" : "s") + ", got " + std::to_string(elements.size()));
    for (const Expr* el : elements)
      if (auto v = c_.expressions.constant(*el, what::padding))
        if (Verdict broken = pad_padding(names[k], *v)) fail(el->location, std::move(*broken));
  }
  if (c.op_args.size() < 4) return;  // the parser reports it
  const Expr& value_expr = *c.op_args[3];
  Type value = c_.expressions.expr(value_expr);
  require_ok(value);
  // A number known when the kernel is specialized, or a float computed in
  // the kernel (not an element of a tensor: a padded copy reads none).
  if (value.kind != Kind::scalar || value.element || (!value.is_float() && value.known == Known::at_run_time))
    fail(Rule::pad_value, value_expr.location, "the padding value must be a number, got `" + text(value_expr) + "`", "",
         notes_of(value));
  decoded.value = &value_expr;
  if (!cx_.trial_) cx_.out_.paddings[&c] = std::move(decoded);  // lowering evaluates the parts once dims are bound
}

void TransferChecker::require_copy_types(const Expr& where, const char* engine, const Type& from, const Type& dst) {
  // Both faults are reported: a copy can have the wrong rank and type at once.
  const bool rank_differs = dst.rank != from.rank;
  if (rank_differs)
    report(Rule::copy_rank, where.location,
           std::string(engine) + " destination has rank " + std::to_string(dst.rank) + " but the source tile has rank " +
               std::to_string(from.rank),
           "", notes_of(dst));
  if (dst.buffer->dtype != from.buffer->dtype)
    fail(Rule::copy_element_type, where.location,
         "copy between different element types (" + std::string(dtype_name(from.buffer->dtype)) + " to " +
             std::string(dtype_name(dst.buffer->dtype)) + ")",
         "", notes_of(dst));
  if (rank_differs) throw Abort{};
}

// `dma.copy ... after f`: the copy starts once f's copy has completed, as
// after `wait f;` (lowering: the block's barrier, as for a wait on a dma
// future). After a TMA future (an mbarrier's phase, which a later `wait f`
// consumes) it is a limitation.
void TransferChecker::copy_after(const Stmt& s, const Expr& dependency) {
  note_named_future(dependency);
  Type f = c_.expressions.expr(dependency);
  require_ok(f);
  if (f.kind != Kind::future || f.engine != Engine::dma || f.placeholder)
    limitation(Rule::unsupported_after, s.location,
               "`after " + text(dependency) + "` is not supported yet by libcroqjit: `after` takes the future of a "
               "dma copy",
               "wait for the future first: `wait " + text(dependency) + ";`, then copy");
}

void TransferChecker::dma_copy(const Stmt& s, const Copy& c) {
  if (c.op == CopyOp::any) return placeholder(s, c);
  if (c.op != CopyOp::copy && c.op != CopyOp::transp && c.op != CopyOp::pad)
    fail(Rule::unsupported_copy, c.op_location,
         "dma." + std::string(copy_op_name(c.op)) + " is not supported yet by libcroqjit");
  const CopyProtocol protocol = copy_protocol(c);
  const Modifier* swiz = protocol.swizzle;
  const bool async = protocol.async;
  // The copy itself is understood: its operands are checked on.
  for (const auto& dependency : c.after) copy_after(s, *dependency);
  Type src = copy_source(c);
  // The tile the copy writes: the source's extents, permuted by transp.
  std::vector<std::optional<std::int64_t>> written;
  if (static_cast<int>(src.dims.size()) == src.rank && c.op == CopyOp::copy) written = src.dims;
  if (c.op == CopyOp::transp) {
    const auto perm = transpose(c, src.rank);
    // Checked where both readings of transp<...> agree (it is its own inverse).
    bool involution = true;
    for (std::size_t d = 0; d < perm.size(); ++d)
      involution = involution && perm[d] && *perm[d] >= 0 && *perm[d] < static_cast<std::int64_t>(perm.size()) &&
                   perm[static_cast<std::size_t>(*perm[d])] == static_cast<std::int64_t>(d);
    if (involution && static_cast<int>(src.dims.size()) == src.rank)
      for (const auto& p : perm) written.push_back(p ? src.dims[static_cast<std::size_t>(*p)] : std::nullopt);
  }
  if (c.op == CopyOp::pad) padding(c, src.rank);
  Type dst;
  if ((c.destination_storage == Storage::shared || c.destination_storage == Storage::local) && src.unbounded_dims)
    fail(Rule::unbounded_value, c.source->location,
         "the tile `" + text(*c.source) + "` spans an unbounded dim (`??`): the new buffer's shape is not known",
         "take a tile of explicit extents, e.g. `.subspan(...).at(...)`", notes_of(src));
  if (c.destination_storage == Storage::shared || c.destination_storage == Storage::local) {
    // Reported, and the copy checked on: its future still names its tile.
    if (cx_.scope_ == Scope::kernel)
      report(Rule::copy_outside_parallel, s.location, "a copy into shared or local memory must be inside a parallel level",
             "", {});
    dst.kind = Kind::tensor;
    dst.rank = src.rank;
    dst.dims = written;
    dst.buffer = cx_.new_buffer(c.future ? "future" : "tile", src.buffer->dtype, src.rank,
                            c.destination_storage == Storage::shared ? Space::shared : Space::local, s.location);
  } else if (c.destination) {
    try {
      dst = c_.expressions.expr(*c.destination);
    } catch (const Abort&) {
      // `=> select(i, a, b)` with operands of other types (reported): the
      // future still holds a tile like `a`, for the statements after.
      const auto* call = std::get_if<Call>(&c.destination->node);
      const auto* callee = call ? std::get_if<Name>(&call->callee->node) : nullptr;
      if (c.future && callee && callee->name == "select" && call->args.size() > 1) {
        Type first = c_.expressions.expr(*call->args[1]);
        if (first.is_tile()) bind_future(c, first, async, nullptr);
      }
      throw;
    }
    require_ok(dst);
    place_at_origin(dst);
    if (dst.kind != Kind::tensor || dst.pending != Pending::none)
      fail(Rule::copy_destination, c.destination->location, "the destination of a copy must be a tensor or a placed tile", "",
           notes_of(dst));
    require_copy_types(*c.destination, "copy", src, dst);
    if (c.op == CopyOp::transp && written.size() == dst.dims.size())
      for (std::size_t d = 0; d < written.size(); ++d)
        if (written[d] && dst.dims[d] && *written[d] != *dst.dims[d])
          fail(Rule::transp_shape, c.destination->location,
               "dma.transp writes a tile of extent " + std::to_string(*written[d]) + " in dimension " + std::to_string(d) +
                   " but `" + text(*c.destination) + "` has " + std::to_string(*dst.dims[d]),
               "the destination's extents are the source's, in the order of transp<...>", notes_of(dst));
  } else if (c.destination_storage == Storage::global) {
    // Outside every parallel statement a synchronous copy fills a new
    // global buffer of the call (lowering allocates it); inside one, each
    // instance would need its own.
    if (cx_.parallel_depth_ > 0 || async)
      limitation(Rule::unsupported_copy, c.destination_storage_location,
                 "a copy into a new global buffer (`=> global`) inside a parallel statement or asynchronous is not "
                 "supported yet by libcroqjit",
                 "declare the global tensor at function scope and copy into it");
    dst.kind = Kind::tensor;
    dst.rank = src.rank;
    dst.dims = written;
    dst.buffer = cx_.new_buffer(c.future ? "future" : "tile", src.buffer->dtype, src.rank, Space::global, s.location);
  } else {
    fail(Rule::copy_destination, c.destination_storage_location.line ? c.destination_storage_location : s.location,
         "a copy needs a destination after `=>`", "name a global tensor, or `shared` / `local` for a new buffer");
  }
  copy_direction(s, c, src, dst, async);
  if (swiz) {
    const int span = swizzle_span(*swiz);
    if (dst.buffer->space != Space::shared)
      fail(Rule::swizzle_needs_shared, swiz->location,
           "`.swiz<N>` lays out a tile in shared memory; the destination is not shared");
    if (dst.buffer->swizzle >= 0 && dst.buffer->swizzle != span)
      fail(Rule::swizzle_layout, swiz->location,
           "this copy writes the tile with swizzle " + std::to_string(span) + " but it was written with swizzle " +
               std::to_string(dst.buffer->swizzle) + " before");
    dst.buffer->swizzle = span;
  }
  bind_future(c, dst, async, nullptr);
}

// The GPU's copy engines copy nothing between two tensors declared `global`
// (parameters without `global` are inputs the host may stage).
void TransferChecker::copy_direction(const Stmt& s, const Copy& c, const Type& src, const Type& dst, bool async) {
  const Buffer& from = *src.buffer;
  const Buffer& to = *dst.buffer;
  if (from.declared_global && to.declared_global)
    fail(Rule::global_to_global_copy, c.op_location,
         std::string(async ? "an asynchronous" : "a") + " dma.copy between two `global` tensors is not possible on the GPU",
         "stage the tile through shared or local memory");
  if (async && !c.future) require_named_async(s, c);
}

void TransferChecker::require_named_async(const Stmt& s, const Copy& c) {
  for (const Modifier& m : c.modifiers)
    if (m.name == "async" && m.has_template_args) return;  // completes on its event
  fail(Rule::async_copy_unnamed, s.location,
       "an asynchronous copy needs a future (`f = " + std::string(c.engine == Engine::tma ? "tma" : "dma") +
           ".copy.async ...;`) to wait for",
       "name its future and `wait` for it, or drop `.async`");
}

void TransferChecker::tma_copy(const Stmt& s, const Copy& c) {
  // The box extents of the global side are encoded on the host.
  struct BoxGuard {
    bool& flag;
    explicit BoxGuard(bool& f) : flag(f) { flag = true; }
    ~BoxGuard() { flag = false; }
  } box_guard(cx_.tma_operands_);
  if (cx_.options_.target && !cx_.options_.target->tma() && !cx_.needs_sm90_reported_) {
    cx_.needs_sm90_reported_ = true;
    fail(Rule::needs_sm90, c.op_location, "tma.copy needs sm_90 (Hopper); use dma.copy (compiling for " +
                                              cx_.options_.target->arch + ")");
  }
  if (c.op == CopyOp::any) return placeholder(s, c);
  if (c.op != CopyOp::copy && c.op != CopyOp::load)
    fail(Rule::unsupported_copy, c.op_location,
         "tma." + std::string(copy_op_name(c.op)) + " is not supported yet by libcroqjit");
  // The copy itself is understood: its operands are checked on.
  for (const auto& dependency : c.after) note_named_future(*dependency);
  if (!c.after.empty())
    limitation(Rule::unsupported_after, s.location, "`after` is not supported yet by libcroqjit",
               "wait for the future first: `wait f;`, then copy");
  const CopyProtocol protocol = copy_protocol(c);
  int span = protocol.swizzle ? swizzle_span(*protocol.swizzle) : 0;
  const bool async = protocol.async, swizzle_written = protocol.swizzle != nullptr;
  const Modifier* bound = protocol.bound;
  if (async && !c.future) require_named_async(s, c);
  // A thread-level parallel of one thread issues it from that thread.
  if (Verdict broken = cx_.scope_ == Scope::thread ? tma_in_threads(cx_.thread_instances_ == 1) : std::nullopt)
    fail(s.location, std::move(*broken));
  if (cx_.scope_ == Scope::kernel)
    fail(Rule::tma_scope, s.location, "tma.copy runs at block or warpgroup scope, not inside a thread-level parallel");
  Type src = copy_source(c);
  const bool store = src.buffer->space == Space::shared;
  if (!cx_.trial_) cx_.out_.copies[&c].store = store;
  if (protocol.multicast && (store || !cx_.clustered_))
    fail(Rule::multicast_scope, protocol.multicast->location,
         store ? "`.multicast` loads a global tile into every block of a cluster; this tma.copy stores a shared tile"
               : "`.multicast` loads a tile into every block of a cluster, but this kernel has no `: cluster` level",
         store ? "" : "put the block level in a cluster: `parallel c by 2 : cluster, {bm, bn} by [BM, BN] : block`");
  Type tile, global;
  if (store) {
    tile = src;
    // A store without `.swiz` reads the tile in the layout it was written with.
    if (!swizzle_written && tile.buffer->swizzle > 0) span = tile.buffer->swizzle;
    if (!c.destination) fail(Rule::tma_direction, s.location, "a tma.copy from shared memory needs a global destination");
    global = c_.expressions.expr(*c.destination);
    require_ok(global);
    place_at_origin(global);
    if (!global.is_tile() || global.kind == Kind::future || global.buffer->space != Space::global)
      fail(Rule::tma_direction, c.destination->location, "a tma.copy from shared memory writes a tile of a global tensor", "",
           notes_of(global));
    require_copy_types(*c.destination, "tma.copy", tile, global);
  } else {
    global = src;
    if (global.buffer->space != Space::global)
      fail(Rule::tma_direction, c.source->location, "tma.copy moves tiles between global and shared memory", "",
           notes_of(global));
  }
  if (global.strided)
    limitation(Rule::strided_view_use, (store ? c.destination : c.source)->location,
               "a strided view as a TMA box is not supported yet by libcroqjit", "copy it with dma.copy");
  if (global.rank < 1 || global.rank > 5)
    fail(Rule::tma_box_rank, c.source->location, "a TMA box has 1 to 5 dimensions, got " + std::to_string(global.rank), "",
         notes_of(global));
  if (!store) {
    if (c.destination_storage == Storage::shared) {
      tile.kind = Kind::tensor;
      tile.rank = global.rank;
      tile.buffer = cx_.new_buffer(c.future ? "future" : "tile", global.buffer->dtype, global.rank, Space::shared, s.location);
    } else if (c.destination) {
      tile = c_.expressions.expr(*c.destination);
      require_ok(tile);
      place_at_origin(tile);
      if (!tile.is_tile() || tile.kind == Kind::future || tile.buffer->space != Space::shared)
        fail(Rule::tma_direction, c.destination->location, "tma.copy loads into shared memory", "", notes_of(tile));
      c_.expressions.require_selected(*c.destination, tile);
      require_copy_types(*c.destination, "tma.copy", global, tile);
    } else {
      fail(Rule::tma_direction, c.destination_storage_location.line ? c.destination_storage_location : s.location,
           "tma.copy loads into shared memory; use `=> shared` or a shared buffer");
    }
    if (tile.buffer->swizzle >= 0 && tile.buffer->swizzle != span)
      fail(Rule::swizzle_layout, c.op_location,
           "this copy writes the tile with swizzle " + std::to_string(span) + " but it was written with swizzle " +
               std::to_string(tile.buffer->swizzle) + " before");
    tile.buffer->swizzle = span;
  } else if (tile.buffer->swizzle > 0 && tile.buffer->swizzle != span) {
    fail(Rule::swizzle_layout, c.op_location,
         "the tile is laid out with swizzle " + std::to_string(tile.buffer->swizzle) + "; the store must say `.swiz<" +
             std::to_string(tile.buffer->swizzle) + ">`",
         "a store reads the tile with the layout it was written with");
  } else if (tile.buffer->swizzle == 0 && span > 0) {
    // The copy engine would read the rows as swizzled: the wrong elements.
    fail(Rule::swizzle_layout, c.op_location,
         "the tile is laid out without a swizzle (written row by row); a store with `.swiz<" + std::to_string(span) +
             ">` would read it as swizzled",
         "drop `.swiz<" + std::to_string(span) + ">`: a store reads the tile with the layout it was written with");
  }
  // TMA descriptors are encoded on the host at each launch from the
  // arguments, the returned tensor and the program buffers (each allocated
  // by the call first); one descriptor covers one tensor, so not an array
  // of program buffers.
  if (global.buffer->parameter < 0 && !global.buffer->returned && global.buffer->is_array)
    fail(Rule::tma_argument, c.op_location,
         "tma.copy reads and writes whole global tensors; `" + global.buffer->name + "` is an array of buffers",
         "use dma.copy, or one program buffer with one more dimension");
  if (store) {  // its future only completes the store
    bind_future(c, global, async, nullptr);
    return;
  }
  const Expr* bound_event = nullptr;
  if (bound) {
    if (bound->template_args.size() != 1) fail(Rule::async_event, bound->location, "`.async<e>` names one event");
    const Type ev = event_value(*bound->template_args[0], "`.async<...>`");
    if (ev.event && ev.event->global)
      fail(Rule::global_event_use, bound->template_args[0]->location,
           "global event `" + ev.event->name + "` is triggered by threads; no copy completes it",
           "use a `shared event`, or wait for the copy and then `trigger` the global event");
    if (ev.event && ev.event->local)
      fail(Rule::local_event_use, bound->template_args[0]->location,
           "local event `" + ev.event->name + "` is one thread's, set by its triggers; no copy completes it",
           "use a `shared event`, or wait for the copy and then `trigger` the local event");
    bound_event = bound->template_args[0].get();
  }
  bind_future(c, tile, async && !bound, bound_event);
}

}  // namespace croq::sema::detail
