// MMA instruction selection and WGMMA completion (see passes.hpp).
#include <algorithm>
#include <set>

#include "ir/builder.hpp"
#include "ir/walk.hpp"
#include "passes/passes.hpp"

namespace croq::passes {

namespace {

// `element_bytes`: the operand's element size; one instruction's K slice is
// 32 bytes on WGMMA (k16 of 16-bit types, k32 of fp8) and 16 elements on mma.sync.
// `n_major`: a row.col rhs ([K, N]); its K is the first dimension.
// `k_bytes`: the bytes of each row one WGMMA reads (64 for a sparse rhs).
void check_operand(const ir::Kernel& kernel, const ir::MmaOperand& op, bool wgmma, std::int64_t element_bytes,
                   bool n_major = false, std::int64_t k_bytes = 32) {
  const std::int64_t row_bytes = op.pitch;
  if (wgmma && (op.swizzle == 0 || row_bytes != op.swizzle))
    ir::fail(op.where, "WGMMA reads K-major tiles whose rows are one swizzle span: copy the tile with .swiz<" +
                           std::to_string(row_bytes == 32 || row_bytes == 64 || row_bytes == 128 ? row_bytes : 128) +
                           "> (rows of " + std::to_string(row_bytes) + " bytes here) and load it with the same swizzle");
  // mma.sync reads rows with ldmatrix: any swizzle or none, but 16-byte
  // aligned rows, and a swizzled tile's rows are one span.
  if (!wgmma && op.swizzle > 0 && row_bytes != op.swizzle)
    ir::fail(op.where, "a swizzled mma operand's rows must be one swizzle span: the tile is read as .swiz<" +
                           std::to_string(op.swizzle) + "> but its rows are " + std::to_string(row_bytes) + " bytes",
             "copy the tile with .swiz<N> where N is its row size in bytes, or without a swizzle");
  if (!wgmma && row_bytes % 16 != 0)
    ir::fail(op.where, "mma.sync loads operand rows with ldmatrix, which needs rows of a multiple of 16 bytes; "
                       "the tile's rows are " + std::to_string(row_bytes) + " bytes");
  if ((wgmma || op.swizzle > 0) && op.tile.origin_multiple[0] % 8 != 0)
    ir::fail(op.where, "an mma operand must start on a multiple of 8 rows of its tile");
  const std::int64_t k_step = wgmma ? k_bytes / element_bytes : 16;
  // ldmatrix.trans reads 16-byte rows of a [K, N] rhs: N starts on 8 elements.
  if (n_major && op.tile.origin_multiple[1] % 8 != 0)
    ir::fail(op.where, "an operand of [K, N] or [K, M] (row.col, col.*) must start on a multiple of 8 columns of its tile");
  const std::size_t k_dim = n_major ? 0 : 1;
  if (op.tile.origin_multiple[k_dim] % k_step != 0 || op.tile.extent[k_dim] % k_step != 0)
    ir::fail(op.where, "an mma operand's K range must start and end on multiples of " + std::to_string(k_step) +
                           " elements" + (k_bytes > 32 ? " (a sparse WGMMA reads 64 bytes of each rhs row per step)"
                                          : k_step == 32 ? " (fp8 WGMMA multiplies K in steps of 32)" : ""));
  (void)kernel;
}

// Whether a warp's mma.sync can read `op` with ldmatrix (the conditions
// check_operand enforces for mma.sync, plus 16-bit elements in shared memory).
bool ldmatrix_fits(const ir::MmaOperand& op, std::int64_t element_bytes, bool n_major) {
  const std::size_t k_dim = n_major ? 0 : 1;
  return op.space == ir::Space::shared && element_bytes == 2 && op.pitch % 16 == 0 &&
         (op.swizzle == 0 || (op.pitch == op.swizzle && op.tile.origin_multiple[0] % 8 == 0)) &&
         (!n_major || op.tile.origin_multiple[1] % 8 == 0) && op.tile.origin_multiple[k_dim] % 16 == 0 &&
         op.tile.extent[k_dim] % 16 == 0;
}

// The buffer whose storage `buffer` is (a span_as or .sqz() view's root).
int storage_root(const ir::Kernel& kernel, int buffer) {
  const ir::Buffer& b = kernel.buffers[static_cast<std::size_t>(buffer)];
  return b.alias_of >= 0 ? b.alias_of : buffer;
}

// The shared buffers (roots) that some thread waiting on an event writes,
// anywhere in its warpgroup region (or anywhere in the kernel, for a wait
// outside every region): what a trigger of the event may hand over for
// overwriting. Inline assembly and addresses not traced to a buffer stand
// for every buffer.
struct SharedWrites {
  bool everything = false;
  std::set<int> roots;
};

class WaiterWrites {
 public:
  explicit WaiterWrites(const ir::Kernel& kernel) : kernel_(kernel), by_event_(kernel.events.size()) {
    ir::Stmt& body = *kernel.body;
    std::vector<int> waits(kernel.events.size(), 0);  // outside every region, once known
    ir::for_each<ir::WaitEvent>(body, [&](ir::WaitEvent& w, ir::Stmt&) { ++waits[static_cast<std::size_t>(w.event)]; });
    ir::for_each<ir::WarpgroupRegion>(body, [&](ir::WarpgroupRegion& r, ir::Stmt&) {
      const SharedWrites region = writes(*r.body);
      ir::for_each<ir::WaitEvent>(*r.body, [&](ir::WaitEvent& w, ir::Stmt&) {
        add(by_event_[static_cast<std::size_t>(w.event)], region);
        --waits[static_cast<std::size_t>(w.event)];
      });
    });
    const SharedWrites whole = writes(body);
    for (std::size_t e = 0; e < by_event_.size(); ++e)
      if (waits[e] > 0) add(by_event_[e], whole);
  }

