// The IR's text form, in two levels of detail:
//
//  - summary: the readable dump (`croq compile --emit ir`, the golden files
//    in tests/data/ir): the structure, buffers and their layouts, copies
//    with their access width, events with their arrival counts, the MMA
//    instruction chosen.
//  - full: the summary plus, in `{key=value, flag}` blocks at the end of a
//    line (before a block's `:`), every fact of the kernel that the summary
//    leaves out and a pass or the verifier reads (source positions,
//    operand pitches and known divisors, thread sets, ...), `:type` after
//    an expression whose type is not the one the parser infers, and the
//    nested statement lists the summary flattens (`seq:`). A fact with its
//    default value is not written.
//
// ir::parse_kernel (parser.hpp) reads both; print(parse(text)) == text for
// the printer's output. The full form is what tests/passes/ holds and
// CROQ_PRINT_IR_AFTER prints. Not in the text: what only the backend reads
// (the kernel's ABI beyond its parameters, device code and #defines, the
// header comment), a comment's position and a body's own position.
#pragma once

#include <string>

#include "ir/ir.hpp"

namespace croq::ir {

enum class IrDetail { summary, full };

std::string print_kernel(const Kernel& kernel, IrDetail detail = IrDetail::summary);

}  // namespace croq::ir
