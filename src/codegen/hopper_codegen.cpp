// Codegen for T3/T4 on sm_90a: events (mbarriers), TMA copies, warp
// specialization (inthreads.async) and WGMMA. The emitted code calls the
// device prelude (hopper_prelude.hpp), which wraps the PTX.
//
// Rules we implement (README "Hopper path"):
//   * `shared event e[N]` is N mbarriers. `trigger e[i]` is an arrival by
//     every warp of the threads running it (one arrival per thread when the
//     set is not whole warps); the barrier's count is fixed by the trigger
//     sites, which must agree. `wait e[i]` spins on the phase each thread
//     expects and then flips it, so a ring of stages needs no phase
//     arithmetic in the source. `= ready` starts every barrier as if it had
//     completed once (the first wait passes).
//   * tma.copy global => shared is issued by thread 0 of the running set and
//     completes on an mbarrier: the event of `.async<e[i]>`, else the event of
//     the `trigger` that follows it (only other tma.copy statements between),
//     else a private barrier that the set waits on at once (synchronous) or
//     at `wait f` (`f = tma.copy.async ...`). Out-of-bounds box elements read
//     as zero (this is `.zfill`). shared => global stores go through the
//     bulk-async proxy and complete before the set goes on.
//   * inthreads.async (cond) runs its body on the warpgroups of the enclosing
//     `parallel p by N : group-4` that satisfy cond (a contiguous range);
//     barriers inside use a named barrier of those threads only. A kernel
//     split into producer regions (no mma) and consumer regions (mma) moves
//     registers from producers (setmaxnreg.dec 40) to consumers.
//   * mma.row.row acc, a, b: a is [64, K] (one warpgroup's rows), b is
//     [N, K], both K-major tiles in shared memory written with a swizzle
//     whose span equals their row bytes; it lowers to K/16 wgmma m64nNk16.
//     mma.commit (and any trigger, wait or mma.store after an mma) waits for
//     the issued wgmma groups.
//   * On every target but sm_90a from 80 (sm_80..sm_89, compute_80, and
//     sm_90 / compute_90 without the 'a', sm_100, sm_120, which have no
//     WGMMA) the same mma statements lower to mma.sync m16n8k16: warp w of the warpgroup
//     computes rows 16w..16w+15 from ldmatrix loads of the shared tiles,
//     addressed through the tile's swizzle; tiles may also be unswizzled.
//     The accumulator keeps WGMMA's fragment layout, so fill and store are
//     shared. mma.sync is synchronous: nothing stays in flight. Events use
//     the sm_80 mbarrier subset below 90 (init, arrive, test_wait.parity);
//     tma.copy needs 90, register reallocation (setmaxnreg) sm_90a.
#include "codegen/codegen_internal.hpp"
#include "codegen/hopper_prelude.hpp"

#include <cctype>

namespace croq::codegen::detail {

// `.swiz<N>`: 0..3 name the hardware modes (none, 32B, 64B, 128B); 32, 64
// and 128 are the byte spans themselves.
int swizzle_span(const Program& program, const Modifier& m) {
  if (m.template_args.size() != 1) fail_at(program, m.location, "`.swiz<N>` takes one argument");
  const auto* lit = std::get_if<IntegerLiteral>(&m.template_args[0]->node);
  std::int64_t n = lit ? static_cast<std::int64_t>(lit->value) : -1;
  if (!lit) {
    if (const auto* name = std::get_if<Name>(&m.template_args[0]->node)) {
      auto def = program.defines.find(name->name);
      if (def != program.defines.end() && def->second.value && std::holds_alternative<std::int64_t>(*def->second.value))
        n = std::get<std::int64_t>(*def->second.value);
    }
  }
  switch (n) {
    case 0: return 0;
    case 1: case 32: return 32;
    case 2: case 64: return 64;
    case 3: case 128: return 128;
    default:
      fail_at(program, m.location, "`.swiz<" + (n < 0 ? source_text(program, *m.template_args[0]) : std::to_string(n)) +
                                       ">` is not a swizzle mode",
              "use swiz<0..3> (none, 32B, 64B, 128B) or the byte span swiz<32|64|128>");
  }
}

namespace {

template <typename F>
void walk_statements(const Stmt& s, F&& f) {
  f(s);
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block>) {
      for (const auto& c : n.statements) walk_statements(*c, f);
    } else if constexpr (std::is_same_v<T, Parallel> || std::is_same_v<T, Loop> || std::is_same_v<T, While> ||
                         std::is_same_v<T, InThreads>) {
      if (n.body) walk_statements(*n.body, f);
    } else if constexpr (std::is_same_v<T, If>) {
      walk_statements(*n.then_branch, f);
      if (n.else_branch) walk_statements(*n.else_branch, f);
    }
  }, s.node);
}

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
  loc.column = static_cast<int>(line_start == std::string::npos ? at + 1 : at - line_start);
  loc.offset = static_cast<int>(at);
  loc.length = static_cast<int>(end - at);
  return loc;
}

bool contains_mma(const Stmt& s) {
  bool found = false;
  walk_statements(s, [&](const Stmt& st) { found = found || std::holds_alternative<Mma>(st.node); });
  return found;
}

}  // namespace

bool Codegen::uses_hopper(const Stmt& s) const {
  bool found = false;
  walk_statements(s, [&](const Stmt& st) {
    if (const auto* c = std::get_if<Copy>(&st.node))
      found = found || c->engine == Engine::tma || find_modifier(c->modifiers, "swiz") != nullptr;
    else if (std::holds_alternative<Mma>(st.node))
      found = true;
    else if (const auto* d = std::get_if<Declaration>(&st.node))
      found = found || d->type.kind == TypeKind::event;
    else if (const auto* t = std::get_if<InThreads>(&st.node))
      found = found || t->is_async;
  });
  return found;
}

void Codegen::emit_barrier() {
  if (set_.threads == 0) out_.barrier();
  else out_.line("croq_dev::named_barrier_sync(" + std::to_string(set_.barrier_id) + ", " + std::to_string(set_.threads) + ");");
}

std::string Codegen::tile_pointer(const View& v) {
  std::vector<std::string> zeros(v.extent.size(), "0");
  return "(&" + address(v, zeros) + ")";
}

// ---- events ----------------------------------------------------------------

