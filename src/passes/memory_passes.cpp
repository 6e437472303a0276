// Event arrivals, copy vectorization, barrier clean-up and the shared-memory
// layout (see passes.hpp).
#include <optional>
#include <utility>

#include "ir/builder.hpp"
#include "ir/walk.hpp"
#include "passes/passes.hpp"
#include "support/checked_int.hpp"

namespace croq::passes {

namespace {

std::int64_t origin_multiple(const ir::Tile& t, std::size_t d) {
  return d < t.origin_multiple.size() ? t.origin_multiple[d] : 1;
}

// The widest vector (in elements) that moves whole rows of the copy with
// naturally aligned accesses on both sides, or 1 for the scalar path. A row
// starts at a multiple of the vector when the innermost origin and every
// outer stride (multiples of the innermost buffer extent) are multiples of
// it and both base pointers are aligned to its size. Guarded windows,
// zero-filled, padded or permuted copies and local arrays aligned to their
// element only take the scalar path.
std::int64_t vector_width(const ir::Kernel& kernel, const ir::CopyTiles& c) {
  if (c.pad) return 1;
  for (std::size_t d = 0; d < c.perm.size(); ++d)
    if (c.perm[d] != static_cast<std::int64_t>(d)) return 1;
  const ir::Tile& src = c.src;
  const ir::Tile& dst = c.dst;
  if (!src.exact || !dst.exact || src.extent != dst.extent || dst.extent.empty()) return 1;
  for (const auto* side : {&src, &dst})
    for (const ir::ExprRef& limit : side->limit)
      if (limit) return 1;  // runtime extents are guarded
  for (const auto* side : {&src, &dst})  // a strided view's rows are not contiguous
    if (!kernel.buffers[static_cast<std::size_t>(side->buffer)].strides.empty()) return 1;
  const ir::Buffer& db = kernel.buffers[static_cast<std::size_t>(dst.buffer)];
  // Local arrays are aligned to their element (lowering) unless declared
  // wider (the element-wise pass's register vectors): the alignment decides.
  const std::size_t last = dst.extent.size() - 1;
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(db.dtype));
  const std::int64_t row = dst.extent[last];
  std::int64_t with_tail = 1;
  for (std::int64_t bytes : {16, 8, 4}) {
    std::int64_t v = bytes / elem;
    if (v < 2 || row < v) continue;
    bool aligned = true;
    for (const auto* side : {&src, &dst}) {
      const ir::Buffer& b = kernel.buffers[static_cast<std::size_t>(side->buffer)];
      std::int64_t inner = b.dims[last].value;  // -1 (dynamic): never a known multiple
      if (b.align_bytes < bytes || origin_multiple(*side, last) % v != 0 || (last > 0 && (inner < 0 || inner % v != 0)))
        aligned = false;
    }
    if (!aligned) continue;
    if (row % v == 0) return v;
    if (with_tail == 1) with_tail = v;  // whole vectors, then a scalar tail per row
  }
  return with_tail;
}

// Whether `s` prints nothing at all (so barriers around it are adjacent).
bool prints_nothing(const ir::Stmt& s) {
  if (std::holds_alternative<ir::LineMark>(s.node)) return true;
  if (const auto* seq = std::get_if<ir::Seq>(&s.node)) return !seq->braces && seq->body.empty();
  return false;
}

bool is_block_barrier(const ir::Stmt& s) {
  const auto* b = std::get_if<ir::Barrier>(&s.node);
  return b && b->set.threads == 0 && b->scope == ir::Barrier::Scope::set;
}

void dedupe_barriers(ir::StmtList& list) {
  bool last_was_barrier = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    ir::Stmt& s = *list[i];
    if (prints_nothing(s)) continue;
    if (is_block_barrier(s)) {
      if (last_was_barrier) {
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i--));
        continue;
      }
      last_was_barrier = true;
      continue;
    }
    last_was_barrier = false;
    if (auto* seq = std::get_if<ir::Seq>(&s.node)) dedupe_barriers(seq->body);
    for (ir::StmtPtr* b : ir::nested_bodies(s)) dedupe_barriers(std::get<ir::Seq>((*b)->node).body);
  }
}

std::int64_t align_up(std::int64_t value, std::int64_t align, const ir::Kernel& kernel) {
  auto r = support::checked_add(value, align - 1);
  if (!r.ok()) ir::fail(kernel.where, "`" + kernel.function + "` needs more shared memory than a 64-bit size holds");
  return r.value / align * align;
}

}  // namespace

