// Statement forms whose rules sema checks although libcroqjit cannot run
// them yet (each is a limitation): how a parallel statement is launched
// (`parallel.async`, `parallel<s>`, `: device(...)` and `: term` levels,
// `: block<cooperative>`), barriers and fences, the bindings of `with`
// after the first, local loop names and `where` clauses.
#include "frontend/ast_walk.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

// The launch of parallel statement `p`: checked once, at its first level.
void LevelChecker::parallel_launch(const Stmt& s, const Parallel& p) {
  if (p.is_async && cx_.parallel_depth_ > 0)
    fail(Rule::parallel_async_inner, s.location, "an inner parallel statement cannot be `parallel.async`",
         "only the outermost parallel statement (a kernel launch) runs asynchronously to the host");
  if (p.stream) {
    const std::string& name = std::get<Name>(p.stream->node).name;
    if (cx_.parallel_depth_ > 0)
      fail(Rule::parallel_stream, p.stream->location,
           "only the outermost parallel statement is launched on a stream (`parallel<" + name + ">`)");
    const Symbol* sym = lookup(name);
    if (!sym) {
      c_.expressions.expr(*p.stream);  // reports the unknown name
      throw Abort{};
    }
    const bool stream_param = sym->origin == Origin::parameter && sym->parameter >= 0 &&
                              cx_.fn_.params[static_cast<std::size_t>(sym->parameter)].type.name == "stream";
    if (!stream_param)
      fail(Rule::parallel_stream, p.stream->location,
           "`" + name + "` is not a stream; `parallel<...>` takes a `stream` parameter",
           "add a parameter `stream " + name + "` to the function", notes_of(sym->type));
  }
  // `parallel.async` and `parallel<s>`: libcroqjit launches the kernels of a
  // call in order (on their streams, joined by events) without waiting for
  // them, which is a valid schedule of async regions.
}

// A `: device(...)` or `: term` level: it names where the levels inside it
// run, and takes no part in the block/thread mapping. Returns false for
// any other level.
bool LevelChecker::placement_level(const Stmt& s, const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = p.levels[level_index];
  if (lv.space != SpaceSpecifier::device && lv.space != SpaceSpecifier::term) return false;
  std::vector<Count> values;
  try {
    values = c_.expressions.counts(*lv.count, what::parallel_count);
  } catch (const Abort&) {
  }
  try {
    if (lv.space == SpaceSpecifier::device && (level_index > 0 || cx_.parallel_depth_ > 0 || cx_.scope_ != Scope::kernel))
      fail(Rule::device_outermost, lv.location, "a `: device` level must be the outermost parallel level",
           "put the `: block` and `: thread` levels inside it");
    // One instance of a `: device(cpu|gpu)` level is a kernel launch: its
    // body runs on the GPU either way (docs/guide/language.md, "Parallel mapping").
    const bool one = values.size() == 1 && values[0].known == Known::now && values[0].value == 1;
    if (lv.space == SpaceSpecifier::term)
      limitation(Rule::unsupported_launch, lv.space_location, "`: term` levels are not supported yet by libcroqjit",
                 "drop the level; the blocks run on the GPU");
    else if (!one)
      limitation(Rule::unsupported_launch, lv.count->location,
                 "a `: device(" + lv.device + ")` level of more than one instance is not supported yet by libcroqjit",
                 "write `by 1`; the levels inside it say how the work is spread");
  } catch (const Abort&) {
  }
  // Without parallel levels inside, the level itself maps as an unannotated
  // one (one thread runs it); lowering reads that mapping.
  if (lv.space == SpaceSpecifier::device && level_index + 1 == p.levels.size() && !contains_parallel(*p.body)) {
    cx_.out_.level_spaces[&lv] = SpaceSpecifier::none;
    level_mapping(p, level_index, SpaceSpecifier::none, false);
  }
  cx_.push();
  for (std::size_t d = 0; d < lv.indices.size(); ++d) {
    Type t;
    t.kind = Kind::index;
    if (d < values.size() && values[d].known == Known::now) t.count = values[d].value;
    define(lv.indices[d].name, t, Origin::parallel_index, lv.indices[d].location, "`: device` level");
  }
  parallel(s, p, level_index + 1);
  cx_.pop();
  return true;
}

