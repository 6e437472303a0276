// Blocks one after another; in a block, every thread is a fiber (ucontext)
// that runs until it finishes or blocks (a barrier, a collective operation,
// an event wait), round-robin. A round in which no blocked thread can go on
// is a deadlock, reported with what the threads wait for.
#include <algorithm>
#include <cstring>

#include "interp/executor.hpp"
#include "support/checked_int.hpp"

namespace croq::interp {

namespace {

constexpr std::size_t kStackBytes = 512 * 1024;
thread_local Executor* current_executor = nullptr;

std::int64_t product(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t x : shape) n *= x;
  return n;
}

}  // namespace

void fault(int line, std::string message) { throw Fault{line, std::move(message)}; }

Executor::Executor(Launch& launch) : launch_(launch) {}

void Executor::bind_globals() {
  const ir::Kernel& k = kernel();
  launch_.globals.resize(k.buffers.size());
  for (std::size_t a = 0; a < k.accumulators.size(); ++a)
    if (k.accumulators[a].registers >= 0) {
      launch_.register_buffers[k.accumulators[a].registers] = static_cast<int>(a);
      // The backend's `constexpr int NAME_registers` (its registers per thread), which `apply` loops to.
      launch_.constant_names.push_back(k.accumulators[a].name + "_registers");
      launch_.param_vars[launch_.constant_names.back()].i = k.accumulators[a].n / 2;
    }
  for (std::size_t p = 0; p < k.params.size() && p < launch_.params.size(); ++p) {
    const ir::Param& param = k.params[p];
    const ParamValue& value = launch_.params[p];
    using K = abi::KernelParam::Kind;
    if (param.kind == K::integer || param.kind == K::dim) {
      launch_.param_vars[param.name].i = value.integer;
    } else if (param.kind == K::floating) {
      launch_.param_vars[param.name].f = value.floating;
    } else if ((param.kind == K::tensor || param.kind == K::output || param.kind == K::scratch) && param.buffer >= 0) {
      auto s = std::make_unique<Storage>();
      s->name = k.buffers[static_cast<std::size_t>(param.buffer)].name;
      s->space = ir::Space::global;
      s->data = static_cast<std::byte*>(value.data);
      s->bytes = static_cast<std::size_t>(product(value.shape)) * dtype_size(value.dtype);
      launch_.globals[static_cast<std::size_t>(param.buffer)] = std::move(s);
    }
  }
}

void Executor::init_block(Block& b) {
  const ir::Kernel& k = kernel();
  b.shared.clear();
  b.shared.resize(k.buffers.size());
  for (std::size_t i = 0; i < k.buffers.size(); ++i) {
    const ir::Buffer& buf = k.buffers[i];
    if (buf.space != ir::Space::shared || buf.alias_of >= 0) continue;
    std::int64_t elements = buf.slots > 0 ? buf.slots * buf.slot_elems : 1;
    if (buf.slots == 0)
      for (const ir::Extent& e : buf.dims) elements *= e.is_dynamic() ? 0 : e.value;
    // Aliases (span_as) share the root's bytes: the largest of them sizes it.
    for (const ir::Buffer& other : k.buffers)
      if (other.alias_of == static_cast<int>(i)) {
        std::int64_t n = static_cast<std::int64_t>(dtype_size(other.dtype));
        for (const ir::Extent& e : other.dims) n *= e.is_dynamic() ? 0 : e.value;
        elements = std::max(elements, n / static_cast<std::int64_t>(dtype_size(buf.dtype)) + 1);
      }
    auto s = std::make_unique<Storage>();
    s->name = buf.name;
    s->space = ir::Space::shared;
    s->owned.assign(static_cast<std::size_t>(elements) * dtype_size(buf.dtype), std::byte{0});
    s->data = s->owned.data();
    s->bytes = s->owned.size();
    b.shared[i] = std::move(s);
  }
  b.events.clear();
  for (const ir::Event& e : k.events) {
    EventSlot slot;
    slot.expected = e.arrivals_whole_block ? launch_.threads : std::max<std::int64_t>(e.arrivals, 1);
    slot.pending = slot.expected;
    b.events.emplace_back(static_cast<std::size_t>(std::max<std::int64_t>(e.count, 1)), slot);
  }
  b.gatherings.clear();
  b.accumulators.clear();
  b.mma_groups.clear();
  b.pending_tma.clear();
}

