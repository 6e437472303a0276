// Lowering of tma.copy (TMA loads and stores).
//
// A global => shared copy is issued by thread 0 of the running set (or the
// one thread of a thread-level parallel of one thread) and
// completes on an mbarrier: the event of `.async<e[i]>`, else the event of
// the `trigger` that follows it (only other tma.copy statements between),
// else a private barrier that the set waits on at once (synchronous) or at
// `wait f` (`f = tma.copy.async ...`). Out-of-bounds box elements read as
// zero (this is `.zfill`). shared => global stores go through the
// bulk-async proxy and complete before the set goes on.
#include <algorithm>
#include <cctype>

#include "lower/lowering.hpp"
#include "support/checked_int.hpp"
#include "support/format.hpp"

namespace croq::lower::detail {

namespace {

// The storage word after a copy's `=>` (`=> local`), for messages about it;
// the statement where it cannot be found.
SourceLocation destination_storage_location(const Program& program, const Stmt& s, const Copy& c) {
  const std::string& src = program.source;
  const std::size_t start = static_cast<std::size_t>(std::max(0, s.location.offset));
  std::size_t from = c.source && c.source->source_end > 0 ? static_cast<std::size_t>(c.source->source_end) : start;
  std::size_t at = src.find("=>", from);
  if (from < start || at == std::string::npos) return s.location;
  at += 2;
  while (at < src.size() && (src[at] == ' ' || src[at] == '\t' || src[at] == '\n' || src[at] == '\r')) ++at;
  std::size_t end = at;
  while (end < src.size() && (std::isalnum(static_cast<unsigned char>(src[end])) || src[end] == '_')) ++end;
  if (end == at) return s.location;
  SourceLocation loc;
  loc.line = s.location.line + static_cast<int>(std::count(src.begin() + start, src.begin() + at, '\n'));
  const std::size_t line_start = src.rfind('\n', at - 1);
  const std::size_t column_start = line_start == std::string::npos ? 0 : line_start + 1;
  loc.column = support::text_columns(std::string_view(src).substr(column_start, at - column_start)) + 1;
  loc.offset = static_cast<int>(at);
  loc.length = static_cast<int>(end - at);
  return loc;
}

}  // namespace

int MemoryLowering::tensor_map_param(const View& global, const std::vector<std::int64_t>& box, int swizzle,
                              const SourceLocation& where) {
  const ir::Buffer& b = buffer(global.buffer);
  const bool returned = b.argument == -2;  // its descriptor is encoded once the call has allocated it
  // A program buffer's descriptor is encoded once the call has allocated it.
  const auto program_buffer = scratch_index_.find(global.buffer);
  const int scratch = program_buffer != scratch_index_.end() && b.slots == 0 ? static_cast<int>(program_buffer->second) : -1;
  if (b.argument < 0 && !returned && scratch < 0) unchecked(where, sema::Rule::tma_argument);
  const int argument = returned || scratch >= 0 ? -1 : b.argument;
  std::string key = (scratch >= 0 ? "s" + std::to_string(scratch) : std::to_string(argument)) + ":" + std::to_string(swizzle);
  for (auto x : box) key += ":" + std::to_string(x);
  for (std::size_t i = 0; i < tensor_map_keys_.size(); ++i)
    if (tensor_map_keys_[i] == key) {
      for (std::size_t p = 0, seen = 0; p < kernel_.params.size(); ++p)
        if (kernel_.params[p].kind == abi::KernelParam::Kind::tensor_map && seen++ == i) return static_cast<int>(p);
    }
  const std::string name = "croq_tmap_" + std::to_string(tensor_map_keys_.size());
  tensor_map_keys_.push_back(key);
  abi::KernelParam kp;
  kp.kind = abi::KernelParam::Kind::tensor_map;
  kp.argument = argument;
  kp.scratch = scratch;
  const std::string tensor = scratch >= 0 ? kernel_.abi.scratch[static_cast<std::size_t>(scratch)].name
                             : returned   ? output_name_
                                          : fn_.params[static_cast<std::size_t>(b.argument)].name;
  kp.name = "tma.copy of '" + tensor + "' at " +
            std::to_string(where.line) + ":" + std::to_string(where.column);
  for (auto x : box) kp.box.push_back(static_cast<std::uint32_t>(x));
  kp.swizzle_bytes = swizzle;
  kernel_.abi.params.push_back(kp);
  kernel_.params.push_back(ir::Param{kp.kind, name, ir::Type::element(b.dtype), -1});
  return static_cast<int>(kernel_.params.size()) - 1;
}

// What TMA takes of a copy's tiles: boxes known on the host of 1 to 5 dims
// of 1..256 elements, rows of 16-byte multiples (or the swizzle span),
// tensors of 32-bit coordinates; `stored`: the shared tile a store reads.
void MemoryLowering::check_tma_box(const Stmt& s, const Copy& c, const View& global, const View* stored,
                            const std::vector<std::int64_t>& tile_shape, int span, bool zfill) {
  const DType dtype = buffer(global.buffer).dtype;
  for (std::size_t d = 0; d < global.extent.size(); ++d)
    if (global.extent[d] < 0)
      fail(c.source->location, "a TMA box must be known on the host; dimension " + std::to_string(d) +
                                   " is the dynamic dim `" + dim_name(global.buffer, d) + "`",
           "copy a constant tile, e.g. subspan(64, ...).at(...), or use dma.copy");
  // TMA coordinates are 32-bit signed (dynamic dims are checked at launch).
  for (std::size_t d = 0; d < global.extent.size(); ++d)
    if (dim_value(global.buffer, d) > kInt32Max)
      fail(c.source->location, "tma.copy addresses tiles with 32-bit coordinates, but dimension " + std::to_string(d) +
                                   " of the tensor has " + std::to_string(dim_value(global.buffer, d)) + " elements",
           "use dma.copy for tensors with a dimension of 2^31 elements or more");
  const std::vector<std::int64_t>& box = global.extent;
  if (stored && stored->extent != box && stored->extent != tile_shape)
    fail(c.destination->location, "tma.copy destination has shape " + shape_text(dtype, global.extent) +
                                      " but the source tile has " + shape_text(buffer(stored->buffer).dtype, stored->extent));
  if (box.empty() || box.size() > 5)
    unchecked(c.source->location, sema::Rule::tma_box_rank);
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(dtype));
  for (std::size_t d = 0; d < box.size(); ++d)
    if (box[d] < 1 || box[d] > 256)
      fail(c.source->location, "a TMA box extent must be 1..256; dimension " + std::to_string(d) + " is " +
                                   std::to_string(box[d]),
           box[d] > 256 ? "split the tile into several copies" : "");
  const std::int64_t row_bytes = box.back() * elem;
  if (span == 0 && row_bytes % 16 != 0)
    fail(c.source->location, "the innermost TMA box extent must be a multiple of 16 bytes; it is " +
                                 std::to_string(box.back()) + " x " + std::to_string(elem) + " = " +
                                 std::to_string(row_bytes) + " bytes");
  if (span > 0 && row_bytes != span)
    fail(c.source->location, "tma.copy.swiz<" + std::to_string(span) + "> needs tile rows of exactly " +
                                 std::to_string(span) + " bytes (" + std::to_string(span / elem) + " " +
                                 std::string(dtype_name(dtype)) + "), got " + std::to_string(row_bytes),
         "match the innermost tile extent to the swizzle span");
  if (zfill && global.exact && !stored) warn(s, "`.zfill` is redundant: the source tile always covers the destination");
}

