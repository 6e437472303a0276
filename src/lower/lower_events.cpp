// Lowering of events (mbarriers), wait and trigger, arrays of buffers and
// events, and warp specialization (inthreads.async).
//
// Rules we implement (docs/guide/targets.md):
//   * `shared event e[N]` is N mbarriers. `trigger e[i]` is an arrival by
//     every warp of the threads running it (one arrival per thread when the
//     set is not whole warps); the barrier's count is fixed by the trigger
//     sites, which must agree (the event-arrivals pass). `wait e[i]` spins on
//     the phase each thread expects and then flips it, so a ring of stages
//     needs no phase arithmetic in the source. `= ready` starts every
//     barrier as if it had completed once (the first wait passes).
//   * inthreads.async (cond) runs its body on the warpgroups of the enclosing
//     `parallel p by N : group-4` that satisfy cond (a contiguous range);
//     barriers inside use a named barrier of those threads only.
#include "frontend/ast_walk.hpp"
#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

bool contains_mma(const Stmt& s) {
  return any_statement(s, [](const Stmt& st) { return std::holds_alternative<Mma>(st.node); });
}

}  // namespace

namespace {

// The tensor an expression views: `out_s` in `out_s.subspan(64, BN).at(p, 0)`.
const Name* root_name(const Expr& e) {
  if (const auto* n = std::get_if<Name>(&e.node)) return n;
  if (const auto* m = std::get_if<Member>(&e.node)) return m->object ? root_name(*m->object) : nullptr;
  if (const auto* x = std::get_if<Subscript>(&e.node)) return x->object ? root_name(*x->object) : nullptr;
  return nullptr;
}

}  // namespace

// Shared tiles that TMA stores read and that only mma.store writes: their
// stores are committed without a wait, and the wait for the copy engine's
// read moves to the tile's next mma.store (a tile loop's next pass), so the
// threads compute the next tile while the last one drains to global memory.
void MemoryLowering::find_overlapped_store_tiles(const Stmt& body) {
  std::set<std::string> stored, written;
  walk_statements(body, [&](const Stmt& st) {
    if (const auto* c = std::get_if<Copy>(&st.node)) {
      if (c->engine == Engine::tma && c->source && c->destination)
        if (const Name* n = root_name(*c->source)) stored.insert(n->name);
      if (c->destination)
        if (const Name* n = root_name(*c->destination)) written.insert(n->name);
    } else if (const auto* a = std::get_if<Assignment>(&st.node)) {
      if (const Name* n = a->target ? root_name(*a->target) : nullptr) written.insert(n->name);
    } else if (std::holds_alternative<Asm>(st.node)) {
      stored.clear();  // assembly may write any tile
    }
  });
  for (const std::string& name : stored)
    if (!written.count(name)) overlapped_store_names_.insert(name);
}

void MemoryLowering::wait_before_tile_write(const View& v, const SourceLocation& where) {
  const int id = v.buffer;
  const ir::Buffer& b = buffer(id);
  if (!overlapped_store_tiles_.count(b.alias_of >= 0 ? b.alias_of : id)) return;
  // Every thread waits for its own committed stores (only the leader has
  // any); the barrier holds the others until the leader's have read the tile.
  emit_node(ir::BulkStoreWait{true});
  emit_unit_barrier(where, per_warpgroup_tile(v));
}

ir::StmtPtr MemoryLowering::shared_readers_completion(int id) const {
  // A multiply of this warpgroup may still read the tile (a plain mma
  // completes by the end of its statement as far as the program can tell).
  const ir::Buffer& b = buffer(id);
  return ir::make_stmt(ir::MmaCommit{{}, {b.alias_of >= 0 ? b.alias_of : id}});
}

void MemoryLowering::complete_shared_readers(int id) { emit(shared_readers_completion(id)); }


