// The index width (32 or 64 bits) applied to expressions: lowering builds
// index arithmetic in its 32-bit form over index variables (Expr::index_var)
// with the places where the 64-bit form differs as by_index_width choices;
// passes::choose_index_width picks the width for the whole kernel, and
// lowering asks what type a value will have in 64-bit kernels where it must
// build both forms of an operation (builtin min and max, conversions to the
// type of an index variable).
#pragma once

#include <unordered_map>
#include <utility>

#include "ir/ir.hpp"

namespace croq::ir {

// Resolves expressions for one width: each by_index_width becomes the form
// of that width, each index variable takes i32 or i64, and the types of
// the expressions above them follow (as ir::binary and the other builders
// give them). Unchanged subexpressions stay shared.
class IndexWidth {
 public:
  explicit IndexWidth(bool wide) : wide_(wide) {}
  ExprRef operator()(const ExprRef& e);
  // A declaration's type: Type::index() becomes i32 or i64.
  Type type(const Type& declared) const;

 private:
  bool wide_;
  // Each expression met -> (itself, kept alive so its address is not
  // reused; its resolved form).
  std::unordered_map<const Expr*, std::pair<ExprRef, ExprRef>> memo_;
};

// The type `e` has in a kernel of 64-bit indices.
Type wide_type(const ExprRef& e);

}  // namespace croq::ir