  const SharedWrites& of(int event) const { return by_event_[static_cast<std::size_t>(event)]; }

 private:
  static void add(SharedWrites& into, const SharedWrites& from) {
    into.everything = into.everything || from.everything;
    into.roots.insert(from.roots.begin(), from.roots.end());
  }

  int root(int buffer) const { return storage_root(kernel_, buffer); }

  bool is_shared(int buffer) const {
    return kernel_.buffers[static_cast<std::size_t>(root(buffer))].space == ir::Space::shared;
  }

  // Shared elements that atomics in `e` update.
  void atomics(const ir::ExprRef& e, SharedWrites& out) const {
    if (!e) return;
    if (e->kind == ir::ExprKind::atomic && !e->operands.empty() && e->operands[0] &&
        e->operands[0]->kind == ir::ExprKind::element && is_shared(e->operands[0]->buffer))
      out.roots.insert(root(e->operands[0]->buffer));
    for (const auto& o : e->operands) atomics(o, out);
  }

  // The shared buffers an address (of a TMA or store destination) points into.
  void destination(const ir::ExprRef& address, SharedWrites& out) const {
    bool found = false;
    std::vector<ir::ExprRef> stack{address};
    while (!stack.empty()) {
      ir::ExprRef e = stack.back();
      stack.pop_back();
      if (!e) continue;
      if (e->kind == ir::ExprKind::element && e->buffer >= 0) {
        found = true;
        if (is_shared(e->buffer)) out.roots.insert(root(e->buffer));
      }
      for (const auto& o : e->operands) stack.push_back(o);
    }
    if (!found) out.everything = true;
  }

  SharedWrites writes(ir::Stmt& s) const {
    SharedWrites out;
    ir::for_each_stmt(s, [&](ir::Stmt& st) {
      std::visit(
          [&](auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ir::Assign>) {
              if (n.target && n.target->kind == ir::ExprKind::element && is_shared(n.target->buffer))
                out.roots.insert(root(n.target->buffer));
              atomics(n.value, out);
              atomics(n.target, out);
            } else if constexpr (std::is_same_v<T, ir::Eval>) {
              atomics(n.value, out);
            } else if constexpr (std::is_same_v<T, ir::Let>) {
              atomics(n.init, out);
            } else if constexpr (std::is_same_v<T, ir::If> || std::is_same_v<T, ir::While>) {
              atomics(n.condition, out);
            } else if constexpr (std::is_same_v<T, ir::CopyTiles>) {
              if (n.dst.buffer < 0) out.everything = true;
              else if (is_shared(n.dst.buffer)) out.roots.insert(root(n.dst.buffer));
            } else if constexpr (std::is_same_v<T, ir::TmaLoad>) {
              destination(n.destination, out);
            } else if constexpr (std::is_same_v<T, ir::MmaStore>) {
              if (n.space == ir::Space::shared) destination(n.destination, out);
            } else if constexpr (std::is_same_v<T, ir::InlineAsm>) {
              out.everything = true;
            }
          },
          st.node);
    });
    return out;
  }

