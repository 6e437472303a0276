// Software pipelining of a k loop that loads its operand tiles with
// synchronous TMA copies and multiplies them, as Croqtile's README GEMM is
// written:
//
//   foreach {k} in [n] {
//     tma.copy ... .at(bm, k) => lhs_s;      // whole shared buffers,
//     tma.copy ... .at(bn, k) => rhs_s;      // nothing else writes them
//     parallel p by 1 : group-4 { mma.row.row mc, lhs_s, rhs_s; }
//   }
//
// Written that way every pass waits for its loads and then for its
// multiply. Lowered as a pipeline, the buffers become rings of S slots, each
// load completes on its slot's barrier, S - 1 loads are in flight ahead of
// the multiply, and one WGMMA group stays in flight while the next tiles
// arrive. Pass k uses slot (k + shift) % S, where the shift puts the last
// pass in slot 0: the buffer as the rest of the function names it holds
// the last tiles, as it would have unpipelined.
#include <algorithm>
#include <set>

#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

constexpr std::int64_t kMaxStages = 4;
// Shared memory the pipeline may bring the kernel to: below the 227 KiB a
// Hopper block has, leaving room for buffers declared after the loop.
constexpr std::int64_t kPipelineSharedBudget = 160 * 1024;

const Name* plain_name(const ExprPtr& e) { return e ? std::get_if<Name>(&e->node) : nullptr; }

// The names an expression mentions.
void names_in(const Expr& e, std::set<std::string>& out) {
  auto sub = [&](const ExprPtr& p) {
    if (p) names_in(*p, out);
  };
  auto subs = [&](const ExprList& l) {
    for (const auto& p : l) sub(p);
  };
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Name>) out.insert(n.name);
    else if constexpr (std::is_same_v<T, Unary> || std::is_same_v<T, Convert> || std::is_same_v<T, ElementCount>) sub(n.operand);
    else if constexpr (std::is_same_v<T, Binary>) { sub(n.lhs); sub(n.rhs); }
    else if constexpr (std::is_same_v<T, Conditional>) { sub(n.condition); sub(n.then_value); sub(n.else_value); }
    else if constexpr (std::is_same_v<T, Call>) { sub(n.callee); subs(n.template_args); subs(n.args); }
    else if constexpr (std::is_same_v<T, Member>) { sub(n.object); subs(n.args); }
    else if constexpr (std::is_same_v<T, Subscript>) { sub(n.object); subs(n.indices); }
    else if constexpr (std::is_same_v<T, ITuple>) subs(n.elements);
    else if constexpr (std::is_same_v<T, ShapeList>) subs(n.dims);
    else if constexpr (std::is_same_v<T, Range>) { sub(n.start); sub(n.end); sub(n.stride); }
  }, e.node);
}

const Name* root_of(const ExprPtr& e) {
  const Expr* x = e.get();
  while (x) {
    if (const auto* n = std::get_if<Name>(&x->node)) return n;
    if (const auto* m = std::get_if<Member>(&x->node)) x = m->object.get();
    else if (const auto* s = std::get_if<Subscript>(&x->node)) x = s->object.get();
    else return nullptr;
  }
  return nullptr;
}

