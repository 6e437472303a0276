// The passes over a lowered kernel, each with one job, in the order
// run_passes applies them. Each may throw ir::SourceError for a rule that
// only it can check; the IR verifier (ir/verifier.hpp) checks the result.
#pragma once

#include <cstdint>

#include "ir/ir.hpp"
#include "target/target.hpp"

namespace croq::passes {

// MMA instruction selection: WGMMA on sm_90a (compute_90a), mma.sync
// m16n8k16 on every other target from sm_80; checks the operand layouts
// the chosen instruction needs.
void select_mma_instructions(ir::Kernel& kernel, const target::Target& target);

// WGMMA completion: waits for in-flight WGMMA groups before anything that
// may read their accumulators or release their operand tiles; a trigger
// closing a loop body releases the previous iteration's stage instead,
// keeping one group in flight (software pipelining).
void complete_mma_groups(ir::Kernel& kernel);

// Event arrival counts from the trigger sites (which must agree), and the
// block's barrier initialization.
void count_event_arrivals(ir::Kernel& kernel);

// Register reallocation: producer warpgroups give registers to consumer
// (MMA) warpgroups with setmaxnreg when the target has it.
void reallocate_registers(ir::Kernel& kernel, const target::Target& target);

// Copy vectorization: the widest aligned access for each cooperative copy.
void vectorize_copies(ir::Kernel& kernel);

// Removes a block barrier that directly follows another.
void remove_redundant_barriers(ir::Kernel& kernel);

// Shared-memory layout: offsets of shared buffers and events, the block's
// dynamic shared memory size, checked against `max_shared_bytes`.
void lay_out_shared_memory(ir::Kernel& kernel, std::int64_t max_shared_bytes);

// All of the above, in order.
void run_passes(ir::Kernel& kernel, const target::Target& target, std::int64_t max_shared_bytes);

}  // namespace croq::passes
