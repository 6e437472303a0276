// Data races on shared memory: two threads of a block access the same byte,
// at least one of them writes, and nothing orders the two accesses.
//
// Happens-before is tracked with vector clocks (one per thread, over the
// block's threads): a barrier, a named barrier, a warp's or warpgroup's
// collective operation (MMA, shuffles, per-warp triggers) joins the clocks of
// the threads that meet there; an event's arrival publishes the arriving
// thread's clock into the event, and a wait takes it. Each shared byte keeps
// the epoch (thread, clock) and line of its last write and of its last
// read; an access that is not ordered after the other thread's last write
// (or, for a write, after its last read) is a race. Atomics never race with
// each other and are not tracked. Bytes written by the asynchronous proxy
// (TMA loads) or by a warpgroup's collective store (mma.store) start over:
// their readers are checked against the copy's event instead
// (check_shared_read), and the issuing thread's write is checked first.
#include <algorithm>

#include "interp/executor.hpp"
#include "interp/values.hpp"
#include "support/env.hpp"

namespace croq::interp {

namespace {

// Whether `clock` has seen the epoch (tid, at).
// CROQ_INTERPRET_RACES=0 turns the race check off (read once).
bool races_checked() {
  static const bool checked = support::env_flag("CROQ_INTERPRET_RACES", true);
  return checked;
}

bool ordered(const std::vector<std::uint32_t>& clock, std::uint32_t tid, std::uint32_t at) {
  return at == 0 || (tid < clock.size() && clock[tid] >= at);
}

void join(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& other) {
  if (into.size() < other.size()) into.resize(other.size(), 0);
  for (std::size_t i = 0; i < other.size(); ++i) into[i] = std::max(into[i], other[i]);
}

}  // namespace

void Executor::race_start(Thread& t) {
  t.clock.assign(static_cast<std::size_t>(launch_.threads), 0);
  t.clock[static_cast<std::size_t>(t.tid)] = 1;
  t.atomic = false;
}

void Executor::race_sync(const std::vector<Thread*>& threads) {
  // Threads of several blocks (a grid barrier) join per block.
  std::vector<const Block*> blocks;
  for (const Thread* th : threads)
    if (std::find(blocks.begin(), blocks.end(), th->block) == blocks.end()) blocks.push_back(th->block);
  for (const Block* b : blocks) {
    std::vector<std::uint32_t> joined;
    for (const Thread* th : threads)
      if (th->block == b) join(joined, th->clock);
    for (Thread* th : threads)
      if (th->block == b) {
        th->clock = joined;
        ++th->clock[static_cast<std::size_t>(th->tid)];
      }
  }
}

void Executor::race_release(Thread& t, EventSlot& slot) {
  join(slot.clock, t.clock);
  ++t.clock[static_cast<std::size_t>(t.tid)];
}

void Executor::race_acquire(Thread& t, const EventSlot& slot) { join(t.clock, slot.clock); }

void Executor::race_forget(Storage* s, std::size_t begin, std::size_t end) {
  if (s->race_cells.empty()) return;
  RaceCell written;
  written.defined = true;
  std::fill(s->race_cells.begin() + static_cast<std::ptrdiff_t>(begin),
            s->race_cells.begin() + static_cast<std::ptrdiff_t>(std::min(end, s->race_cells.size())), written);
}

void Executor::race_access(Thread& t, Storage* s, std::size_t begin, std::size_t end, bool write, std::size_t element,
                           bool same_value) {
  if (t.atomic || s->space != ir::Space::shared || !races_checked()) return;
  if (s->race_cells.empty()) s->race_cells.resize(s->bytes);
  const auto me = static_cast<std::uint32_t>(t.tid);
  const std::uint32_t now = t.clock[static_cast<std::size_t>(t.tid)];
  for (std::size_t i = begin; i < end && i < s->race_cells.size(); ++i) {
    RaceCell& c = s->race_cells[i];
    const bool mine_or_ordered = c.write_tid == me || ordered(t.clock, c.write_tid, c.write_at);
    if (write && same_value && c.defined) {
      // Threads that all store the same value (a tile each thread copies
      // whole): whichever store lands, every reader sees that value.
      if (mine_or_ordered) c.write_tid = me, c.write_at = now, c.write_line = t.line;
      else c.replicated = true;
      continue;
    }
    const bool after_write = mine_or_ordered || (!write && c.replicated);
    const bool after_read = !write || c.read_tid == me || ordered(t.clock, c.read_tid, c.read_at);
    if (!after_write || !after_read) {
      const bool against_write = !after_write;
      const std::uint32_t other = against_write ? c.write_tid : c.read_tid;
      const int other_line = against_write ? c.write_line : c.read_line;
      fault(t.line, "data race on shared `" + shown_name(s->name) + "` (element " + std::to_string(element) +
                        "): thread " + std::to_string(other) + " " + (against_write ? "writes" : "reads") +
                        " it at line " + std::to_string(other_line) + " and thread " + std::to_string(t.tid) + " " +
                        (write ? "writes" : "reads") + " it at line " + std::to_string(t.line) +
                        " with no barrier or event between them (sync.shared, a wait on an event the other "
                        "thread triggered after its access)");
    }
    if (write) {
      c.write_tid = me, c.write_at = now, c.write_line = t.line;
      c.defined = true, c.replicated = false;
      c.read_tid = 0, c.read_at = 0;  // ordered after the last read: a later write checks this one
    } else {
      c.read_tid = me, c.read_at = now, c.read_line = t.line;
    }
  }
}

}  // namespace croq::interp