void count_event_arrivals(ir::Kernel& kernel) {
  ir::for_each<ir::Arrive>(*kernel.body, [&](ir::Arrive& a, ir::Stmt&) {
    ir::Event& e = kernel.events[static_cast<std::size_t>(a.event)];
    const bool whole_block = a.set.threads == 0;
    const std::int64_t arrivals = whole_block ? 0 : a.per_warp ? a.set.threads / 32 : a.set.threads;
    if (e.arrivals == 0 && !e.arrivals_whole_block) {
      e.arrivals = arrivals;
      e.arrivals_whole_block = whole_block;
      e.first_trigger = a.where;
    } else if (e.arrivals != arrivals || e.arrivals_whole_block != whole_block) {
      ir::fail(a.where, "event `" + e.source_name + "` is triggered by a different set of threads here than at " +
                            std::to_string(e.first_trigger.line) + ":" + std::to_string(e.first_trigger.column),
               "trigger an event from one kind of thread group (one warpgroup region, or the whole block)");
    }
  });
  for (ir::Event& e : kernel.events)
    if (e.is_private) e.arrivals = 1;
  // Every barrier is initialized once per block, before any use.
  ir::for_each<ir::BarrierPrologue>(*kernel.body, [&](ir::BarrierPrologue& p, ir::Stmt&) {
    p.init.clear();
    p.private_events.clear();
    for (std::size_t i = 0; i < kernel.events.size(); ++i) {
      p.init.push_back(static_cast<int>(i));
      if (kernel.events[i].is_private) p.private_events.push_back(static_cast<int>(i));
    }
  });
}

// For a copy whose window may reach past its buffers (a tail: the last
// blocks, the last rows), the condition that it lies inside both, when that
// copy would move vectors were it exact: whole rows of static dims only.
// Nothing when there is none to test; a null condition when the window is
// always inside (constant origins).
std::optional<ir::ExprRef> inside_for_vectors(const ir::Kernel& kernel, const ir::CopyTiles& c) {
  if (c.src.exact && c.dst.exact) return std::nullopt;
  ir::CopyTiles whole = c;
  whole.src.exact = whole.dst.exact = true;
  if (vector_width(kernel, whole) < 2) return std::nullopt;
  ir::ExprRef inside;
  for (const ir::Tile* side : {&c.src, &c.dst}) {
    if (side->exact) continue;
    const ir::Buffer& b = kernel.buffers[static_cast<std::size_t>(side->buffer)];
    if (side->origin.size() != side->extent.size() || b.dims.size() != side->extent.size()) return std::nullopt;
    for (std::size_t d = 0; d < side->extent.size(); ++d) {
      if (b.dims[d].is_dynamic()) return std::nullopt;
      const std::int64_t last_origin = b.dims[d].value - side->extent[d];  // the largest origin inside
      if (last_origin < 0 || !side->origin[d]) return std::nullopt;         // never inside
      std::int64_t origin = 0;
      if (ir::is_const(side->origin[d], &origin)) {
        if (origin > last_origin) return std::nullopt;  // this window is the tail
        continue;  // this dim is inside
      }
      inside = ir::all_of(inside, ir::less(side->origin[d], ir::int_const(last_origin + 1, side->origin[d]->type)));
    }
  }
  return inside;
}

void vectorize_copies(ir::Kernel& kernel) {
  // A tail's copies move element by element with guards; the others, in
  // vectors: `if (inside) {vector copy} else {guarded copy}` (so that a row
  // count that is no multiple of a block's rows does not cost every block
  // its vectors).
  std::vector<std::pair<ir::Stmt*, ir::ExprRef>> split;
  ir::for_each<ir::CopyTiles>(*kernel.body, [&](ir::CopyTiles& c, ir::Stmt& s) {
    c.vector = vector_width(kernel, c);
    if (c.vector > 1) return;
    const std::optional<ir::ExprRef> inside = inside_for_vectors(kernel, c);
    if (!inside) return;
    if (*inside) {
      split.emplace_back(&s, *inside);
      return;
    }
    c.src.exact = c.dst.exact = true;  // constant origins, inside
    c.vector = vector_width(kernel, c);
  });
  for (const auto& [s, inside] : split) {
    ir::CopyTiles guarded = std::get<ir::CopyTiles>(s->node);
    ir::CopyTiles whole = guarded;
    whole.src.exact = whole.dst.exact = true;
    whole.vector = vector_width(kernel, whole);
    ir::StmtList then_body, else_body;
    then_body.push_back(ir::make_stmt(std::move(whole), s->where));
    else_body.push_back(ir::make_stmt(std::move(guarded), s->where));
    s->node = ir::If{inside, ir::make_stmt(ir::Seq{std::move(then_body), true}),
                     ir::make_stmt(ir::Seq{std::move(else_body), true})};
    s->where = {};
  }
}