// sync.shared / sync.global / sync.barrier : level / sync.fence : level<memory>
void StatementChecker::sync_statement(const Stmt& s, const Sync& y) {
  if (y.scope == "barrier" && y.level == SpaceSpecifier::device && cx_.cooperative_levels_ == 0)
    fail(Rule::barrier_needs_cooperative, s.location,
         "`sync.barrier : device` waits for every block of the grid: it needs an enclosing `: block<cooperative>` "
         "level",
         "launch the blocks together: `parallel b by N : block<cooperative> { ... }`");
  using L = SpaceSpecifier;
  // In a cooperative launch `sync.barrier : block` (and `: device`) waits
  // for the whole grid; libcroqjit runs it where the whole block runs.
  const bool grid_barrier =
      y.scope == "barrier" && cx_.cooperative_levels_ > 0 && (y.level == L::block || y.level == L::device);
  if (grid_barrier && (cx_.scope_ != Scope::block || cx_.region_.active)) {
    limitation(Rule::unsupported_statement, s.location,
               "a grid barrier inside a thread level is not supported yet by libcroqjit",
               "put the `sync.barrier` at the scope of the `: block<cooperative>` level, where every thread reaches it");
    return;
  }
  const bool barrier = y.scope == "barrier" && (grid_barrier || y.level == L::group || y.level == L::thread ||
                                                (y.level == L::block && cx_.cooperative_levels_ == 0));
  const bool fence = y.scope == "fence" && (y.level == L::thread || y.level == L::group || y.level == L::group4 ||
                                            y.level == L::block || y.level == L::device);
  // At function scope `sync.global` waits for the kernels launched so far:
  // stream order already makes the next kernel wait for them.
  const bool global = is_global_sync(s) && cx_.scope_ == Scope::kernel && cx_.parallel_depth_ == 0;
  if (y.scope == "shared" || barrier || fence || global) return;
  std::string what = "`sync." + y.scope;
  if (y.level != L::none) what += std::string(" : ") + space_name(y.level);
  if (!y.storage.empty()) what += "<" + y.storage + ">";
  fail(Rule::unsupported_statement, s.location, what + "` is not supported yet by libcroqjit",
       "libcroqjit lowers `sync.shared`, `sync.barrier : block|group|thread` and `sync.fence`");
}

