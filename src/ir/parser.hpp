// The IR text parser: reads what ir::print_kernel prints, in either level of
// detail (printer.hpp), so that print_kernel(parse_kernel(t), d) == t for
// the printer's text t of detail d. From the full form it rebuilds every
// fact a pass or the verifier reads; from the summary, what the summary
// shows (the rest keeps its default). The kernel's ABI gets its parameters
// (kind and name) and, for a grid marked `(runtime)`, a runtime grid of one
// unknown term; nothing else of it is in the text.
//
// Used by the pass golden tests (tests/passes/) and the IR round-trip tests;
// a malformed text is a croq::Error naming the line and column.
#pragma once

#include <string_view>
#include <vector>

#include "ir/ir.hpp"

namespace croq::ir {

// Every kernel of the text (one `kernel` line each), in order.
std::vector<Kernel> parse_kernels(std::string_view text);

// The one kernel of the text (an Error for none or several).
Kernel parse_kernel(std::string_view text);

}  // namespace croq::ir