void Executor::run() {
  const ir::Kernel& k = kernel();
  // A cluster's blocks share nothing in what lowering makes (no distributed
  // shared memory, no cluster barriers): they run like any other blocks.
  bind_globals();
  // A cooperative launch's blocks run together (its grid barriers wait for
  // all of them); any other kernel's one after another.
  const std::int64_t together = k.cooperative ? launch_.blocks : 1;
  if (together * launch_.threads > (std::int64_t{1} << 16))
    fault(k.where.line, "interpret mode runs at most 65536 threads of a cooperative launch at once; this one has " +
                            std::to_string(together * launch_.threads));
  threads_.clear();
  blocks_.clear();
  for (std::int64_t b = 0; b < together; ++b) {
    blocks_.push_back(std::make_unique<Block>());
    blocks_.back()->slot = b;
    for (std::int64_t i = 0; i < launch_.threads; ++i) {
      auto t = std::make_unique<Thread>();
      t->tid = i;
      t->stack.reset(new char[kStackBytes]);
      threads_.push_back(std::move(t));
    }
  }
  for (std::int64_t b = 0; b < launch_.blocks; b += together) run_blocks(b, together);
}

Thread& Executor::thread_of(const Block& b, std::int64_t tid) {
  return *threads_[static_cast<std::size_t>(b.slot * launch_.threads + tid)];
}

void Executor::trampoline(unsigned lo, unsigned hi) {
  auto* t = reinterpret_cast<Thread*>(static_cast<std::uintptr_t>(hi) << 32 | lo);
  Executor* self = current_executor;
  try {
    self->exec(*t, *self->kernel().body);
  } catch (...) {
    t->error = std::current_exception();
  }
  t->finished = true;
  swapcontext(&t->context, &self->scheduler_);
}

void Executor::start_thread(Thread& t, Block& b) {
  t.block = &b;
  t.finished = t.blocked = false;
  t.ready = nullptr;
  t.error = nullptr;
  t.line = 0;
  t.jump = Thread::Jump::none;  // a `yield` in the thread's previous block ended that block only
  t.vars.clear();
  t.locals.clear();
  t.pointers.clear();
  t.seen.clear();
  race_start(t);
  t.phase_bits.assign(kernel().events.size(), 0u);
  for (std::size_t e = 0; e < kernel().events.size(); ++e)
    if (kernel().events[e].ready) t.phase_bits[e] = 0xffffffffu;
  getcontext(&t.context);
  t.context.uc_stack.ss_sp = t.stack.get();
  t.context.uc_stack.ss_size = kStackBytes;
  t.context.uc_link = nullptr;
  const auto bits = reinterpret_cast<std::uintptr_t>(&t);
  makecontext(&t.context, reinterpret_cast<void (*)()>(&Executor::trampoline), 2,
              static_cast<unsigned>(bits & 0xffffffffu), static_cast<unsigned>(bits >> 32));
}

void Executor::switch_to(Thread& t) {
  running_ = &t;
  current_executor = this;
  swapcontext(&scheduler_, &t.context);
  running_ = nullptr;
}

void Executor::yield(Thread& t) { swapcontext(&t.context, &scheduler_); }

void Executor::run_blocks(std::int64_t first, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
    Block& b = *blocks_[static_cast<std::size_t>(i)];
    b.index = first + i;
    init_block(b);
    for (std::int64_t tid = 0; tid < launch_.threads; ++tid) start_thread(thread_of(b, tid), b);
  }
  grid_ = Gathering{};
  std::size_t live = threads_.size();
  while (live > 0) {
    bool progress = false;
    for (auto& tp : threads_) {
      Thread& t = *tp;
      if (t.finished) continue;
      if (t.blocked) {
        if (!t.ready || !t.ready()) continue;
        t.blocked = false;
        t.ready = nullptr;
      }
      switch_to(t);
      progress = true;
      if (t.error) std::rethrow_exception(t.error);
      if (t.finished) {
        --live;
        thread_finished(t);
      }
    }
    if (!progress && live > 0) deadlock();
  }
}

std::int64_t Executor::live_in(Block& b, std::int64_t first, std::int64_t count) {
  std::int64_t n = 0;
  const std::int64_t end = std::min<std::int64_t>(first + count, launch_.threads);
  for (std::int64_t i = std::max<std::int64_t>(first, 0); i < end; ++i) n += !thread_of(b, i).finished;
  return n;
}

void Executor::grid_barrier(Thread& t, const ir::Stmt& s) {
  if (!kernel().cooperative) fault(t.line, "internal error: a grid barrier in a kernel that is not a cooperative launch");
  if (grid_.arrived.empty()) grid_.statement = &s, grid_.line = t.line;
  else if (grid_.statement != &s)
    fault(t.line, "threads of the grid disagree: thread " + std::to_string(grid_.arrived.front()->tid) + " of block " +
                      std::to_string(grid_.arrived.front()->block->index) + " waits at the grid barrier at line " +
                      std::to_string(grid_.line) + ", thread " + std::to_string(t.tid) + " of block " +
                      std::to_string(t.block->index) + " arrives at line " + std::to_string(t.line));
  grid_.arrived.push_back(&t);
  std::int64_t live = 0;
  for (const auto& th : threads_) live += !th->finished;
  if (static_cast<std::int64_t>(grid_.arrived.size()) >= live) {
    for (Thread* other : grid_.arrived) other->blocked = false;
    race_sync(grid_.arrived);
    grid_ = Gathering{};
    return;
  }
  t.blocked = true;
  t.ready = nullptr;
  t.waiting_for = "the grid barrier at line " + std::to_string(grid_.line);
  yield(t);
}