// What a loop binds besides its first group of indices: local names
// (`foreach c = a(1:)`), later `with` bindings and the `where` pairs.
void StatementChecker::loop_extras(const Loop& l) {
  for (const LoopIndex& index : l.indices) {
    if (!index.local_name) continue;
    const Identifier& local = *index.local_name;
    if (local.name == "_") {
      report(Rule::wildcard_outside_chunkat, local.location,
             "`_` cannot name a loop index; it only keeps a dimension whole in `chunkat`",
             "give the index a name, e.g. `c = " + index.name.name + "`", {});
      continue;
    }
    if (const Symbol* other = cx_.declared_here(local.name); other && other->origin == Origin::loop_index) {
      report(Rule::redeclaration, local.location, "the local name `" + local.name + "` is already used in this foreach",
             "give each index its own name", {});
      continue;
    }
    const Symbol* source = lookup(index.name.name);
    Type t;
    t.kind = Kind::index;
    if (source) t = source->type;
    define(local.name, t, Origin::loop_index, local.location, "foreach");
  }
  // Each binding of one `with` names new indices: a name bound twice is an error.
  auto new_index_name = [&](const Identifier& id) {
    try {
      cx_.require_new_name(id.name, id.location);
    } catch (const Abort&) {
    }
  };
  for (const LoopBinding& b : l.more_bindings) {
    for (const LoopIndex& index : b.indices) new_index_name(index.name);
    if (b.tuple_name) new_index_name(*b.tuple_name);
    std::vector<Count> bounds;
    try {
      {
        RuntimeCounts runtime(cx_.runtime_counts_, true);  // `with` only binds its indices
        bounds = c_.expressions.counts(*b.bound, what::loop_bound);
      }
      if (!(b.indices.size() == 1 && !b.braced) && b.indices.size() != bounds.size())
        fail(Rule::loop_index_count, b.bound->location,
             std::to_string(b.indices.size()) + " loop indices but the bound has " + std::to_string(bounds.size()) +
                 " dimensions");
    } catch (const Abort&) {
      bounds.clear();
    }
    Type tuple;
    tuple.kind = Kind::tuple;
    std::string names;
    if (b.indices.size() == 1 && !b.braced && bounds.size() > 1) {  // `with i in [4, 8]`: a tuple of indices
      index_tuple(b.indices[0].name, bounds);
      continue;
    }
    for (std::size_t d = 0; d < b.indices.size(); ++d) {
      Type t;
      t.kind = Kind::index;
      if (d < bounds.size() && bounds[d].known == Known::now) t.count = bounds[d].value;
      names += (d ? ", `" : "`") + b.indices[d].name.name + "`";
      tuple.elements.push_back(define(b.indices[d].name.name, t, Origin::loop_index, b.indices[d].name.location, "with")->type);
    }
    if (b.tuple_name) define(b.tuple_name->name, tuple, Origin::index_tuple, b.tuple_name->location, names);
  }
  // `where a <-> b` pairs indices of this statement's own bindings.
  for (const WhereBind& w : l.where)
    for (const Identifier* id : {&w.first, &w.second}) {
      bool own = false;
      for (const LoopIndex& index : l.indices) own = own || index.name.name == id->name;
      for (const LoopBinding& b : l.more_bindings)
        for (const LoopIndex& index : b.indices) own = own || index.name.name == id->name;
      if (!own)
        report(Rule::where_index, id->location,
               "`" + id->name + "` is not an index of this `with`; `where` pairs indices its bindings name", "", {});
    }
  // `: unroll(N)` unrolls the innermost index: N is at most its count.
  const Attribute* unroll = nullptr;
  for (const Attribute& h : l.hints)
    if (h.name == "unroll" && h.args.size() == 1) unroll = &h;
  if (unroll && !l.indices.empty() && !l.indices.back().range) {
    const LoopIndex& last = l.indices.back();
    const Symbol* sym = lookup(last.local_name ? last.local_name->name : last.name.name);
    std::optional<std::int64_t> extent;
    if (sym && sym->type.kind == Kind::index) extent = sym->type.count;
    if (sym && sym->type.kind == Kind::tuple && !sym->type.elements.empty()) extent = sym->type.elements.back().count;
    const auto* factor = std::get_if<IntegerLiteral>(&unroll->args[0]->node);
    if (extent && factor && factor->value > static_cast<std::uint64_t>(*extent)) {
      try {
        fail(Rule::unroll_factor, unroll->args[0]->location,
             "the unroll factor (" + std::to_string(factor->value) + ") exceeds the loop extent (" +
                 std::to_string(*extent) + ")",
             "unroll by at most " + std::to_string(*extent));
      } catch (const Abort&) {
      }
    }
  }
  for (const WhereBind& w : l.where) {
    for (const Identifier* id : {&w.first, &w.second}) {
      try {
        if (!lookup(id->name))
          fail(Rule::unknown_name, id->location, "unknown name `" + id->name + "`",
               "`where` pairs two indices of the `with` bindings");
      } catch (const Abort&) {
      }
    }
  }
}

}  // namespace croq::sema::detail
