// Futures that change buffers at run time: `f = dma.any;` / `tma.any`
// placeholders, and `swap a, b` / `rotate a, b, c` (double and multiple
// buffering).
//
// The futures that swap statements connect (and each placeholder) form a
// ring: one shared buffer of as many slots as the ring has futures, and one
// integer variable per future naming the slot it refers to now. A copy into
// `=> shared` with such a future writes the future's current slot; `swap`
// exchanges the variables, so code after a loop of swaps sees the buffers
// where the last iteration left them. TMA copies of a ring complete on its
// private barriers, one per slot.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

// The rings sema found (sema.hpp's FutureRing): the futures swap statements
// exchange, and each placeholder not swapped.
void MemoryLowering::find_future_rings() {
  for (const sema::FutureRing& found : facts_.future_rings) {
    FutureRing& ring = rings_.emplace_back();
    ring.names = found.futures;
    for (const std::string& name : ring.names) ring_of_[name] = static_cast<int>(rings_.size()) - 1;
  }
}

LoweringContext::FutureRing* MemoryLowering::ring_of(const std::string& name) {
  auto it = ring_of_.find(name);
  return it == ring_of_.end() ? nullptr : &rings_[static_cast<std::size_t>(it->second)];
}

// The ring's slot variables, where it is first met; its buffer's pointer
// goes to the same place once the first copy gives the tile.
void MemoryLowering::open_ring(FutureRing& ring) {
  if (ring.anchor) return;
  for (std::size_t i = 0; i < ring.names.size(); ++i) {
    ring.slot_vars.push_back(fresh(ring.names[i] + "_slot"));
    emit_node(ir::Let{ring.slot_vars.back(), ir::Type::i32(), false, ir::int_const(static_cast<std::int64_t>(i))});
  }
  emit_node(ir::Seq{{}, false});
  ring.anchor = out_.back()->back().get();
}

ExprRef MemoryLowering::ring_slot(const FutureRing& ring, const std::string& name) const {
  for (std::size_t i = 0; i < ring.names.size(); ++i)
    if (ring.names[i] == name) return ir::var(ring.slot_vars[i], ir::Type::i32());
  return ir::int_const(0);
}

// The destination of a copy into `=> shared` whose future `name` belongs to
// a ring: the future's current slot of the ring's buffer.
View MemoryLowering::ring_destination(const std::string& name, DType dtype, const std::vector<std::int64_t>& extent,
                               const SourceLocation& where) {
  FutureRing& ring = *ring_of(name);
  open_ring(ring);
  if (ring.buffer < 0) {
    ring.buffer = allocate("ring", dtype, extent, ir::Space::shared, where,
                           static_cast<std::int64_t>(ring.names.size()));
    // Declared where the ring is: code after the loops that fill it uses it.
    ir::StmtPtr alloc = std::move(out_.back()->back());
    out_.back()->pop_back();
    std::get<ir::Seq>(ring.anchor->node).body.push_back(std::move(alloc));
  }
  const ir::Buffer& b = buffer(ring.buffer);
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < b.dims.size(); ++d) dims.push_back(dim_value(ring.buffer, d));
  if (b.dtype != dtype || dims != extent)
    fail(where, "`" + name + "` takes a tile " + shape_text(dtype, extent) + " but the futures it is swapped with hold " +
                    shape_text(b.dtype, dims),
         "futures that `swap` exchanges hold tiles of one shape");
  View v = whole(ring.buffer);
  v.slot = ring_slot(ring, name);
  return v;
}

// A TMA copy of a ring completes on the ring's barrier of its slot.
void MemoryLowering::ring_event(FutureRing& ring, Value& ev, const std::string& name) {
  if (ring.event < 0) {
    ir::Event priv;
    priv.source_name = "tma.copy";
    priv.name = fresh("tma_ring_bar");
    priv.phase = priv.name + "_phase";
    priv.count = static_cast<std::int64_t>(ring.names.size());
    priv.is_private = true;
    kernel_.events.push_back(priv);
    ring.event = static_cast<int>(kernel_.events.size()) - 1;
  }
  ev.event = ring.event;
  ev.event_index = ring_slot(ring, name);
}

// A copy's future: a ring's future (or a placeholder's) is the symbol of the
// scope that declared it, so code after the loop that fills it sees it.
void MemoryLowering::define_future(const std::string& name, const Value& f) {
  if (ring_of(name))
    for (auto it = symbols_.rbegin(); it != symbols_.rend(); ++it)
      if (auto found = it->find(name); found != it->end()) {
        found->second = f;
        return;
      }
  define(name, f);
}

// `f = dma.any;`: a future whose copy comes later; it rings alone unless a
// swap joins it to others.
void MemoryLowering::placeholder(const Stmt& s, const Copy& c) {
  const auto* name = c.future ? std::get_if<Name>(&c.future->node) : nullptr;
  if (!name) fail(s.location, "`" + std::string(c.engine == Engine::tma ? "tma" : "dma") + ".any` needs a future name");
  if (!ring_of(name->name)) unchecked(s.location, "a placeholder sema found no ring for");
  FutureRing& ring = *ring_of(name->name);
  line_mark(s.location);
  open_ring(ring);
  Value f;
  f.kind = Value::Kind::future;
  f.placeholder = true;
  if (ring.buffer >= 0) {
    f.view = whole(ring.buffer);
    f.view.slot = ring_slot(ring, name->name);
  }
  define(name->name, f);
}

// swap a, b: a takes b's slot and b a's; rotate a, b, c: a takes b's, b c's, c a's.
void MemoryLowering::swap_statement(const Stmt& s, const Swap& sw) {
  std::vector<const Expr*> operands = {sw.first.get(), sw.second.get()};
  for (const auto& e : sw.more) operands.push_back(e.get());
  std::vector<ExprRef> slots;
  for (const Expr* e : operands) {
    const auto* name = std::get_if<Name>(&e->node);
    FutureRing* ring = name ? ring_of(name->name) : nullptr;
    if (!ring || !ring->anchor)
      fail(e->location, "`" + source_text(*e) + "` must be the future of a copy into `=> shared` (or a `dma.any`) before "
                        "it is swapped");
    slots.push_back(ring_slot(*ring, name->name));
  }
  line_mark(s.location);
  const std::string first = fresh("slot");
  emit_node(ir::Let{first, ir::Type::i32(), true, slots.front()}, s.location);
  for (std::size_t i = 0; i + 1 < slots.size(); ++i) emit_node(ir::Assign{slots[i], "=", slots[i + 1], nullptr});
  emit_node(ir::Assign{slots.back(), "=", ir::var(first, ir::Type::i32()), nullptr});
}

}  // namespace croq::lower::detail