void Codegen::event_declaration(const Stmt& s, const Declaration& d) {
  if (target_sm_ < 80)
    fail_at(program_, s.location, "events are mbarriers, which need sm_80 or newer (compiling for " + target_name() + ")");
  if (d.type.storage != Storage::shared)
    fail_at(program_, d.type.location, "events live in shared memory: declare them `shared event`");
  if (scope_ != Scope::block || set_.threads != 0)
    fail_at(program_, s.location, "declare events at block scope (inside the `: block` level, outside inthreads)");
  for (const Declarator& decl : d.declarators) {
    auto ev = std::make_shared<Event>();
    ev->count = decl.array_size ? const_int(*decl.array_size, "the number of events") : 1;
    if (ev->count < 1 || ev->count > 32)
      fail_at(program_, ev->count < 1 ? decl.array_size->location : decl.location, "an event array holds 1 to 32 events, got " + std::to_string(ev->count));
    bool ready = false;
    if (decl.init != Declarator::Init::none) {
      const auto* name = decl.init_values.size() == 1 ? std::get_if<Name>(&decl.init_values[0]->node) : nullptr;
      if (!name || name->name != "ready")
        fail_at(program_, decl.location, "an event can only be initialized `= ready`");
      ready = true;
    }
    ev->name = fresh(decl.name);
    ev->phase = ev->name + "_phase";
    ev->offset = (shared_bytes_ + 7) / 8 * 8;
    shared_bytes_ = ev->offset + 8 * ev->count;
    out_.line("unsigned long long* " + ev->name + " = reinterpret_cast<unsigned long long*>(croq_smem + " +
              std::to_string(ev->offset) + ");");
    // `ready`: expect the phase before the first, which a fresh barrier reports complete.
    out_.line("unsigned " + ev->phase + " = " + (ready ? "0xffffffffu" : "0u") + ";");
    events_.push_back(ev);
    Value v;
    v.kind = Value::Kind::event;
    v.event = ev;
    define(decl.name, v);
  }
}

Value Codegen::event_value(const Expr& e, const char* what) {
  Value v = expr(e);
  if (v.kind != Value::Kind::event)
    fail_at(program_, e.location, std::string(what) + " takes an event, got `" + source_text(e) + "`");
  if (v.event_index.empty()) {
    if (v.event->count != 1)
      fail_at(program_, e.location, "`" + source_text(e) + "` is an array of " +
                                        std::to_string(v.event->count) + " events; say which one, e.g. `" +
                                        source_text(e) + "[i]`");
    v.event_index = "0";
  }
  return v;
}

Value Codegen::subscript(const Expr& e, const Subscript& sub) {
  Value obj = expr(*sub.object);
  if (sub.indices.size() != 1)
    fail_at(program_, e.location, "`[...]` selects one element of an array of buffers or events");
  Value idx = expr(*sub.indices[0]);
  if (idx.kind != Value::Kind::scalar && idx.kind != Value::Kind::index)
    fail_at(program_, sub.indices[0]->location, "an array index must be an integer");
  if (idx.is_float)
    fail_at(program_, sub.indices[0]->location, "an array index must be an integer, got " + source_text(*sub.indices[0]));
  std::int64_t count = obj.kind == Value::Kind::event ? obj.event->count
                       : (obj.kind == Value::Kind::view && obj.view.buffer->slots > 0) ? obj.view.buffer->slots
                                                                                        : 0;
  if (count == 0 || (obj.kind == Value::Kind::event && !obj.event_index.empty()) ||
      (obj.kind == Value::Kind::view && !obj.view.slot.empty()))
    fail_at(program_, e.location, "`" + source_text(*sub.object) +
                                      "` is not an array of buffers or events; use `.at(...)` for elements");
  if (idx.constant && (*idx.constant < 0 || *idx.constant >= count))
    fail_at(program_, sub.indices[0]->location, "index " + std::to_string(*idx.constant) + " is out of range for " +
                                                    std::to_string(count) + " elements");
  if (obj.kind == Value::Kind::event) obj.event_index = idx.text;
  else obj.view.slot = idx.text;
  return obj;
}

void Codegen::fail_buffer_array(const Expr& e) {
  const std::string name = source_text(e);
  fail_at(program_, e.location, "`" + name + "` is an array of buffers; say which one, e.g. `" + name + "[stage]`");
}

void Codegen::complete_pending_mma() {
  if (!pending_mma_) return;
  out_.line("croq_dev::wgmma_wait_group<0>();");
  pending_mma_ = false;
}

void Codegen::arrive(const Value& ev, const SourceLocation& where) {
  // One arrival per warp when the running threads are whole warps.
  std::string arrivals;
  bool per_warp = set_.threads > 0 && set_.threads % 32 == 0;
  if (per_warp) arrivals = std::to_string(set_.threads / 32);
  else arrivals = set_.threads > 0 ? std::to_string(set_.threads) : "blockDim.x";
  Event& e = *ev.event;
  if (e.arrivals.empty()) {
    e.arrivals = arrivals;
    e.first_trigger = where;
  } else if (e.arrivals != arrivals) {
    fail_at(program_, where, "event `" + e.name.substr(0, e.name.rfind('_')) + "` is triggered by a different set of threads here than at " +
                                 std::to_string(e.first_trigger.line) + ":" + std::to_string(e.first_trigger.column),
            "trigger an event from one kind of thread group (one warpgroup region, or the whole block)");
  }
  std::string bar = "&" + e.name + "[" + ev.event_index + "]";
  if (per_warp) {
    out_.line("__syncwarp();");
    out_.line("if ((" + set_.tid + " & 31) == 0) croq_dev::mbar_arrive(" + bar + ");");
  } else {
    out_.line("croq_dev::mbar_arrive(" + bar + ");");
  }
}

