// The interpreter proper: one object per kernel run. The scheduler part
// (scheduler.cpp) runs each block's threads as fibers; the rest executes
// statements (exec.cpp), expressions (eval.cpp), copies and events
// (tile_ops.cpp) and MMA (mma_ops.cpp) on the running thread.
#pragma once

#include <functional>
#include <string>

#include "interp/machine.hpp"

namespace croq::interp {

// Where an element expression or tile element lives.
struct Address {
  Storage* storage = nullptr;
  std::size_t offset = 0;  // bytes
  DType dtype = DType::f32;
};

class Executor {
 public:
  explicit Executor(Launch& launch);
  void run();  // every block

  // ---- scheduler.cpp
  // Blocks the running thread until `ready()` holds (event waits).
  void wait_until(Thread& t, std::function<bool()> ready, std::string what);
  // A barrier or collective of the threads [first, first + count) of the
  // block: the running thread arrives at `site` (a statement or expression); the last to arrive
  // runs `action` (may be empty) and releases the others.
  void gather(Thread& t, const std::string& key, std::int64_t first, std::int64_t count, const void* site,
              const std::function<void()>& action);

  // ---- exec.cpp
  void exec(Thread& t, const ir::Stmt& s);
  void assign(Thread& t, const ir::Assign& a);
  Value combine(Thread& t, const std::string& op, const ir::Type& lt, const Value& lhs, const ir::Type& rt,
                const Value& rhs);
  void loop(Thread& t, const ir::For& f);
  void declare_local(Thread& t, int buffer);
  void print(Thread& t, const ir::Print& p);

  // ---- eval.cpp
  Value eval(Thread& t, const ir::ExprRef& e);
  Value binary(Thread& t, const ir::Expr& e);
  Value arithmetic(Thread& t, const std::string& op, const ir::Type& ct, const ir::Type& lt, const Value& lv,
                   const ir::Type& rt, const Value& rv);
  Value math(Thread& t, const ir::Expr& e);
  Value atomic(Thread& t, const ir::Expr& e);
  // quad_max / quad_sum: the 4 lanes of a quad exchange values (a collective).
  Value quad_reduce(Thread& t, const ir::Expr& e, const Value& mine);
  // The element `buffer`[slot][coords] (bounds checked, at the thread's line).
  // `bounds` false: only the address (address_of), not an access.
  Address element_address(Thread& t, int buffer, const Value* slot, const std::vector<std::int64_t>& coords,
                          bool write, bool bounds = true);
  Address element_address(Thread& t, const ir::Expr& element, bool write, bool bounds = true);
  Value read(Thread& t, const Address& a);
  void write(Thread& t, const Address& a, const ir::Type& from, const Value& v);
  std::int64_t extent(Thread& t, int buffer, std::size_t d);

  // ---- tile_ops.cpp
  void copy_tiles(Thread& t, const ir::CopyTiles& c);
  void arrive(Thread& t, const ir::Arrive& a, const ir::Stmt& s);
  void wait_event(Thread& t, const ir::WaitEvent& w);
  void wait_counter(Thread& t, const ir::WaitCounter& w);
  void tma_load(Thread& t, const ir::TmaLoad& l);
  void tma_store(Thread& t, const ir::TmaStore& st);
  void barrier(Thread& t, const ir::Barrier& b, const ir::Stmt& s);
  // Hazards on shared memory: a read of bytes a TMA load filled before the
  // reader saw its event complete; a write of bytes a WGMMA in flight reads.
  void write_element(Thread& t, const Address& a, const ir::Type& from, const Value& v);
  EventSlot& event_slot(Thread& t, int event, std::int64_t index);
  void check_shared_read(Thread& t, Storage* s, std::size_t begin, std::size_t end);
  void check_shared_write(Thread& t, Storage* s, std::size_t begin, std::size_t end);