void Executor::wait_until(Thread& t, std::function<bool()> ready, std::string what) {
  if (ready()) return;
  t.blocked = true;
  t.ready = std::move(ready);
  t.waiting_for = std::move(what);
  yield(t);
}

void Executor::gather(Thread& t, const std::string& key, std::int64_t first, std::int64_t count, const void* site,
                      const std::function<void()>& action) {
  Block& b = *t.block;
  Gathering& g = b.gatherings[key];
  if (g.arrived.empty()) {
    g.statement = site;
    g.line = t.line;
    g.first = first;
    g.count = count;
    g.action = action;
  } else if (g.statement != site) {
    const Thread& other = *g.arrived.front();
    fault(t.line, "threads of one " + key + " disagree: thread " + std::to_string(other.tid) + " waits at line " +
                      std::to_string(g.line) + ", thread " + std::to_string(t.tid) + " arrives at line " +
                      std::to_string(t.line) + " (every thread of it must reach the same barrier, trigger or multiply)");
  }
  g.arrived.push_back(&t);
  if (static_cast<std::int64_t>(g.arrived.size()) >= live_in(b, first, count)) {
    complete(b, key);
    return;
  }
  t.blocked = true;
  t.ready = nullptr;
  t.waiting_for = key + " at line " + std::to_string(g.line);
  yield(t);
}

void Executor::complete(Block& b, const std::string& key) {
  Gathering g = std::move(b.gatherings[key]);
  b.gatherings.erase(key);
  for (Thread* other : g.arrived) other->blocked = false;
  race_sync(g.arrived);
  if (g.action) g.action();
}

void Executor::thread_finished(Thread& t) {
  if (!grid_.arrived.empty())
    fault(grid_.line, std::to_string(grid_.arrived.size()) + " threads wait at the grid barrier at line " +
                          std::to_string(grid_.line) + ", but thread " + std::to_string(t.tid) + " of block " +
                          std::to_string(t.block->index) + " finished without reaching it");
  Block& b = *t.block;
  for (auto& [key, g] : b.gatherings) {
    if (t.tid < g.first || t.tid >= g.first + g.count) continue;
    fault(g.line, "threads of one " + key + " disagree: " + std::to_string(g.arrived.size()) +
                      " threads wait at line " + std::to_string(g.line) + ", but thread " + std::to_string(t.tid) +
                      " finished without reaching it");
  }
}

void Executor::deadlock() {
  // Threads gathered at a barrier or collective while one of its threads
  // waits elsewhere: they disagree (a lane skipped a trigger, a barrier).
  for (const auto& bp : blocks_)
    for (const auto& [key, g] : bp->gatherings)
      for (std::int64_t tid = g.first; tid < g.first + g.count && tid < launch_.threads; ++tid) {
        const Thread& other = thread_of(*bp, tid);
        if (other.finished || std::find(g.arrived.begin(), g.arrived.end(), &other) != g.arrived.end()) continue;
        fault(g.line, "threads of one " + key + " disagree: " + std::to_string(g.arrived.size()) +
                          " threads wait at line " + std::to_string(g.line) + ", but thread " + std::to_string(tid) +
                          " waits for " + other.waiting_for +
                          (other.waiting_for.find(" at line ") == std::string::npos
                               ? " at line " + std::to_string(other.line)
                               : std::string()) +
                          " (every thread of it must reach the same barrier, trigger or multiply)");
      }
  const Thread* first = nullptr;
  std::int64_t blocked = 0, finished = 0;
  for (const auto& t : threads_) {
    if (t->finished) ++finished;
    else if (t->blocked) ++blocked, first = first ? first : t.get();
  }
  fault(first ? first->line : 0,
        "deadlock: thread " + std::to_string(first ? first->tid : 0) + " of block " +
            std::to_string(first ? first->block->index : 0) + " waits for " + (first ? first->waiting_for : std::string("?")) +
            ", which never comes (" + std::to_string(blocked) + " threads blocked, " + std::to_string(finished) +
            " finished)");
}

void run_kernel(const ir::Kernel& kernel, const abi::KernelAbi& abi, const std::vector<ParamValue>& params,
                const RunOptions& options) {
  Launch launch(kernel, abi, params);
  launch.blocks = options.blocks;
  launch.threads = std::max<std::int64_t>(kernel.block_threads, 1);
  Executor(launch).run();
}

}  // namespace croq::interp
