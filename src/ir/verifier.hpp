// The IR verifier: the invariants a kernel keeps between passes. The
// pipeline runs it after lowering and after every pass (in tests, debug
// builds and under CROQ_VERIFY_IR=1); the pass golden tests run it on their
// input and output.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace croq::ir {

// The decisions lowering leaves open and a pass makes. Each pass declares
// the one it makes (passes/passes.hpp); the verifier checks, after a pass,
// that every decision made so far is complete in the kernel.
enum class Decision : unsigned {
  mma_instructions = 1u << 0,  // every Mma has an instruction
  mma_completion = 1u << 1,    // no MmaCommit is left
  event_arrivals = 1u << 2,    // the barrier prologue initializes every event; triggered events count arrivals
  copy_vectors = 1u << 3,      // every CopyTiles has an access width
  shared_layout = 1u << 4,     // every shared buffer and event has an offset
  shared_barriers = 1u << 5,   // no barrier asked for before a shared read is left undecided (Barrier::if_written)
  index_width = 1u << 6,       // the index type is chosen: no Type::index, index variable or by_index_width is left
  pipelining = 1u << 7,        // no loop is left marked as a pipelining candidate (For::pipeline)
};

// A set of decisions.
class Decisions {
 public:
  constexpr Decisions() = default;
  constexpr Decisions(Decision d) : bits_(static_cast<unsigned>(d)) {}  // NOLINT: a set of one
  static constexpr Decisions none() { return {}; }
  static constexpr Decisions all() { return Decisions(0xffu); }
  constexpr bool has(Decision d) const { return (bits_ & static_cast<unsigned>(d)) != 0; }
  constexpr Decisions operator|(Decisions o) const { return Decisions(bits_ | o.bits_); }
  constexpr bool operator==(const Decisions&) const = default;

 private:
  constexpr explicit Decisions(unsigned bits) : bits_(bits) {}
  unsigned bits_ = 0;
};

// What `kernel` violates: references in range, names that are identifiers,
// literals that are literals, operand tiles with their known divisors, and
// every decision in `made` complete. Empty: valid.
std::vector<std::string> verify(const Kernel& kernel, Decisions made);

}  // namespace croq::ir