  // ---- races.cpp: data races on shared memory (vector clocks)
  void race_start(Thread& t);
  // The threads meet (a barrier, a collective): each is ordered after all.
  void race_sync(const std::vector<Thread*>& threads);
  void race_release(Thread& t, EventSlot& slot);      // an arrival on the event
  void race_acquire(Thread& t, const EventSlot& slot);  // a completed wait on it
  // Bytes [begin, end) of s written by the async proxy or a collective store.
  void race_forget(Storage* s, std::size_t begin, std::size_t end);
  // Thread t reads or writes bytes [begin, end) of s (element `element` of
  // it, for the message): a fault when another thread's access is unordered.
  // `same_value`: a write that leaves the bytes as they are.
  void race_access(Thread& t, Storage* s, std::size_t begin, std::size_t end, bool write, std::size_t element,
                   bool same_value = false);

  // ---- ptx_ops.cpp
  // __asm__: warp shuffles (shfl.sync) as a warp collective, named barriers (bar.sync, bar.arrive);
  // other PTX is refused.
  void inline_asm(Thread& t, const ir::InlineAsm& a, const ir::Stmt& s);
  // An integer operand of inline PTX: a literal, or %N (an input operand).
  std::int64_t asm_integer(Thread& t, const ir::InlineAsm& a, const std::string& operand);
  // bar.arrive / bar.sync `id`, `threads`: an arrival on the block's named barrier; sync waits for its phase.
  void named_barrier(Thread& t, std::int64_t id, std::int64_t threads, bool sync);

  // ---- mma_ops.cpp
  void mma_fill(Thread& t, const ir::MmaFill& f, const ir::Stmt& s);
  void mma(Thread& t, const ir::Mma& m, const ir::Stmt& s);
  void mma_store(Thread& t, const ir::MmaStore& m, const ir::Stmt& s);
  void mma_load(Thread& t, const ir::MmaLoad& m, const ir::Stmt& s);
  void mma_wait(Thread& t, const ir::MmaWait& w);
  // Faults unless threads [first, first + size) hold `values` in the local tile.
  void same_local_tile(Thread& me, std::int64_t first, std::int64_t size, const ir::Tile& tile,
                       const std::vector<std::int64_t>& origin, const std::vector<double>& values, int line);
  std::vector<double> sparse_dense(Thread& t, const ir::Mma& m, const std::vector<double>& packed, std::int64_t rows,
                                   std::int64_t& packed_k, int line);
  void mma_scale(Thread& t, const ir::MmaScale& m, const ir::Stmt& s);
  // The accumulator `accumulator` (one of an array: `index`) in thread t's
  // registers: f32 values in the WGMMA / mma.sync fragment layout.
  Storage& accumulator_registers(Thread& t, int accumulator, std::int64_t index);

  // Thread `tid` of block b.
  Thread& thread_of(const Block& b, std::int64_t tid);
  // A cooperative launch's `sync.barrier : block`: every thread of the grid.
  void grid_barrier(Thread& t, const ir::Stmt& s);

  Launch& launch() { return launch_; }
  const ir::Kernel& kernel() const { return launch_.kernel; }

 private:
  void run_blocks(std::int64_t first, std::int64_t count);
  void start_thread(Thread& t, Block& b);
  void switch_to(Thread& t);
  void yield(Thread& t);
  void thread_finished(Thread& t);
  [[noreturn]] void deadlock();
  void complete(Block& b, const std::string& key);
  void bind_globals();
  void init_block(Block& b);
  std::int64_t live_in(Block& b, std::int64_t first, std::int64_t count);
  static void trampoline(unsigned lo, unsigned hi);

  Launch& launch_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::vector<std::unique_ptr<Block>> blocks_;
  Gathering grid_;  // the grid barrier being gathered

 public:
  // `.multicast` loads (tile_ops.cpp): per (load, cluster, how many times its
  // first block issued it) that block's box origin, which the cluster's
  // other blocks must load too; and per (load, block) its issues so far.
  std::map<std::tuple<const ir::TmaLoad*, std::int64_t, std::int64_t>, std::vector<std::int64_t>> multicast_boxes_;
  std::map<std::pair<const ir::TmaLoad*, std::int64_t>, std::int64_t> multicast_issues_;

 private:
  ucontext_t scheduler_{};
  Thread* running_ = nullptr;
};

}  // namespace croq::interp
