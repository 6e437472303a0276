// Software pipelining of the k loops lowering marked (ir::PipelineMark):
// loops whose body starts with synchronous TMA loads of whole shared tiles
// (each waits for its private event) and then only multiplies them.
//
// Written that way every pass waits for its loads and then for its
// multiply. As a pipeline, the loaded buffers become rings of S slots (as
// many as the shared-memory budget allows, up to kMaxStages), each load
// completes on its slot's barrier, S - 1 loads are in flight ahead of the
// multiply, and one WGMMA group stays in flight while the next tiles
// arrive. Pass k uses slot (k + shift) % S, where the shift puts the last
// pass in slot 0: the buffer as the rest of the kernel names it holds the
// last tiles, as it would have unpipelined.
#include <algorithm>
#include <optional>

#include "ir/builder.hpp"
#include "ir/clone.hpp"
#include "ir/rewrite.hpp"
#include "ir/walk.hpp"
#include "passes/passes.hpp"

namespace croq::passes {

namespace {

using ir::ExprRef;
using ir::Stmt;
using ir::StmtList;
using ir::StmtPtr;

constexpr std::int64_t kMaxStages = 4;
// Shared memory the pipeline may bring the kernel to: below the 227 KiB a
// Hopper block has, leaving room for buffers declared after the loop.
constexpr std::int64_t kPipelineSharedBudget = 160 * 1024;

// One leading load of a marked loop as lowering wrote it: the completion of
// its buffer's readers, its #line, the load, the wait for its private event.
struct LeadingLoad {
  const Stmt* line = nullptr;  // null: none
  const Stmt* load = nullptr;
  int buffer = -1;
  int event = -1;
};

// The shared buffer a load fills from its first element, -1 otherwise.
int loaded_buffer(const ir::TmaLoad& l) {
  const ExprRef& d = l.destination;
  if (!d || d->kind != ir::ExprKind::address_of || d->operands.empty()) return -1;
  const ExprRef& e = d->operands[0];
  if (!e || e->kind != ir::ExprKind::element || e->operands.empty() || e->operands[0]) return -1;
  for (std::size_t i = 1; i < e->operands.size(); ++i)
    if (!ir::is_zero(e->operands[i])) return -1;
  return e->buffer;
}

// The leading loads of `body`; `rest` is the index of its first other statement.
std::vector<LeadingLoad> leading_loads(const ir::Kernel& k, const StmtList& body, std::size_t& rest) {
  std::vector<LeadingLoad> loads;
  std::size_t i = 0;
  while (i < body.size()) {
    LeadingLoad l;
    std::size_t j = i;
    const auto* commit = std::get_if<ir::MmaCommit>(&body[j]->node);
    if (commit) ++j;
    if (j < body.size() && std::holds_alternative<ir::LineMark>(body[j]->node)) l.line = body[j++].get();
    if (j + 1 >= body.size()) break;
    const auto* load = std::get_if<ir::TmaLoad>(&body[j]->node);
    const auto* wait = std::get_if<ir::WaitEvent>(&body[j + 1]->node);
    if (!load || !wait || !load->arrive || load->event < 0 || load->event >= static_cast<int>(k.events.size()) ||
        wait->event != load->event || wait->parity || !ir::is_zero(load->event_index) || !ir::is_zero(wait->index))
      break;
    const ir::Event& e = k.events[static_cast<std::size_t>(load->event)];
    l.buffer = loaded_buffer(*load);
    if (!e.is_private || e.count != 1 || l.buffer < 0 ||
        (commit && (!commit->registers.empty() || commit->shared != std::vector<int>{l.buffer})))
      break;
    if (std::any_of(loads.begin(), loads.end(), [&](const LeadingLoad& o) { return o.buffer == l.buffer || o.event == load->event; }))
      break;
    l.load = body[j].get();
    l.event = load->event;
    loads.push_back(l);
    i = j + 2;
  }
  rest = i;
  return loads;
}

// As many stages as the shared memory declared before the loop leaves room
// for, up to kMaxStages (fewer than 2: no pipeline).
std::int64_t stages_for(const ir::Kernel& k, const std::vector<LeadingLoad>& loads, int buffers_before) {
  std::int64_t shared_bytes = 0, stage_bytes = 0;
  for (int id = 0; id < buffers_before; ++id) {
    const ir::Buffer& b = k.buffers[static_cast<std::size_t>(id)];
    if (b.space != ir::Space::shared) continue;
    std::int64_t bytes = static_cast<std::int64_t>(dtype_size(b.dtype));
    for (const ir::Extent& e : b.dims) bytes *= e.value;
    bytes = (bytes + 1023) / 1024 * 1024;
    shared_bytes += bytes * std::max<std::int64_t>(1, b.slots);
    if (std::any_of(loads.begin(), loads.end(), [&](const LeadingLoad& l) { return l.buffer == id; })) stage_bytes += bytes;
  }
  std::int64_t stages = kMaxStages;
  while (stages >= 2 && shared_bytes + (stages - 1) * stage_bytes > kPipelineSharedBudget) --stages;
  return stages;
}

// The warpgroup of a one-warpgroup level leaves it with every WGMMA group
// complete and then a barrier (lowering's plain form); in the pipeline one
// group stays in flight past the level instead.
void keep_groups_in_flight(Stmt& s) {
  ir::for_each<ir::Region>(s, [](ir::Region& r, Stmt&) {
    if (r.mapping != ir::Mapping::threads || !r.body) return;
    auto* seq = std::get_if<ir::Seq>(&r.body->node);
    if (!seq || seq->body.empty()) return;
    StmtList* inner = &seq->body;
    if (auto* guard = std::get_if<ir::If>(&inner->back()->node); guard && !guard->else_branch && guard->then_branch) {
      if (auto* then = std::get_if<ir::Seq>(&guard->then_branch->node)) inner = &then->body;
    } else if (auto* loop = std::get_if<ir::For>(&inner->back()->node); loop && loop->body) {
      if (auto* body = std::get_if<ir::Seq>(&loop->body->node)) inner = &body->body;
    }
    if (inner->size() < 2) return;
    const auto* commit = std::get_if<ir::MmaCommit>(&(*inner)[inner->size() - 2]->node);
    const auto* barrier = std::get_if<ir::Barrier>(&inner->back()->node);
    if (!commit || !commit->registers.empty() || !commit->shared.empty() || !barrier ||
        barrier->scope != ir::Barrier::Scope::set || barrier->if_written != ir::Barrier::kAlways || barrier->set.threads != 0)
      return;
    inner->resize(inner->size() - 2);
  });
}

StmtPtr block_barrier() {
  return ir::make_stmt(ir::Barrier{ir::ThreadSet{0, 0, 0, ir::special("threadIdx.x"), ir::special("blockDim.x")}});
}

class Pipeliner {
 public:
  explicit Pipeliner(ir::Kernel& k) : k_(k) {}