// The TMA unit reads a store's box from consecutive shared-memory bytes: the
// tile is a dense block of its buffer (dims inside the first partial one
// whole, dims outside it of extent 1). A column slice of a wider tile is
// not; storing it would write the wrong elements.
void MemoryLowering::check_dense_store_tile(const Copy& c, const View& tile) {
  const ir::Buffer& b = buffer(tile.buffer);
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < tile.extent.size(); ++d) dims.push_back(dim_value(tile.buffer, d));
  bool partial_inside = false;  // a dim inside this one is partial
  for (std::size_t d = dims.size(); d-- > 0;) {
    if (partial_inside && tile.extent[d] != 1)
      fail(c.source->location,
           "tma.copy stores a dense block of shared memory, but `" + source_text(*c.source) + "` (" +
               shape_text(b.dtype, tile.extent) + ") is a strided part of a " + shape_text(b.dtype, dims) + " tile",
           "store whole rows of the shared tile (split it by rows), or give each part a shared tile of its own");
    partial_inside = partial_inside || tile.extent[d] != dims[d];
  }
}

// The event of a later trigger that completes a load, read at the load: its
// `e.at(order++)` updates `order` where the trigger stands, not here.
Value MemoryLowering::trigger_event_ahead(const Expr& target) {
  peeking_updates_ = true;
  try {
    Value ev = event_value(target, "`trigger`");
    peeking_updates_ = false;
    return ev;
  } catch (...) {
    peeking_updates_ = false;
    throw;
  }
}

