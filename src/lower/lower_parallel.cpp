// Parallel mapping (docs/guide/language.md, "Parallel mapping"):
//   * `: block` levels become the (flattened, 1-D) grid; `: thread`,
//     `: group` (32 threads) and `: group-4` (128 threads) levels become the
//     threads of a block. Multi-index levels decompose row-major, last index
//     fastest, so neighbouring threads touch neighbouring elements.
//   * A level without a space specifier takes the space sema inferred for
//     it (sema/level_inference.hpp: nested unannotated levels are block,
//     group-4, group, thread from the outside in). One at the top of the
//     function with no level below becomes `: block` when it stages data in
//     shared memory; otherwise it is "flat": one thread per instance, 256
//     threads per block.
//   * A `: thread`, `: group` or `: group-4` level outside any block level
//     runs in one block (grid 1), as if inside `parallel by 1 : block`.
//   * An outermost `: cluster` level groups the blocks of the `: block` level
//     that directly follows it: the grid is clusters x blocks per cluster
//     (<= 8), cluster = blockIdx.x / B, block rank = blockIdx.x % B.
// Statements at block scope run on every thread of the block (uniform
// control flow); their stores are done by thread 0. Copies into shared
// memory are cooperative over all threads and fenced by barriers.
#include <tuple>

#include "frontend/ast_walk.hpp"
#include "frontend/warp_block.hpp"
#include "lower/lowering.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

namespace {

ir::Mapping ir_mapping(sema::Mapping m) {
  switch (m) {
    case sema::Mapping::cluster: return ir::Mapping::cluster;
    case sema::Mapping::grid: return ir::Mapping::grid;
    case sema::Mapping::threads: return ir::Mapping::threads;
    case sema::Mapping::flat: return ir::Mapping::flat;
  }
  return ir::Mapping::flat;
}

}  // namespace

// A thread, group or group-4 level outside any block level runs in one
// block: the kernel is `parallel by 1 : block` around it.
void LevelLowering::implicit_block(const Stmt& s, const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = p.levels[level_index];
  if (grid_set_) unchecked(lv.location, "a second block-level parallel statement");
  kernel_.grid = 1;
  grid_set_ = true;
  ir::StmtList region;
  out_.push_back(&region);
  if (kernel_.hopper) emit_node(ir::BarrierPrologue{{}, {}, true});  // filled by the event pass
  const Placement saved = placement();
  scope_ = Scope::block;
  in_warpgroup_ = false;
  in_warp_ = false;
  thread_instances_ = 1;
  parallel(s, p, level_index);
  restore(saved);
  out_.pop_back();
  emit_node(ir::Region{ir::Mapping::grid, 1, braced(std::move(region))}, lv.location);
}

// A `: device(cpu|gpu)` level of one instance around parallel levels: the
// kernel is what is inside it (its index is 0). Without parallel levels
// inside, the level itself maps as an unannotated one: one thread runs it.
void LevelLowering::device_level(const Stmt& s, const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = p.levels[level_index];
  const std::vector<Value> count_values = counts_of(*lv.count, sema::what::parallel_count);
  if (count_values.size() != 1 || !count_values[0].constant || *count_values[0].constant != 1)
    unchecked(lv.count->location, "a device level of several instances");
  push();
  for (const auto& index : lv.indices) {
    Value v = scalar_const(0);
    v.kind = Value::Kind::index;
    v.count = 1;
    define(index.name, v);
  }
  parallel(s, p, level_index + 1);
  pop();
}