  const ir::Kernel& kernel_;
  std::vector<SharedWrites> by_event_;
};

// The WGMMA completion state along program order: the groups that may be in
// flight, oldest first. Groups complete in issue order, so `wait_group<n>`
// (at most n pending) completes a group once n groups issued after it are
// known to exist on every path here.
struct Completion {
  struct Group {
    int id = 0;               // identity, for merging the states of two paths
    int accumulator = -1;     // the accumulator it writes
    int registers = -1;       // that accumulator's register buffer (-1: none)
    int fragment = -1;        // the register fragment it reads (RS mode; -1: none)
    int shared_a = -1, shared_b = -1;  // the shared buffers (roots) it reads
    bool everything = false;  // stands for unknown groups touching anything
    // definite: issued on every path (counted); maybe: on some path;
    // back_edge: left in flight at the loop's head by the previous
    // iteration. A completion point that names what it touches, or a
    // trigger, waits for it; a full one (a `wait`) does not, so a pipelined
    // loop keeps its group in flight across the next step's wait.
    enum class Kind { definite, maybe, back_edge } kind = Kind::definite;
  };
  ir::Kernel& kernel;
  const WaiterWrites& waiter_writes;
  std::vector<Group> pending;
  int next_id = 0;
  // Only follow the state (a loop body's, to learn what an iteration leaves
  // in flight at the next one's head); change nothing.
  bool dry = false;

  ir::StmtPtr wait(int groups, const std::string& note = "") { return ir::make_stmt(ir::MmaWait{groups, note}); }

  bool in_flight() const {
    return std::any_of(pending.begin(), pending.end(), [](const Group& g) { return g.kind != Group::Kind::back_edge; });
  }

  bool touches(const Group& g, const ir::MmaCommit& c) const {
    if (g.everything) return true;
    const auto any = [](const std::vector<int>& v, auto f) { return std::any_of(v.begin(), v.end(), f); };
    return any(c.registers, [&](int b) { return b >= 0 && (b == g.registers || b == g.fragment); }) ||
           any(c.shared, [&](int b) { return b >= 0 && (b == g.shared_a || b == g.shared_b); });
  }

  int root(const ir::MmaOperand& op) const {
    if (op.tile.buffer < 0 || op.space != ir::Space::shared) return -1;
    return storage_root(kernel, op.tile.buffer);
  }

  Group group_of(const ir::Mma& m, Group::Kind kind) {
    Group g;
    g.id = next_id++;
    g.accumulator = m.accumulator;
    g.registers = kernel.accumulators[static_cast<std::size_t>(m.accumulator)].registers;
    g.fragment = m.a_fragment;
    g.shared_a = m.a_fragment >= 0 ? -1 : root(m.a);
    g.shared_b = root(m.b);
    g.kind = kind;
    return g;
  }

  // The wait that completes the newest pending group matching `match`
  // (null: none pending), dropping it and every older one.
  template <typename Match>
  ir::StmtPtr complete_newest(Match match) {
    for (std::size_t i = pending.size(); i-- > 0;) {
      if (!match(pending[i])) continue;
      int newer = 0;
      for (std::size_t j = i + 1; j < pending.size(); ++j) newer += pending[j].kind == Group::Kind::definite ? 1 : 0;
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      return wait(newer);
    }
    return nullptr;
  }

  // The state after two paths meet: groups are pending in issue order, so
  // when one path's groups end the other's, the longer list covers both
  // (its extra, older groups become `maybe`); otherwise nothing is known
  // beyond "something may be in flight": a group of its own (a fresh id),
  // never the same as another path's unknown groups. (With one id for every
  // unknown, a loop's "in flight here" met its head's "left by the previous
  // iteration" as the same group, and the loop's exit then thought nothing
  // in flight: wgmma_persis.co's pipelined loop lost its wait before the
  // store.)
  std::vector<Group> merge(const std::vector<Group>& a, const std::vector<Group>& b) {
    auto ends = [](const std::vector<Group>& longer, const std::vector<Group>& shorter) {
      if (shorter.size() > longer.size()) return false;
      for (std::size_t i = 0; i < shorter.size(); ++i)
        if (longer[longer.size() - shorter.size() + i].id != shorter[i].id) return false;
      return true;
    };
    const bool a_covers = ends(a, b), b_covers = ends(b, a);
    if (a_covers || b_covers) {
      std::vector<Group> out = a_covers ? a : b;
      const std::size_t shared = std::min(a.size(), b.size());
      for (std::size_t i = 0; i + shared < out.size(); ++i)
        if (out[i].kind == Group::Kind::definite) out[i].kind = Group::Kind::maybe;
      return out;
    }
    Group unknown;
    unknown.id = next_id++;
    unknown.everything = true;
    unknown.kind = Group::Kind::maybe;
    const bool any = !a.empty() || !b.empty();
    return any ? std::vector<Group>{unknown} : std::vector<Group>{};
  }