// sync.shared and sync.barrier : block wait for the threads running the
// statement (the block, or an inthreads.async set); in a cooperative launch
// sync.barrier : block (or : device) waits for the grid; : group for the warp;
// : thread for the warp's lanes that are here. sync.fence orders memory for
// the block (thread, group, group-4) or the device (block, device).
void MemoryLowering::sync_statement(const Stmt& s, const Sync& y) {
  // At function scope: the host side of a launch, which stream order covers.
  if (is_global_sync(s) && scope_ == Scope::kernel) return;
  ir::Barrier b;
  b.set = set_;
  if (y.scope == "fence") {
    const bool device = y.level == SpaceSpecifier::block || y.level == SpaceSpecifier::device;
    if (!device && y.level != SpaceSpecifier::thread && y.level != SpaceSpecifier::group &&
        y.level != SpaceSpecifier::group4)
      unchecked(s.location, "a `sync.fence` of another level");
    emit_node(ir::Fence{device}, s.location);
    return;
  }
  if (y.scope == "barrier" && in_cooperative_ &&
      (y.level == SpaceSpecifier::block || y.level == SpaceSpecifier::device)) {
    if (scope_ != Scope::block || set_.threads != 0) unchecked(s.location, "a grid barrier below the block's scope");
    b.scope = ir::Barrier::Scope::grid;
    b.counter = grid_barrier_;
  } else if (y.scope == "barrier" && y.level == SpaceSpecifier::group) b.scope = ir::Barrier::Scope::warp;
  else if (y.scope == "barrier" && y.level == SpaceSpecifier::thread) b.scope = ir::Barrier::Scope::lanes;
  else if (y.scope != "shared" && !(y.scope == "barrier" && y.level == SpaceSpecifier::block))
    unchecked(s.location, "a `sync` of another kind");
  emit_node(std::move(b), s.location);
}

// `.swiz<N>`: 0..3 name the hardware modes (none, 32B, 64B, 128B); 32, 64
// and 128 are the byte spans themselves.
void MemoryLowering::event_declaration(const Stmt& s, const Declaration& d) {
  if (d.type.storage == Storage::global) {  // sema's rule: at function scope
    if (scope_ != Scope::kernel) unchecked(s.location, "a global event declared inside a parallel statement");
    for (const Declarator& decl : d.declarators) {
      if (!facts_.declared_events.count(&decl)) unrecorded(decl.location, "an event declaration");
      counted_event_declaration(decl, facts_.event(decl), false);
    }
    return;
  }
  if (d.type.storage == Storage::local) {  // sema's rule: inside a parallel statement
    if (scope_ == Scope::kernel) unchecked(s.location, "a local event declared outside parallel statements");
    for (const Declarator& decl : d.declarators) {
      if (!facts_.declared_events.count(&decl)) unrecorded(decl.location, "an event declaration");
      counted_event_declaration(decl, facts_.event(decl), true);
    }
    return;
  }
  // Sema's rules: an sm_80 target, shared storage, in the block level or a thread level of it.
  if (!target_.mbarrier() || d.type.storage != Storage::shared || set_.threads != 0 ||
      (scope_ != Scope::block && !(scope_ == Scope::thread && thread_level_.threads > 0)))
    unchecked(s.location, "an event declared where events cannot live");
  for (const Declarator& decl : d.declarators) {
    if (!facts_.declared_events.count(&decl)) unrecorded(decl.location, "an event declaration");
    const sema::EventArray& declared = facts_.event(decl);  // its count when a constant, `= ready`
    ir::Event ev;
    ev.source_name = decl.name;
    std::vector<std::int64_t> inner;
    ev.count = event_array_count(decl, declared, inner);
    if (decl.init != Declarator::Init::none && !declared.ready) unrecorded(decl.location, "an event's initial value");
    ev.ready = declared.ready;
    // `trigger.cluster`: the cluster's blocks arrive on each other's barriers.
    ev.cluster_arrivals = declared.scope == sema::EventArray::Scope::cluster && kernel_.cluster_blocks > 1;
    if (ev.cluster_arrivals) kernel_.cluster_shared_memory = true;
    ev.name = fresh(decl.name);
    ev.phase = ev.name + "_phase";
    kernel_.events.push_back(ev);
    const int id = static_cast<int>(kernel_.events.size()) - 1;
    emit_node(ir::DeclareEvent{id}, s.location);
    Value v;
    v.kind = Value::Kind::event;
    v.event = id;
    v.event_inner = std::move(inner);
    define(decl.name, v);
  }
}

