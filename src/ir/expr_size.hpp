// The size of an expression's text, measured on the IR: what lowering
// refuses past a limit (nested guarded reads double an index's text per
// level), without printing it or asking the backend.
#pragma once

#include <cstddef>

#include "ir/ir.hpp"

namespace croq::ir {

// The length of `e` written out as a tree, as the IR's text and the CUDA
// backend spell it within a few characters per node: every operator, name,
// literal, parenthesis and separator, a subexpression shared by several
// parents counted at each use. Linear in the number of distinct nodes;
// saturates at `cap` + 1 (the caller's limit).
std::size_t expression_text_size(const Kernel& kernel, const ExprRef& e, std::size_t cap);

}  // namespace croq::ir