  // The groups an iteration of `loop` leaves in flight at the next one's
  // head (its body walked dry from `before`).
  std::vector<Group> back_edge_groups(ir::For& loop, const std::vector<Group>& before) {
    Completion body{kernel, waiter_writes};
    body.dry = true;
    body.next_id = next_id;
    body.pending = before;
    ir::StmtList pre, post;
    bool deferred = false;
    body.walk(std::get<ir::Seq>(loop.body->node).body, &loop, &pre, &post, &deferred);
    next_id = body.next_id;
    std::vector<Group> out;
    for (Group g : body.pending) {
      if (std::any_of(before.begin(), before.end(), [&](const Group& b) { return b.id == g.id; })) continue;
      g.kind = Group::Kind::back_edge;
      out.push_back(g);
    }
    return out;
  }

  // `trigger e[i]` ending a loop body while a group is in flight: wait for
  // all but the newest group, release the stage the previous iteration
  // used, and remember this one; after the loop, release the last.
  bool defer_release(ir::StmtList& list, std::size_t at, ir::For& loop, ir::StmtList& after_loop_pre,
                     ir::StmtList& after_loop_post) {
    auto& arrive = std::get<ir::Arrive>(list[at]->node);
    if (!arrive.ends_loop_body || kernel.events[static_cast<std::size_t>(arrive.event)].count < 2) return false;
    for (std::size_t j = at + 1; j < list.size(); ++j)
      if (!std::holds_alternative<ir::LineMark>(list[j]->node)) return false;
    (void)loop;
    // Only the newest group may still be in flight.
    if (!pending.empty()) pending.erase(pending.begin(), pending.end() - 1);
    if (dry) return true;
    const std::string held = kernel.fresh("loop") + "_held";
    const ir::ExprRef held_var = ir::var(held);
    auto release_previous = [&] {
      ir::Arrive previous = arrive;
      previous.index = held_var;
      ir::StmtList body;
      body.push_back(ir::make_stmt(std::move(previous), list[at]->where));
      return ir::make_stmt(ir::If{ir::binary(">=", held_var, ir::int_const(0)),
                                  ir::make_stmt(ir::Seq{std::move(body), false}), nullptr});
    };
    ir::StmtList replacement;
    replacement.push_back(wait(1, "the previous group is done: release its stage"));
    replacement.push_back(release_previous());
    replacement.push_back(ir::make_stmt(ir::Assign{held_var, "=", arrive.index, nullptr}));
    after_loop_pre.push_back(ir::make_stmt(ir::Let{held, ir::Type::i32(), false, ir::int_const(-1)}));
    after_loop_post.push_back(wait(0));
    after_loop_post.push_back(release_previous());
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(at));
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(replacement.begin()),
                std::make_move_iterator(replacement.end()));
    return true;
  }

  // Every group complete (a full completion point): the wait, or null when
  // nothing is in flight.
  ir::StmtPtr complete_all() {
    if (!in_flight()) return nullptr;
    pending.clear();
    return wait(0);
  }

  // The wait for completion point `c` (naming no buffer: every group),
  // fencing the accumulators among its registers; null when nothing is in
  // flight.
  ir::StmtPtr complete(const ir::MmaCommit& c) {
    ir::StmtPtr w = c.registers.empty() && c.shared.empty()
                        ? complete_all()
                        : complete_newest([&](const Group& g) { return touches(g, c); });
    if (!w) return nullptr;
    auto& fence = std::get<ir::MmaWait>(w->node).fence;
    for (int b : c.registers) {
      const bool accumulator = std::any_of(kernel.accumulators.begin(), kernel.accumulators.end(),
                                           [&](const ir::Accumulator& a) { return a.registers == b; });
      if (accumulator && std::find(fence.begin(), fence.end(), b) == fence.end()) fence.push_back(b);
    }
    return w;
  }

  bool hands_over_read_tiles(const ir::Arrive& arrive) const {
    const SharedWrites& w = waiter_writes.of(arrive.event);
    if (w.everything) return true;
    return std::any_of(pending.begin(), pending.end(), [&](const Group& g) {
      return (g.everything && !w.roots.empty()) || w.roots.count(g.shared_a) > 0 || w.roots.count(g.shared_b) > 0;
    });
  }

  // Puts `w` (if any) before list[i], keeping i on the same statement.
  void insert_before(ir::StmtList& list, std::size_t& i, ir::StmtPtr w) {
    if (!w || dry) return;
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(i++), std::move(w));
  }

  // Walks `list` in program order; `loop` is the For whose body it is.
  void walk(ir::StmtList& list, ir::For* loop, ir::StmtList* pre, ir::StmtList* post, bool* deferred) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      ir::Stmt& s = *list[i];
      if (auto* mma = std::get_if<ir::Mma>(&s.node)) {
        if (mma->instruction != ir::MmaInstruction::wgmma) continue;
        pending.push_back(group_of(*mma, Group::Kind::definite));
      } else if (auto* commit = std::get_if<ir::MmaCommit>(&s.node)) {
        ir::StmtPtr w = complete(*commit);
        if (dry) continue;
        if (w) list[i] = std::move(w);
        else list.erase(list.begin() + static_cast<std::ptrdiff_t>(i--));
      } else if (std::holds_alternative<ir::MmaFill>(s.node) || std::holds_alternative<ir::MmaLoad>(s.node)) {
        // Refilling (or loading) an accumulator a group still writes.
        const auto* fill = std::get_if<ir::MmaFill>(&s.node);
        const int acc = fill ? fill->accumulator : std::get<ir::MmaLoad>(s.node).accumulator;
        insert_before(list, i, complete_newest([&](const Group& g) { return g.everything || g.accumulator == acc; }));
      } else if (std::holds_alternative<ir::MmaStore>(s.node) || std::holds_alternative<ir::MmaScale>(s.node)) {
        insert_before(list, i, complete_all());
      } else if (auto* arrive = std::get_if<ir::Arrive>(&s.node)) {
        // A trigger may release tiles that any group in flight reads, one
        // a previous iteration left in flight included: those that a
        // waiter of its event writes. A trigger that hands over no such
        // tile (a turn between consumer warpgroups) leaves the groups in
        // flight.
        if (pending.empty() || !hands_over_read_tiles(*arrive)) continue;
        if (in_flight() && loop && !*deferred && defer_release(list, i, *loop, *pre, *post)) {
          *deferred = true;
          if (!dry) i += 2;  // past the replacement
          continue;
        }
        pending.clear();
        insert_before(list, i, wait(0));
      } else if (auto* f = std::get_if<ir::For>(&s.node)) {
        ir::StmtList loop_pre, loop_post;
        bool loop_deferred = false;
        const std::vector<Group> before = pending;
        for (Group& g : back_edge_groups(*f, before)) pending.push_back(g);
        walk(std::get<ir::Seq>(f->body->node).body, f, &loop_pre, &loop_post, &loop_deferred);
        if (loop_deferred) {
          pending.clear();  // the text after the loop waits for every group
          if (dry) continue;
          const auto n_pre = static_cast<std::ptrdiff_t>(loop_pre.size());
          list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(loop_pre.begin()),
                      std::make_move_iterator(loop_pre.end()));
          i += static_cast<std::size_t>(n_pre);  // the loop again
          list.insert(list.begin() + static_cast<std::ptrdiff_t>(i + 1), std::make_move_iterator(loop_post.begin()),
                      std::make_move_iterator(loop_post.end()));
          i += loop_post.size();
        } else {
          std::erase_if(pending, [](const Group& g) { return g.kind == Group::Kind::back_edge; });
          pending = merge(before, pending);  // the loop may run no iteration
        }
      } else if (auto* region = std::get_if<ir::WarpgroupRegion>(&s.node)) {
        std::vector<Group> saved = std::move(pending);
        pending.clear();
        auto& body = std::get<ir::Seq>(region->body->node).body;
        bool none = false;
        walk(body, nullptr, nullptr, nullptr, &none);
        if (in_flight() && !dry) body.push_back(wait(0));
        pending = std::move(saved);
      } else if (auto* seq = std::get_if<ir::Seq>(&s.node)) {
        walk(seq->body, nullptr, nullptr, nullptr, deferred);
      } else {
        // Completion points that open an `if`'s branches complete before
        // it: ptxas serializes every WGMMA of the kernel when a wait sits in
        // a branch that another path skips.
        if (std::holds_alternative<ir::If>(s.node)) {
          ir::MmaCommit opening;
          bool any = false, all = false;
          for (ir::StmtPtr* b : ir::nested_bodies(s))
            for (const ir::StmtPtr& st : std::get<ir::Seq>((*b)->node).body) {
              if (std::holds_alternative<ir::LineMark>(st->node)) continue;
              const auto* c = std::get_if<ir::MmaCommit>(&st->node);
              if (!c) break;
              any = true;
              all = all || (c->registers.empty() && c->shared.empty());
              opening.registers.insert(opening.registers.end(), c->registers.begin(), c->registers.end());
              opening.shared.insert(opening.shared.end(), c->shared.begin(), c->shared.end());
            }
          if (any) insert_before(list, i, complete(all ? ir::MmaCommit{} : opening));
        }
        // A branch may wait where the other path does not: after it, the
        // states of every path (and of skipping it) merge.
        ir::Stmt& branch = *list[i];
        const std::vector<Group> before = pending;
        std::vector<Group> after = before;
        for (ir::StmtPtr* b : ir::nested_bodies(branch)) {
          bool none = false;
          pending = before;
          walk(std::get<ir::Seq>((*b)->node).body, nullptr, nullptr, nullptr, &none);
          after = merge(after, pending);
        }
        pending = std::move(after);
      }
    }
  }
};

}  // namespace

