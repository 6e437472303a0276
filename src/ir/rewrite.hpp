// Rewriting the expressions of IR statements: substituting a variable (a
// loop's index by another pass's), and putting a shared buffer's elements
// and tiles in one slot of its ring. Expressions are immutable and shared
// (ir.hpp): a rewrite builds new nodes where something changed and shares
// every subexpression that did not.
#pragma once

#include <functional>
#include <string>

#include "ir/ir.hpp"

namespace croq::ir {

// `f` sees every node of `e` bottom-up (its operands already rewritten) and
// returns its replacement, or null to keep it. Null `e`: null.
using ExprRewrite = std::function<ExprRef(const Expr&)>;
ExprRef rewrite(const ExprRef& e, const ExprRewrite& f);

// `e` with variable `var` replaced by `value`.
ExprRef substitute(const ExprRef& e, const std::string& var, const ExprRef& value);
// `e` with the elements of `buffer` that name no slot in slot `slot`.
ExprRef add_slot(const ExprRef& e, int buffer, const ExprRef& slot);

// The same over every expression `s` holds and, with `nested`, those of the
// statements nested in it; add_slot also puts `buffer`'s tiles (copies,
// mma operands) that name no slot in `slot`.
void substitute(Stmt& s, const std::string& var, const ExprRef& value);
void add_slot(Stmt& s, int buffer, const ExprRef& slot, bool nested = true);

}  // namespace croq::ir