  // Pipelines the marked loops of `list` and the statements nested in it,
  // in program order; past a pipeline, its buffers are named in slot 0.
  void list(StmtList& l) {
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (auto* f = std::get_if<ir::For>(&l[i]->node); f && f->pipeline) {
        std::optional<StmtList> built = pipeline(l[i]);
        if (built) {
          const std::size_t n = built->size();
          l.erase(l.begin() + static_cast<std::ptrdiff_t>(i));
          l.insert(l.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(built->begin()),
                   std::make_move_iterator(built->end()));
          i += n - 1;
          continue;
        }
      }
      statement(*l[i]);
    }
  }

 private:
  void statement(Stmt& s) {
    for (int b : rings_) ir::add_slot(s, b, ir::int_const(0), false);
    if (auto* seq = std::get_if<ir::Seq>(&s.node)) return list(seq->body);
    for (StmtPtr* body : ir::nested_bodies(s)) {
      if (auto* seq = std::get_if<ir::Seq>(&(*body)->node)) {
        list(seq->body);
      } else {
        if (auto* f = std::get_if<ir::For>(&(*body)->node)) f->pipeline.reset();  // lowering's loops have Seq bodies
        statement(**body);
      }
    }
  }

  // The statements replacing the marked loop `loop`, or none where the
  // loop stays as lowering wrote it (its mark dropped either way).
  std::optional<StmtList> pipeline(StmtPtr& loop);