void select_mma_instructions(ir::Kernel& kernel, const target::Target& target) {
  ir::for_each<ir::Mma>(*kernel.body, [&](ir::Mma& mma, ir::Stmt& s) {
    // Warp-level mma (16-row accumulators) is mma.sync on every target.
    const ir::Accumulator& acc = kernel.accumulators[static_cast<std::size_t>(mma.accumulator)];
    const bool per_warp = acc.warp;
    const bool wgmma = target.wgmma() && !per_warp;
    // A warp's tiles: ldmatrix where it reads them (shared, 16 rows, 16-bit
    // elements on 16-byte rows, k16 steps), else fragments gathered element
    // by element (global memory, other shapes and types; unswizzled).
    if (per_warp) {
      const std::int64_t bytes = static_cast<std::int64_t>(dtype_size(mma.input));
      const bool ldmatrix = acc.rows == 16 && acc.n % 8 == 0 && mma.k % 16 == 0 && ldmatrix_fits(mma.a, bytes, false) &&
                            ldmatrix_fits(mma.b, bytes, mma.b_n_major);
      if (!ldmatrix && mma.a.swizzle == 0 && mma.b.swizzle == 0) {
        mma.instruction = ir::MmaInstruction::mma_sync_gather;
        return;
      }
    }
    if (is_fp8(mma.input) && !wgmma)
      ir::fail(mma.where, "mma on fp8 tiles lowers to WGMMA (sm_90a) only; libcroqjit has no mma.sync form for them "
                          "(compiling for " + target.arch + ")",
               "compile for sm_90a, or convert the tiles to f16 or bf16");
    if (mma.metadata && !wgmma)
      ir::fail(mma.where, "a sparse mma (`.sp`) lowers to WGMMA .sp, which needs sm_90a; compiling for " + target.arch);
    if (mma.a_fragment >= 0 && !wgmma)
      ir::fail(mma.where, "an mma whose lhs is a register fragment lowers to RS-mode WGMMA (sm_90a) only (compiling for " +
                              target.arch + ")",
               "compile for sm_90a, or multiply a shared tile");
    mma.instruction = wgmma ? ir::MmaInstruction::wgmma : ir::MmaInstruction::mma_sync;
    if (mma.a_fragment < 0)
      check_operand(kernel, mma.a, wgmma, static_cast<std::int64_t>(dtype_size(mma.input)), mma.a_m_major);
    // An M-major lhs is one swizzle atom wide: M = 64 16-bit elements, one
    // 128-byte row per K (the descriptor has no stride along M).
    if (mma.a_m_major && mma.a.pitch != 64 * static_cast<std::int64_t>(dtype_size(mma.input)))
      ir::fail(mma.a.where, "an mma.col.* lhs ([K, M]) is read as rows of M = 64 elements, one 128-byte swizzle span each; "
                            "this tile's rows are " + std::to_string(mma.a.pitch) + " bytes",
               "store the lhs into a shared tile of 64 columns copied or stored with .swiz<128>");
    // A sparse step covers twice the dense K: 32 bytes of packed lhs, 64 of rhs.
    check_operand(kernel, mma.b, wgmma, static_cast<std::int64_t>(dtype_size(mma.input_b)), mma.b_n_major,
                  mma.metadata ? 64 : 32);
    if (wgmma && !kernel.needs_sm90)
      kernel.needs_sm90 = Diagnostic{Severity::error, "mma lowers to WGMMA, which needs sm_90a (Hopper)", s.where.line,
                                     s.where.column, s.where.length, ""};
  });
}