// What the multiply part of the loop may hold: mma statements (none storing
// into the loaded buffers), and the parallel levels and loops around them. Collects
// the names the part mentions; false on anything else.
bool multiply_only(const Stmt& s, const std::set<std::string>& loaded, std::set<std::string>& mentioned, bool& multiplies) {
  if (const auto* b = std::get_if<Block>(&s.node)) {
    for (const auto& c : b->statements)
      if (!multiply_only(*c, loaded, mentioned, multiplies)) return false;
    return true;
  }
  if (const auto* p = std::get_if<Parallel>(&s.node)) {
    if (!s.attributes.empty() || !p->body || p->is_async || p->stream) return false;
    for (const auto& level : p->levels)
      if (level.count) names_in(*level.count, mentioned);
    return multiply_only(*p->body, loaded, mentioned, multiplies);
  }
  if (const auto* l = std::get_if<Loop>(&s.node)) {  // k slices of the loaded tiles
    if (l->kind != LoopKind::foreach_ || !l->bound || !l->body || !s.attributes.empty()) return false;
    names_in(*l->bound, mentioned);
    for (const LoopIndex& i : l->indices)
      if (i.range) names_in(*i.range, mentioned);
    return multiply_only(*l->body, loaded, mentioned, multiplies);
  }
  if (const auto* m = std::get_if<Mma>(&s.node)) {
    if (m->frag_declaration || m->op == MmaOp::fill || m->op == MmaOp::store || m->op == MmaOp::scale) return false;
    for (const auto& o : m->operands)
      if (o) names_in(*o, mentioned);
    if (m->result) names_in(*m->result, mentioned);
    if (m->op == MmaOp::multiply || m->op == MmaOp::load) {  // reads a loaded tile
      for (const auto& o : m->operands) {
        const Name* n = root_of(o);
        multiplies = multiplies || (n && loaded.count(n->name));
      }
    }
    return true;
  }
  return false;
}

}  // namespace

// The form the pipelined loop takes: its body's leading loads into whole
// shared buffers, where the multiplies start, and the stages the shared
// memory allows.
struct MmaLowering::PipelinedLoop {
  const Block* body = nullptr;
  std::vector<const Stmt*> loads;
  std::vector<int> buffers;
  std::size_t first_rest = 0;
  std::int64_t stages = 0;
};

bool MmaLowering::try_pipelined_loop(const Stmt& s, const Loop& l, const Value& bound) {
  const std::optional<PipelinedLoop> pipelined = pipelinable(s, l, bound);
  if (!pipelined) return false;
  emit_pipelined_loop(s, l, bound, *pipelined);
  return true;
}