void Codegen::trigger_statement(const Stmt& s, const Trigger& t) {
  if (!t.after.empty()) fail_at(program_, s.location, "`trigger ... after` is not supported yet by libcroqjit codegen");
  // `wait full[s]; mma ...; trigger empty[s];` closing a loop body: keep the
  // last wgmma group in flight and release the previous iteration's stage
  // instead (the stage this trigger names is released one iteration later,
  // or after the loop). Needs a ring of at least two events.
  if (pending_mma_ && !loops_.empty() && block_statements_ == loops_.back().body &&
      block_position_ + 1 == block_statements_->size() && t.targets.size() == 1) {
    Value ev = event_value(*t.targets[0], "`trigger`");
    if (ev.event->count >= 2 && !loops_.back().deferred) {
      LoopContext& loop = loops_.back();
      const std::string held = loop.id + "_held";  // the stage whose release is pending
      line_directive(s.location);
      out_.line("croq_dev::wgmma_wait_group<1>();  // the previous group is done: release its stage");
      Value previous = ev;
      previous.event_index = held;
      out_.line("if (" + held + " >= 0) {");
      out_.indent();
      arrive(previous, t.targets[0]->location);
      out_.dedent();
      out_.line("}");
      out_.line(held + " = " + ev.event_index + ";");
      Emitter saved = std::move(out_);
      out_ = Emitter();
      out_.line("croq_dev::wgmma_wait_group<0>();");
      out_.line("if (" + held + " >= 0) {");
      arrive(previous, t.targets[0]->location);
      out_.line("}");
      loop.post = out_.text();
      out_ = std::move(saved);
      if (!loop.post.empty() && loop.post.back() == '\n') loop.post.pop_back();
      loop.pre = "int " + held + " = -1;";
      loop.deferred = true;
      return;
    }
  }
  complete_pending_mma();  // the buffers the trigger releases may still be read by wgmma
  line_directive(s.location);
  for (const auto& target : t.targets) arrive(event_value(*target, "`trigger`"), target->location);
}

void Codegen::wait_statement(const Stmt& s, const Wait& w) {
  complete_pending_mma();
  line_directive(s.location);
  bool waited_dma = false;
  for (const auto& t : w.targets) {
    Value f = expr(*t);
    if (f.kind == Value::Kind::event) {
      Value ev = event_value(*t, "`wait`");
      const std::string& i = ev.event_index;
      out_.line("croq_dev::mbar_wait(&" + ev.event->name + "[" + i + "], (" + ev.event->phase + " >> (" + i + ")) & 1u);");
      out_.line(ev.event->phase + " ^= 1u << (" + i + ");");
      continue;
    }
    if (f.kind != Value::Kind::future)
      fail_at(program_, t->location, "`wait` takes the future of an asynchronous copy or an event, got `" +
                                         source_text(*t) + "`");
    if (!f.bound_event.empty())
      fail_at(program_, t->location, "`" + source_text(*t) + "` completes on event `" + f.bound_event +
                                         "` (it was started with `.async<" + f.bound_event + ">`); wait on the event: `wait " +
                                         f.bound_event + ";`");
    if (!f.is_async)
      fail_at(program_, t->location, "waiting on a synchronous copy: `" + source_text(*t) +
                                         "` was not started with `.async`", "remove the `wait`, or add `.async` to the copy");
    if (f.event) {  // a TMA copy: its private barrier
      out_.line("croq_dev::mbar_wait(&" + f.event->name + "[0], " + f.event->phase + " & 1u);");
      out_.line(f.event->phase + " ^= 1u;");
    } else {
      waited_dma = true;
    }
  }
  // dma copies complete in program order here; the barrier keeps the
  // block's view of shared memory consistent.
  if (waited_dma && scope_ == Scope::block) emit_barrier();
}

// ---- warp specialization ----------------------------------------------------

bool Codegen::on_whole_warpgroups() const {
  if (scope_ != Scope::block) return false;
  if (set_.threads > 0) return set_.threads % 128 == 0 && set_.first % 128 == 0;
  return in_warpgroup_;
}

void Codegen::inthreads_async(const Stmt& s, const InThreads& t) {
  if (set_.threads > 0) fail_at(program_, s.location, "inthreads.async regions do not nest");
  if (group_levels_.empty())
    fail_at(program_, s.location, "inthreads.async selects warpgroups: put it inside `parallel p by N : group-4` "
                                  "(or `: group`) and test `p`");
  const GroupLevel level = group_levels_.back();
  std::vector<std::int64_t> chosen;
  for (std::int64_t v = 0; v < level.count; ++v) {
    push();
    define(level.index, scalar_const(v));
    Value c = expr(*t.condition);
    pop();
    if (!c.constant)
      fail_at(program_, t.condition->location, "the inthreads.async condition must depend only on `" + level.index +
                                                   "` (it selects whole thread groups)");
    if (*c.constant) chosen.push_back(v);
  }
  if (chosen.empty())
    fail_at(program_, t.condition->location, "the inthreads.async condition selects no `" + level.index + "` in 0.." +
                                                 std::to_string(level.count - 1));
  for (std::size_t i = 1; i < chosen.size(); ++i)
    if (chosen[i] != chosen[i - 1] + 1)
      fail_at(program_, t.condition->location, "the inthreads.async condition must select a contiguous range of `" +
                                                   level.index + "`");
  if (next_barrier_id_ > 15)
    fail_at(program_, s.location, "at most 15 inthreads.async regions in a block (named barriers 1..15; barrier 0 is "
                                  "the block barrier)");
  Value c = expr(*t.condition);
  line_directive(s.location);
  out_.line("if (" + c.text + ") {");
  out_.indent();
  ThreadSet saved = set_;
  set_.threads = static_cast<std::int64_t>(chosen.size()) * level.unit;
  set_.count = std::to_string(set_.threads);
  std::int64_t first = chosen.front() * level.unit;
  set_.tid = first == 0 ? "threadIdx.x" : "(threadIdx.x - " + std::to_string(first) + ")";
  set_.first = first;
  set_.barrier_id = next_barrier_id_++;
  // Register reallocation is decided when the whole kernel is known.
  if (level.unit % 128 == 0) {
    bool consumer = contains_mma(*t.body);
    out_.line(std::string("@@SETMAXNREG_") + (consumer ? "INC" : "DEC") + "@@");
    region_threads_[consumer ? 1 : 0] += set_.threads;
  }
  bool saved_pending = pending_mma_;
  pending_mma_ = false;
  block(*t.body);
  complete_pending_mma();
  pending_mma_ = saved_pending;
  set_ = saved;
  out_.dedent();
  out_.line("}");
}

// ---- TMA ----------------------------------------------------------------------