void remove_redundant_barriers(ir::Kernel& kernel) { dedupe_barriers(std::get<ir::Seq>(kernel.body->node).body); }

void lay_out_shared_memory(ir::Kernel& kernel, std::int64_t max_shared_bytes) {
  // 128-byte aligned tiles (16-byte vectors); Hopper kernels align them to
  // 1024 bytes, the period of the 128B swizzle that TMA and WGMMA use.
  const std::int64_t align = kernel.hopper ? 1024 : 128;
  std::int64_t bytes = 0;
  auto too_large = [&] {
    ir::fail(kernel.where, "`" + kernel.function + "` needs more shared memory than a 64-bit size holds");
  };
  ir::for_each_stmt(*kernel.body, [&](ir::Stmt& s) {
    if (auto* a = std::get_if<ir::AllocShared>(&s.node)) {
      ir::Buffer& b = kernel.buffers[static_cast<std::size_t>(a->buffer)];
      std::vector<std::int64_t> dims;
      for (const auto& d : b.dims) dims.push_back(d.value);
      auto count = support::checked_product(dims);
      const auto elem = static_cast<std::int64_t>(dtype_size(b.dtype));
      auto size = count ? support::checked_mul(*count, elem) : support::CheckedInt{0, support::ArithmeticFault::overflow};
      if (!size.ok()) too_large();
      const std::int64_t offset = align_up(bytes, align, kernel);
      std::int64_t total = size.value;
      if (b.slots > 0) {
        const std::int64_t slot_bytes = align_up(size.value, align, kernel);
        b.slot_elems = slot_bytes / elem;
        auto ring = support::checked_mul(slot_bytes, b.slots);
        if (!ring.ok()) too_large();
        total = ring.value;
      }
      b.smem_offset = offset;
      auto end = support::checked_add(offset, total);
      if (!end.ok()) too_large();
      // Past this no device holds the tiles: refused at the one that passes it.
      constexpr std::int64_t kUnreachableBytes = std::int64_t{1} << 40;
      if (end.value > kUnreachableBytes)
        ir::fail(s.where, "`" + kernel.function + "` needs more than " + std::to_string(kUnreachableBytes) +
                              " bytes of shared memory per block; the device allows " + std::to_string(max_shared_bytes));
      // The tile that passes the limit is where the error is.
      if (end.value > max_shared_bytes)
        ir::fail(s.where, "this shared tile (" + std::to_string(total) + " bytes) brings the shared memory of `" +
                              kernel.function + "` to " + std::to_string(end.value) +
                              " bytes per block for this specialization; the device allows " +
                              std::to_string(max_shared_bytes),
                 "use smaller tiles");
      bytes = end.value;
    } else if (auto* d = std::get_if<ir::DeclareEvent>(&s.node)) {
      ir::Event& e = kernel.events[static_cast<std::size_t>(d->event)];
      e.smem_offset = align_up(bytes, 8, kernel);
      bytes = e.smem_offset + 8 * e.count;
    }
  });
  for (ir::Event& e : kernel.events)
    if (e.is_private) {  // one barrier, or one per slot of a ring of futures
      e.smem_offset = align_up(bytes, 8, kernel);
      bytes = e.smem_offset + 8 * e.count;
    }
  for (std::size_t i = 0; i < kernel.buffers.size(); ++i) {  // views share their buffer's storage
    ir::Buffer& b = kernel.buffers[i];
    if (b.alias_of >= 0 && b.space == ir::Space::shared) {
      const ir::Buffer& root = kernel.buffers[static_cast<std::size_t>(b.alias_of)];
      b.smem_offset = root.smem_offset;
      b.slot_elems = root.slot_elems;
      b.slots = root.slots;
    }
  }
  // Hopper kernels align the dynamic shared memory base to 1024 bytes at run
  // time (TMA's 128B swizzle needs it), which may cost up to 1024 bytes.
  if (kernel.hopper && bytes > 0) bytes += 1024;
  kernel.shared_bytes = bytes;
  if (bytes > max_shared_bytes)
    ir::fail(kernel.where, "`" + kernel.function + "` needs " + std::to_string(bytes) +
                               " bytes of shared memory per block for this specialization; the device allows " +
                               std::to_string(max_shared_bytes),
             "use smaller tiles");
}

}  // namespace croq::passes
