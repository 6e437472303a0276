// Parallel levels (docs/guide/language.md, "Parallel mapping"), clusters and inthreads.async
// regions: where each level runs, the counts that are constants in the
// source, and which warpgroups a region selects.
#include <algorithm>
#include <deque>

#include "frontend/ast_walk.hpp"
#include "frontend/frontend.hpp"
#include "frontend/warp_block.hpp"
#include "sema/checker.hpp"
#include "sema/level_inference.hpp"
#include "support/checked_int.hpp"

namespace croq::sema::detail {

namespace {

// Stages data in shared memory: an unannotated top level then maps to blocks.
bool uses_shared(const Stmt& s) {
  return any_statement(s, [](const Stmt& st) {
    if (const auto* c = std::get_if<Copy>(&st.node)) return c->destination_storage == Storage::shared;
    if (const auto* d = std::get_if<Declaration>(&st.node)) return d->type.storage == Storage::shared;
    return std::holds_alternative<Sync>(st.node);
  });
}

std::string space_text(const ParallelLevel& lv) {
  return lv.space == SpaceSpecifier::none ? "parallel level" : "`: " + std::string(space_name(lv.space)) + "` level";
}

}  // namespace

// A `: cluster` level counts the blocks of one cluster (Croqtile's
// clusters); the `: block` level that must follow it (the next level of the
// statement, or the first level of the sole statement of its body) is the
// whole grid, whose first index the clusters tile (lowering rounds the grid
// up to whole clusters). Returns the blocks per cluster when they are
// constants.
std::optional<std::int64_t> LevelChecker::cluster_blocks(const Parallel& p, std::size_t level) {
  const ParallelLevel& lv = p.levels[level];
  const ParallelLevel* next = level_after_cluster(p, level);
  if (!next || next->space != SpaceSpecifier::block)
    fail(Rule::cluster_needs_block, lv.location, "a `: cluster` level must be directly followed by a `: block` level",
         "write `parallel c by C : cluster, b by B : block { ... }`, or a `: block` level as the only statement of the "
         "cluster level");
  support::CheckedInt blocks{1};
  for (const Count& c : c_.expressions.counts(*lv.count, what::parallel_count)) {
    if (c.known != Known::now || c.value <= 0) return std::nullopt;  // the level reports a count below 1
    if (blocks.ok()) blocks = support::checked_mul(blocks.value, c.value);
  }
  if (Verdict broken = cluster_size(blocks, text(*lv.count))) fail(lv.count->location, std::move(*broken));
  return blocks.value;
}

// The counts of level `lv` (each known now or not) and their product.
LevelChecker::LevelCounts LevelChecker::level_counts(const ParallelLevel& lv) {
  LevelCounts n;
  std::vector<Count>& count_values = n.values;
  std::int64_t& total = n.total;
  bool& total_known = n.known;
  try {
    // The index count first: a runtime count (a limitation) must not hide it.
    if (const auto* list = std::get_if<ShapeList>(&lv.count->node);
        list && !lv.indices.empty() && lv.indices.size() != list->dims.size())
      fail(Rule::parallel_index_count, lv.location,
           std::to_string(lv.indices.size()) + " indices but " + std::to_string(list->dims.size()) + " counts after `by`");
    {
      // A level outside every parallel statement is a launch: the host may
      // compute its count (LevelChecker::parallel keeps that to grid levels).
      HostCounts host(cx_.host_counts_, cx_.scope_ == Scope::kernel);
      count_values = c_.expressions.counts(*lv.count, what::parallel_count);
    }
    if (!lv.indices.empty() && lv.indices.size() != count_values.size())
      fail(Rule::parallel_index_count, lv.location,
           std::to_string(lv.indices.size()) + " indices but " + std::to_string(count_values.size()) + " counts after `by`");
    for (const Count& c : count_values) {
      if (c.known != Known::now) {
        total_known = false;
        continue;
      }
      if (Verdict broken = parallel_count(c.value)) fail(lv.count->location, std::move(*broken));
      if (total_known) {
        auto product = support::checked_mul(total, c.value);
        total_known = product.ok();
        total = product.value;
      }
    }
  } catch (const Abort&) {
    total_known = false;
    count_values.assign(lv.indices.size(), Count{});
  }
  return n;
}

// The space level `level_index` of `p` runs at: the one it names, or the
// one Croqtile infers for an unannotated level from the levels around and
// below it (recorded for lowering).
SpaceSpecifier LevelChecker::level_space(const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = p.levels[level_index];
  SpaceSpecifier space = lv.space;
  if (space == SpaceSpecifier::none) {
    const SpaceSpecifier outer = cx_.parent_space_ == SpaceSpecifier::device ? SpaceSpecifier::none : cx_.parent_space_;
    InferredLevel inferred = infer_level(outer, p, level_index);
    const bool unfit = !inferred.unfit.empty();
    if (unfit && !cx_.level_unfit_)
      report(Rule::thread_level_nesting, lv.location, std::move(inferred.unfit),
             "annotate the levels (`: block`, `: group-4`, `: group`, `: thread`), or nest fewer", {});
    cx_.level_unfit_ = cx_.level_unfit_ || unfit;
    space = inferred.space;
  }
  cx_.out_.level_spaces[&lv] = space;
  return space;
}

// Where level `level_index` of `p` runs (recorded for lowering).
Mapping LevelChecker::level_mapping(const Parallel& p, std::size_t level_index, SpaceSpecifier space,
                                    bool nested_below) {
  const ParallelLevel& lv = p.levels[level_index];
  Mapping mapping;
  switch (space) {
    case SpaceSpecifier::block: mapping = Mapping::grid; break;
    case SpaceSpecifier::thread: case SpaceSpecifier::group: case SpaceSpecifier::group4: mapping = Mapping::threads; break;
    case SpaceSpecifier::cluster: mapping = Mapping::cluster; break;
    default:
      mapping = cx_.scope_ != Scope::kernel ? Mapping::threads
                : (nested_below || uses_shared(*p.body) || block_of_one_warp(*p.body)) ? Mapping::grid
                                                         : Mapping::flat;
  }
  cx_.out_.mappings[&lv] = mapping;
  return mapping;
}

// The rules of a level's nesting and size: outermost clusters and blocks,
// one block-level statement, thread levels that fit the block.
void LevelChecker::check_level_fits(const Parallel& p, std::size_t level_index, SpaceSpecifier space, Mapping mapping,
                                    const LevelCounts& n, std::int64_t unit, bool nested_below) {
  const ParallelLevel& lv = p.levels[level_index];
  const std::int64_t total = n.total;
  const bool total_known = n.known;
  if (mapping == Mapping::cluster && (cx_.scope_ != Scope::kernel || cx_.cluster_open_))
    fail(Rule::cluster_outermost, lv.location, "a `: cluster` level must be the outermost parallel level");
  if (mapping == Mapping::grid && cx_.scope_ != Scope::kernel)
    fail(Rule::block_outermost, lv.location, "a `: block` level must be the outermost parallel level",
         "an unannotated level inside a block level runs on its threads; say `: thread` or `: group-4`");
  if (mapping == Mapping::threads && cx_.scope_ == Scope::thread && space != SpaceSpecifier::thread)
    fail(Rule::thread_level_nesting, lv.location,
         "a `: " + std::string(space_name(space)) + "` level inside a thread level",
         "levels nest block, group-4, group, thread from the outside in");
  if (mapping != Mapping::threads && cx_.grid_set_)
    fail(Rule::one_grid, lv.location, "only one block-level parallel statement per kernel is supported yet",
         "put every block-level statement in one `parallel ... : block`");
  if (mapping == Mapping::cluster) {
    cluster_blocks(p, level_index);
    if (cx_.options_.target && !cx_.options_.target->clusters() && !cx_.needs_sm90_reported_) {
      cx_.needs_sm90_reported_ = true;
      fail(Rule::needs_sm90, lv.location, "`: cluster` needs sm_90 (Hopper) (compiling for " + cx_.options_.target->arch + ")");
    }
  }
  if (Verdict broken = mapping == Mapping::threads && total_known ? sema::block_threads(support::checked_mul(total, unit))
                                                                   : std::nullopt)
    fail(lv.location, std::move(*broken));
  // Croqtile refuses a `: group` level written inside a `: group-4` one; one
  // it infers there runs the warps of each warpgroup.
  if (mapping == Mapping::threads && space == SpaceSpecifier::group && cx_.group4_levels_ > 0) {
    if (lv.space != SpaceSpecifier::none)
      fail(Rule::group_nesting, lv.location, "a `: group` level inside a `: group-4` level",
           "split the warpgroup's threads with a `: thread` level, or make this level a sibling of the `: group-4` one");
    if (!total_known || total > 4)
      fail(Rule::group_nesting, lv.location,
           "an unannotated level inferred as `: group` inside a `: group-4` level runs the 4 warps of each warpgroup, "
           "but counts " + (total_known ? std::to_string(total) : "`" + text(*lv.count) + "`"),
           "give it at most 4 instances, or annotate it `: thread` to split the warpgroup's threads");
  }
  if (mapping == Mapping::threads && total_known && cx_.thread_split_ && unit == 1 && cx_.split_groups_) {
    auto needed = support::checked_mul(total, *cx_.split_groups_);
    if (!needed.ok() || needed.value > 1024)
      fail(Rule::block_thread_limit, lv.location,
           "this parallel level needs " + (needed.ok() ? std::to_string(needed.value) : std::string("more than 2^63")) +
               " threads in a block (" + std::to_string(*cx_.split_groups_) + " groups of " + std::to_string(total) +
               "); a block has at most 1024");
  }
  if (mapping == Mapping::threads && total_known) {
    if (cx_.scope_ == Scope::block && !cx_.thread_split_) block_threads(lv, total * unit, !nested_below);
    // A rule of the GPU targets: `croq check` without --arch leaves it out.
    if ((space == SpaceSpecifier::thread || space == SpaceSpecifier::none) && cx_.options_.target)
      thread_level_units(lv, total);
  }
}

// A count the host computes at launch (HostCounts) sizes a grid of blocks
// or of threads (flat); the threads of a block, the blocks of a cluster and
// a cooperative grid are constants of the kernel.
void LevelChecker::runtime_count_fits(const ParallelLevel& lv, const std::vector<Count>& counts, Mapping mapping,
                                      bool cooperative) {
  const bool at_launch =
      std::any_of(counts.begin(), counts.end(), [](const Count& c) { return c.known == Known::at_run_time; });
  const bool grid = (mapping == Mapping::grid && !cx_.cluster_open_) || mapping == Mapping::flat;
  if (at_launch && (!grid || cooperative))
    limitation(Rule::unsupported_runtime_value, lv.count->location,
               "`" + text(*lv.count) + "` is computed at run time, and libcroqjit computes only a grid's count at the "
               "launch: the threads of a block, the blocks of a cluster and a cooperative grid are counted at compile time",
               "use a constant here, or move the run-time count to the outermost `: block` level");
}

void LevelChecker::parallel(const Stmt& s, const Parallel& p, std::size_t level_index) {
  if (level_index == p.levels.size()) {
    const int loops = cx_.loops_;
    cx_.loops_ = 0;  // a parallel body is not inside the loops around it: no break out of it
    if (cx_.parallel_depth_ == 0) cx_.kernel_shared_bytes_ = 0;  // a top-level parallel statement is a kernel of its own
    ++cx_.parallel_depth_;
    c_.statements.nested(*p.body);
    --cx_.parallel_depth_;
    cx_.loops_ = loops;
    return;
  }
  if (level_index == 0) {
    try {
      parallel_launch(s, p);
    } catch (const Abort&) {
    }
  }
  if (placement_level(s, p, level_index)) return;
  const ParallelLevel& lv = p.levels[level_index];
  const bool cooperative = lv.cooperative && lv.space == SpaceSpecifier::block;
  if (lv.cooperative && !cooperative)
    limitation(Rule::cooperative_level, lv.cooperative_location,
               "`<cooperative>` applies only to a `: block` level; Croqtile ignores it here",
               "remove it, or write `parallel b by N : block<cooperative>`");
  LevelCounts n = level_counts(lv);
  std::vector<Count>& count_values = n.values;
  const std::int64_t total = n.total;  // the product of the counts, when total_known
  const bool total_known = n.known;
  const bool nested_below = level_index + 1 < p.levels.size() || contains_parallel(*p.body);
  const bool level_unfit = cx_.level_unfit_;
  const SpaceSpecifier space = level_space(p, level_index);
  const Mapping mapping = level_mapping(p, level_index, space, nested_below);
  runtime_count_fits(lv, count_values, mapping, cooperative);
  const std::int64_t unit = space == SpaceSpecifier::group ? 32 : space == SpaceSpecifier::group4 ? 128 : 1;
  const Context::Placement saved = cx_.placement();
  bool pushed_group = false;
  // The `: block` level of a cluster level that had an error: reported already.
  const bool after_bad_cluster = mapping == Mapping::grid && cx_.cluster_open_ && cx_.cluster_error_;
  cx_.cluster_error_ = false;
  // A thread, group or group-4 level outside any block level runs in one
  // block, as inside `parallel by 1 : block` (lowering does the same).
  const std::int64_t saved_bound = cx_.launch_bound_;
  const auto saved_block_threads = cx_.block_threads_;
  const SourceLocation saved_block_threads_at = cx_.block_threads_at_;
  const bool implicit_block = mapping == Mapping::threads && cx_.scope_ == Scope::kernel && !cx_.cluster_open_;
  if (implicit_block || mapping == Mapping::grid) cx_.thread_instances_ = 1;
  if (mapping == Mapping::flat || (mapping == Mapping::threads && !(total_known && total == 1))) cx_.thread_instances_ = 0;
  if (implicit_block) {
    cx_.launch_bound_ = cx_.pending_launch_bound_;
    cx_.pending_launch_bound_ = 0;
    cx_.block_threads_.reset();
    cx_.grid_set_ = true;
    cx_.scope_ = Scope::block;
  }
  try {
    if (after_bad_cluster) throw Abort{};
    check_level_fits(p, level_index, space, mapping, n, unit, nested_below);
  } catch (const Abort&) {
    cx_.cluster_error_ = mapping == Mapping::cluster;
  }
  switch (mapping) {
    case Mapping::cluster:
      cx_.cluster_open_ = true;
      cx_.clustered_ = true;
      break;
    case Mapping::grid:
      cx_.launch_bound_ = cx_.pending_launch_bound_;
      cx_.pending_launch_bound_ = 0;
      cx_.block_threads_.reset();
      cx_.cluster_open_ = false;
      cx_.grid_set_ = true;
      cx_.scope_ = Scope::block;
      cx_.in_warpgroup_ = level_index + 1 == p.levels.size() && block_of_one_warpgroup(*p.body);  // as lowering
      cx_.in_warp_ = level_index + 1 == p.levels.size() && block_of_one_warp(*p.body);
      break;
    case Mapping::flat:
      cx_.grid_set_ = true;
      cx_.scope_ = Scope::thread;
      break;
    case Mapping::threads:
      if (unit > 1 && count_values.size() == 1 && lv.indices.size() == 1 && !cx_.thread_split_) {
        cx_.group_levels_.push_back({lv.indices[0].name,
                                 count_values[0].known == Known::now ? std::optional<std::int64_t>(count_values[0].value)
                                                                      : std::nullopt,
                                 unit});
        pushed_group = true;
      }
      cx_.in_warpgroup_ = unit == 128 && !cx_.thread_split_;
      cx_.in_warp_ = unit == 32 && !cx_.thread_split_;
      if (unit > 1) {
        cx_.thread_split_ = true;
        auto groups = total_known && cx_.split_groups_ ? support::checked_mul(*cx_.split_groups_, total)
                                                   : support::CheckedInt{0, support::ArithmeticFault::overflow};
        cx_.split_groups_ = groups.ok() ? std::optional<std::int64_t>(groups.value) : std::nullopt;
      }
      if (unit == 128) ++cx_.group4_levels_;
      cx_.thread_level_.reset();
      if (unit == 1 && cx_.scope_ == Scope::block && !cx_.thread_split_ && count_values.size() == 1 &&
          lv.indices.size() == 1) {
        cx_.thread_level_ = Context::GroupLevel{
            lv.indices[0].name,
            count_values[0].known == Known::now ? std::optional<std::int64_t>(count_values[0].value) : std::nullopt, 1};
        cx_.out_.block_thread_levels.insert(&lv);
      }
      cx_.threads_span_group_ = unit == 1 && cx_.scope_ == Scope::block && !cx_.group_levels_.empty() && total_known &&
                            total == cx_.group_levels_.back().unit;
      if (cx_.threads_span_group_) {
        cx_.span_thread_indices_.clear();
        for (const auto& index : lv.indices) cx_.span_thread_indices_.push_back(index.name);
      }
      if (unit == 1) cx_.scope_ = Scope::thread;
      break;
  }
  cx_.push();
  std::string names;
  Type tuple;
  tuple.kind = Kind::tuple;
  for (std::size_t d = 0; d < lv.indices.size(); ++d) {
    Type t;
    t.kind = Kind::index;
    if (d < count_values.size() && count_values[d].known == Known::now) t.count = count_values[d].value;
    if (d < count_values.size()) t.count_known = count_values[d].known;  // `#p` of a count the launch computes
    tuple.elements.push_back(define(lv.indices[d].name, t, Origin::parallel_index, lv.indices[d].location, space_text(lv))->type);
    names += (d ? ", `" : "`") + lv.indices[d].name + "`";
  }
  if (lv.tuple_name) define(lv.tuple_name->name, tuple, Origin::index_tuple, lv.tuple_name->location, names);
  if (cooperative) ++cx_.cooperative_levels_;
  const SpaceSpecifier saved_parent = cx_.parent_space_;
  cx_.parent_space_ = space;
  parallel(s, p, level_index + 1);
  cx_.parent_space_ = saved_parent;
  cx_.level_unfit_ = level_unfit;
  if (cooperative) --cx_.cooperative_levels_;
  if (mapping == Mapping::grid || implicit_block) {
    cx_.launch_bound_ = saved_bound;
    cx_.block_threads_ = saved_block_threads;
    cx_.block_threads_at_ = saved_block_threads_at;
  }
  cx_.pop();
  if (pushed_group) cx_.group_levels_.pop_back();
  cx_.restore(saved);
  if (mapping == Mapping::cluster) cx_.clustered_ = false;
}

namespace {

// The parallel indices `e` names.
void indices_in(const Context& c, const Expr& e, std::set<std::string>& out) {
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Name>) {
      if (const Symbol* s = c.lookup(n.name); s && s->origin == Origin::parallel_index) out.insert(n.name);
    } else if constexpr (std::is_same_v<T, Binary>) {
      indices_in(c, *n.lhs, out);
      indices_in(c, *n.rhs, out);
    } else if constexpr (std::is_same_v<T, Unary>) {
      indices_in(c, *n.operand, out);
    } else if constexpr (std::is_same_v<T, Member>) {
      indices_in(c, *n.object, out);
    }
  }, e.node);
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::lt || op == BinaryOp::gt || op == BinaryOp::le || op == BinaryOp::ge || op == BinaryOp::eq ||
         op == BinaryOp::ne;
}

}  // namespace