void MemoryLowering::tma_copy(const Stmt& s, const Copy& c) {
  if (!kernel_.needs_sm90)
    kernel_.needs_sm90 = Diagnostic{Severity::error, "tma.copy needs sm_90 (Hopper); use dma.copy", c.op_location.line,
                                    c.op_location.column, std::max(1, c.op_location.length), ""};
  if (!target_.tma()) fail(c.op_location, kernel_.needs_sm90->message + " (compiling for " + target_.arch + ")");
  if (c.op != CopyOp::copy && c.op != CopyOp::load)
    unchecked(c.op_location, sema::Rule::unsupported_copy);
  if (!c.after.empty()) unchecked(s.location, sema::Rule::unsupported_after);
  if (!facts_.copies.count(&c)) unrecorded(c.op_location, "a copy");
  const sema::CopyProtocol& protocol = facts_.protocol(c);
  const bool swizzle_written = protocol.swizzle != nullptr, async = protocol.async;
  int span = swizzle_written ? swizzle_span(*protocol.swizzle) : 0;
  bool zfill = protocol.zfill;
  const Modifier* bound = protocol.bound;
  // In a thread-level parallel of one thread, that thread issues and awaits it.
  const bool single_thread = scope_ == Scope::thread && thread_instances_ == 1;
  if (sema::Verdict broken = scope_ == Scope::thread ? sema::tma_in_threads(single_thread) : std::nullopt)
    fail(s.location, *broken);
  if (scope_ != Scope::block && !single_thread)
    unchecked(s.location, sema::Rule::tma_scope);
  Value src = expr(*c.source);
  place_at_origin(src);
  zfill = zfill || src.zfill;
  if (src.kind == Value::Kind::future) src.kind = Value::Kind::view;
  if (src.kind != Value::Kind::view || src.view.pending != View::Pending::none)
    unchecked(c.source->location, sema::Rule::copy_source);
  const bool store = buffer(src.view.buffer).space == ir::Space::shared;
  if (store) ask_barrier_before_shared_read(src.view.buffer);
  View tile;    // the shared side
  View global;  // the global side
  if (store) {
    tile = src.view;
    check_dense_store_tile(c, tile);
    // A store without `.swiz` reads the tile in the layout it was written with.
    if (!swizzle_written && buffer(tile.buffer).swizzle > 0) span = buffer(tile.buffer).swizzle;
    if (!c.destination) unchecked(s.location, sema::Rule::tma_direction);
    Value d = expr(*c.destination);
    place_at_origin(d);
    if (d.kind != Value::Kind::view || buffer(d.view.buffer).space != ir::Space::global)
      unchecked(c.destination->location, sema::Rule::tma_direction);
    global = d.view;
    if (buffer(tile.buffer).dtype != buffer(global.buffer).dtype)
      unchecked(c.destination->location, sema::Rule::copy_element_type);
  } else {
    global = src.view;
    if (buffer(global.buffer).space != ir::Space::global)
      unchecked(c.source->location, sema::Rule::tma_direction);
  }
  // The shared tile's shape: the global tile's as the source names it.
  const std::vector<std::int64_t> tile_shape = global.extent;
  if (auto sq = squeezed_.find(global.buffer); sq != squeezed_.end()) {
    // A `.sqz()` view: the tile of the squeezed tensor with extent 1 in the
    // dropped leading dims, so the tensor's own map clips each head's rows.
    const std::size_t lead = sq->second.leading_origin.size();
    View full = global;
    full.buffer = sq->second.tensor;
    full.origin.insert(full.origin.begin(), sq->second.leading_origin.begin(), sq->second.leading_origin.end());
    full.extent.insert(full.extent.begin(), lead, 1);
    full.origin_multiple.clear();
    if (!full.limit.empty()) full.limit.insert(full.limit.begin(), lead, nullptr);
    global = std::move(full);
  }
  const DType dtype = buffer(global.buffer).dtype;
  // The box is the global tile. The shared tile has the box's shape, or a
  // `.sqz()` view's, without the dropped extent-1 dims (a head's rows of a
  // [B, H, S, D] tensor, box [1, 1, 64, 64], in a [64, 64] tile): the bytes
  // are laid out the same. (Sema refuses other ranks.)
  const std::vector<std::int64_t> box = global.extent;
  const auto fits_box = [&](const std::vector<std::int64_t>& shape) { return shape == box || shape == tile_shape; };
  check_tma_box(s, c, global, store ? &tile : nullptr, tile_shape, span, zfill);
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(dtype));

  // A future that swap statements exchange (or a placeholder's) fills a ring.
  const Name* future = protocol.future;
  if (c.future && !future) unchecked(c.future->location, sema::Rule::future_name);
  FutureRing* ring = future && !store ? ring_of(future->name) : nullptr;
  if (!store) {
    if (ring && c.destination_storage != Storage::shared)
      fail(s.location, "`" + future->name + "` is swapped: its copies go into `=> shared`");
    if (ring) {
      tile = ring_destination(future->name, dtype, tile_shape, s.location);
    } else if (c.destination_storage == Storage::shared) {
      tile = whole(allocate(c.future ? "future" : "tile", dtype, tile_shape, ir::Space::shared, s.location));
    } else if (c.destination) {
      Value d = expr(*c.destination);
      place_at_origin(d);
      if (d.kind != Value::Kind::view || buffer(d.view.buffer).space != ir::Space::shared)
        unchecked(c.destination->location, sema::Rule::tma_direction);
      tile = d.view;
      if (buffer(tile.buffer).slots > 0 && !tile.slot) fail_buffer_array(*c.destination);
      std::vector<std::int64_t> tile_dims;
      for (std::size_t i = 0; i < buffer(tile.buffer).dims.size(); ++i) tile_dims.push_back(dim_value(tile.buffer, i));
      bool whole_buffer = tile.extent == tile_dims;
      for (const auto& o : tile.origin) whole_buffer = whole_buffer && ir::is_zero(o);
      if (!whole_buffer || !fits_box(tile.extent))
        fail(c.destination->location, "tma.copy fills a whole shared buffer of the box's shape " + shape_text(dtype, box) +
                                          "; the destination is " + shape_text(buffer(tile.buffer).dtype, tile.extent));
    } else {
      unchecked(destination_storage_location(program_, s, c), sema::Rule::tma_direction);
    }
    ir::Buffer& tb = buffer(tile.buffer);
    if (tb.dtype != dtype)
      unchecked(c.destination->location, sema::Rule::copy_element_type);
    if (tb.swizzle >= 0 && tb.swizzle != span)
      unchecked(c.op_location, sema::Rule::swizzle_layout);
    tb.swizzle = span;
  } else if (buffer(tile.buffer).swizzle >= 0 && buffer(tile.buffer).swizzle != span) {
    unchecked(c.op_location, sema::Rule::swizzle_layout);
  }

  std::vector<std::int64_t> map_box = box;
  std::optional<ir::TmaLoad::Multicast> multicast;
  if (!store && protocol.multicast)
    multicast = cluster_load(tile, ring || candidate_load_events_.count(&s), single_thread, map_box, elem);
  const int map = tensor_map_param(global, map_box, span, c.op_location);
  std::vector<ExprRef> coords;  // innermost first
  for (std::size_t d = box.size(); d-- > 0;) {
    // 64-bit kernels saturate: a coordinate past 2^31 - 1 is past every
    // dimension (checked above), and TMA fills it with zeros instead of
    // reading the tile the truncated value would name.
    ExprRef origin = global.origin[d];
    if (!ir::is_zero(origin)) {
      const ExprRef limit = ir::convert(ir::int_const(kInt32Max), ir::Type::i64());
      origin = ir::by_index_width(origin, ir::select(ir::less(origin, limit), origin, limit));
    }
    coords.push_back(ir::convert(origin, ir::Type::i32()));
  }
  ExprRef leader = single_thread ? ir::int_const(1) : ir::binary("==", tid(), ir::int_const(0));
  if (store && !single_thread && !group_levels_.empty() &&
      (mentions_group_index(tile_of(tile)) || mentions_group_index(tile_of(global)))) {
    // Each group stores its own tile (`output_s[wg - 1]` in a region of
    // several warpgroups): the first thread of every group issues it.
    const ExprRef unit = ir::int_const(group_levels_.back().unit);
    leader = ir::binary("==", ir::binary("%", tid(), unit), ir::int_const(0));
  }
  if (store) return tma_store(s, TmaIssue{tile, global, map, coords, leader, single_thread});
  tma_load(s, TmaIssue{tile, global, map, coords, leader, single_thread, multicast, protocol.l2_eviction}, box, elem,
           bound, ring, future, async);
}