std::string Codegen::tensor_map_param(const View& global, const std::vector<std::int64_t>& box, int swizzle,
                                      const SourceLocation& where) {
  const Buffer& b = *global.buffer;
  if (b.argument == -2)
    fail_at(program_, where, "tma.copy reads and writes tensors passed as arguments; " +
                                 (output_name_.empty() ? std::string("the returned tensor is not one")
                                                       : "`" + output_name_ + "` is the kernel's returned tensor"),
            "use dma.copy, or pass it as an argument");
  if (b.argument < 0)
    fail_at(program_, where, "tma.copy reads and writes tensors passed as arguments", "use dma.copy");
  std::string key = std::to_string(b.argument) + ":" + std::to_string(swizzle);
  for (auto x : box) key += ":" + std::to_string(x);
  for (std::size_t i = 0; i < tensor_map_keys_.size(); ++i)
    if (tensor_map_keys_[i] == key) return "croq_tmap_" + std::to_string(i);
  std::string name = "croq_tmap_" + std::to_string(tensor_map_keys_.size());
  tensor_map_keys_.push_back(key);
  KernelParam kp;
  kp.kind = KernelParam::Kind::tensor_map;
  kp.argument = b.argument;
  kp.name = "tma.copy of '" + fn_.params[b.argument].name + "' at " + std::to_string(where.line) + ":" +
            std::to_string(where.column);
  for (auto x : box) kp.box.push_back(static_cast<std::uint32_t>(x));
  kp.swizzle_bytes = swizzle;
  result_.params.push_back(kp);
  extra_signature_.push_back("const __grid_constant__ croq_tensor_map " + name);
  return name;
}