void complete_mma_groups(ir::Kernel& kernel) {
  const WaiterWrites waiter_writes(kernel);
  Completion c{kernel, waiter_writes};
  bool none = false;
  c.walk(std::get<ir::Seq>(kernel.body->node).body, nullptr, nullptr, nullptr, &none);
}

void reallocate_registers(ir::Kernel& kernel, const target::Target& target) {
  // Producers (no mma) give registers to consumers when the block is split
  // into both and they are whole warpgroups: 40 per producer thread (32
  // when 40 would leave a consumer under 160, as with three consumer
  // warpgroups: ptxas then serializes a 64-row WGMMA consumer's multiplies
  // for want of registers), the rest of the 64K register file shared by
  // the consumers.
  if (!target.setmaxnreg()) return;
  std::int64_t producers = 0, consumers = 0;
  ir::for_each<ir::WarpgroupRegion>(*kernel.body, [&](ir::WarpgroupRegion& r, ir::Stmt&) {
    if (r.whole_warpgroups) (r.mma ? consumers : producers) += r.set.threads;
  });
  if (producers == 0 || consumers == 0 || producers + consumers != kernel.block_threads) return;
  const auto consumer_share = [&](std::int64_t per_producer) {
    return std::min<std::int64_t>((65536 - producers * per_producer) / consumers / 8 * 8, 240);
  };
  const std::int64_t per_producer = consumer_share(40) < 160 ? 32 : 40;
  const std::int64_t per_consumer = consumer_share(per_producer);
  if (per_consumer <= 65536 / kernel.block_threads) return;
  ir::for_each<ir::WarpgroupRegion>(*kernel.body, [&](ir::WarpgroupRegion& r, ir::Stmt&) {
    if (!r.whole_warpgroups) return;
    auto& body = std::get<ir::Seq>(r.body->node).body;
    body.insert(body.begin(), ir::make_stmt(ir::SetMaxNReg{r.mma, static_cast<int>(r.mma ? per_consumer : per_producer)}));
  });
}

namespace {

// Statements that compute (an apply's loop, an assignment, a declaration
// with a value): what a wait placed after them means to overlap.
bool computes(const ir::Stmt& s) {
  return std::holds_alternative<ir::For>(s.node) || std::holds_alternative<ir::Assign>(s.node) ||
         std::holds_alternative<ir::Let>(s.node);
}

}  // namespace

void pin_overlapped_waits(ir::Kernel& kernel) {
  ir::for_each<ir::Seq>(*kernel.body, [&](ir::Seq& seq, ir::Stmt&) {
    for (std::size_t i = 0; i < seq.body.size(); ++i) {
      auto* wait = std::get_if<ir::MmaWait>(&seq.body[i]->node);
      if (!wait) continue;
      // Back to the multiplies or the previous wait: work on the way is
      // what this wait was placed after.
      for (std::size_t j = i; j-- > 0 && !wait->pinned;) {
        const ir::Stmt& s = *seq.body[j];
        if (std::holds_alternative<ir::Mma>(s.node) || std::holds_alternative<ir::MmaWait>(s.node)) break;
        wait->pinned = computes(s);
      }
    }
  });
}

}  // namespace croq::passes