void LevelLowering::parallel(const Stmt& s, const Parallel& p, std::size_t level_index) {
  if (level_index == 0 && p.stream) {  // parallel<s>: the kernel launches on stream argument `s`
    const std::string& name = std::get<Name>(p.stream->node).name;
    for (std::size_t i = 0; i < fn_.params.size(); ++i)
      if (fn_.params[i].name == name && args_[i].is_stream) kernel_.abi.stream_argument = static_cast<int>(i);
    if (kernel_.abi.stream_argument < 0 || scope_ != Scope::kernel)
      fail(p.stream->location, "`parallel<" + name + ">` names a `stream` parameter on the outermost parallel statement");
  }
  if (level_index == p.levels.size()) {
    block(*p.body);
    return;
  }
  const ParallelLevel& lv = p.levels[level_index];
  if (lv.space == SpaceSpecifier::device && (level_index + 1 < p.levels.size() || contains_parallel(*p.body))) {
    device_level(s, p, level_index);
    return;
  }
  LevelFrame f = level_counts(lv);
  if (f.mapping == ir::Mapping::threads && scope_ == Scope::kernel && !cluster_open_) {
    implicit_block(s, p, level_index);
    return;
  }
  if ((f.mapping == ir::Mapping::cluster && (scope_ != Scope::kernel || cluster_open_)) ||
      (f.mapping == ir::Mapping::grid && scope_ != Scope::kernel) ||
      (f.mapping == ir::Mapping::threads && scope_ == Scope::thread && f.space != SpaceSpecifier::thread) ||
      (f.mapping != ir::Mapping::threads && grid_set_))
    unchecked(lv.location, "a parallel level nested where it cannot run");
  if (f.mapping == ir::Mapping::threads && f.runtime_total)
    fail(lv.count->location, "the thread count of a block must be known at compile time, but `" + source_text(*lv.count) +
                                 "` depends on a dynamic dim",
         "size the grid (the outermost level) with the dynamic dim instead");

  f.linear = fresh("lin");
  f.linear_var = ir::var(f.linear);
  f.saved = placement();
  const std::int64_t level_threads = thread_level_threads_;
  const ThreadLevel thread_level = thread_level_;
  const int branches = thread_branches_;
  if (f.mapping == ir::Mapping::grid) thread_instances_ = 1;
  if (f.mapping == ir::Mapping::flat || (f.mapping == ir::Mapping::threads && (f.runtime_total || f.total != 1)))
    thread_instances_ = 0;
  ir::StmtList region;
  out_.push_back(&region);
  line_mark(lv.location);
  switch (f.mapping) {
    case ir::Mapping::cluster: enter_cluster_level(f, p, level_index); break;
    case ir::Mapping::grid: enter_grid_level(f, p, level_index); break;
    case ir::Mapping::flat: enter_flat_level(f); break;
    default: enter_thread_level(f); break;
  }
  if (f.loop_begin) f.linear_var = ir::var(f.linear, ir::Type::i64());
  // The indices, then the next level, inside the guard or loop if there is one.
  ir::StmtList inner;
  out_.push_back(&inner);
  push();
  bind_level_indices(f);
  parallel(s, p, level_index + 1);
  if (f.one_warpgroup_block) {
    // The warpgroup of a one-warpgroup block leaves the level with its
    // multiplies complete and every warp past them: the block-scope code
    // after it may overwrite the operand tiles (the next TMA load) or read
    // the accumulator.
    emit_node(ir::MmaCommit{});
    emit_barrier();
  }
  pop();
  if (f.barrier_at_close) emit_barrier();
  out_.pop_back();
  if (f.loop_begin) {
    ir::For loop;
    loop.var = f.linear;
    loop.type = ir::Type::i64();
    loop.begin = f.loop_begin;
    loop.end = f.loop_end;
    loop.step = f.loop_step;
    loop.body = ir::make_stmt(ir::Seq{std::move(inner), false});
    emit_node(std::move(loop));
  } else if (f.guard) {
    emit_node(ir::If{f.guard, ir::make_stmt(ir::Seq{std::move(inner), false}), nullptr});
  } else {
    for (auto& st : inner) emit(std::move(st));
  }
  out_.pop_back();
  emit_node(ir::Region{f.mapping, f.unit, braced(std::move(region))}, lv.location);
  if (f.pushed_group) group_levels_.pop_back();
  restore(f.saved);
  thread_level_threads_ = level_threads;
  thread_level_ = thread_level;
  thread_branches_ = branches;
}

LevelLowering::Placement LevelLowering::placement() const {
  return {scope_, in_warpgroup_, in_warp_, threads_span_group_, in_cooperative_, thread_id_, thread_instances_,
          group_vars_.size(), thread_group_};
}