// inthreads (cond) { ... }: the threads for which `cond` holds. It splits the
// threads of a parallel level, so each comparison sets one of its indices
// against values every thread shares.
void LevelChecker::inthreads(const Stmt& s, const InThreads& t) {
  (void)s;
  std::vector<const Expr*> pending{t.condition.get()};
  while (cx_.parallel_depth_ > 0 && !pending.empty()) {
    const Expr& e = *pending.back();
    pending.pop_back();
    const auto* b = std::get_if<Binary>(&e.node);
    if (b && (b->op == BinaryOp::logical_and || b->op == BinaryOp::logical_or)) {
      pending.push_back(b->rhs.get());
      pending.push_back(b->lhs.get());
      continue;
    }
    if (!b || !is_comparison(b->op)) continue;
    std::set<std::string> left, right;
    indices_in(cx_, *b->lhs, left);
    indices_in(cx_, *b->rhs, right);
    if (left.size() + right.size() != 1) {
      report(Rule::inthreads_divergent, e.location,
             "`" + text(e) + "` " +
                 (left.empty() && right.empty() ? std::string("is the same for every thread")
                                                : "compares parallel indices with each other") +
                 "; each comparison of an inthreads condition sets one parallel index against shared values",
             "compare an index of the enclosing parallel level with a constant or a parameter, e.g. `p < 2`", {});
      break;
    }
  }
  ++cx_.inthreads_depth_;
  c_.statements.body_after_condition(*t.condition, "`inthreads`", *t.body);
  --cx_.inthreads_depth_;
}

