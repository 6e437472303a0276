// Parallel mapping (docs/guide/language.md, "Parallel mapping"):
//   * `: block` levels become the (flattened, 1-D) grid; `: thread`,
//     `: group` (32 threads) and `: group-4` (128 threads) levels become the
//     threads of a block. Multi-index levels decompose row-major, last index
//     fastest, so neighbouring threads touch neighbouring elements.
//   * A level without a space specifier at the top of the function becomes
//     `: block` when it contains another parallel level or stages data in
//     shared memory; otherwise it is "flat": one thread per instance, 256
//     threads per block. An unannotated level inside a block level becomes
//     `: thread`.
//   * A `: thread`, `: group` or `: group-4` level outside any block level
//     runs in one block (grid 1), as if inside `parallel by 1 : block`.
//   * An outermost `: cluster` level groups the blocks of the `: block` level
//     that directly follows it: the grid is clusters x blocks per cluster
//     (<= 8), cluster = blockIdx.x / B, block rank = blockIdx.x % B.
// Statements at block scope run on every thread of the block (uniform
// control flow); their stores are done by thread 0. Copies into shared
// memory are cooperative over all threads and fenced by barriers.
#include "lower/lowering.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

bool Lowerer::contains_parallel(const Stmt& s) const {
  bool found = false;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (found) return;
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Parallel>) found = true;
      else if constexpr (std::is_same_v<T, Block>) { for (const auto& c : n.statements) walk(*c); }
      else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While> || std::is_same_v<T, InThreads>) { if (n.body) walk(*n.body); }
      else if constexpr (std::is_same_v<T, If>) { walk(*n.then_branch); if (n.else_branch) walk(*n.else_branch); }
    }, st.node);
  };
  walk(s);
  return found;
}

bool Lowerer::has_cooperative_level(const Stmt& s) const {
  bool found = false;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (found) return;
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Parallel>) {
        for (const ParallelLevel& lv : n.levels) found = found || (lv.cooperative && lv.space == SpaceSpecifier::block);
        if (n.body) walk(*n.body);
      } else if constexpr (std::is_same_v<T, Block>) {
        for (const auto& c : n.statements) walk(*c);
      } else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While> || std::is_same_v<T, InThreads>) {
        if (n.body) walk(*n.body);
      } else if constexpr (std::is_same_v<T, If>) {
        walk(*n.then_branch);
        if (n.else_branch) walk(*n.else_branch);
      }
    }, st.node);
  };
  walk(s);
  return found;
}

bool Lowerer::uses_shared(const Stmt& s) const {
  bool found = false;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (found) return;
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Copy>) { if (n.destination_storage == Storage::shared) found = true; }
      else if constexpr (std::is_same_v<T, Declaration>) { if (n.type.storage == Storage::shared) found = true; }
      else if constexpr (std::is_same_v<T, Sync>) found = true;
      else if constexpr (std::is_same_v<T, Block>) { for (const auto& c : n.statements) walk(*c); }
      else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While> || std::is_same_v<T, InThreads> ||
                         std::is_same_v<T, Parallel>) { if (n.body) walk(*n.body); }
      else if constexpr (std::is_same_v<T, If>) { walk(*n.then_branch); if (n.else_branch) walk(*n.else_branch); }
    }, st.node);
  };
  walk(s);
  return found;
}

// The blocks per cluster of the `: cluster` level p.levels[level]: the count
// of the `: block` level that must follow it, as the next level of the same
// statement or the first level of the sole statement of its body.
std::int64_t Lowerer::cluster_size(const Parallel& p, std::size_t level) {
  const ParallelLevel& lv = p.levels[level];
  const ParallelLevel* next = level_after_cluster(p, level);
  if (!next || next->space != SpaceSpecifier::block)
    fail(lv.location, "a `: cluster` level must be directly followed by a `: block` level",
         "write `parallel c by C : cluster, b by B : block { ... }`, or a `: block` level as the only "
         "statement of the cluster level");
  std::int64_t blocks = 1;
  for (const Value& c : counts_of(*next->count, "a parallel count")) {
    if (!c.constant)
      fail(next->count->location, "the number of blocks in a cluster must be known at compile time, but `" +
                                      source_text(*next->count) + "` depends on a dynamic dim",
           "size the `: cluster` level with the dynamic dim instead");
    if (*c.constant <= 0) fail(next->count->location, "a parallel count must be positive, got " + std::to_string(*c.constant));
    auto product = support::checked_mul(blocks, *c.constant);
    if (!product.ok() || product.value > 8)
      fail(next->count->location, "a cluster holds at most 8 blocks, got " +
                                      (product.ok() ? std::to_string(product.value) : source_text(*next->count)),
           "8 is the portable cluster size");
    blocks = product.value;
  }
  return blocks;
}