// `global event e[N]`: N counts in a program buffer (zeroed for each call,
// shared by the program's kernels), each trigger adding one; every thread
// counts the generations it has waited for in a local array, which starts
// at 0 in each kernel. `local event e[N]`: the N counts are a local array
// too, each thread's own, zeroed where it is declared.
void MemoryLowering::counted_event_declaration(const Declarator& decl, const sema::EventArray& declared, bool local) {
  CountedEvent g;
  g.local = local;
  g.name = decl.name;
  std::vector<std::int64_t> inner;
  g.count = event_array_count(decl, declared, inner);
  g.ready = declared.ready;
  if (local) {
    g.counter = allocate(decl.name + "_count", DType::s32, {g.count}, ir::Space::local, decl.location);
  } else {
    g.counter = scratch_buffer(decl.name, DType::s32, {g.count}, decl.location);
    mark_updated(g.counter);  // the counts start at zero
  }
  g.seen = allocate(decl.name + "_seen", DType::s32, {g.count}, ir::Space::local, decl.location);
  const std::string i = fresh("i");
  ir::StmtList zero;
  zero.push_back(ir::make_stmt(ir::Assign{ir::element(g.seen, DType::s32, nullptr, {ir::var(i)}), "=", ir::int_const(0), nullptr}));
  if (local)
    zero.push_back(ir::make_stmt(ir::Assign{ir::element(g.counter, DType::s32, nullptr, {ir::var(i)}), "=", ir::int_const(0), nullptr}));
  emit_node(ir::For{i, ir::Type::i32(), ir::int_const(0), ir::int_const(g.count), nullptr,
                    ir::make_stmt(ir::Seq{std::move(zero), false}), false, std::nullopt});
  counted_events_.push_back(g);
  Value v;
  v.kind = Value::Kind::event;
  v.counted_event = true;
  v.event = static_cast<int>(counted_events_.size()) - 1;
  v.event_inner = std::move(inner);
  define(decl.name, v);
}

std::int64_t MemoryLowering::event_array_count(const Declarator& decl, const sema::EventArray& declared,
                                               std::vector<std::int64_t>& inner) {
  const std::int64_t first = declared.count ? *declared.count : const_int(*declared.count_expr, sema::what::event_count);
  if (sema::Verdict broken = sema::event_count(first)) fail(first < 1 ? decl.array_size->location : decl.location, *broken);
  std::int64_t count = first;
  for (const ExprPtr& size : decl.more_array_dims) {
    inner.push_back(const_int(*size, sema::what::event_count));
    if (sema::Verdict broken = inner.back() < 1 ? sema::event_count(inner.back()) : std::nullopt) fail(size->location, *broken);
    count = sema::event_product(count, inner.back());
  }
  if (sema::Verdict broken = inner.empty() ? std::nullopt : sema::event_count(count)) fail(decl.location, *broken);
  return count;
}

// Every thread of the set has done what it publishes (a barrier of the set);
// then one of them makes its block's writes visible to the device and adds
// one to the count: one generation per trigger of a set of threads.
void MemoryLowering::trigger_counted(const Value& ev, const SourceLocation& where) {
  const CountedEvent& g = counted_events_[static_cast<std::size_t>(ev.event)];
  if (g.local) {  // the thread's own count: nothing to publish
    emit_node(ir::Assign{ir::element(g.counter, DType::s32, nullptr, {ev.event_index}), "+=", ir::int_const(1), nullptr}, where);
    return;
  }
  ir::Barrier all;
  all.set = set_;
  emit_node(std::move(all), where);
  ir::StmtList leader;
  leader.push_back(ir::make_stmt(ir::Fence{true}));
  leader.push_back(ir::make_stmt(
      ir::Eval{ir::atomic("add", ir::element(g.counter, DType::s32, nullptr, {ev.event_index}), {ir::int_const(1)})}));
  emit_node(ir::If{ir::binary("==", set_.tid, ir::int_const(0)), ir::make_stmt(ir::Seq{std::move(leader), false}), nullptr},
            where);
}

// Each thread waits for the generation after the last it waited for (or,
// for `e.at(order)`, generation order / N): until the count is above it.
// `= ready` counts generation 0 as passed.
void MemoryLowering::wait_counted(const Value& ev, const SourceLocation& where) {
  const CountedEvent& g = counted_events_[static_cast<std::size_t>(ev.event)];
  const ExprRef seen = ir::element(g.seen, DType::s32, nullptr, {ev.event_index});
  ExprRef generation = ev.event_generation ? ev.event_generation : seen;
  if (g.ready) generation = ir::binary("-", generation, ir::int_const(1));
  const ExprRef counter = ir::element(g.counter, DType::s32, nullptr, {ev.event_index});
  // Only the thread's own triggers add to a local event: a wait for a
  // generation they have not reached would spin forever, so it stops the
  // kernel instead (an assertion at the wait).
  if (g.local) emit_node(ir::Trap{ir::less(generation, counter)}, where);
  else emit_node(ir::WaitCounter{counter, generation, g.name}, where);
  if (!ev.event_generation) emit_node(ir::Assign{seen, "+=", ir::int_const(1), nullptr}, where);
}

