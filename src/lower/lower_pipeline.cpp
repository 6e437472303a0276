// Recognizes a k loop that loads its operand tiles with synchronous TMA
// copies and multiplies them, as Croqtile's README GEMM is written:
//
//   foreach {k} in [n] {
//     tma.copy ... .at(bm, k) => lhs_s;      // whole shared buffers,
//     tma.copy ... .at(bn, k) => rhs_s;      // nothing else writes them
//     parallel p by 1 : group-4 { mma.row.row mc, lhs_s, rhs_s; }
//   }
//
// Lowering translates such a loop as it would any other (each load waits
// for its own private event) and marks it (ir::PipelineMark): the pass
// passes::pipeline_k_loops decides whether and how deep to pipeline it and
// builds the pipeline. What is recognized here is what the IR no longer
// says: that nothing else names the loaded buffers (other views, stores),
// and where the loop sits (a Hopper block's warpgroup scope). The mark
// reserves the names the pass's pipeline declares, in the order lowering
// declared them when it pipelined the loop itself, so generated code keeps
// its names.
#include <algorithm>
#include <set>

#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

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

std::optional<ir::PipelineMark> MmaLowering::mark_pipeline_candidate(const Stmt& s, const Loop& l) {
  if (!kernel_.hopper || scope_ != Scope::block || set_.threads != 0 || in_warp_ || !in_warpgroup_) return std::nullopt;
  if (l.indices.size() != 1 || l.indices[0].range || l.indices[0].local_name || l.tuple_name || !s.attributes.empty())
    return std::nullopt;
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
    // Synchronous (no `.async`), into a named tile: sema's protocol of it.
    const bool plain = c->destination_storage == Storage::none && facts_.copies.count(c) && !facts_.protocol(*c).async;
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

  // Each load's private event, then the pipeline's shift and prologue pass.
  ir::PipelineMark mark;
  mark.buffers_before = static_cast<int>(kernel_.buffers.size());
  for (const Stmt* load : loads) {
    ir::Event e;
    e.source_name = "tma.copy";
    e.name = fresh("tma_pipe_bar");
    e.phase = e.name + "_phase";
    e.is_private = true;
    kernel_.events.push_back(e);
    candidate_load_events_[load] = static_cast<int>(kernel_.events.size()) - 1;
  }
  mark.shift = fresh("pipe_shift");
  mark.pass = fresh("pipe_pass");
  return mark;
}

void MmaLowering::finish_pipeline_mark(ir::PipelineMark& mark) { mark.slot = fresh("pipe_slot"); }

void MmaLowering::attach_pipeline_mark(ir::PipelineMark mark, const Loop& l) {
  auto& loop = std::get<ir::For>(out_.back()->back()->node);
  loop.pipeline = std::move(mark);
  if (const auto* body = std::get_if<Block>(&l.body->node))
    for (const auto& st : body->statements) candidate_load_events_.erase(st.get());
}

}  // namespace croq::lower::detail