  ir::Kernel& k_;
  std::vector<int> rings_;  // buffers of pipelines behind the walk
};

std::optional<StmtList> Pipeliner::pipeline(StmtPtr& loop) {
  auto& f = std::get<ir::For>(loop->node);
  const ir::PipelineMark mark = *f.pipeline;
  f.pipeline.reset();
  auto* seq = f.body ? std::get_if<ir::Seq>(&f.body->node) : nullptr;
  if (!seq || f.step || !ir::is_zero(f.begin) || mark.buffers_before > static_cast<int>(k_.buffers.size()))
    return std::nullopt;
  StmtList& body = seq->body;
  std::size_t rest = 0;
  const std::vector<LeadingLoad> loads = leading_loads(k_, body, rest);
  if (loads.empty() || rest == body.size()) return std::nullopt;
  std::int64_t trip_count = 0;
  const bool constant_trip = ir::is_const(f.end, &trip_count);
  if (constant_trip && trip_count < 2) return std::nullopt;
  const std::int64_t stages = stages_for(k_, loads, mark.buffers_before);
  if (stages < 2) return std::nullopt;
  if (constant_trip && k_.largest_index) k_.largest_index = std::max(*k_.largest_index, trip_count + stages);

  const ir::Type it = ir::Type::index();
  const ExprRef trip = ir::convert(f.end, it);
  const ExprRef S = ir::int_const(stages);
  for (const LeadingLoad& l : loads) {
    k_.buffers[static_cast<std::size_t>(l.buffer)].slots = stages;
    k_.events[static_cast<std::size_t>(l.event)].count = stages;
  }
  StmtList out;
  // shift = (S - (n - 1) % S) % S, so that pass n - 1 uses slot 0.
  out.push_back(ir::make_stmt(ir::Let{
      mark.shift, it, true,
      ir::binary("%", ir::binary("-", S, ir::binary("%", ir::binary("-", trip, ir::int_const(1)), S)), S)}));
  const ExprRef shift = ir::var(mark.shift, it);
  auto slot_of = [&](const ExprRef& pass) { return ir::binary("%", ir::binary("+", pass, shift), S); };
  // The loads of pass `pass` into `slot`, each completing on its barrier
  // there (no wait: the pass that reads them waits), when there is such a pass.
  auto issue = [&](const ExprRef& pass) {
    const ExprRef slot = slot_of(pass);
    StmtList issued;
    for (const LeadingLoad& l : loads) {
      if (l.line) issued.push_back(ir::clone(*l.line));
      StmtPtr copy = ir::clone(*l.load);
      ir::substitute(*copy, f.var, pass);
      for (const LeadingLoad& o : loads) ir::add_slot(*copy, o.buffer, slot);
      std::get<ir::TmaLoad>(copy->node).event_index = slot;
      issued.push_back(std::move(copy));
    }
    return ir::make_stmt(ir::If{ir::less(pass, trip), ir::make_stmt(ir::Seq{std::move(issued), false}), nullptr});
  };

  // Prologue: passes 0 .. S - 2.
  ir::For prologue;
  prologue.var = mark.pass;
  prologue.type = it;
  prologue.begin = ir::int_const(0);
  prologue.end = ir::int_const(stages - 1);
  StmtList first;
  first.push_back(issue(ir::var(mark.pass, it)));
  prologue.body = ir::make_stmt(ir::Seq{std::move(first), false});
  out.push_back(ir::make_stmt(std::move(prologue), loop->where));

  // The passes: wait for the slot, multiply, let the previous group finish,
  // refill its slot with pass k + S - 1.
  const ExprRef k = ir::var(f.var, it);
  const ExprRef slot = ir::var(mark.slot, it);
  StmtList passes;
  passes.push_back(ir::make_stmt(ir::Let{mark.slot, it, true, slot_of(k)}));
  for (const LeadingLoad& l : loads) passes.push_back(ir::make_stmt(ir::WaitEvent{l.event, slot, nullptr}));
  for (std::size_t i = rest; i < body.size(); ++i) {
    for (const LeadingLoad& l : loads) ir::add_slot(*body[i], l.buffer, slot);
    keep_groups_in_flight(*body[i]);
    passes.push_back(std::move(body[i]));
  }
  passes.push_back(ir::make_stmt(ir::MmaWait{1, "the previous pass's group is done: its slot can be refilled", {}}));
  passes.push_back(block_barrier());
  passes.push_back(issue(ir::binary("+", k, ir::int_const(stages - 1))));
  f.type = it;
  f.end = trip;
  f.body = ir::make_stmt(ir::Seq{std::move(passes), false});
  out.push_back(std::move(loop));
  // Every group complete before the block goes on (the slots are free again).
  out.push_back(ir::make_stmt(ir::MmaCommit{}));
  out.push_back(block_barrier());
  for (const LeadingLoad& l : loads) rings_.push_back(l.buffer);
  return out;
}

}  // namespace

void pipeline_k_loops(ir::Kernel& kernel) {
  if (!kernel.body) return;
  auto* seq = std::get_if<ir::Seq>(&kernel.body->node);
  if (!seq) return;
  Pipeliner(kernel).list(seq->body);
}

}  // namespace croq::passes