std::optional<MmaLowering::PipelinedLoop> MmaLowering::pipelinable(const Stmt& s, const Loop& l, const Value& bound) {
  if (!kernel_.hopper || scope_ != Scope::block || set_.threads != 0 || in_warp_ || !in_warpgroup_) return std::nullopt;
  if (l.indices.size() != 1 || l.indices[0].range || l.indices[0].local_name || l.tuple_name || !s.attributes.empty())
    return std::nullopt;
  if (bound.constant && *bound.constant < 2) return std::nullopt;
  const auto* body = l.body ? std::get_if<Block>(&l.body->node) : nullptr;
  if (!body) return std::nullopt;

  // The leading synchronous TMA loads into whole shared buffers.
  std::vector<const Stmt*> loads;
  std::vector<int> buffers;
  std::set<std::string> loaded;
  std::size_t first_rest = 0;
  for (; first_rest < body->statements.size(); ++first_rest) {
    const Stmt& st = *body->statements[first_rest];
    const auto* c = std::get_if<Copy>(&st.node);
    if (!c || c->engine != Engine::tma || c->op != CopyOp::copy || c->future || !c->after.empty() || !st.attributes.empty())
      break;
    bool plain = c->destination_storage == Storage::none;
    for (const Modifier& m : c->modifiers) plain = plain && (m.name == "swiz" || m.name == "zfill");
    const Name* dest = plain_name(c->destination);
    if (!plain || !dest || loaded.count(dest->name)) return std::nullopt;
    const Value* v = lookup(dest->name);
    if (!v || v->kind != Value::Kind::view || v->view.slot || v->view.pending != View::Pending::none) return std::nullopt;
    const ir::Buffer& b = buffer(v->view.buffer);
    if (b.space != ir::Space::shared || b.slots != 0 || b.alias_of >= 0 || overlapped_store_tiles_.count(v->view.buffer))
      return std::nullopt;
    for (const ir::Buffer& other : kernel_.buffers)
      if (other.alias_of == v->view.buffer) return std::nullopt;
    loads.push_back(&st);
    buffers.push_back(v->view.buffer);
    loaded.insert(dest->name);
  }
  if (loads.empty() || first_rest == body->statements.size()) return std::nullopt;

  // The rest only multiplies them, and names no other view of them.
  std::set<std::string> mentioned;
  bool multiplies = false;
  for (std::size_t i = first_rest; i < body->statements.size(); ++i)
    if (!multiply_only(*body->statements[i], loaded, mentioned, multiplies)) return std::nullopt;
  if (!multiplies) return std::nullopt;
  for (const std::string& name : mentioned) {
    if (loaded.count(name) || name == l.indices[0].name.name) continue;
    const Value* v = lookup(name);
    if (v && (v->kind == Value::Kind::view || v->kind == Value::Kind::future || v->kind == Value::Kind::operand) &&
        std::find(buffers.begin(), buffers.end(), v->view.buffer) != buffers.end())
      return std::nullopt;
  }

  // Stages: as many as the shared memory budget allows, up to kMaxStages.
  std::int64_t shared_bytes = 0, stage_bytes = 0;
  for (const ir::Buffer& b : kernel_.buffers) {
    if (b.space != ir::Space::shared) continue;
    std::int64_t bytes = static_cast<std::int64_t>(dtype_size(b.dtype));
    for (const ir::Extent& e : b.dims) bytes *= e.value;
    bytes = (bytes + 1023) / 1024 * 1024;
    shared_bytes += bytes * std::max<std::int64_t>(1, b.slots);
    if (std::find(buffers.begin(), buffers.end(), &b - kernel_.buffers.data()) != buffers.end()) stage_bytes += bytes;
  }
  std::int64_t stages = kMaxStages;
  while (stages >= 2 && shared_bytes + (stages - 1) * stage_bytes > kPipelineSharedBudget) --stages;
  if (stages < 2) return std::nullopt;

  return PipelinedLoop{body, std::move(loads), std::move(buffers), first_rest, stages};
}

