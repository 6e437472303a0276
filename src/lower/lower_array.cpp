// Arrays of arrays of shared buffers (`shared f32 [32] s[4][2];`): one ring
// of 4 * 2 slots, row-major; `s[i][j]` is slot i * 2 + j (the subscripts:
// lower_values.cpp).
#include "lower/lowering.hpp"
#include "sema/bound_rules.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

std::vector<std::int64_t> Lowerer::array_of_arrays(const Declarator& decl, std::int64_t first) {
  if (decl.more_array_dims.empty()) return {};
  std::vector<std::int64_t> dims{first};
  std::int64_t total = first;
  for (const ExprPtr& size : decl.more_array_dims) {
    const std::int64_t n = const_int(*size, sema::what::buffer_count);
    if (sema::Verdict broken = sema::buffer_array_size(n)) fail(size->location, *broken);
    // The ring's bytes are checked against shared memory when it is allocated.
    const support::CheckedInt product = support::checked_mul(total, n);
    if (!product.ok())
      fail(size->location, "`" + decl.name + "` has more buffers than a 64-bit count holds (" + std::to_string(total) +
                               " * " + std::to_string(n) + ")");
    total = product.value;
    dims.push_back(n);
  }
  return dims;
}

// `s[i]`: the next dim of the array; the flat slot grows as
// slot * size + i, and the part is one buffer once every dim is selected.
Value ExprLowering::array_part(Value obj, const Expr& index) {
  Value idx = expr(index);
  if ((idx.kind != Value::Kind::scalar && idx.kind != Value::Kind::index) || idx.is_float)
    unchecked(index.location, "an array index that is no integer");
  const std::int64_t size = obj.view.array_left.front();
  if (sema::Verdict broken = idx.constant ? sema::array_index(*idx.constant, size) : std::nullopt)
    fail(index.location, *broken);
  obj.view.slot = obj.view.slot ? ir::binary("+", ir::binary("*", obj.view.slot, ir::int_const(size)), idx.expr) : idx.expr;
  obj.view.array_left.erase(obj.view.array_left.begin());
  return obj;
}

}  // namespace croq::lower::detail