void LevelLowering::restore(const Placement& saved) {
  std::tie(scope_, in_warpgroup_, in_warp_, threads_span_group_, in_cooperative_, thread_id_, thread_instances_) =
      std::tie(saved.scope, saved.in_warpgroup, saved.in_warp, saved.threads_span_group, saved.in_cooperative,
               saved.thread_id, saved.thread_instances);
  group_vars_.resize(saved.group_vars);
  thread_group_ = saved.thread_group;
}

// The counts: `by 8`, `by [8, 16]`, or a shape expression; a count
// computed from a dynamic dim is a runtime value (count 0). And where the
// level runs: sema mapped it.
LevelLowering::LevelFrame LevelLowering::level_counts(const ParallelLevel& lv) {
  LevelFrame f;
  f.level = &lv;
  // At host level a count may be a value the host computes before the
  // launch (sema allows it for grid and flat levels only).
  f.count_values = counts_of(*lv.count, sema::what::parallel_count, scope_ == Scope::kernel);
  if (!lv.indices.empty() && lv.indices.size() != f.count_values.size())
    unchecked(lv.location, "a level whose indices and counts differ in number");
  const auto* list = std::get_if<ShapeList>(&lv.count->node);
  for (std::size_t i = 0; i < f.count_values.size(); ++i) {
    const Value& c = f.count_values[i];
    f.counts.push_back(c.constant ? *c.constant : 0);
    if (!c.constant) {
      if (c.dynamic) {
        const std::vector<abi::DimSource>& where = dynamic_.at(c.dynamic->dim);
        f.runtime.terms.push_back({where.front(), c.dynamic->divisor, c.dynamic->ceil});
      } else {  // computed from scalars the host knows at the launch
        const bool own = list && list->dims.size() == f.count_values.size();
        f.runtime.counts.push_back(launch_count(c.expr, own ? *list->dims[i] : *lv.count));
      }
      f.runtime_total = f.runtime_total ? ir::binary("*", f.runtime_total, c.expr) : c.expr;
      continue;
    }
    if (sema::Verdict broken = sema::parallel_count(*c.constant)) fail(lv.count->location, *broken);
    auto product = support::checked_mul(f.total, *c.constant);
    if (!product.ok())
      fail_arithmetic(*lv.count, product.fault, "the level's total count, " + std::to_string(f.total) + " * " +
                                                    std::to_string(*c.constant));
    f.total = product.value;
  }
  if (f.runtime_total && f.total != 1) f.runtime_total = ir::binary("*", f.runtime_total, ir::int_const(f.total));
  if (!facts_.mappings.count(&lv)) unchecked(lv.location, "a parallel level sema did not map");
  f.mapping = ir_mapping(facts_.mapping(lv));
  f.space = facts_.level_space(lv);
  return f;
}

void LevelLowering::let_linear(LevelFrame& f, ExprRef value, ir::Type type) {
  f.linear_var = ir::var(f.linear, type);
  emit_node(ir::Let{f.linear, type, true, std::move(value)});
}

// Croqtile's clusters: the `: cluster` level counts the blocks of one
// cluster (C), the `: block` level after it is the whole grid. A cluster is
// C consecutive blocks along x (cluster dims {C, 1, 1}); the cluster index
// is the block's rank in it, blockIdx.x % C (= %cluster_ctarank).
void LevelLowering::enter_cluster_level(LevelFrame& f, const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = *f.level;
  const ParallelLevel* next = level_after_cluster(p, level_index);
  if (!next || next->space != SpaceSpecifier::block) unchecked(lv.location, "a cluster level without its block level");
  if (!kernel_.needs_sm90) kernel_.needs_sm90 = Diagnostic{Severity::error, "`: cluster` needs sm_90 (Hopper)", lv.location.line,
                                                           lv.location.column, std::max(1, lv.location.length), ""};
  if (!target_.clusters()) unchecked(lv.location, "a cluster level on a target without clusters");
  if (f.runtime_total)
    fail(lv.count->location, "the blocks of a cluster are counted at compile time, but `" + source_text(*lv.count) +
                                 "` depends on a dynamic dim",
         "give the `: cluster` level a constant count (at most 8)");
  if (sema::Verdict broken = sema::cluster_size(support::CheckedInt{f.total}, source_text(*lv.count))) fail(lv.count->location, *broken);
  kernel_.cluster_blocks = f.total;
  cluster_open_ = true;
  let_linear(f, ir::binary("%", ir::special("blockIdx.x"), ir::int_const(kernel_.cluster_blocks)));
}

