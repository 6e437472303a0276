// Events and futures (docs/guide/targets.md): `shared event e[N]`, `trigger`,
// `wait`, and the futures of copies.
#include "sema/checker.hpp"

namespace croq::sema::detail {

void TransferChecker::event_declaration(const Stmt& s, const Declaration& d) {
  const bool global = d.type.storage == Storage::global;
  if (d.type.storage == Storage::shared && cx_.options_.target && !cx_.options_.target->mbarrier() &&
      !cx_.needs_sm80_reported_) {
    cx_.needs_sm80_reported_ = true;
    fail(Rule::needs_sm80, s.location,
         "events are mbarriers, which need sm_80 or newer (compiling for " + cx_.options_.target->arch + ")");
  }
  // Croqtile's rules first: where each storage of event may be declared.
  if (cx_.region_.active || cx_.inthreads_depth_ > 0)
    fail(Rule::event_scope, s.location, "events are not declared inside inthreads",
         "declare the event before the inthreads region, in the parallel level around it");
  if (global && cx_.parallel_depth_ > 0)
    fail(Rule::event_scope, s.location, "`global` events are declared at function scope, outside parallel statements",
         "move the declaration out of the parallel statement, or make the event `shared`");
  if (!global && cx_.parallel_depth_ == 0)
    fail(Rule::event_scope, s.location,
         std::string("`") + storage_name(d.type.storage) + "` events are declared inside a parallel statement",
         "move the declaration into the `: block` level that uses it");
  const bool local = d.type.storage == Storage::local;
  if (d.type.storage != Storage::shared && !global && !local)
    fail(Rule::event_not_shared, d.type.location,
         (*storage_name(d.type.storage) ? std::string("`") + storage_name(d.type.storage) + "` events"
                                        : std::string("events without a storage (`event e;`)")) +
             " are not supported yet by libcroqjit: events live in shared, global or local memory",
         "declare it `shared event` (the block's threads), `global event` (every block, at function scope) or "
         "`local event` (each thread's own)");
  // Declared in the block level or any level inside it (a parallel
  // statement that declares a shared event runs in blocks): the block's
  // barrier, as lowering declares it.
  for (const Declarator& decl : d.declarators) {
    cx_.require_new_name(decl.name, decl.location);
    EventArray& ev = cx_.out_.events.emplace_back();
    // Lowering declares the barriers from these facts (and applies the
    // count rule, bound_rules.hpp, to a count known only when bound).
    if (!cx_.trial_) cx_.out_.declared_events[&decl] = &ev;
    ev.name = decl.name;
    ev.global = global;
    ev.local = local;
    ev.is_array = decl.array_size != nullptr;
    ev.dimensions = 1 + static_cast<int>(decl.more_array_dims.size());
    for (const ExprPtr& size : decl.more_array_dims)
      ev.inner_counts.push_back(c_.expressions.constant(*size, what::event_count));
    ev.count_expr = decl.array_size.get();
    ev.count = decl.array_size ? c_.expressions.constant(*decl.array_size, what::event_count) : std::optional<std::int64_t>(1);
    if (Verdict broken = ev.count ? event_count(*ev.count) : std::nullopt)
      fail(*ev.count < 1 ? decl.array_size->location : decl.location, std::move(*broken));
    // `e[4][8]` is one array of 32 events: the rule holds for the product.
    std::optional<std::int64_t> all = ev.count;
    for (const auto& n : ev.inner_counts) all = all && n ? std::optional<std::int64_t>(event_product(*all, *n)) : std::nullopt;
    if (Verdict broken = all && !ev.inner_counts.empty() && *all > 0 ? event_count(*all) : std::nullopt)
      fail(decl.location, std::move(*broken));
    if (decl.init != Declarator::Init::none) {
      const auto* name = decl.init_values.size() == 1 ? std::get_if<Name>(&decl.init_values[0]->node) : nullptr;
      if (!name || name->name != "ready")
        fail(Rule::event_init, decl.location, "an event can only be initialized `= ready`",
             "`= ready` makes the first wait pass; leave it out otherwise");
      ev.ready = true;
    }
    Type t;
    t.kind = Kind::event;
    t.event = &ev;
    define(decl.name, t, Origin::declaration, decl.location);
  }
}

Type TransferChecker::event_value(const Expr& e, const char* what, bool whole_array) {
  Type v = c_.expressions.expr(e);
  require_ok(v);
  if (v.kind != Kind::event)
    fail(Rule::event_expected, e.location, std::string(what) + " takes an event, got `" + text(e) + "`", "", notes_of(v));
  // `trigger e;` and `wait e;` of an array trigger and wait for every event of it.
  if (whole_array) return v;
  if (Verdict broken = !v.event_selected && v.event->count ? event_unselected(text(e), *v.event->count) : std::nullopt)
    fail(e.location, std::move(*broken), notes_of(v));
  return v;
}

void TransferChecker::wait_statement(const Stmt&, const Wait& w) {
  for (const auto& target : w.targets) note_named_future(*target);  // even when one has an error
  for (const auto& target : w.targets) {
    Type f = c_.expressions.expr(*target);
    require_ok(f);
    if (f.kind == Kind::event) {
      const Type ev = event_value(*target, "`wait`", true);
      if (ev.event && ev.event->global) host_event(*target, ev, "wait");
      continue;
    }
    if (f.from && (f.kind == Kind::mma_future || f.kind == Kind::future)) cx_.waited_.insert(f.from);
    if (f.kind == Kind::mma_future) continue;
    if (f.kind != Kind::future)
      fail(Rule::wait_operand, target->location,
           "`wait` takes the future of an asynchronous copy or an event, got `" + text(*target) + "`", "", notes_of(f));
    if (f.bound_event) {
      const std::string event = text(*f.bound_event);
      fail(Rule::wait_on_bound_future, target->location,
           "`" + text(*target) + "` completes on event `" + event + "` (it was started with `.async<" + event +
               ">`); wait on the event: `wait " + event + ";`",
           "", notes_of(f));
    }
    if (!f.async)
      fail(Rule::wait_on_sync_copy, target->location,
           "waiting on a synchronous copy: `" + text(*target) + "` was not started with `.async`",
           "remove the `wait`, or add `.async` to the copy", notes_of(f));
  }
}

// `trigger e after f`: the event completes with the copy, so `f` must be
// an asynchronous TMA load that nothing has waited for yet.
void TransferChecker::trigger_after(const Trigger& t) {
  for (const auto& target : t.targets) {
    const auto* at = std::get_if<Member>(&target->node);
    if (t.after.size() < 2 || !at || at->kind != MemberKind::at || at->args.size() != 1) continue;
    const auto* order = std::get_if<Unary>(&at->args[0]->node);
    if (order && (order->op == UnaryOp::post_increment || order->op == UnaryOp::pre_increment ||
                  order->op == UnaryOp::post_decrement || order->op == UnaryOp::pre_decrement))
      fail(Rule::trigger_after_order, at->args[0]->location,
           "`" + text(*at->args[0]) + "` changes the event order in a trigger after " + std::to_string(t.after.size()) +
               " futures",
           "trigger with the order as it is, then advance it in a statement of its own");
  }
  for (const auto& dependency : t.after) {
    Type f = c_.expressions.expr(*dependency);
    require_ok(f);
    const std::string name = text(*dependency);
    if (!std::holds_alternative<Name>(dependency->node) || (f.kind != Kind::future && f.kind != Kind::mma_future))
      fail(Rule::trigger_after_future, dependency->location,
           "`trigger ... after` takes the future of an asynchronous copy, got `" + name + "`", "", notes_of(f));
    if (f.from && cx_.waited_.count(f.from))
      fail(Rule::trigger_after_future, dependency->location,
           "`" + name + "` has been waited for already; the event can no longer complete with it",
           "trigger the event right after the `wait " + name + ";`", notes_of(f));
    if (f.kind == Kind::mma_future)
      fail(Rule::trigger_after_future, dependency->location,
           "`" + name + "` is the future of an mma, which completes no event by itself",
           "write `wait " + name + ";` and then the `trigger`", notes_of(f));
    if (f.engine != Engine::tma || !f.async)
      fail(Rule::trigger_after_future, dependency->location,
           "`" + name + "` is not an asynchronous tma.copy: only TMA loads complete an event",
           "write `wait " + name + ";` and then the `trigger`", notes_of(f));
    if (f.buffer && f.buffer->space != Space::shared)
      fail(Rule::trigger_after_future, dependency->location,
           "`" + name + "` is a TMA store (shared to global), which completes no event",
           "store with a synchronous tma.copy, then `trigger` the event", notes_of(f));
  }
}

void TransferChecker::trigger_statement(const Stmt& s, const Trigger& t) {
  // `trigger.cluster e`: every block of the cluster arrives on e in each
  // block (freeing a stage that the cluster's multicast loads fill).
  if (!t.scope.empty() && !cx_.clustered_)
    fail(Rule::multicast_scope, s.location,
         "`trigger." + t.scope + "` signals the blocks of a cluster, but this kernel has no `: cluster` level",
         "write `trigger`, or put the block level in a cluster");
  for (const auto& dependency : t.after) note_named_future(*dependency);
  for (const auto& target : t.targets) counted_event_trigger(s, t, *target);
  if (!t.after.empty()) trigger_after(t);
  using Scope = EventArray::Scope;
  const Scope scope = t.scope.empty() ? Scope::block : Scope::cluster;
  for (const auto& target : t.targets) {
    const Type ev = event_value(*target, "`trigger`", t.after.empty());  // a copy completes one event
    if (EventArray* e = ev.event) {
      // The barrier counts one kind of arrival: the block's, or the cluster's.
      if (e->scope == Scope::unknown) {
        e->scope = scope;
        e->first_scope_site = target->location;
      } else if (e->scope != scope) {
        const auto& at = e->first_scope_site;
        fail(Rule::multicast_scope, target->location,
             "event `" + e->name + "` is triggered " + (scope == Scope::cluster ? "with" : "without") +
                 " `.cluster` here but " + (scope == Scope::cluster ? "without" : "with") + " it at " +
                 std::to_string(at.line) + ":" + std::to_string(at.column) +
                 ": its barrier counts either its own block's arrivals or the whole cluster's",
             "trigger the event the same way everywhere");
      }
    }
    if (!ev.event || (!ev.event->global && !ev.event->local)) arrive(ev, target->location);
  }
}

// A global or local event counts the triggers of threads: a copy completes
// none, and it has no cluster to signal.
void TransferChecker::counted_event_trigger(const Stmt& s, const Trigger& t, const Expr& target) {
  const Type ev = c_.expressions.expr(target);
  if (ev.kind != Kind::event || !ev.event || (!ev.event->global && !ev.event->local)) return;
  const bool global = ev.event->global;
  const Rule rule = global ? Rule::global_event_use : Rule::local_event_use;
  if (!t.after.empty())
    fail(rule, t.after.front()->location,
         std::string(global ? "global event `" : "local event `") + ev.event->name +
             (global ? "` is triggered by threads" : "` is one thread's, set by its triggers") + "; no copy completes it",
         "write `wait " + text(*t.after.front()) + ";` and then `trigger " + text(target) + ";`");
  if (!t.scope.empty())
    fail(rule, s.location,
         "`trigger." + t.scope + "` of " + (global ? "global" : "local") + " event `" + ev.event->name +
             (global ? "`: a global event is seen by every block already" : "`: a local event is one thread's"),
         "write `trigger " + text(target) + ";`");
  if (global) host_event(target, ev, "trigger");
}

void TransferChecker::host_event(const Expr& target, const Type& ev, const char* what) {
  if (cx_.parallel_depth_ == 0)
    fail(Rule::unsupported_host_event, target.location,
         std::string("`") + what + "` of global event `" + ev.event->name +
             "` outside parallel statements is not supported yet by libcroqjit",
         std::string("move the `") + what + "` into the parallel statement that runs before or after it");
}

// The arrivals a trigger adds to an event's phase: one per warp of the
// threads running it (one per thread when they are not whole warps). Every
// trigger of an event must agree, since they fix the barrier's count.
void TransferChecker::arrive(const Type& ev, const SourceLocation& where) {
  std::string arrivals = "blockDim.x";
  if (cx_.region_.active) {
    if (!cx_.region_.threads) return;  // known per specialization
    const std::int64_t n = *cx_.region_.threads;
    arrivals = std::to_string(n % 32 == 0 ? n / 32 : n);
  }
  EventArray& e = *ev.event;
  if (e.arrivals.empty()) {
    e.arrivals = arrivals;
    e.first_trigger = where;
  } else if (e.arrivals != arrivals) {
    fail(Rule::trigger_thread_sets, where,
         "event `" + e.name + "` is triggered by a different set of threads here than at " +
             std::to_string(e.first_trigger.line) + ":" + std::to_string(e.first_trigger.column),
         "trigger an event from one kind of thread group (one warpgroup region, or the whole block)");
  }
}

// A copy's future: its tile, whether it is asynchronous, and the event that
// completes it when `.async<e>` names one.
void TransferChecker::bind_future(const Copy& c, Type tile, bool async, const Expr* bound_event) {
  if (!c.future) return;
  const auto* name = std::get_if<Name>(&c.future->node);
  if (!name) fail(Rule::future_name, c.future->location, "a copy's future must be a plain name");
  tile.kind = Kind::future;
  tile.async = async;
  tile.bound_event = bound_event;
  tile.engine = c.engine;
  tile.zfill = false;
  define_future(name->name, tile, c.future->location,
                std::string(c.engine == Engine::tma ? "tma." : "dma.") + copy_op_name(c.op));
}

}  // namespace croq::sema::detail