void MemoryLowering::arrive(const Value& ev, const SourceLocation& where) {
  // One arrival per warp when the running threads are whole warps.
  ir::Arrive a;
  a.event = ev.event;
  a.index = ev.event_index;
  a.set = trigger_set_ ? *trigger_set_ : set_;
  a.per_warp = a.set.threads > 0 && a.set.threads % 32 == 0;
  a.cluster = kernel_.events[static_cast<std::size_t>(ev.event)].cluster_arrivals;
  a.where = pos(where);
  emit_node(std::move(a), where);
}

// The groups `condition` selects: evaluated for each value of the level's
// index, with the names bound from it (sema's region_bindings) bound again.
std::optional<std::vector<std::int64_t>> MemoryLowering::selected_groups(const Expr& condition, const GroupLevel& level,
                                                                  bool probe, const RegionBindings* bindings,
                                                                  const std::string* thread_index) {
  std::vector<std::int64_t> chosen;
  const std::int64_t per_value = thread_index ? level.unit : 1;
  for (std::int64_t v = 0; v < level.count * per_value; ++v) {
    push();
    define(level.index, scalar_const(v / per_value));
    if (thread_index) define(*thread_index, scalar_const(v % per_value));
    Value c;
    try {
      if (bindings)
        for (const auto& [name, value] : *bindings) define(name, expr(*value));
      c = expr(condition);
    } catch (const CompileError&) {
      pop();
      if (probe) return std::nullopt;  // e.g. `n / p` at p = 0: not a selection of groups
      throw;
    }
    pop();
    if (!c.constant) return std::nullopt;
    if (*c.constant) chosen.push_back(v);
  }
  return chosen;
}

std::optional<ir::ThreadSet> MemoryLowering::inthreads_trigger_set(const Expr& condition) {
  if (group_levels_.empty()) return std::nullopt;
  const GroupLevel level = group_levels_.back();
  const auto selected = selected_groups(condition, level, true);
  if (!selected || selected->empty()) return std::nullopt;
  const std::vector<std::int64_t>& chosen = *selected;
  if (chosen.back() - chosen.front() + 1 != static_cast<std::int64_t>(chosen.size())) return std::nullopt;
  ir::ThreadSet narrowed;
  narrowed.first = chosen.front() * level.unit;
  narrowed.threads = static_cast<std::int64_t>(chosen.size()) * level.unit;
  // Only groups the running threads include (an inthreads.async region's).
  if (set_.threads > 0 && (narrowed.first < set_.first || narrowed.first + narrowed.threads > set_.first + set_.threads))
    return std::nullopt;
  narrowed.count = ir::int_const(narrowed.threads);
  narrowed.tid = narrowed.first == 0 ? ir::special("threadIdx.x")
                                     : ir::binary("-", ir::special("threadIdx.x"), ir::int_const(narrowed.first));
  narrowed.barrier_id = set_.barrier_id;
  return narrowed;
}

bool MemoryLowering::lifts_to_group(const Stmt& body) const {
  for (const std::string& index : span_thread_indices_)
    if (frontend::statement_mentions(program_, body.location, index)) return false;
  return true;
}

void MemoryLowering::trigger_statement(const Stmt& s, const Trigger& t) {
  // `trigger e after f`: f (an async TMA copy of this block) was bound to e
  // when it was issued; the trigger arrives as any other.
  for (const auto& f : t.after) {
    Value v = expr(*f);
    if (v.kind != Value::Kind::future || v.bound_event.empty())
      unchecked(f->location, "`trigger ... after` of what is no bound future");
  }
  line_mark(s.location);
  // `... trigger empty[s];` closing a loop body may release its stage one
  // iteration late while WGMMA still reads it (the mma-completion pass).
  std::vector<std::pair<Value, const Expr*>> events;
  for (const auto& target : t.targets)
    for (Value& ev : each_event(*target)) events.emplace_back(std::move(ev), target.get());
  const bool ends_loop_body = !loop_bodies_.empty() && block_statements_ == loop_bodies_.back() &&
                              block_position_ + 1 == block_statements_->size() && events.size() == 1;
  for (const auto& [ev, target] : events) {
    if (ev.counted_event) {
      trigger_counted(ev, target->location);
      continue;
    }
    arrive(ev, target->location);
    std::get<ir::Arrive>(out_.back()->back()->node).ends_loop_body = ends_loop_body;
  }
}