// Croqtile's `.multicast` puts the cluster's first block's tile into every
// block. One load for the cluster does that where the blocks cannot still be
// reading the tile it overwrites in a peer: a tile of stages that
// `trigger.cluster` frees, or a plain tile loaded by every thread of the
// block (a cluster barrier comes first, which they all must reach). Elsewhere (a ring, a pipelined load, part
// of the block) each block loads the tile itself, which is the same when
// the blocks name one tile (interpret mode checks that they do). Each
// block loads one slice of the rows when they divide into whole swizzle
// atoms and every block of the cluster runs.
std::optional<ir::TmaLoad::Multicast> MemoryLowering::cluster_load(const View& tile, bool ring_or_candidate,
                                                                   bool single_thread, std::vector<std::int64_t>& box,
                                                                   std::int64_t elem) {
  const std::int64_t c = kernel_.cluster_blocks;
  if (c < 2 || !kernel_.cluster_live) return std::nullopt;
  ir::TmaLoad::Multicast m;
  m.slices = 0;  // each block loads it
  const bool ordered =
      buffer(tile.buffer).slots > 0
          ? std::any_of(kernel_.events.begin(), kernel_.events.end(), [](const ir::Event& e) { return e.cluster_arrivals; })
          : scope_ == Scope::block && set_.threads == 0 && !in_warp_ && (group_levels_.empty() || block_one_warpgroup_);
  if (!ordered || ring_or_candidate || single_thread) return m;
  kernel_.cluster_shared_memory = true;
  m.slices = 1;
  m.rank = ir::binary("%", ir::special("blockIdx.x"), ir::int_const(c));
  m.mask = ir::binary("-", ir::binary("<<", ir::int_const(1), kernel_.cluster_live), ir::int_const(1));
  std::int64_t row = 1;
  for (std::size_t d = 1; d < box.size(); ++d) row *= box[d];
  const bool whole_clusters = kernel_.cluster_live->kind == ir::ExprKind::int_const;
  if (whole_clusters && box[0] % c == 0 && (box[0] / c * row * elem) % 1024 == 0) {
    m.slices = static_cast<int>(c);
    m.slice_rows = box[0] / c;
    box[0] = m.slice_rows;
  } else {
    m.slice_rows = box[0];
  }
  m.slice_elements = m.slice_rows * row;
  return m;
}