void MmaLowering::emit_pipelined_loop(const Stmt& s, const Loop& l, const Value& bound, const PipelinedLoop& p) {
  const Block* body = p.body;
  const std::vector<const Stmt*>& loads = p.loads;
  const std::vector<int>& buffers = p.buffers;
  const std::size_t first_rest = p.first_rest;
  const std::int64_t stages = p.stages;
  if (bound.constant) fit_index(*bound.constant + stages);
  const std::string& index_name = l.indices[0].name.name;
  const ir::Type it = index_type();
  const ExprRef trip = ir::convert(bound.expr, it);
  const ExprRef S = ir::int_const(stages);
  for (int b : buffers) buffer(b).slots = stages;
  std::vector<int> events;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    ir::Event e;
    e.source_name = "tma.copy";
    e.name = fresh("tma_pipe_bar");
    e.phase = e.name + "_phase";
    e.count = stages;
    e.is_private = true;
    kernel_.events.push_back(e);
    events.push_back(static_cast<int>(kernel_.events.size()) - 1);
  }
  line_mark(s.location);
  // shift = (S - (n - 1) % S) % S, so that pass n - 1 uses slot 0.
  const std::string shift_name = fresh("pipe_shift");
  emit_node(ir::Let{shift_name, it, true,
                    ir::binary("%", ir::binary("-", S, ir::binary("%", ir::binary("-", trip, ir::int_const(1)), S)), S)});
  const ExprRef shift = ir::var(shift_name, it);
  auto slot_of = [&](const ExprRef& pass) { return ir::binary("%", ir::binary("+", pass, shift), S); };

  auto loaded_name = [&](std::size_t i) -> const std::string& {
    return std::get<Name>(std::get<Copy>(loads[i]->node).destination->node).name;
  };
  // In a pushed scope: the loop index is `pass` and the loaded names are
  // their tiles in `slot`.
  auto bind_pass = [&](const ExprRef& pass, const ExprRef& slot) {
    Value k;
    k.kind = Value::Kind::index;
    k.expr = pass;
    k.count = bound.constant ? *bound.constant : 0;
    define(index_name, k);
    for (std::size_t i = 0; i < loads.size(); ++i) {
      Value v = *lookup(loaded_name(i));
      v.view.slot = slot;
      define(loaded_name(i), v);
    }
  };
  // Issues the loads of pass `pass` into `slot`, each completing on its barrier.
  auto issue = [&](const ExprRef& pass, const ExprRef& slot) {
    push();
    bind_pass(pass, slot);
    for (std::size_t i = 0; i < loads.size(); ++i) {
      pipeline_load_ = PipelineLoad{events[i], slot};
      stmt(*loads[i]);
      pipeline_load_.reset();
    }
    pop();
  };
  auto guarded = [&](const ExprRef& condition, const std::function<void()>& body_fn) {
    ir::StmtList then = collect(body_fn);
    emit_node(ir::If{condition, ir::make_stmt(ir::Seq{std::move(then), false}), nullptr});
  };

  // Prologue: passes 0 .. S - 2.
  {
    const std::string j = fresh("pipe_pass");
    const ExprRef jv = ir::var(j, it);
    ir::StmtList prologue = collect([&] { guarded(ir::less(jv, trip), [&] { issue(jv, slot_of(jv)); }); });
    ir::For f;
    f.var = j;
    f.type = it;
    f.begin = ir::int_const(0);
    f.end = ir::int_const(stages - 1);
    f.body = ir::make_stmt(ir::Seq{std::move(prologue), false});
    emit_node(std::move(f), s.location);
  }
  // The passes: wait for the slot, multiply, let the previous group finish,
  // refill its slot with pass k + S - 1.
  const std::string k_name = fresh(index_name);
  const ExprRef kv = ir::var(k_name, it);
  ir::StmtList passes = collect([&] {
    const std::string slot_name = fresh("pipe_slot");
    emit_node(ir::Let{slot_name, it, true, slot_of(kv)});
    const ExprRef slot = ir::var(slot_name, it);
    for (int e : events) emit_node(ir::WaitEvent{e, slot});
    push();
    bind_pass(kv, slot);
    const bool saved = pipelined_multiply_;
    pipelined_multiply_ = true;
    const StmtList* saved_list = block_statements_;
    const std::size_t saved_position = block_position_;
    block_statements_ = &body->statements;
    for (block_position_ = first_rest; block_position_ < body->statements.size(); ++block_position_)
      stmt(*body->statements[block_position_]);
    block_statements_ = saved_list;
    block_position_ = saved_position;
    pipelined_multiply_ = saved;
    pop();
    emit_node(ir::MmaWait{1, "the previous pass's group is done: its slot can be refilled"});
    emit_barrier();
    const ExprRef ahead = ir::binary("+", kv, ir::int_const(stages - 1));
    guarded(ir::less(ahead, trip), [&] { issue(ahead, slot_of(ahead)); });
  });
  ir::For f;
  f.var = k_name;
  f.type = it;
  f.begin = ir::int_const(0);
  f.end = trip;
  f.body = ir::make_stmt(ir::Seq{std::move(passes), false});
  emit_node(std::move(f), s.location);
  // Every group complete before the block goes on (the slots are free again).
  emit_node(ir::MmaCommit{});
  emit_barrier();
  // Past the loop the names are slot 0, which holds the last pass's tiles.
  for (std::size_t i = 0; i < loads.size(); ++i) {
    for (auto scope = symbols_.rbegin(); scope != symbols_.rend(); ++scope) {
      auto found = scope->find(loaded_name(i));
      if (found == scope->end()) continue;
      found->second.view.slot = ir::int_const(0);
      break;
    }
  }
}

}  // namespace croq::lower::detail