namespace {

// The first index's value at rank 0 of this block's cluster, where each
// value of the first index has `rest` blocks: (blockIdx.x / C / rest) * C.
ExprRef cluster_first_index(std::int64_t c, std::int64_t rest) {
  const ExprRef cluster = ir::binary("/", ir::special("blockIdx.x"), ir::int_const(c));
  return ir::binary("*", ir::binary("/", cluster, ir::int_const(rest)), ir::int_const(c));
}

}  // namespace

// The block index of a clustered grid, as the linear index of the level's
// counts (row-major): the C blocks of a cluster are consecutive values of
// the first index, the others equal, so that blocks sharing a tile along
// the other indices share a cluster (what `.multicast` loads rely on).
// Past a first count that is not a multiple of C the index is past the
// level's total (the guard's).
ExprRef LevelLowering::clustered_block_index(const LevelFrame& f) {
  const std::int64_t c = kernel_.cluster_blocks;
  const std::int64_t rest = f.total / f.counts[0];  // blocks per value of the first index
  const ExprRef x = ir::special("blockIdx.x");
  if (rest == 1) return x;
  // x = (q * rest + j) * c + r  ->  (q * c + r) * rest + j
  const ExprRef g = ir::binary("/", x, ir::int_const(c));
  const ExprRef r = ir::binary("%", x, ir::int_const(c));
  const ExprRef first = ir::binary("+", cluster_first_index(c, rest), r);
  return ir::binary("+", ir::binary("*", first, ir::int_const(rest)), ir::binary("%", g, ir::int_const(rest)));
}

void LevelLowering::enter_grid_level(LevelFrame& f, const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = *f.level;
  const std::int64_t total = f.total;
  const bool in_cluster = cluster_open_;
  if (lv.cooperative) {
    // Every block must be resident at once: one block per index, no loop.
    if (f.runtime.dynamic() || total > kMaxGridBlocks || in_cluster)
      fail(lv.count->location, "the blocks of a cooperative launch are counted at compile time, one per index, "
                               "and are not clustered",
           "give the `: block<cooperative>` level a constant count");
    kernel_.cooperative = true;
    in_cooperative_ = true;
  }
  if (in_cluster) {  // the whole grid, tiled by clusters along its first index
    cluster_open_ = false;
    if (f.runtime_total)
      fail(lv.count->location, "the blocks of a clustered grid are counted at compile time, but `" +
                                   source_text(*lv.count) + "` depends on a dynamic dim",
           "specialize the kernel for that dim (leave it out of the dynamic dims)");
    // A first count that is not a multiple of C: the grid is rounded up to
    // whole clusters and the blocks past the end run nothing.
    const std::int64_t c = kernel_.cluster_blocks, rest = total / f.counts[0];
    const std::int64_t launched = (f.counts[0] + c - 1) / c * c * rest;
    if (launched > kMaxGridBlocks)
      fail(lv.location, "this level needs " + std::to_string(launched) + " blocks, more than a grid holds (2^31 - 1)",
           "give each block more work");
    f.runtime.factor = launched;
    kernel_.grid = launched;
    grid_set_ = true;
    fit_index(launched);
    let_linear(f, clustered_block_index(f), index_type());
    if (launched != total) f.guard = ir::less(f.linear_var, ir::int_const(total));
    // The blocks of this cluster that run: C, or in the last cluster of a
    // rounded-up grid the first index's values left from its rank 0 on.
    kernel_.cluster_live = ir::int_const(c);
    if (f.counts[0] % c != 0) {
      const ExprRef left = ir::binary("-", ir::int_const(f.counts[0]), cluster_first_index(c, rest));
      kernel_.cluster_live = ir::select(ir::less(left, ir::int_const(c)), left, ir::int_const(c));
    }
  } else {
    f.runtime.factor = total;
    kernel_.grid = total;
    grid_set_ = true;
    if (f.runtime.dynamic()) kernel_.abi.runtime_grid = f.runtime;
    // A grid holds 2^31 - 1 blocks: more (or a runtime count) loop over
    // block indices, except in Hopper kernels, whose barriers are set up
    // once per block.
    if (kernel_.hopper && total > kMaxGridBlocks)
      fail(lv.location, "this level needs " + std::to_string(total) + " blocks, more than a grid holds (2^31 - 1); "
                        "kernels with events, TMA or mma cannot loop over block indices",
           "give each block more work");
    if (!kernel_.hopper && (total > kMaxGridBlocks || f.runtime.dynamic())) {
      fit_index(INT64_MAX);
      kernel_.grid = std::min(total, kMaxGridBlocks);
      kernel_.abi.runtime_grid.grid_stride = kernel_.grid_stride = true;
      f.loop_begin = ir::special("blockIdx.x");
      f.loop_end = f.runtime_total ? f.runtime_total : ir::int_const(total);
      f.loop_step = ir::special("gridDim.x");
      f.barrier_at_close = true;  // the next block index reuses shared memory
    } else {
      fit_index(total);
      let_linear(f, ir::special("blockIdx.x"), index_type());
    }
  }
  if (kernel_.hopper) emit_node(ir::BarrierPrologue{{}, {}, true});  // filled by the event pass
  scope_ = Scope::block;
  // A block of one warpgroup runs its block-scope statements on whole
  // warpgroups: accumulators may be filled and stored there.
  in_warpgroup_ = block_one_warpgroup_ = level_index + 1 == p.levels.size() && block_of_one_warpgroup(*p.body);
  // A block of one warp (its mma at block scope) runs the warp form.
  in_warp_ = level_index + 1 == p.levels.size() && block_of_one_warp(*p.body);
  if (in_warp_) kernel_.block_threads = std::max<std::int64_t>(kernel_.block_threads, 32);
}

