// Copies (dma), barriers, events (mbarriers) and TMA, with the hazard
// checks on shared memory.
#include <algorithm>
#include <cstring>

#include "interp/executor.hpp"
#include "interp/values.hpp"

namespace croq::interp {

namespace {

bool overlaps(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) { return a0 < b1 && b0 < a1; }

}  // namespace

// ---- dma copies (the loops of backend/cuda/emit_copy.cpp) ----------------

namespace {

struct TileAt {
  const ir::Tile* tile;
  Value slot;
  std::vector<std::int64_t> origin;
};

}  // namespace

void Executor::copy_tiles(Thread& t, const ir::CopyTiles& c) {
  auto place = [&](const ir::Tile& tile) {
    TileAt at{&tile, {}, {}};
    if (tile.slot) at.slot = eval(t, tile.slot);
    for (const auto& o : tile.origin) at.origin.push_back(as_int(o->type, eval(t, o)));
    return at;
  };
  const TileAt src = place(c.src), dst = place(c.dst);
  std::vector<std::int64_t> limit_src(c.src.extent.size(), -1), limit_dst(c.dst.extent.size(), -1);
  for (std::size_t d = 0; d < c.src.limit.size(); ++d)
    if (c.src.limit[d]) limit_src[d] = as_int(c.src.limit[d]->type, eval(t, c.src.limit[d]));
  for (std::size_t d = 0; d < c.dst.limit.size(); ++d)
    if (c.dst.limit[d]) limit_dst[d] = as_int(c.dst.limit[d]->type, eval(t, c.dst.limit[d]));
  // Whether window element idx is inside its buffer and below its limits.
  auto inside = [&](const TileAt& at, const std::vector<std::int64_t>& lim, const std::vector<std::int64_t>& idx) {
    for (std::size_t d = 0; d < idx.size(); ++d) {
      const auto& dims = kernel().buffers[static_cast<std::size_t>(at.tile->buffer)].dims;
      if (!at.tile->exact && d < dims.size() && at.origin[d] + idx[d] >= extent(t, at.tile->buffer, d)) return false;
      if (lim[d] >= 0 && idx[d] >= lim[d]) return false;
    }
    return true;
  };
  auto element = [&](const TileAt& at, const std::vector<std::int64_t>& idx, bool write) {
    std::vector<std::int64_t> coords(idx.size());
    for (std::size_t d = 0; d < idx.size(); ++d) coords[d] = at.origin[d] + idx[d];
    return element_address(t, at.tile->buffer, at.tile->slot ? &at.slot : nullptr, coords, write);
  };
  const DType dtype = kernel().buffers[static_cast<std::size_t>(c.dst.buffer)].dtype;
  const ir::Type et = ir::Type::element(dtype);
  const bool global_dst = kernel().buffers[static_cast<std::size_t>(c.dst.buffer)].space == ir::Space::global;
  const std::vector<std::int64_t>& space = c.dst.extent;
  std::int64_t n = 1;
  for (std::int64_t x : space) n *= x;
  std::int64_t first = 0, step = 1;
  if (c.cooperative) {
    first = as_int(c.set.tid->type, eval(t, c.set.tid));
    step = as_int(c.set.count->type, eval(t, c.set.count));
  }
  Value pad_value;
  if (c.pad) pad_value = converted(c.pad->value->type, et, eval(t, c.pad->value));
  std::vector<std::int64_t> di(space.size()), si(c.src.extent.size());
  auto dst_dim = [&](std::size_t d) { return c.perm.empty() ? d : static_cast<std::size_t>(c.perm[d]); };
  for (std::int64_t e = first; e < n; e += step) {
    std::int64_t rest = e;
    for (std::size_t d = space.size(); d-- > 0;) {
      di[d] = rest % space[d];
      rest /= space[d];
    }
    Value v;
    bool valid = true, write = true;
    if (c.pad) {
      const ir::Padding& pad = *c.pad;
      for (std::size_t d = 0; d < space.size(); ++d) {
        const std::int64_t shifted = di[d] - pad.low[d], pitch = pad.mid[d] + 1;
        si[d] = shifted / pitch;
        if (shifted < 0 || shifted % pitch != 0 || si[d] >= c.src.extent[d]) valid = false;
      }
      if (valid) v = inside(src, limit_src, si) ? read(t, element(src, si, false)) : from_int(et, 0);
      else v = pad_value;
    } else {
      bool smaller_source = false;
      for (std::size_t d = 0; d < si.size(); ++d) {
        si[d] = di[dst_dim(d)];
        if (c.src.extent[d] < c.dst.extent[dst_dim(d)]) {
          smaller_source = true;
          if (si[d] >= c.src.extent[d]) valid = false;
        }
      }
      valid = valid && inside(src, limit_src, si);
      v = valid ? read(t, element(src, si, false)) : from_int(et, 0);
      if (!valid && !c.zfill && (global_dst || smaller_source)) write = false;
    }
    if (write && inside(dst, limit_dst, di)) write_element(t, element(dst, di, true), et, v);
  }
}

void Executor::write_element(Thread& t, const Address& a, const ir::Type& from, const Value& v) { write(t, a, from, v); }

// ---- barriers ---------------------------------------------------------------

void Executor::barrier(Thread& t, const ir::Barrier& b, const ir::Stmt& s) {
  switch (b.scope) {
    case ir::Barrier::Scope::set:
      if (b.set.threads == 0) gather(t, "block barrier", 0, launch_.threads, &s, nullptr);
      else
        gather(t, "named barrier " + std::to_string(b.set.barrier_id), b.set.first, b.set.threads, &s, nullptr);
      return;
    case ir::Barrier::Scope::warp: {
      const std::int64_t w = t.tid / 32;
      gather(t, "warp " + std::to_string(w), w * 32, 32, &s, nullptr);
      return;
    }
    case ir::Barrier::Scope::lanes: return;  // the warp's active lanes: those here
    case ir::Barrier::Scope::warpgroup: {
      const std::int64_t g = t.tid / 128;
      gather(t, "named barrier " + std::to_string(b.set.barrier_id + g), g * 128, 128, &s, nullptr);
      return;
    }
    case ir::Barrier::Scope::grid:
      grid_barrier(t, s);
      return;
    case ir::Barrier::Scope::cluster:  // the blocks run one after another: the block's part of it
      gather(t, "cluster barrier", 0, launch_.threads, &s, nullptr);
      return;
  }
}

// ---- events -------------------------------------------------------------------

namespace {

void arrive_once(EventSlot& slot) {
  if (--slot.pending > 0) return;
  ++slot.completed;
  slot.pending = slot.expected;
}

}  // namespace

EventSlot& Executor::event_slot(Thread& t, int event, std::int64_t index) {
  auto& slots = t.block->events[static_cast<std::size_t>(event)];
  if (index < 0 || index >= static_cast<std::int64_t>(slots.size()))
    fault(t.line, "out-of-bounds event `" + kernel().events[static_cast<std::size_t>(event)].source_name + "[" +
                      std::to_string(index) + "]`: it has " + std::to_string(slots.size()) + " barriers");
  return slots[static_cast<std::size_t>(index)];
}

void Executor::arrive(Thread& t, const ir::Arrive& a, const ir::Stmt& s) {
  const std::int64_t index = a.index ? as_int(a.index->type, eval(t, a.index)) : 0;
  EventSlot& slot = event_slot(t, a.event, index);
  if (!a.per_warp) {
    race_release(t, slot);
    arrive_once(slot);
    return;
  }
  // Lane 0 of each warp arrives once the whole warp is here (__syncwarp):
  // lanes that do not all trigger are a disagreement.
  const std::int64_t w = t.tid / 32;
  EventSlot* target = &slot;
  Thread* lane = &t;  // after the warp's join, every lane's clock
  gather(t, "warp " + std::to_string(w), w * 32, 32, &s, [this, target, lane] {
    race_release(*lane, *target);
    arrive_once(*target);
  });
}

void Executor::wait_event(Thread& t, const ir::WaitEvent& w) {
  const std::int64_t index = w.index ? as_int(w.index->type, eval(t, w.index)) : 0;
  EventSlot* slot = &event_slot(t, w.event, index);
  std::int64_t parity = 0;
  if (w.parity) {
    parity = as_int(w.parity->type, eval(t, w.parity)) & 1;
  } else {
    parity = (t.phase_bits[static_cast<std::size_t>(w.event)] >> (index & 31)) & 1u;
  }
  const ir::Event& e = kernel().events[static_cast<std::size_t>(w.event)];
  wait_until(t, [slot, parity] { return slot->completed % 2 != parity; },
             "event `" + e.source_name + "[" + std::to_string(index) + "]` (phase parity " + std::to_string(parity) +
                 ")");
  if (!w.parity) t.phase_bits[static_cast<std::size_t>(w.event)] ^= 1u << (index & 31);
  t.seen[{w.event, index}] = slot->completed;
  race_acquire(t, *slot);
}

// A global event's wait: the blocks of a launch that is not cooperative run
// one after another here, so a wait for a later block's trigger never ends
// (on the device, nothing guarantees that block runs beside this one).
void Executor::wait_counter(Thread& t, const ir::WaitCounter& w) {
  const Address counter = element_address(t, *w.counter, false);
  const std::int64_t above = as_int(w.above->type, eval(t, w.above));
  const ir::Type type = w.counter->type;
  wait_until(t, [this, &t, counter, above, type] { return as_int(type, read(t, counter)) > above; },
             "global event `" + w.event + "` (its count to pass " + std::to_string(above) + ")" +
                 (kernel().cooperative ? std::string()
                                       : ", which only this block or one before it can trigger: the blocks of a "
                                         "launch that is not cooperative may run one after another"));
}

// ---- TMA ----------------------------------------------------------------------

namespace {

std::int64_t box_elements(const std::vector<std::uint32_t>& box) {
  std::int64_t n = 1;
  for (auto b : box) n *= b;
  return n;
}

}  // namespace

// Calls `f(box_linear, tensor_linear or -1 when outside)` for each element of the box at coords.
template <typename F>
void for_box(const std::vector<std::uint32_t>& box, const std::vector<std::int64_t>& at,
             const std::vector<std::int64_t>& shape, F f) {
  const std::int64_t n = box_elements(box);
  std::vector<std::int64_t> idx(box.size());
  for (std::int64_t e = 0; e < n; ++e) {
    std::int64_t rest = e, linear = 0;
    bool inside = true;
    for (std::size_t d = box.size(); d-- > 0;) {
      idx[d] = rest % box[d];
      rest /= box[d];
    }
    for (std::size_t d = 0; d < box.size(); ++d) {
      const std::int64_t c = at[d] + idx[d];
      const std::int64_t extent = d < shape.size() ? shape[d] : 1;
      if (c < 0 || c >= extent) inside = false;
      linear = linear * extent + c;
    }
    f(e, inside ? linear : -1);
  }
}

void Executor::tma_load(Thread& t, const ir::TmaLoad& l) {
  if (l.leader && !as_bool(l.leader->type, eval(t, l.leader))) return;
  const ParamValue& tensor = launch_.params[static_cast<std::size_t>(l.map)];
  const abi::KernelParam& map = launch_.abi.params[static_cast<std::size_t>(l.map)];
  const Value dest = eval(t, l.destination);
  std::vector<std::int64_t> at;
  for (auto it = l.coords.rbegin(); it != l.coords.rend(); ++it) at.push_back(as_int((*it)->type, eval(t, *it)));
  if (l.multicast && kernel().cluster_blocks > 1) {
    // Croqtile's multicast puts the first block's tile into every block of
    // the cluster; here each block loads it itself (every slice of it),
    // which is the same only when they all name that tile. Blocks run in
    // order, the first one first.
    const std::int64_t cluster = t.block->index / kernel().cluster_blocks, rank = t.block->index % kernel().cluster_blocks;
    const std::int64_t issue = multicast_issues_[{&l, t.block->index}]++;
    const auto key = std::make_tuple(&l, cluster, issue);
    auto box_text = [](const std::vector<std::int64_t>& v) {
      std::string s;
      for (std::int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
      return "(" + s + ")";
    };
    if (rank == 0) {
      multicast_boxes_[key] = at;
    } else if (auto first = multicast_boxes_.find(key); first == multicast_boxes_.end() || first->second != at) {
      fault(t.line, "the blocks of a cluster load different tiles with `.multicast`: block " +
                        std::to_string(t.block->index) + " (rank " + std::to_string(rank) + ") loads the box at " +
                        box_text(at) + ", the cluster's first block " +
                        (first == multicast_boxes_.end() ? std::string("loads no tile here")
                                                         : "the box at " + box_text(first->second)) +
                        "; a multicast tile is the first block's in every block: index it by what the cluster's blocks share");
    }
  }
  const std::size_t size = dtype_size(tensor.dtype);
  const std::int64_t slices = l.multicast ? std::max(l.multicast->slices, 1) : 1;
  const std::size_t begin = static_cast<std::size_t>(dest.i), end = begin + box_elements(map.box) * slices * size;
  if (dest.storage == nullptr || end > dest.storage->bytes)
    fault(t.line, "out-of-bounds tma.copy into `" + (dest.storage ? dest.storage->name : std::string("?")) +
                      "`: the box of " + std::to_string(box_elements(map.box)) + " elements does not fit");
  check_shared_write(t, dest.storage, begin, end);
  // The issuing thread must come after the tile's earlier readers; its
  // readers then wait for the copy's event (check_shared_read).
  race_access(t, dest.storage, begin, end, true, begin / size);
  race_forget(dest.storage, begin, end);
  const auto* from = static_cast<const std::byte*>(tensor.data);
  std::byte* to = dest.storage->data + begin;
  for (std::int64_t r = 0; r < slices; ++r) {  // a multicast's slices, each the next rows of the tile
    std::vector<std::int64_t> slice_at = at;
    slice_at[0] += r * (slices > 1 ? l.multicast->slice_rows : 0);
    std::byte* slice_to = to + r * box_elements(map.box) * static_cast<std::int64_t>(size);
    for_box(map.box, slice_at, tensor.shape, [&](std::int64_t e, std::int64_t linear) {
      if (linear < 0) std::memset(slice_to + e * size, 0, size);
      else std::memcpy(slice_to + e * size, from + linear * static_cast<std::int64_t>(size), size);
    });
  }
  const std::int64_t index = l.event_index ? as_int(l.event_index->type, eval(t, l.event_index)) : 0;
  EventSlot& slot = event_slot(t, l.event, index);
  auto& pending = t.block->pending_tma;
  std::erase_if(pending, [&](const PendingTma& p) {
    return p.storage == dest.storage && overlaps(p.begin, p.end, begin, end);
  });
  pending.push_back(PendingTma{dest.storage, begin, end, l.event, index, slot.completed + 1, t.line});
  if (l.arrive) {
    race_release(t, slot);
    arrive_once(slot);
  }
}

void Executor::tma_store(Thread& t, const ir::TmaStore& st) {
  if (st.leader && !as_bool(st.leader->type, eval(t, st.leader))) return;
  const ParamValue& tensor = launch_.params[static_cast<std::size_t>(st.map)];
  const abi::KernelParam& map = launch_.abi.params[static_cast<std::size_t>(st.map)];
  const Value src = eval(t, st.source);
  std::vector<std::int64_t> at;
  for (auto it = st.coords.rbegin(); it != st.coords.rend(); ++it) at.push_back(as_int((*it)->type, eval(t, *it)));
  const std::size_t size = dtype_size(tensor.dtype);
  const std::size_t begin = static_cast<std::size_t>(src.i), end = begin + box_elements(map.box) * size;
  if (src.storage == nullptr || end > src.storage->bytes)
    fault(t.line, "out-of-bounds tma.copy from `" + (src.storage ? src.storage->name : std::string("?")) + "`");
  check_shared_read(t, src.storage, begin, end);
  race_access(t, src.storage, begin, end, false, begin / size);
  auto* to = static_cast<std::byte*>(tensor.data);
  const std::byte* from = src.storage->data + begin;
  for_box(map.box, at, tensor.shape, [&](std::int64_t e, std::int64_t linear) {
    if (linear >= 0) std::memcpy(to + linear * static_cast<std::int64_t>(size), from + e * size, size);
  });
}

// ---- hazards ------------------------------------------------------------------

void Executor::check_shared_read(Thread& t, Storage* s, std::size_t begin, std::size_t end) {
  for (const PendingTma& p : t.block->pending_tma) {
    if (p.storage != s || !overlaps(p.begin, p.end, begin, end)) continue;
    auto seen = t.seen.find({p.event, p.index});
    if (seen != t.seen.end() && seen->second >= p.phase) continue;
    const ir::Event& e = kernel().events[static_cast<std::size_t>(p.event)];
    fault(t.line, "read of `" + shown_name(s->name) + "` before its tma.copy (line " + std::to_string(p.line) +
                      ") completed: thread " + std::to_string(t.tid) + " has not waited on event `" + e.source_name +
                      "[" + std::to_string(p.index) + "]` for it");
  }
}

void Executor::check_shared_write(Thread& t, Storage* s, std::size_t begin, std::size_t end) {
  for (const auto& [group, groups] : t.block->mma_groups)
    for (const MmaGroup& g : groups)
      for (const MmaGroup::Range& r : g.reads)
        if (r.storage == s && overlaps(r.begin, r.end, begin, end))
          fault(t.line, "`" + shown_name(s->name) + "` is overwritten while the multiply at line " + std::to_string(g.line) +
                            " (warpgroup " + std::to_string(group) +
                            ") may still read it: its WGMMA group was not waited for (mma.wait / a trigger after it)");
}

}  // namespace croq::interp