void Codegen::tma_copy(const Stmt& s, const Copy& c) {
  if (!result_.needs_sm90)
    result_.needs_sm90 = Diagnostic{Severity::error, "tma.copy needs sm_90 (Hopper); use dma.copy", c.op_location.line,
                                    c.op_location.column, std::max(1, c.op_location.length), ""};
  if (c.op != CopyOp::copy && c.op != CopyOp::load)
    fail_at(program_, c.op_location, "tma." + std::string(copy_op_name(c.op)) + " is not supported yet by libcroqjit codegen");
  if (!c.after.empty()) fail_at(program_, s.location, "`after` is not supported yet by libcroqjit codegen");
  int span = 0;
  bool zfill = false, async = false;
  const Modifier* bound = nullptr;
  for (const Modifier& m : c.modifiers) {
    if (m.name == "swiz") span = swizzle_span(program_, m);
    else if (m.name == "zfill") zfill = true;
    else if (m.name == "async") {
      async = true;
      if (m.has_template_args) bound = &m;
    } else {
      fail_at(program_, m.location, "`." + m.name + "` on tma.copy is not supported yet by libcroqjit codegen");
    }
  }
  if (scope_ != Scope::block)
    fail_at(program_, s.location, "tma.copy runs at block or warpgroup scope, not inside a thread-level parallel");
  Value src = expr(*c.source);
  zfill = zfill || src.zfill;
  if (src.kind == Value::Kind::future) src.kind = Value::Kind::view;
  if (src.kind != Value::Kind::view || src.view.pending != View::Pending::none)
    fail_at(program_, c.source->location, "the source of a copy must be a tensor or a placed tile");
  const bool store = src.view.buffer->space == Buffer::Space::shared;
  View tile;    // the shared side
  View global;  // the global side
  if (store) {
    tile = src.view;
    if (!c.destination) fail_at(program_, s.location, "a tma.copy from shared memory needs a global destination");
    Value d = expr(*c.destination);
    if (d.kind != Value::Kind::view || d.view.buffer->space != Buffer::Space::global)
      fail_at(program_, c.destination->location, "a tma.copy from shared memory writes a tile of a global tensor");
    global = d.view;
    if (tile.buffer->dtype != global.buffer->dtype)
      fail_at(program_, c.destination->location, "copy between different element types (" +
                                                     std::string(dtype_name(tile.buffer->dtype)) + " to " +
                                                     std::string(dtype_name(global.buffer->dtype)) + ")");
  } else {
    global = src.view;
    if (global.buffer->space != Buffer::Space::global)
      fail_at(program_, c.source->location, "tma.copy moves tiles between global and shared memory");
  }
  for (std::size_t d = 0; d < global.extent.size(); ++d)
    if (global.extent[d] < 0)
      fail_at(program_, c.source->location, "a TMA box must be known on the host; dimension " + std::to_string(d) +
                                                " is the dynamic dim `" + global.buffer->dim_names[d] + "`",
              "copy a constant tile, e.g. subspan(64, ...).at(...), or use dma.copy");
  // TMA coordinates are 32-bit signed (dynamic dims are checked at launch).
  for (std::size_t d = 0; d < global.buffer->dims.size(); ++d)
    if (global.buffer->dims[d] > kInt32Max)
      fail_at(program_, c.source->location, "tma.copy addresses tiles with 32-bit coordinates, but dimension " +
                                                std::to_string(d) + " of the tensor has " +
                                                std::to_string(global.buffer->dims[d]) + " elements",
              "use dma.copy for tensors with a dimension of 2^31 elements or more");
  std::vector<std::int64_t> box = store ? tile.extent : global.extent;
  if (store && box != global.extent)
    fail_at(program_, c.destination->location, "tma.copy destination has shape " + shape_text(global.buffer->dtype, global.extent) +
                                                   " but the source tile has " + shape_text(tile.buffer->dtype, box));
  if (box.empty() || box.size() > 5)
    fail_at(program_, c.source->location, "a TMA box has 1 to 5 dimensions, got " + std::to_string(box.size()));
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(global.buffer->dtype));
  for (std::size_t d = 0; d < box.size(); ++d)
    if (box[d] < 1 || box[d] > 256)
      fail_at(program_, c.source->location, "a TMA box extent must be 1..256; dimension " + std::to_string(d) + " is " +
                                                std::to_string(box[d]), box[d] > 256 ? "split the tile into several copies" : "");
  const std::int64_t row_bytes = box.back() * elem;
  if (span == 0 && row_bytes % 16 != 0)
    fail_at(program_, c.source->location, "the innermost TMA box extent must be a multiple of 16 bytes; it is " +
                                              std::to_string(box.back()) + " x " + std::to_string(elem) + " = " +
                                              std::to_string(row_bytes) + " bytes");
  if (span > 0 && row_bytes != span)
    fail_at(program_, c.source->location, "tma.copy.swiz<" + std::to_string(span) + "> needs tile rows of exactly " +
                                              std::to_string(span) + " bytes (" + std::to_string(span / elem) + " " +
                                              std::string(dtype_name(global.buffer->dtype)) + "), got " + std::to_string(row_bytes),
            "match the innermost tile extent to the swizzle span");
  if (zfill && global.exact && !store) warn(s, "`.zfill` is redundant: the source tile always covers the destination");

  if (!store) {
    if (c.destination_storage == Storage::shared) {
      auto buf = allocate(c.future ? "future" : "tile", global.buffer->dtype, box, Buffer::Space::shared, s.location);
      tile.buffer = buf;
      tile.extent = box;
      tile.origin.assign(box.size(), "0");
    } else if (c.destination) {
      Value d = expr(*c.destination);
      if (d.kind != Value::Kind::view || d.view.buffer->space != Buffer::Space::shared)
        fail_at(program_, c.destination->location, "tma.copy loads into shared memory");
      tile = d.view;
      if (tile.buffer->slots > 0 && tile.slot.empty()) fail_buffer_array(*c.destination);
      bool whole = tile.extent == tile.buffer->dims;
      for (const auto& o : tile.origin) whole = whole && is_zero(o);
      if (!whole || tile.extent != box)
        fail_at(program_, c.destination->location, "tma.copy fills a whole shared buffer of the box's shape " +
                                                       shape_text(global.buffer->dtype, box) + "; the destination is " +
                                                       shape_text(tile.buffer->dtype, tile.extent));
    } else {
      fail_at(program_, destination_storage_location(program_, s, c),
              "tma.copy loads into shared memory; use `=> shared` or a shared buffer");
    }
    if (tile.buffer->dtype != global.buffer->dtype)
      fail_at(program_, c.destination->location, "copy between different element types (" +
                                                     std::string(dtype_name(global.buffer->dtype)) + " to " +
                                                     std::string(dtype_name(tile.buffer->dtype)) + ")");
    if (tile.buffer->swizzle >= 0 && tile.buffer->swizzle != span)
      fail_at(program_, c.op_location, "this copy writes the tile with swizzle " + std::to_string(span) +
                                           " but it was written with swizzle " + std::to_string(tile.buffer->swizzle) + " before");
    tile.buffer->swizzle = span;
  } else if (tile.buffer->swizzle > 0 && tile.buffer->swizzle != span) {
    fail_at(program_, c.op_location, "the tile is laid out with swizzle " + std::to_string(tile.buffer->swizzle) +
                                         "; the store must say `.swiz<" + std::to_string(tile.buffer->swizzle) + ">`");
  }

  std::string map = tensor_map_param(global, box, span, c.op_location);
  std::string coords;
  for (int d = static_cast<int>(box.size()) - 1; d >= 0; --d) {
    const std::string origin = "(" + global.origin[d] + ")";
    // 64-bit kernels saturate: a coordinate past 2^31 - 1 is past every
    // dimension (checked above), and TMA fills it with zeros instead of
    // reading the tile the truncated value would name.
    if (is_zero(global.origin[d])) coords += ", (int)0";
    else if (wide_) coords += ", (int)(" + origin + " < 2147483647LL ? " + origin + " : 2147483647LL)";
    else coords += ", (int)" + origin;
  }
  const std::string rank = std::to_string(box.size());
  const std::string leader = "if (" + set_.tid + " == 0)";
  line_directive(s.location);
  if (store) {
    complete_pending_mma();
    out_.line("croq_dev::fence_proxy_async_shared();  // make the tile's generic-proxy writes visible to TMA");
    emit_barrier();
    out_.line(leader + " {");
    out_.line("  croq_dev::tma_store_" + rank + "d(&" + map + ", " + tile_pointer(tile) + coords + ");");
    out_.line("  croq_dev::bulk_commit_group();");
    out_.line("  croq_dev::bulk_wait_group<0>();");
    out_.line("}");
    emit_barrier();
    mark_written(*global.buffer);
    return;
  }

  const std::string bytes = std::to_string(*support::checked_product(box) * elem);  // box extents are 1..256, rank <= 5
  // Which barrier completes the copy.
  Value ev;
  if (bound) {
    if (bound->template_args.size() != 1) fail_at(program_, bound->location, "`.async<e>` names one event");
    ev = event_value(*bound->template_args[0], "`.async<...>`");
  } else if (!async && block_statements_) {
    for (std::size_t i = block_position_ + 1; i < block_statements_->size(); ++i) {
      const Stmt& next = *(*block_statements_)[i];
      if (const auto* cp = std::get_if<Copy>(&next.node); cp && cp->engine == Engine::tma && !find_modifier(cp->modifiers, "async"))
        continue;
      if (const auto* tr = std::get_if<Trigger>(&next.node); tr && tr->targets.size() == 1 && tr->after.empty())
        ev = event_value(*tr->targets[0], "`trigger`");
      break;
    }
  }
  const std::string dst = tile_pointer(tile);
  if (ev.event) {
    std::string bar = "&" + ev.event->name + "[" + ev.event_index + "]";
    out_.line(leader + " {");
    out_.line("  croq_dev::mbar_expect_tx(" + bar + ", " + bytes + ");");
    out_.line("  croq_dev::tma_load_" + rank + "d(" + dst + ", &" + map + ", " + bar + coords + ");");
    out_.line("}");
  } else {
    // A private barrier: one arrival (the issuing thread's), plus the bytes.
    auto priv = std::make_shared<Event>();
    priv->name = fresh("tma_bar");
    priv->phase = priv->name + "_phase";
    priv->arrivals = "1";
    priv->offset = -1;  // allocated at the end, with the prologue
    private_barriers_.push_back(priv);
    events_.push_back(priv);
    out_.line(leader + " {");
    out_.line("  croq_dev::mbar_arrive_expect_tx(&" + priv->name + "[0], " + bytes + ");");
    out_.line("  croq_dev::tma_load_" + rank + "d(" + dst + ", &" + map + ", &" + priv->name + "[0]" + coords + ");");
    out_.line("}");
    if (!async) {
      out_.line("croq_dev::mbar_wait(&" + priv->name + "[0], " + priv->phase + " & 1u);");
      out_.line(priv->phase + " ^= 1u;");
    }
    ev.event = priv;
  }
  if (c.future) {
    const auto* name = std::get_if<Name>(&c.future->node);
    if (!name) fail_at(program_, c.future->location, "a copy's future must be a plain name");
    Value f;
    f.kind = Value::Kind::future;
    f.view = tile;
    f.is_async = async && !bound;
    if (f.is_async) f.event = ev.event;
    if (bound) f.bound_event = source_text(*bound->template_args[0]);
    define(name->name, f);
  }
}

