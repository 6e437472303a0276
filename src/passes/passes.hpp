// The passes over a lowered kernel, each a named function with one job,
// and the pass list (pass_list.cpp): the one table of them, in the order
// the pipeline runs them. Each may throw ir::SourceError for a rule that
// only it can check; the pipeline runs the IR verifier (ir/verifier.hpp)
// after each.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ir/ir.hpp"
#include "ir/verifier.hpp"
#include "target/target.hpp"

namespace croq::passes {

// What a pass may read besides the kernel.
struct PassContext {
  target::Target target;
  std::int64_t max_shared_bytes = 227 * 1024;
};

struct Pass {
  std::string_view name;  // the function's name: CROQ_PRINT_IR_AFTER, --after, tests/passes/<name>/
  void (*run)(ir::Kernel& kernel, const PassContext& context);
  // The decision it makes, which the verifier checks after it and every
  // later pass (none: it decides nothing the verifier can check).
  ir::Decisions decides;
};

// Every pass, in the order the pipeline runs them.
std::span<const Pass> pass_list();

// The pass of that name; null when none is.
const Pass* find_pass(std::string_view name);

// The stage before the passes, for the places that name a point between
// stages (CROQ_PRINT_IR_AFTER, croq compile --after): "lower".
inline constexpr std::string_view kLowered = "lower";

// "lower, select_mma_instructions, ...": every point between stages, for messages.
std::string stage_names();

// Software pipelining of the k loops lowering marked (ir::PipelineMark;
// pipeline_pass.cpp): where the trip count may reach 2 and the shared
// memory declared before the loop leaves room for 2 to 4 stages, the loaded
// buffers become rings, each load completes on its slot's barrier, loads
// run S - 1 passes ahead of the multiplies and one WGMMA group stays in
// flight; other marked loops stay as lowered. Clears every mark. First:
// the passes after it read its rings and events.
void pipeline_k_loops(ir::Kernel& kernel);

// Barrier placement before shared reads (barrier_pass.cpp): a barrier
// lowering asked for before threads read shared memory (ir::Barrier::
// if_written) becomes a barrier of its thread set when an element store to
// what they read came since the last barrier, in program order; otherwise
// it goes.
void place_shared_barriers(ir::Kernel& kernel);

// The index width: 32-bit index arithmetic where every index, extent, count
// and coordinate the kernel may take fits (Kernel::largest_index <= 2^31 -
// 1), else 64-bit; index variables and declarations take that type and
// each by_index_width keeps the form lowering built for it.
void choose_index_width(ir::Kernel& kernel);

// MMA instruction selection: WGMMA on sm_90a (compute_90a), mma.sync
// m16n8k16 on every other target from sm_80; checks the operand layouts
// the chosen instruction needs.
void select_mma_instructions(ir::Kernel& kernel, const target::Target& target);

// WGMMA completion: waits for in-flight WGMMA groups before anything that
// may read their accumulators or release their operand tiles; a trigger
// closing a loop body releases the previous iteration's stage instead,
// keeping one group in flight (software pipelining).
void complete_mma_groups(ir::Kernel& kernel);

// Wait pinning: a WGMMA wait with work placed between it and the multiplies
// before it (a softmax between the issue of P V and its wait) is marked to
// stay after that work. ptxas otherwise schedules a wait as early as its
// basic block allows, so the work waits for the multiplies it was placed to
// overlap; a wait right after its multiplies is left as it is.
void pin_overlapped_waits(ir::Kernel& kernel);

// Event arrival counts from the trigger sites (which must agree), and the
// block's barrier initialization.
void count_event_arrivals(ir::Kernel& kernel);

// Register reallocation: producer warpgroups give registers to consumer
// (MMA) warpgroups with setmaxnreg when the target has it.
void reallocate_registers(ir::Kernel& kernel, const target::Target& target);

// Transposes through shared tiles (transpose_pass.cpp): a flat level
// [M, N] whose body reads each instance's own elements of [M, N] tensors
// and writes `y[j, i]` of a [N, M] tensor runs as blocks of square tiles:
// 16-byte chunks of input rows into a padded shared tile, then chunks of
// its columns out to rows of y (rows off a chunk: the aligned chunks of
// the flat storage covering each row's piece); tiles past M or N bounded
// chunk by chunk.
void tile_transposes(ir::Kernel& kernel);

// Element-wise vectorization (elementwise_pass.cpp): a flat level whose
// body touches only each instance's own element of tensors of its shape
// runs a vector of consecutive elements per thread (16 bytes of the
// narrowest element type), loaded and stored as register tiles, then the
// elements past the last whole vector one per thread; the grid is one
// thread per vector.
void vectorize_elementwise(ir::Kernel& kernel);

// Copy vectorization: the widest aligned access for each cooperative copy;
// a copy that may reach past its buffers (a tail) and would move vectors
// otherwise becomes `if (inside) {vectors} else {guarded elements}`.
void vectorize_copies(ir::Kernel& kernel);

// Removes a block barrier that directly follows another.
void remove_redundant_barriers(ir::Kernel& kernel);

// Shared-memory layout: offsets of shared buffers and events, the block's
// dynamic shared memory size, checked against `max_shared_bytes`.
void lay_out_shared_memory(ir::Kernel& kernel, std::int64_t max_shared_bytes);

// After the pass list, before the backend prints: the launch the runtime
// makes (kernel.abi.launch: grid, block, dynamic shared memory, cluster,
// cooperative) and the symbol it looks up (kernel.abi.entry), from the
// kernel's launch shape as lowering and the passes decided it.
void complete_launch_abi(ir::Kernel& kernel, const target::Target& target);

}  // namespace croq::passes