void LevelLowering::enter_flat_level(LevelFrame& f) {
  const std::int64_t total = f.total;
  const std::int64_t threads = f.runtime_total ? 256 : std::min<std::int64_t>(total, 256);
  const std::int64_t blocks = support::checked_cdiv(total, threads).value;  // both positive: no fault
  kernel_.grid = blocks;
  grid_set_ = true;
  kernel_.block_threads = std::max(kernel_.block_threads, threads);
  f.runtime.factor = total;
  f.runtime.per_block = threads;
  if (f.runtime.dynamic()) kernel_.abi.runtime_grid = f.runtime;
  const ExprRef end = f.runtime_total ? f.runtime_total : ir::int_const(total);
  const ExprRef first = ir::binary(
      "+", ir::binary("*", ir::convert(ir::special("blockIdx.x"), ir::Type::i64()), ir::int_const(threads)),
      ir::special("threadIdx.x"));
  if (f.runtime_total || blocks > kMaxGridBlocks) {
    // Instances past what one pass of the grid covers loop.
    fit_index(INT64_MAX);
    kernel_.grid = std::min(blocks, kMaxGridBlocks);
    kernel_.abi.runtime_grid.grid_stride = kernel_.grid_stride = true;
    f.loop_begin = first;
    f.loop_end = end;
    f.loop_step = ir::binary("*", ir::convert(ir::special("gridDim.x"), ir::Type::i64()), ir::int_const(threads));
  } else {
    fit_index(blocks * threads);  // the last block's threads count past `total`
    const ExprRef narrow =
        ir::binary("+", ir::binary("*", ir::special("blockIdx.x"), ir::int_const(threads)), ir::special("threadIdx.x"));
    let_linear(f, ir::by_index_width(narrow, first), index_type());
    if (kernel_.grid * threads != total) f.guard = ir::less(f.linear_var, end);
  }
  scope_ = Scope::thread;
}