// ---- WGMMA ----------------------------------------------------------------------

void Codegen::mma_statement(const Stmt& s, const Mma& m) {
  // On sm_90a mma is WGMMA; every other target from sm_80 (sm_90 without
  // the 'a', sm_100, sm_120 too) lowers it to mma.sync (m16n8k16 with bf16
  // needs sm_80).
  const bool wgmma = target_wgmma_;
  if (target_sm_ < 80)
    fail_at(program_, s.location, "mma lowers to WGMMA on sm_90a and to mma.sync m16n8k16 on sm_80 to sm_89; "
                                  "compiling for " + target_name() + " has neither");
  if (wgmma && !result_.needs_sm90)
    result_.needs_sm90 = Diagnostic{Severity::error, "mma lowers to WGMMA, which needs sm_90a (Hopper)", s.location.line,
                                    s.location.column, std::max(1, s.location.length), ""};
  line_directive(s.location);
  auto operand_count = [&](std::size_t n) {
    if (m.operands.size() != n)
      fail_at(program_, s.location, "mma." + std::string(mma_op_name(m.op)) + " takes " + std::to_string(n) +
                                        " operand" + (n == 1 ? "" : "s") + ", got " + std::to_string(m.operands.size()));
  };
  // fill, mma and store work on a warpgroup's accumulator fragments.
  auto require_warpgroups = [&](const std::string& op) {
    if (!on_whole_warpgroups())
      fail_at(program_, s.location, (wgmma ? "WGMMA runs on whole warpgroups: put the "
                                           : "mma runs on whole warpgroups (4 warps of 16 rows each): put the ") +
                                        op + " inside `parallel p by N : group-4`");
  };
  auto accumulator = [&](const Expr& e) {
    Value v = expr(e);
    if (v.kind != Value::Kind::accumulator)
      fail_at(program_, e.location, "expected an accumulator from `mma.fill`, got `" + source_text(e) + "`");
    return v.acc;
  };
  switch (m.op) {
    case MmaOp::fill: {
      operand_count(1);
      const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr;
      if (!name) fail_at(program_, s.location, "mma.fill makes an accumulator: `acc = mma.fill.f32 0.0f;`");
      require_warpgroups("mma.fill");
      auto acc = std::make_shared<Accumulator>();
      for (const Modifier& mod : m.modifiers) {
        if (mod.name == "f32") acc->dtype = DType::f32;
        else if (mod.name == "f16") acc->dtype = DType::f16;
        else fail_at(program_, mod.location, "mma.fill takes `.f32` or `.f16` (the accumulator type), got `." + mod.name + "`");
      }
      Value fill = expr(*m.operands[0]);
      if (fill.kind != Value::Kind::scalar)
        fail_at(program_, m.operands[0]->location, "mma.fill takes the initial value, such as 0.0f");
      acc->fill = fill.text;
      acc->name = fresh(name->name);
      acc->token = "@@ACC_" + acc->name + "@@";
      accumulators_.push_back(acc);
      out_.line(acc->token);
      Value v;
      v.kind = Value::Kind::accumulator;
      v.acc = acc;
      define(name->name, v);
      return;
    }
    case MmaOp::load: {
      operand_count(1);
      const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr;
      if (!name) fail_at(program_, s.location, "mma.load names its operand: `a = mma.load tile;`");
      Value v = expr(*m.operands[0]);
      if (v.kind == Value::Kind::future) v.kind = Value::Kind::view;
      if (v.kind != Value::Kind::view || v.view.buffer->space != Buffer::Space::shared)
        fail_at(program_, m.operands[0]->location, "mma.load reads a tile in shared memory");
      if (v.view.buffer->slots > 0 && v.view.slot.empty()) fail_buffer_array(*m.operands[0]);
      int span = 0;
      for (const Modifier& mod : m.modifiers) {
        if (mod.name == "swiz") span = swizzle_span(program_, mod);
        else fail_at(program_, mod.location, "`." + mod.name + "` on mma.load is not supported yet");
      }
      if (v.view.buffer->swizzle >= 0 && v.view.buffer->swizzle != span)
        fail_at(program_, s.location, "mma.load" + (span ? ".swiz<" + std::to_string(span) + ">" : std::string()) +
                                          " does not match the tile's layout: it was copied with " +
                                          (v.view.buffer->swizzle ? ".swiz<" + std::to_string(v.view.buffer->swizzle) + ">" : std::string("no swizzle")),
                "use the same .swiz<N> on the copy and on mma.load");
      // The first use fixes the tile's layout, so a copy written later in the
      // source (a consumer region before the producer's) must match it.
      if (v.view.buffer->swizzle < 0) v.view.buffer->swizzle = span;
      v.kind = Value::Kind::operand;
      v.swizzle = span;
      define(name->name, v);
      return;
    }
    case MmaOp::commit:
      complete_pending_mma();
      return;
    case MmaOp::multiply: {
      operand_count(3);
      if (m.layout != "row.row")
        fail_at(program_, s.location, "mma." + m.layout + " is not supported yet; libcroqjit lowers mma.row.row "
                                      "(lhs [M, K], rhs [N, K], both K contiguous)");
      for (const Modifier& mod : m.modifiers)
        fail_at(program_, mod.location, "`." + mod.name + "` on mma is not supported yet by libcroqjit codegen");
      require_warpgroups("mma");
      auto acc = accumulator(*m.operands[0]);
      View tiles[2];
      int spans[2];
      for (int i = 0; i < 2; ++i) {
        const Expr& e = *m.operands[1 + i];
        Value v = expr(e);
        if (v.kind == Value::Kind::future) v.kind = Value::Kind::view;
        if (v.kind == Value::Kind::view && v.view.buffer->space == Buffer::Space::shared) {
          v.swizzle = std::max(0, v.view.buffer->swizzle);  // direct operand: the tile's own layout
          // Not copied yet in the source (a consumer region written before
          // the producer's): it is read unswizzled, so fix that layout and a
          // later copy with a swizzle is an error rather than wrong results.
          if (v.view.buffer->swizzle < 0) v.view.buffer->swizzle = v.swizzle;
        } else if (v.kind != Value::Kind::operand) {
          fail_at(program_, e.location, "an mma operand is a shared tile or the result of mma.load, got `" +
                                            source_text(e) + "`");
        }
        if (v.view.buffer->slots > 0 && v.view.slot.empty()) fail_buffer_array(e);
        if (v.view.extent.size() != 2)
          fail_at(program_, e.location, "an mma operand is a 2-D tile, got rank " + std::to_string(v.view.extent.size()));
        const std::int64_t row_bytes = v.view.buffer->dims.back() * static_cast<std::int64_t>(dtype_size(v.view.buffer->dtype));
        if (wgmma && (v.swizzle == 0 || row_bytes != v.swizzle))
          fail_at(program_, e.location, "WGMMA reads K-major tiles whose rows are one swizzle span: copy the tile with "
                                        ".swiz<" + std::to_string(row_bytes == 32 || row_bytes == 64 || row_bytes == 128 ? row_bytes : 128) +
                                        "> (rows of " + std::to_string(row_bytes) + " bytes here) and load it with the same swizzle");
        // mma.sync reads rows with ldmatrix: any swizzle or none, but 16-byte
        // aligned rows, and a swizzled tile's rows are one span.
        if (!wgmma && v.swizzle > 0 && row_bytes != v.swizzle)
          fail_at(program_, e.location, "a swizzled mma operand's rows must be one swizzle span: the tile is read as .swiz<" +
                                            std::to_string(v.swizzle) + "> but its rows are " + std::to_string(row_bytes) +
                                            " bytes", "copy the tile with .swiz<N> where N is its row size in bytes, or without a swizzle");
        if (!wgmma && row_bytes % 16 != 0)
          fail_at(program_, e.location, "mma.sync loads operand rows with ldmatrix, which needs rows of a multiple of 16 bytes; "
                                        "the tile's rows are " + std::to_string(row_bytes) + " bytes");
        if ((wgmma || v.swizzle > 0) && origin_multiple(v.view, 0) % 8 != 0)
          fail_at(program_, e.location, "an mma operand must start on a multiple of 8 rows of its tile");
        if (origin_multiple(v.view, 1) % 16 != 0 || v.view.extent[1] % 16 != 0)
          fail_at(program_, e.location, "an mma operand's K range must start and end on multiples of 16 elements");
        tiles[i] = v.view;
        spans[i] = v.swizzle;
      }
      const View& a = tiles[0];
      const View& b = tiles[1];
      DType t = a.buffer->dtype;
      if (t != b.buffer->dtype || (t != DType::f16 && t != DType::bf16))
        fail_at(program_, s.location, std::string(wgmma ? "WGMMA" : "mma.sync") + " multiplies f16 or bf16 tiles (both the same), got " +
                                          std::string(dtype_name(t)) + " and " + std::string(dtype_name(b.buffer->dtype)));
      if (acc->dtype == DType::f16 && t != DType::f16)
        fail_at(program_, s.location, "an f16 accumulator takes f16 inputs; use mma.fill.f32 for bf16");
      if (a.extent[0] != 64)
        fail_at(program_, m.operands[1]->location, std::string("one warpgroup's mma takes 64 rows of lhs (") +
                                                      (wgmma ? "WGMMA m64" : "16 per warp") + "), got " +
                                                      std::to_string(a.extent[0]),
                "give each consumer warpgroup its own 64 rows, e.g. lhs_s.subspan(64, K).at(p - 1, 0)");
      if (a.extent[1] != b.extent[1])
        fail_at(program_, s.location, "lhs has K = " + std::to_string(a.extent[1]) + " but rhs has K = " +
                                          std::to_string(b.extent[1]) + " (mma.row.row takes rhs as [N, K])");
      const std::int64_t n = b.extent[0];
      if (n < 8 || n > 256 || !hopper_wgmma_has_n(static_cast<int>(n)))
        fail_at(program_, m.operands[2]->location, std::string(wgmma ? "WGMMA's" : "mma's") +
                                                      " N (rhs rows) must be a multiple of 8 up to 256, got " + std::to_string(n));
      if (acc->n != 0 && acc->n != n)
        fail_at(program_, s.location, "the accumulator is 64 x " + std::to_string(acc->n) + " but this mma makes 64 x " + std::to_string(n));
      acc->n = n;
      const std::string ab = cuda_type(t);
      if (!wgmma) {
        // One warpgroup, K / 16 k-steps of N / 8 m16n8k16 per warp, operands
        // through ldmatrix at their swizzled addresses; synchronous.
        auto pitch = [](const View& v) {
          return std::to_string(v.buffer->dims.back() * static_cast<std::int64_t>(dtype_size(v.buffer->dtype))) + "u";
        };
        out_.line("croq_dev::mma_sync_m64nNkK<" + std::to_string(n) + ", " + std::to_string(a.extent[1]) + ", " +
                  std::to_string(spans[0]) + "u, " + std::to_string(spans[1]) + "u, " + ab + ">(" + acc->name + ", " +
                  tile_pointer(a) + ", " + pitch(a) + ", " + tile_pointer(b) + ", " + pitch(b) + ");");
        return;
      }
      out_.line("{");
      out_.indent();
      out_.line("croq_dev::fence_accum(" + acc->name + ");");
      out_.line("croq_dev::wgmma_fence();");
      out_.line("const unsigned long long desc_a = croq_dev::make_kmajor_desc<" + std::to_string(spans[0]) + ">(" + tile_pointer(a) + ");");
      out_.line("const unsigned long long desc_b = croq_dev::make_kmajor_desc<" + std::to_string(spans[1]) + ">(" + tile_pointer(b) + ");");
      out_.line("#pragma unroll");
      out_.line("for (int k16 = 0; k16 < " + std::to_string(a.extent[1] / 16) + "; ++k16)");
      out_.line("  croq_dev::wgmma_m64nNk16<" + std::to_string(n) + ", " + ab + ">(" + acc->name +
                ", croq_dev::desc_advance(desc_a, k16 * 32), croq_dev::desc_advance(desc_b, k16 * 32));");
      out_.line("croq_dev::wgmma_commit_group();");
      out_.line("croq_dev::fence_accum(" + acc->name + ");");
      out_.dedent();
      out_.line("}");
      pending_mma_ = true;
      return;
    }
    case MmaOp::store: {
      operand_count(2);
      require_warpgroups("mma.store");
      auto acc = accumulator(*m.operands[0]);
      if (acc->n == 0) fail_at(program_, s.location, "mma.store of an accumulator that no mma has written");
      complete_pending_mma();
      out_.line("croq_dev::fence_accum(" + acc->name + ");  // read the accumulator only after the wait");
      Value d = expr(*m.operands[1]);
      if (d.kind != Value::Kind::view || d.view.pending != View::Pending::none || d.view.extent.size() != 2)
        fail_at(program_, m.operands[1]->location, "mma.store writes a 2-D tile of shared or global memory");
      View& v = d.view;
      if (v.buffer->slots > 0 && v.slot.empty()) fail_buffer_array(*m.operands[1]);
      if (v.extent[0] != 64 || v.extent[1] != acc->n)
        fail_at(program_, m.operands[1]->location, "the accumulator is 64 x " + std::to_string(acc->n) +
                                                       " but the destination tile is " + shape_text(v.buffer->dtype, v.extent));
      DType t = v.buffer->dtype;
      if (t != DType::f32 && t != DType::f16 && t != DType::bf16)
        fail_at(program_, m.operands[1]->location, "mma.store writes f32, f16 or bf16 tiles");
      const std::string n = std::to_string(acc->n);
      if (v.buffer->space == Buffer::Space::shared) {
        if (v.buffer->swizzle > 0)
          fail_at(program_, m.operands[1]->location, "mma.store into a swizzled shared tile is not supported yet");
        v.buffer->swizzle = 0;
        out_.line("croq_dev::store_accum_shared<" + n + ">(" + acc->name + ", " + tile_pointer(v) + ", " +
                  dim_text(*v.buffer, 1) + ");");
      } else if (v.buffer->space == Buffer::Space::global) {
        std::string rows = "64", cols = n;
        if (!v.exact) {
          // What is left of the tensor from the tile's origin; 64-bit
          // kernels clamp it to the tile first so the int cannot wrap.
          auto left = [&](int d, const std::string& tile) {
            const std::string rest = "(" + dim_text(*v.buffer, d) + " - " + v.origin[d] + ")";
            return wide_ ? "(int)(" + rest + " < " + tile + " ? " + rest + " : " + tile + ")" : "(int)" + rest;
          };
          rows = left(0, "64");
          cols = left(1, n);
        }
        out_.line("croq_dev::store_accum_global<" + n + ">(" + acc->name + ", " + tile_pointer(v) + ", " +
                  dim_text(*v.buffer, 1) + ", " + rows + ", " + cols + ");");
        mark_written(*v.buffer);
      } else {
        fail_at(program_, m.operands[1]->location, "mma.store writes shared or global memory");
      }
      return;
    }
  }
}

