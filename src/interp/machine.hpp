// The interpreter's state: memory (storages and pointer values), threads
// (fibers with their variables), blocks (shared memory, events, the
// accumulators of warpgroups and warps) and what the hazard checks track.
#pragma once

#include <ucontext.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "interp/interpreter.hpp"

namespace croq::interp {

// What the race check (races.cpp) keeps per byte of shared memory: the
// epoch (thread, its clock) and line of the last write and the last read.
struct RaceCell {
  std::uint32_t write_tid = 0, write_at = 0;  // write_at 0: none since the last reset
  std::uint32_t read_tid = 0, read_at = 0;
  int write_line = 0, read_line = 0;
  bool defined = false;     // its value was written (shared memory starts undefined)
  bool replicated = false;  // unordered threads wrote it, all the same value
};

// A piece of memory: a tensor, a shared buffer of one block, a thread's
// local array. Elements are stored in their dtype's bytes, row-major in the
// logical layout (swizzles only permute where bytes live on the device, and
// every access here is by logical position).
struct Storage {
  std::string name;
  ir::Space space = ir::Space::global;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  std::vector<std::byte> owned;  // shared and local storages own their bytes
  std::vector<RaceCell> race_cells;  // shared: per byte, once a thread accesses it
};

// A scalar value: integers (every integer type, booleans) in `i`, floats in
// `f`, pointers as a storage and a byte offset in `i`.
struct Value {
  std::int64_t i = 0;
  double f = 0;
  Storage* storage = nullptr;
};

// A byte range of a storage that a TMA load filled: readers must first
// have seen phase `phase` of `event`[index] complete.
struct PendingTma {
  Storage* storage = nullptr;
  std::size_t begin = 0, end = 0;
  int event = -1;
  std::int64_t index = 0;
  std::int64_t phase = 0;  // completed phases the readers must have seen
  int line = 0;            // the tma.copy's
};

// A WGMMA group in flight (issued, not yet waited): the shared bytes it reads.
struct MmaGroup {
  struct Range {
    Storage* storage;
    std::size_t begin, end;
  };
  std::vector<Range> reads;
  int line = 0;
};

// One mbarrier.
struct EventSlot {
  std::int64_t expected = 1;  // arrivals per phase
  std::int64_t pending = 1;   // arrivals still missing in the current phase
  std::int64_t completed = 0; // phases completed
  std::vector<std::uint32_t> clock;  // the arrivals' vector clocks, joined (races.cpp)
};

// PTX's named barrier: a phase completes when `threads` threads have
// arrived (bar.arrive or bar.sync); bar.sync waits for its phase.
struct NamedBarrier {
  std::int64_t threads = 0;    // this phase's count, set by its first arrival
  std::int64_t arrived = 0;    // in this phase
  std::int64_t completed = 0;  // phases completed
  EventSlot arrivals;          // the clocks of this phase's arrivals (races.cpp)
  EventSlot released;          // those of the last completed phase, which its waiters take
};

struct Block;

struct Thread {
  std::int64_t tid = 0;  // threadIdx.x
  Block* block = nullptr;
  ucontext_t context{};
  std::unique_ptr<char[]> stack;
  bool finished = false;
  bool blocked = false;
  // What it waits for, re-checked by the scheduler (event waits).
  std::function<bool()> ready;
  std::string waiting_for;  // for deadlock reports
  int line = 0;             // the current #line
  // A break or continue on its way out to its loop: the statements after it are skipped.
  // exit_kernel (`yield`): leaves every loop and statement; the thread is done.
  enum class Jump { none, break_loop, next_iteration, exit_kernel } jump = Jump::none;
  std::exception_ptr error;
  std::unordered_map<std::string_view, Value> vars;
  std::unordered_map<int, std::unique_ptr<Storage>> locals;  // DeclareLocal
  std::unordered_map<int, Value> pointers;
  std::map<std::pair<int, std::int64_t>, std::unique_ptr<Storage>> accumulators;  // (accumulator, array index)                    // DeclarePointer: buffer -> its first element
  // Per event slot (event, index): the phases this thread has seen complete.
  std::map<std::pair<int, std::int64_t>, std::int64_t> seen;
  std::vector<std::uint32_t> phase_bits;  // per event: the thread's phase bits (waits without a parity)
  std::vector<std::uint32_t> clock;       // its vector clock over the block's threads (races.cpp)
  bool atomic = false;                    // inside an atomic read-modify-write (not a race)
};

// A barrier or collective operation being gathered: the threads that
// arrived, the statement each arrived at, and what the last one runs.
struct Gathering {
  std::vector<Thread*> arrived;
  const void* statement = nullptr;  // where they arrive
  int line = 0;
  std::int64_t first = 0, count = 0;  // the threads that take part
  std::function<void()> action;
};

// A warpgroup's or warp's accumulator: rows x n values (already rounded to
// its dtype).
struct AccumulatorValue {
  std::int64_t rows = 0, n = 0;
  std::vector<double> values;
};

struct Block {
  std::int64_t index = 0;  // blockIdx.x
  std::int64_t slot = 0;   // among the blocks running together (a cooperative launch's)
  std::vector<std::unique_ptr<Storage>> shared;  // per root buffer (nullptr: not shared)
  std::vector<std::vector<EventSlot>> events;
  std::map<std::string, Gathering> gatherings;
  // Keyed by accumulator, array index and leading thread of its warpgroup / warp.
  std::map<std::tuple<int, std::int64_t, std::int64_t>, AccumulatorValue> accumulators;
  std::map<std::int64_t, std::vector<MmaGroup>> mma_groups;  // per warpgroup (tid / 128)
  std::vector<PendingTma> pending_tma;
  // quad_max / quad_sum: each quad's lanes' values, and the last result.
  std::map<std::int64_t, std::array<double, 4>> quad_inputs;
  std::map<std::int64_t, double> quad_results;
  // shfl.sync: each warp's lanes' 32-bit inputs, and what each lane receives.
  std::map<std::int64_t, std::array<std::uint32_t, 32>> shuffle_inputs, shuffle_results;
  // bar.arrive / bar.sync (inline PTX, __bar_arrive / __bar_sync): per barrier id.
  std::map<std::int64_t, NamedBarrier> named_barriers;
};

class Machine;

// The running state of one kernel.
struct Launch {
  Launch(const ir::Kernel& k, const abi::KernelAbi& a, const std::vector<ParamValue>& p)
      : kernel(k), abi(a), params(p) {}
  const ir::Kernel& kernel;
  const abi::KernelAbi& abi;
  const std::vector<ParamValue>& params;
  std::int64_t blocks = 1;
  std::int64_t threads = 1;  // per block
  std::vector<std::unique_ptr<Storage>> globals;  // per buffer: the tensor it is bound to (nullptr: none)
  std::unordered_map<std::string_view, Value> param_vars;  // scalar and dim parameters
  std::unordered_map<int, int> register_buffers;
  std::list<std::string> constant_names;  // names param_vars holds that no parameter owns  // an accumulator's `registers` buffer -> the accumulator
};

[[noreturn]] void fault(int line, std::string message);

}  // namespace croq::interp