bool LevelChecker::on_single_warps() const {
  return cx_.scope_ == Scope::block && cx_.in_warp_ && !cx_.region_.active;
}

bool LevelChecker::at_block_scope() const {
  return cx_.scope_ == Scope::block && !cx_.in_warp_ && !cx_.in_warpgroup_ && !cx_.region_.active;
}

bool LevelChecker::on_whole_warpgroups() const {
  if (cx_.scope_ != Scope::block) return false;
  if (cx_.region_.active) return !cx_.region_.threads || (*cx_.region_.threads % 128 == 0 && *cx_.region_.first % 128 == 0);
  return cx_.in_warpgroup_;
}

namespace {

// Binds the group index to one value while a condition is evaluated, and
// the names bound from it to their values again (`pred = p >= 32`).
class Probe {
 public:
  Probe(Context& c, const std::string& name, Type value) : c_(c) {
    c_.scopes_.emplace_back();
    bind(name, std::move(value), Origin::parallel_index);
    c_.trial_ = true;
  }
  ~Probe() {
    c_.trial_ = false;
    c_.scopes_.pop_back();
  }
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  void bind(const std::string& name, Type value, Origin origin = Origin::binding) {
    Symbol& s = symbols_.emplace_back();
    s.name = name;
    s.type = std::move(value);
    s.origin = origin;
    c_.scopes_.back().emplace_back(name, &s);
  }