// ---- the kernel text ---------------------------------------------------------------

std::string Codegen::finish_hopper_text(std::string body) {
  auto replace = [&](const std::string& token, const std::string& text) {
    for (std::size_t at = body.find(token); at != std::string::npos; at = body.find(token, at + text.size()))
      body.replace(at, token.size(), text);
  };
  for (const auto& acc : accumulators_) {
    if (acc->n == 0) {  // never multiplied: nothing to hold
      replace(acc->token, "// " + acc->name + ": accumulator without an mma");
      continue;
    }
    if (acc->dtype == DType::f32)
      replace(acc->token, "float " + acc->name + "[" + std::to_string(acc->n / 2) + "];  for (int i = 0; i < " +
                              std::to_string(acc->n / 2) + "; ++i) " + acc->name + "[i] = " + acc->fill + ";");
    else
      replace(acc->token, "unsigned " + acc->name + "[" + std::to_string(acc->n / 4) + "];  { const __half2 v = __float2half2_rn(" +
                              acc->fill + "); for (int i = 0; i < " + std::to_string(acc->n / 4) + "; ++i) " + acc->name +
                              "[i] = *reinterpret_cast<const unsigned*>(&v); }");
  }
  // Producers (no mma) give registers to consumers when the block is split
  // into both and they are whole warpgroups: 40 per producer thread, the
  // rest of the 64K register file shared by the consumers. (setmaxnreg is
  // sm_90a; elsewhere the split keeps the launch's register count.)
  std::string dec, inc;
  std::int64_t producers = region_threads_[0], consumers = region_threads_[1];
  if (producers > 0 && consumers > 0 && producers + consumers == block_threads_ && target_wgmma_) {
    std::int64_t per_consumer = (65536 - producers * 40) / consumers / 8 * 8;
    per_consumer = std::min<std::int64_t>(per_consumer, 240);
    if (per_consumer > 65536 / block_threads_) {
      dec = "croq_dev::setmaxnreg_dec<40>();  // producer: give registers to the consumers";
      inc = "croq_dev::setmaxnreg_inc<" + std::to_string(per_consumer) + ">();  // consumer: take the producers' registers";
      register_split_ = true;
    }
  }
  for (const auto& [token, text] : loop_texts_) replace(token, text);
  replace("@@SETMAXNREG_DEC@@", dec);
  replace("@@SETMAXNREG_INC@@", inc);
  // Barrier initialization, once per block before any use.
  std::string init;
  for (const auto& ev : events_) {
    if (ev->offset < 0) {
      ev->offset = (shared_bytes_ + 7) / 8 * 8;
      shared_bytes_ = ev->offset + 8;
    }
    std::string arrivals = ev->arrivals.empty() ? "1" : ev->arrivals;
    init += " for (int i = 0; i < " + std::to_string(ev->count) + "; ++i) croq_dev::mbar_init(reinterpret_cast<unsigned long long*>(croq_smem + " +
            std::to_string(ev->offset) + ") + i, " + arrivals + ");";
  }
  std::string privates;
  for (const auto& ev : private_barriers_)
    privates += "unsigned long long* " + ev->name + " = reinterpret_cast<unsigned long long*>(croq_smem + " +
                std::to_string(ev->offset) + "); unsigned " + ev->phase + " = 0u; ";
  std::string prologue;
  if (!init.empty())
    prologue = "if (threadIdx.x == 0) {" + init + " croq_dev::fence_barrier_init(); }  __syncthreads();  " + privates;
  replace("@@HOPPER_PROLOGUE@@", prologue.empty() ? "// no barriers" : prologue);
  return body;
}

}  // namespace croq::codegen::detail