// A store from shared memory: after the tile's writers (WGMMA, every thread),
// committed; waited for here or, for a tile only mma.store writes, before
// its next write.
void MemoryLowering::tma_store(const Stmt& s, const TmaIssue& t) {
  const View& tile = t.tile;
  const View& global = t.global;
  const bool single_thread = t.single_thread;
  emit_node(ir::MmaCommit{});  // WGMMA may still write the tile
  line_mark(s.location);
  emit_node(ir::FenceProxyAsync{});
  // Each warpgroup's own tile: its own barrier before its leader stores.
  const bool per_warpgroup = !single_thread && (per_warpgroup_tile(tile) || per_warpgroup_tile(global));
  const int root = buffer(tile.buffer).alias_of >= 0 ? buffer(tile.buffer).alias_of : tile.buffer;
  const bool overlapped = !single_thread && overlapped_store_tiles_.count(root);
  if (!single_thread) emit_unit_barrier(s.location, per_warpgroup);
  ir::TmaStore st{t.map, tile_address(tile), t.coords, t.leader};
  st.wait = !overlapped;
  emit_node(std::move(st), s.location);
  if (overlapped) committed_stores_ = true;
  else if (!single_thread) emit_unit_barrier(s.location, per_warpgroup);
  mark_written(global.buffer);
}