 private:
  Context& c_;
  std::deque<Symbol> symbols_;  // stable addresses for the scope
};

// The names an expression reads (operators, conversions and conditionals of
// names and numbers: what a selection of threads is made of).
void names_read(const Expr& e, std::vector<std::string>& out) {
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Name>) {
      out.push_back(n.name);
    } else if constexpr (std::is_same_v<T, Unary> || std::is_same_v<T, Convert>) {
      if (n.operand) names_read(*n.operand, out);
    } else if constexpr (std::is_same_v<T, Binary>) {
      if (n.lhs) names_read(*n.lhs, out);
      if (n.rhs) names_read(*n.rhs, out);
    } else if constexpr (std::is_same_v<T, Conditional>) {
      for (const auto* part : {&n.condition, &n.then_value, &n.else_value})
        if (*part) names_read(**part, out);
    }
  }, e.node);
}

}  // namespace

// The immutable scalars `condition` reads that were bound by `name = value;`
// (and those their values read, first): the selection evaluates them again.
std::vector<std::pair<std::string, const Expr*>> LevelChecker::region_bindings(const Expr& condition) const {
  std::vector<std::pair<std::string, const Expr*>> bindings;
  std::vector<const Symbol*> seen;
  auto collect = [&](const Expr& e, auto& self) -> void {
    std::vector<std::string> names;
    names_read(e, names);
    for (const std::string& name : names) {
      const Symbol* sym = lookup(name);
      auto it = sym ? cx_.bound_values_.find(sym) : cx_.bound_values_.end();
      if (it == cx_.bound_values_.end() || std::find(seen.begin(), seen.end(), sym) != seen.end()) continue;
      seen.push_back(sym);
      self(*it->second, self);
      bindings.emplace_back(name, it->second);
    }
  };
  collect(condition, collect);
  return bindings;
}