void LevelLowering::enter_thread_level(LevelFrame& f) {
  const ParallelLevel& lv = *f.level;
  const std::int64_t total = f.total;
  // The level's threads read what one thread just wrote only after a barrier.
  ask_barrier_before_shared_read(-1);
  const std::int64_t unit = f.unit = f.space == SpaceSpecifier::group ? 32 : f.space == SpaceSpecifier::group4 ? 128 : 1;
  auto needed = support::checked_mul(total, unit);
  if (sema::Verdict broken = sema::block_threads(needed)) fail(lv.location, *broken);
  const bool top = thread_id_->kind == ir::ExprKind::special;
  if (top) kernel_.block_threads = std::max(kernel_.block_threads, needed.value);
  thread_level_threads_ = top && unit == 1 ? needed.value : 0;
  let_linear(f, unit == 1 ? thread_id_ : ir::binary("/", thread_id_, ir::int_const(unit)));
  f.guard = ir::less(f.linear_var, ir::int_const(total));
  if (unit > 1 && f.counts.size() == 1 && lv.indices.size() == 1 && top) {
    group_levels_.push_back({lv.indices[0].name, total, unit});
    f.pushed_group = true;
  }
  thread_group_.reset();
  if (facts_.block_thread_levels.count(&lv)) thread_group_ = GroupLevel{lv.indices[0].name, total, 1};
  f.one_warpgroup_block = unit == 128 && top && in_warpgroup_ && scope_ == Scope::block;
  in_warpgroup_ = unit == 128 && top;
  in_warp_ = unit == 32 && top;
  if (unit > 1) thread_id_ = ir::binary("%", thread_id_, ir::int_const(unit));
  threads_span_group_ = unit == 1 && scope_ == Scope::block && !group_levels_.empty() && total == group_levels_.back().unit;
  if (threads_span_group_) {
    span_thread_indices_.clear();
    for (const auto& index : lv.indices) span_thread_indices_.push_back(index.name);
  }
  if (unit == 1) {
    scope_ = Scope::thread;
    thread_level_ = {f.linear_var, total};
  }
}

// The level's indices from its linear index, the last fastest.
void LevelLowering::bind_level_indices(const LevelFrame& f) {
  const ParallelLevel& lv = *f.level;
  std::int64_t inner_const = 1;
  ExprRef inner_dynamic;  // runtime factors of the inner counts
  Value indices;          // `parallel p = {a, b} by [...]`: p names them together
  indices.kind = Value::Kind::tuple;
  indices.elements.resize(lv.indices.empty() ? 0 : f.counts.size());
  for (int d = static_cast<int>(f.counts.size()) - 1; d >= 0; --d) {
    if (!lv.indices.empty()) {
      std::string name = fresh(lv.indices[d].name);
      ExprRef inner_count = ir::int_const(inner_const);
      if (inner_dynamic) inner_count = inner_const == 1 ? inner_dynamic : ir::binary("*", inner_dynamic, inner_count);
      ExprRef value = ir::is_const(inner_count) && inner_const == 1 && !inner_dynamic ? f.linear_var
                                                                                       : ir::binary("/", f.linear_var, inner_count);
      if (d > 0) value = ir::binary("%", value, f.count_values[d].expr);
      // Thread indices are below 1024; block and flat ones take the index type.
      const ir::Type type = f.mapping == ir::Mapping::threads ? ir::Type::i32() : index_type();
      emit_node(ir::Let{name, type, true, value});
      if (f.mapping == ir::Mapping::threads && f.unit > 1) group_vars_.push_back(name);
      Value v;
      v.kind = Value::Kind::index;
      v.expr = ir::var(name, type);
      v.count = f.counts[d];  // 0: a runtime count
      if (f.counts[d] == 0) v.count_expr = f.count_values[d].expr;
      define(lv.indices[d].name, v);
      indices.elements[static_cast<std::size_t>(d)] = v;
    }
    if (f.counts[d] > 0) {
      auto product = support::checked_mul(inner_const, f.counts[d]);
      inner_const = product.ok() ? product.value : inner_const;
    } else {
      inner_dynamic = inner_dynamic ? ir::binary("*", inner_dynamic, f.count_values[d].expr) : f.count_values[d].expr;
    }
  }
  if (lv.tuple_name && !lv.indices.empty()) define(lv.tuple_name->name, indices);
}

}  // namespace croq::lower::detail