void MemoryLowering::wait_statement(const Stmt& s, const Wait& w) {
  emit_node(ir::MmaCommit{});  // what the wait guards may still be read by WGMMA
  line_mark(s.location);
  bool waited_dma = false;
  for (const auto& t : w.targets) {
    Value f = expr(*t);
    if (f.kind == Value::Kind::event) {
      for (const Value& ev : each_event(*t)) wait_event(ev, t->location);  // an array: each of its events
      continue;
    }
    if (f.kind == Value::Kind::mma_future) continue;  // complete at the MmaCommit above
    if (f.kind != Value::Kind::future || !f.bound_event.empty() || !f.is_async)
      unchecked(t->location, "a wait on what no wait completes");
    if (f.event >= 0) {  // a TMA copy: its private barrier (a ring's: the future's slot)
      emit_node(ir::WaitEvent{f.event, f.event_index ? f.event_index : ir::int_const(0), nullptr}, t->location);
    } else {
      waited_dma = true;
    }
  }
  // dma copies complete in program order here; the barrier keeps the
  // block's view of shared memory consistent.
  if (waited_dma && scope_ == Scope::block) emit_barrier();
}

void MemoryLowering::wait_event(const Value& ev, const SourceLocation& where) {
  if (ev.counted_event) wait_counted(ev, where);
  else emit_node(ir::WaitEvent{ev.event, ev.event_index, ev.event_parity}, where);
}

void MemoryLowering::inthreads_async(const Stmt& s, const InThreads& t) {
  if (set_.threads > 0) unchecked(s.location, "nested inthreads.async regions");
  // In a thread level that spans each group's threads, a region whose body
  // does not name the thread index runs alike in every thread: at the
  // group's scope (TMA, mma, events on whole groups).
  const Scope saved_scope = scope_;
  if (scope_ == Scope::thread && threads_span_group_ && lifts_to_group(*t.body)) scope_ = Scope::block;
  struct RestoreScope {
    Scope& scope;
    Scope saved;
    ~RestoreScope() { scope = saved; }
  } restore{scope_, saved_scope};
  if (!region_level()) unchecked(s.location, "inthreads.async outside a group level");
  const GroupLevel level = *region_level();
  const auto bound = facts_.region_bindings.find(&t);
  // A condition testing the thread index too selects threads of the groups.
  const std::string* thread_index = facts_.thread_selected_regions.count(&t) ? &span_thread_indices_.front() : nullptr;
  const std::int64_t per_value = thread_index ? level.unit : 1;
  const std::int64_t unit = level.unit / per_value;  // threads per selected value
  const std::string selector = sema::inthreads_selector(level.index, level.unit, thread_index);
  const auto selected = selected_groups(*t.condition, level, false,
                                        bound == facts_.region_bindings.end() ? nullptr : &bound->second, thread_index);
  if (sema::Verdict broken = sema::inthreads_selection(selector, level.count * per_value, selected))
    fail(t.condition->location, *broken);
  const std::vector<std::int64_t>& chosen = *selected;
  if (sema::Verdict broken = unit == 1 ? sema::inthreads_whole_warps(selector, chosen.front(),
                                                                      static_cast<std::int64_t>(chosen.size()))
                                       : std::nullopt)
    fail(t.condition->location, *broken);
  // Named barriers 1..15 (8..15 beside the source's): each region takes one, as the per-warpgroup barriers do.
  if (sema::Verdict broken = sema::inthreads_regions(next_barrier_id_ - first_barrier_id_, first_barrier_id_)) fail(s.location, *broken);
  Value c = require_scalar(expr(*t.condition), *t.condition);
  line_mark(s.location);
  const ir::ThreadSet saved = set_;
  set_.threads = static_cast<std::int64_t>(chosen.size()) * unit;
  set_.count = ir::int_const(set_.threads);
  const std::int64_t first = chosen.front() * unit;
  set_.tid = first == 0 ? ir::special("threadIdx.x") : ir::binary("-", ir::special("threadIdx.x"), ir::int_const(first));
  set_.first = first;
  set_.barrier_id = next_barrier_id_++;
  ir::WarpgroupRegion region;
  region.condition = c.expr;
  region.set = set_;
  region.whole_warpgroups = level.unit % 128 == 0 && set_.threads % 128 == 0 && first % 128 == 0;
  region.mma = contains_mma(*t.body);
  std::optional<ir::ThreadSet> saved_trigger_set = std::move(trigger_set_);
  trigger_set_.reset();
  try {
    region.body = ir::make_stmt(ir::Seq{collect([&] { block(*t.body); }), false});
  } catch (...) {
    set_ = saved;
    trigger_set_ = std::move(saved_trigger_set);
    throw;
  }
  set_ = saved;
  trigger_set_ = std::move(saved_trigger_set);
  emit_node(std::move(region), s.location);
}

}  // namespace croq::lower::detail