// The index of the thread level spanning each group's threads, when the
// region's level is a group level and the condition (or a name it reads
// bound from the index) tests it; null otherwise.
const std::string* LevelChecker::region_thread_index(const Expr& condition,
                                                     const std::vector<std::pair<std::string, const Expr*>>& bindings) const {
  if (cx_.group_levels_.empty() || !cx_.threads_span_group_ || cx_.span_thread_indices_.size() != 1) return nullptr;
  const std::string& index = cx_.span_thread_indices_.front();
  std::vector<std::string> names;
  names_read(condition, names);
  for (const auto& binding : bindings) names_read(*binding.second, names);
  return std::find(names.begin(), names.end(), index) != names.end() ? &index : nullptr;
}

void LevelChecker::inthreads_async(const Stmt& s, const InThreads& t) {
  Region region;
  region.active = true;
  try {
    if (cx_.region_.active || cx_.inthreads_depth_ > 0)
      fail(Rule::inthreads_nested, s.location,
           std::string("inthreads.async inside ") + (cx_.region_.active ? "another inthreads.async region" : "an inthreads"),
           "make it a region of its own, next to the other");
    if (!cx_.region_level())
      fail(Rule::inthreads_needs_group, s.location,
           "inthreads.async outside a `: group` or `: group-4` level, or a thread level directly in the block, is not "
           "supported yet by libcroqjit",
           "libcroqjit selects warps or warpgroups: put it inside `parallel p by N : group-4` (or `: group`, or "
           "`: thread`) and test `p`");
    const GroupLevel level = *cx_.region_level();
    const auto bindings = region_bindings(*t.condition);
    // In a group level whose thread level spans each group's threads, the
    // condition may test that index too (`g == 0 && t < 64`): it selects
    // the threads `g * unit + t`.
    const std::string* thread_index = region_thread_index(*t.condition, bindings);
    const std::int64_t per_value = thread_index ? level.unit : 1;
    const std::string selector = inthreads_selector(level.index, level.unit, thread_index);
    // The condition may use only these indices: evaluate it for each value.
    auto selects = [&](Type value, Type thread) -> std::optional<bool> {
      Probe probe(cx_, level.index, std::move(value));
      if (thread_index) probe.bind(*thread_index, std::move(thread), Origin::parallel_index);
      for (const auto& [name, bound] : bindings) probe.bind(name, c_.expressions.expr(*bound));
      Type c = c_.expressions.expr(*t.condition);
      require_ok(c);
      if (!c.is_number())
        fail(Rule::condition_not_a_number, t.condition->location,
             "`" + text(*t.condition) + "` is " + kind_phrase(c.kind) + "; an inthreads.async condition is a comparison");
      if (c.known == Known::at_run_time || c.is_float())
        fail(t.condition->location, *inthreads_selection(level.index, level.count.value_or(0), std::nullopt));
      if (c.known != Known::now) return std::nullopt;
      return c.value != 0;
    };
    auto scalar = [](Known known, std::int64_t v) {
      Type value;
      value.kind = Kind::scalar;
      value.known = known;
      value.value = v;
      return value;
    };
    std::vector<std::int64_t> chosen;  // values of `selector`
    bool known = level.count.has_value() && *level.count <= 1024;
    for (std::int64_t v = 0; known && v < *level.count * per_value; ++v) {
      auto selected = selects(scalar(Known::now, v / per_value), scalar(Known::now, v % per_value));
      if (!selected) known = false;
      else if (*selected) chosen.push_back(v);
    }
    if (!level.count) selects(scalar(Known::at_specialization, 0), scalar(Known::at_specialization, 0));
    if (Verdict broken = known ? inthreads_selection(selector, *level.count * per_value, chosen) : std::nullopt)
      fail(t.condition->location, std::move(*broken));
    if (Verdict broken = known && level.unit / per_value == 1
                             ? inthreads_whole_warps(selector, chosen.front(), static_cast<std::int64_t>(chosen.size()))
                             : std::nullopt)
      fail(t.condition->location, std::move(*broken));
    if (Verdict broken = inthreads_regions(cx_.regions_, cx_.first_region_barrier_)) fail(s.location, std::move(*broken));
    ++cx_.regions_;
    c_.expressions.expr(*t.condition);  // resolves its names
    if (!bindings.empty() && !cx_.trial_) cx_.out_.region_bindings[&t] = bindings;
    if (thread_index && !cx_.trial_) cx_.out_.thread_selected_regions.insert(&t);
    if (known) {
      region.threads = static_cast<std::int64_t>(chosen.size()) * (level.unit / per_value);
      region.first = chosen.front() * (level.unit / per_value);
    }
  } catch (const Abort&) {
  }
  const Region saved = cx_.region_;
  cx_.region_ = region;
  // In a thread level that spans each group's threads, a region whose body
  // does not name the thread index runs alike in every thread: at the
  // group's scope (as lowering does).
  const Scope saved_scope = cx_.scope_;
  bool lift = cx_.scope_ == Scope::thread && cx_.threads_span_group_;
  for (const std::string& index : cx_.span_thread_indices_)
    lift = lift && !frontend::statement_mentions(cx_.program_, t.body->location, index);
  if (lift) cx_.scope_ = Scope::block;
  c_.statements.nested(*t.body);
  cx_.scope_ = saved_scope;
  cx_.region_ = saved;
}

}  // namespace croq::sema::detail