// A load into shared memory, completing on an event of the program, a
// ring's or a private barrier (a pipelining candidate's: reserved with its mark).
void MemoryLowering::tma_load(const Stmt& s, const TmaIssue& t, const std::vector<std::int64_t>& box, std::int64_t elem,
                       const Modifier* bound, FutureRing* ring, const Name* future, bool async) {
  const View& tile = t.tile;
  const bool single_thread = t.single_thread;
  // A plain tile (no ring, no array of stages, whose reuse events order)
  // may still be read by this warpgroup's multiply of the previous step.
  if (!ring && buffer(tile.buffer).slots == 0) complete_shared_readers(tile.buffer);
  if (t.multicast && t.multicast->slices > 0 && buffer(tile.buffer).slots == 0) {
    // The peers are done with the tile this load overwrites in them.
    ir::Barrier peers;
    peers.scope = ir::Barrier::Scope::cluster;
    emit_node(std::move(peers), s.location);
  }
  line_mark(s.location);
  auto product = support::checked_product(box);
  const std::int64_t bytes = *product * elem;  // box extents are at most 256 in at most 5 dims
  // Which barrier completes the copy.
  const Trigger* completing = facts_.completing_trigger(std::get<Copy>(s.node));
  Value ev;
  std::string after_event;  // bound by a later `trigger e after` this future
  if (bound && ring) fail(bound->location, "a swapped future completes on its own barrier; drop `<...>` and `wait` for it");
  if (bound && single_thread)
    fail(bound->location, "`.async<e>` in a thread-level parallel is not supported yet by libcroqjit",
         "name the future and `wait` for it");
  if (bound) {
    if (bound->template_args.size() != 1) unchecked(bound->location, sema::Rule::async_event);
    ev = event_value(*bound->template_args[0], "`.async<...>`");
  } else if (ring) {
    ring_event(*ring, ev, future->name);
  } else if (const Trigger* after = async && future ? completing : nullptr) {
    // `trigger e after f, ...` later in this block: the copy completes on e
    // (its bytes expected there), and the trigger's arrivals finish e's phase.
    if (single_thread)
      fail(s.location, "a copy that `trigger ... after` waits for runs at block or warpgroup scope, not in a thread level");
    if (after->targets.size() != 1) fail(s.location, "`trigger ... after` this copy names one event");
    ev = trigger_event_ahead(*after->targets[0]);
    after_event = source_text(*after->targets[0]);
  } else if (!async && completing && !single_thread) {
    // `trigger e;` closes the run of synchronous loads this one is in: they
    // complete on e, and the trigger's arrivals finish its phase.
    ev = trigger_event_ahead(*completing->targets[0]);
  }
  ir::TmaLoad load;
  load.map = t.map;
  load.destination = tile_address(tile);
  load.coords = t.coords;
  load.bytes = bytes;
  load.leader = t.leader;
  load.multicast = t.multicast;
  load.l2_eviction = t.l2_eviction;
  if (ev.event >= 0 && !ring) {
    load.event = ev.event;
    load.event_index = ev.event_index;
    emit_node(std::move(load), s.location);
  } else {
    // A private barrier (a ring's: its slot's): one arrival (the issuing
    // thread's), plus the bytes.
    if (const auto candidate = candidate_load_events_.find(&s); !ring && candidate != candidate_load_events_.end()) {
      // A pipelining candidate's load: its private event was reserved with the loop's mark.
      ev.event = candidate->second;
      ev.event_index = ir::int_const(0);
    } else if (!ring) {
      ir::Event priv;
      priv.source_name = "tma.copy";
      priv.name = fresh("tma_bar");
      priv.phase = priv.name + "_phase";
      priv.is_private = true;
      kernel_.events.push_back(priv);
      ev.event = static_cast<int>(kernel_.events.size()) - 1;
      ev.event_index = ir::int_const(0);
    }
    load.event = ev.event;
    load.event_index = ev.event_index;
    load.arrive = true;
    emit_node(std::move(load), s.location);
    if (!async) emit_node(ir::WaitEvent{ev.event, ev.event_index, nullptr}, s.location);
  }
  if (future) {
    Value f;
    f.kind = Value::Kind::future;
    f.view = tile;
    f.is_async = async && !bound && after_event.empty();
    if (f.is_async) {
      f.event = ev.event;
      f.event_index = ev.event_index;
    }
    if (bound) f.bound_event = source_text(*bound->template_args[0]);
    if (!after_event.empty()) f.bound_event = after_event;
    define_future(future->name, f);
  }
}

}  // namespace croq::lower::detail
