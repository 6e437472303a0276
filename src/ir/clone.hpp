// Deep copies of IR statements, for passes that emit a statement more than
// once (a pipeline's prologue and steady state issue the same loads).
// Expressions are immutable and shared (ir.hpp), so a copy shares them and
// owns copies of the statements nested in it.
#pragma once

#include "ir/ir.hpp"

namespace croq::ir {

StmtPtr clone(const Stmt& s);
StmtList clone(const StmtList& list);

}  // namespace croq::ir