// A thread, group or group-4 level outside any block level runs in one
// block: the kernel is `parallel by 1 : block` around it.
void Lowerer::implicit_block(const Stmt& s, const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = p.levels[level_index];
  if (grid_set_) fail(lv.location, "only one block-level parallel statement per kernel is supported yet");
  kernel_.grid = 1;
  grid_set_ = true;
  ir::StmtList region;
  out_.push_back(&region);
  if (kernel_.hopper) emit_node(ir::BarrierPrologue{{}, {}, true});  // filled by the event pass
  const Scope saved_scope = scope_;
  const bool saved_in_warpgroup = in_warpgroup_, saved_in_warp = in_warp_;
  const std::int64_t saved_thread_instances = thread_instances_;
  scope_ = Scope::block;
  in_warpgroup_ = false;
  in_warp_ = false;
  thread_instances_ = 1;
  parallel(s, p, level_index);
  scope_ = saved_scope;
  in_warpgroup_ = saved_in_warpgroup;
  in_warp_ = saved_in_warp;
  thread_instances_ = saved_thread_instances;
  out_.pop_back();
  emit_node(ir::Region{ir::Mapping::grid, 1, braced(std::move(region))}, lv.location);
}

// A `: device(cpu|gpu)` level of one instance around parallel levels: the
// kernel is what is inside it (its index is 0). Without parallel levels
// inside, the level itself maps as an unannotated one: one thread runs it.
void Lowerer::device_level(const Stmt& s, const Parallel& p, std::size_t level_index) {
  const ParallelLevel& lv = p.levels[level_index];
  const std::vector<Value> count_values = counts_of(*lv.count, "a parallel count");
  if (count_values.size() != 1 || !count_values[0].constant || *count_values[0].constant != 1)
    fail(lv.count->location, "a `: device(" + lv.device + ")` level of more than one instance is not supported yet by libcroqjit",
         "write `by 1`; the levels inside it say how the work is spread");
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

void Lowerer::parallel(const Stmt& s, const Parallel& p, std::size_t level_index) {
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
  // The counts: `by 8`, `by [8, 16]`, or a shape expression; a count
  // computed from a dynamic dim is a runtime value (count 0 below).
  std::vector<Value> count_values = counts_of(*lv.count, "a parallel count");
  std::vector<std::int64_t> counts;
  if (!lv.indices.empty() && lv.indices.size() != count_values.size())
    fail(lv.location, std::to_string(lv.indices.size()) + " indices but " + std::to_string(count_values.size()) +
                          " counts after `by`");
  std::int64_t total = 1;
  ExprRef runtime_total;  // the runtime part of the total
  abi::RuntimeGrid runtime;
  for (const Value& c : count_values) {
    counts.push_back(c.constant ? *c.constant : 0);
    if (!c.constant) {
      const std::vector<abi::DimSource>& where = dynamic_.at(c.dynamic->dim);
      runtime.terms.push_back({where.front(), c.dynamic->divisor, c.dynamic->ceil});
      runtime_total = runtime_total ? ir::binary("*", runtime_total, c.expr) : c.expr;
      continue;
    }
    if (*c.constant <= 0) fail(lv.count->location, "a parallel count must be positive, got " + std::to_string(*c.constant));
    auto product = support::checked_mul(total, *c.constant);
    if (!product.ok())
      fail_arithmetic(*lv.count, product.fault, "the level's total count, " + std::to_string(total) + " * " +
                                                    std::to_string(*c.constant));
    total = product.value;
  }
  if (runtime_total && total != 1) runtime_total = ir::binary("*", runtime_total, ir::int_const(total));
  // Where this level runs.
  SpaceSpecifier space = lv.space;
  bool nested_below = level_index + 1 < p.levels.size() || contains_parallel(*p.body);
  ir::Mapping mapping;
  if (space == SpaceSpecifier::block) mapping = ir::Mapping::grid;
  else if (space == SpaceSpecifier::thread || space == SpaceSpecifier::group || space == SpaceSpecifier::group4)
    mapping = ir::Mapping::threads;
  else if (space == SpaceSpecifier::cluster) mapping = ir::Mapping::cluster;
  else if (scope_ == Scope::kernel) mapping = (nested_below || uses_shared(*p.body)) ? ir::Mapping::grid : ir::Mapping::flat;
  else mapping = ir::Mapping::threads;

  if (mapping == ir::Mapping::threads && scope_ == Scope::kernel && !cluster_open_) {
    implicit_block(s, p, level_index);
    return;
  }
  if (mapping == ir::Mapping::cluster && (scope_ != Scope::kernel || cluster_open_))
    fail(lv.location, "a `: cluster` level must be the outermost parallel level");
  if (mapping == ir::Mapping::grid && scope_ != Scope::kernel)
    fail(lv.location, "a `: block` level must be the outermost parallel level");
  if (mapping == ir::Mapping::threads && scope_ == Scope::thread && space != SpaceSpecifier::thread)
    fail(lv.location, "parallel levels inside a thread level are not supported");
  if (mapping != ir::Mapping::threads && grid_set_)
    fail(lv.location, "only one block-level parallel statement per kernel is supported yet");
  if (mapping == ir::Mapping::threads && runtime_total)
    fail(lv.count->location, "the thread count of a block must be known at compile time, but `" + source_text(*lv.count) +
                                 "` depends on a dynamic dim",
         "size the grid (the outermost level) with the dynamic dim instead");

  const std::string linear = fresh("lin");
  ExprRef linear_var = ir::var(linear);
  const Scope saved_scope = scope_;
  const bool saved_in_warpgroup = in_warpgroup_, saved_in_warp = in_warp_, saved_span = threads_span_group_;
  const ExprRef saved_tid = thread_id_;
  const std::int64_t saved_thread_instances = thread_instances_;
  const std::size_t saved_group_vars = group_vars_.size();
  if (mapping == ir::Mapping::grid) thread_instances_ = 1;
  if (mapping == ir::Mapping::flat || (mapping == ir::Mapping::threads && (runtime_total || total != 1)))
    thread_instances_ = 0;
  bool pushed_group = false;
  bool one_warpgroup_block = false;  // a group-4 level in a block of one warpgroup
  std::int64_t unit = 1;
  ExprRef guard;
  // A grid-stride loop over the level's instances (grids past 2^31 - 1
  // blocks, or counts known only at launch): `linear` from `loop_begin`
  // below `loop_end`, stepping `loop_step`.
  ExprRef loop_begin, loop_end, loop_step;
  bool barrier_at_close = false;  // a block-index loop: fence shared memory before the next index
  const bool saved_in_cooperative = in_cooperative_;
  ir::StmtList region;
  out_.push_back(&region);
  line_mark(lv.location);
  auto let_linear = [&](ExprRef value, ir::Type type = ir::Type::i32()) {
    linear_var = ir::var(linear, type);
    emit_node(ir::Let{linear, type, true, std::move(value)});
  };
  if (mapping == ir::Mapping::cluster) {
    // Clusters are contiguous runs of B blocks along x: the cluster index is
    // blockIdx.x / B, the block's rank in it the rest.
    if (!kernel_.needs_sm90) kernel_.needs_sm90 = Diagnostic{Severity::error, "`: cluster` needs sm_90 (Hopper)", lv.location.line,
                                                             lv.location.column, std::max(1, lv.location.length), ""};
    if (!target_.clusters()) fail(lv.location, kernel_.needs_sm90->message + " (compiling for " + target_.arch + ")");
    kernel_.cluster_blocks = cluster_size(p, level_index);
    clusters_ = total;
    cluster_runtime_ = runtime;
    cluster_open_ = true;
    let_linear(ir::binary("/", ir::special("blockIdx.x"), ir::int_const(kernel_.cluster_blocks)));
  } else if (mapping == ir::Mapping::grid) {
    const bool in_cluster = cluster_open_;
    if (lv.cooperative) {
      // Every block must be resident at once: one block per index, no loop.
      if (runtime.dynamic() || total > kMaxGridBlocks || in_cluster)
        fail(lv.count->location, "the blocks of a cooperative launch are counted at compile time, one per index, "
                                 "and are not clustered",
             "give the `: block<cooperative>` level a constant count");
      kernel_.cooperative = true;
      in_cooperative_ = true;
    }
    if (in_cluster) {  // the blocks of one cluster: the grid is clusters x blocks per cluster
      cluster_open_ = false;
      auto blocks = support::checked_mul(clusters_, total);
      if (!blocks.ok() || blocks.value > kMaxGridBlocks)
        fail(lv.location, "this launch needs " + std::to_string(clusters_) + " clusters of " + std::to_string(total) +
                              " blocks, more than a grid holds (2^31 - 1 blocks)",
             "give each block more work");
      runtime = cluster_runtime_;
      runtime.factor = blocks.value;
      kernel_.grid = blocks.value;
      grid_set_ = true;
      if (runtime.dynamic()) kernel_.abi.runtime_grid = runtime;
      let_linear(ir::binary("%", ir::special("blockIdx.x"), ir::int_const(total)));
    } else {
      runtime.factor = total;
      kernel_.grid = total;
      grid_set_ = true;
      if (runtime.dynamic()) kernel_.abi.runtime_grid = runtime;
      // A grid holds 2^31 - 1 blocks: more (or a runtime count) loop over
      // block indices, except in Hopper kernels, whose barriers are set up
      // once per block.
      if (kernel_.hopper && total > kMaxGridBlocks)
        fail(lv.location, "this level needs " + std::to_string(total) + " blocks, more than a grid holds (2^31 - 1); "
                          "kernels with events, TMA or mma cannot loop over block indices",
             "give each block more work");
      if (!kernel_.hopper && (total > kMaxGridBlocks || runtime.dynamic())) {
        fit_index(INT64_MAX);
        kernel_.grid = std::min(total, kMaxGridBlocks);
        kernel_.abi.runtime_grid.grid_stride = kernel_.grid_stride = true;
        loop_begin = ir::special("blockIdx.x");
        loop_end = runtime_total ? runtime_total : ir::int_const(total);
        loop_step = ir::special("gridDim.x");
        barrier_at_close = true;  // the next block index reuses shared memory
      } else {
        fit_index(total);
        let_linear(ir::special("blockIdx.x"), index_type());
      }
    }
    if (kernel_.hopper) emit_node(ir::BarrierPrologue{{}, {}, true});  // filled by the event pass
    scope_ = Scope::block;
    // A block of one warpgroup runs its block-scope statements on whole
    // warpgroups: accumulators may be filled and stored there.
    in_warpgroup_ = level_index + 1 == p.levels.size() && block_of_one_warpgroup(*p.body);
  } else if (mapping == ir::Mapping::flat) {
    const std::int64_t threads = runtime_total ? 256 : std::min<std::int64_t>(total, 256);
    const std::int64_t blocks = support::checked_cdiv(total, threads).value;  // both positive: no fault
    kernel_.grid = blocks;
    grid_set_ = true;
    kernel_.block_threads = std::max(kernel_.block_threads, threads);
    runtime.factor = total;
    runtime.per_block = threads;
    if (runtime.dynamic()) kernel_.abi.runtime_grid = runtime;
    const ExprRef end = runtime_total ? runtime_total : ir::int_const(total);
    const ExprRef first = ir::binary(
        "+", ir::binary("*", ir::convert(ir::special("blockIdx.x"), ir::Type::i64()), ir::int_const(threads)),
        ir::special("threadIdx.x"));
    if (runtime_total || blocks > kMaxGridBlocks) {
      // Instances past what one pass of the grid covers loop.
      fit_index(INT64_MAX);
      kernel_.grid = std::min(blocks, kMaxGridBlocks);
      kernel_.abi.runtime_grid.grid_stride = kernel_.grid_stride = true;
      loop_begin = first;
      loop_end = end;
      loop_step = ir::binary("*", ir::convert(ir::special("gridDim.x"), ir::Type::i64()), ir::int_const(threads));
    } else {
      fit_index(blocks * threads);  // the last block's threads count past `total`
      if (wide_) let_linear(first, ir::Type::i64());
      else let_linear(ir::binary("+", ir::binary("*", ir::special("blockIdx.x"), ir::int_const(threads)), ir::special("threadIdx.x")));
      if (kernel_.grid * threads != total) guard = ir::less(linear_var, end);
    }
    scope_ = Scope::thread;
  } else {
    // The level's threads read what one thread just wrote only after a barrier.
    if (scope_ == Scope::block && !unsynced_shared_writes_.empty()) emit_barrier();
    unit = space == SpaceSpecifier::group ? 32 : space == SpaceSpecifier::group4 ? 128 : 1;
    auto needed = support::checked_mul(total, unit);
    if (!needed.ok() || needed.value > 1024)
      fail(lv.location, "this parallel level needs " +
                            (needed.ok() ? std::to_string(needed.value) : std::to_string(total) + " x " + std::to_string(unit)) +
                            " threads in a block; a block has at most 1024");
    const bool top = thread_id_->kind == ir::ExprKind::special;
    if (top) kernel_.block_threads = std::max(kernel_.block_threads, needed.value);
    let_linear(unit == 1 ? thread_id_ : ir::binary("/", thread_id_, ir::int_const(unit)));
    guard = ir::less(linear_var, ir::int_const(total));
    if (unit > 1 && counts.size() == 1 && lv.indices.size() == 1 && top) {
      group_levels_.push_back({lv.indices[0].name, total, unit});
      pushed_group = true;
    }
    one_warpgroup_block = unit == 128 && top && in_warpgroup_ && scope_ == Scope::block;
    in_warpgroup_ = unit == 128 && top;
    in_warp_ = unit == 32 && top;
    if (unit > 1) thread_id_ = ir::binary("%", thread_id_, ir::int_const(unit));
    threads_span_group_ = unit == 1 && scope_ == Scope::block && !group_levels_.empty() && total == group_levels_.back().unit;
    if (threads_span_group_) {
      span_thread_indices_.clear();
      for (const auto& index : lv.indices) span_thread_indices_.push_back(index.name);
    }
    if (unit == 1) scope_ = Scope::thread;
  }
  if (loop_begin) linear_var = ir::var(linear, ir::Type::i64());
  // The indices, then the next level, inside the guard or loop if there is one.
  ir::StmtList inner;
  out_.push_back(&inner);
  push();
  std::int64_t inner_const = 1;
  ExprRef inner_dynamic;  // runtime factors of the inner counts
  Value indices;          // `parallel p = {a, b} by [...]`: p names them together
  indices.kind = Value::Kind::tuple;
  indices.elements.resize(lv.indices.empty() ? 0 : counts.size());
  for (int d = static_cast<int>(counts.size()) - 1; d >= 0; --d) {
    if (!lv.indices.empty()) {
      std::string name = fresh(lv.indices[d].name);
      ExprRef inner_count = ir::int_const(inner_const);
      if (inner_dynamic) inner_count = inner_const == 1 ? inner_dynamic : ir::binary("*", inner_dynamic, inner_count);
      ExprRef value = ir::is_const(inner_count) && inner_const == 1 && !inner_dynamic ? linear_var
                                                                                       : ir::binary("/", linear_var, inner_count);
      if (d > 0) value = ir::binary("%", value, count_values[d].expr);
      // Thread indices are below 1024; block and flat ones take the index type.
      const ir::Type type = mapping == ir::Mapping::threads ? ir::Type::i32() : index_type();
      emit_node(ir::Let{name, type, true, value});
      if (mapping == ir::Mapping::threads && unit > 1) group_vars_.push_back(name);
      Value v;
      v.kind = Value::Kind::index;
      v.expr = ir::var(name, type);
      v.count = counts[d];  // 0: a runtime count
      define(lv.indices[d].name, v);
      indices.elements[static_cast<std::size_t>(d)] = v;
    }
    if (counts[d] > 0) {
      auto product = support::checked_mul(inner_const, counts[d]);
      inner_const = product.ok() ? product.value : inner_const;
    } else {
      inner_dynamic = inner_dynamic ? ir::binary("*", inner_dynamic, count_values[d].expr) : count_values[d].expr;
    }
  }
  if (lv.tuple_name && !lv.indices.empty()) define(lv.tuple_name->name, indices);
  parallel(s, p, level_index + 1);
  if (one_warpgroup_block && !pipelined_multiply_) {
    // The warpgroup of a one-warpgroup block leaves the level with its
    // multiplies complete and every warp past them: the block-scope code
    // after it may overwrite the operand tiles (the next TMA load) or read
    // the accumulator.
    emit_node(ir::MmaCommit{});
    emit_barrier();
  }
  pop();
  if (barrier_at_close) emit_barrier();
  out_.pop_back();
  if (loop_begin) {
    ir::For f;
    f.var = linear;
    f.type = ir::Type::i64();
    f.begin = loop_begin;
    f.end = loop_end;
    f.step = loop_step;
    f.body = ir::make_stmt(ir::Seq{std::move(inner), false});
    emit_node(std::move(f));
  } else if (guard) {
    emit_node(ir::If{guard, ir::make_stmt(ir::Seq{std::move(inner), false}), nullptr});
  } else {
    for (auto& st : inner) emit(std::move(st));
  }
  out_.pop_back();
  emit_node(ir::Region{mapping, unit, braced(std::move(region))}, lv.location);
  if (pushed_group) group_levels_.pop_back();
  scope_ = saved_scope;
  in_warpgroup_ = saved_in_warpgroup;
  in_warp_ = saved_in_warp;
  threads_span_group_ = saved_span;
  in_cooperative_ = saved_in_cooperative;
  thread_id_ = saved_tid;
  thread_instances_ = saved_thread_instances;
  group_vars_.resize(saved_group_vars);
}

}  // namespace croq::lower::detail
