// `select(i, a, b, ...)`: operand i of the list, chosen at run time (sema
// checked that the operands are whole tiles or futures of one kind, element
// type, rank, memory and extents, and that a constant i is in range). A
// constant choice is that operand; otherwise the value is a pointer buffer
// (`DeclarePointer`) at the chosen operand's first element, read and
// written as a tile of the operands' dims, after a check that i is in range
// (the kernel stops there otherwise, as an `assert` does).
#include "lower/lowering.hpp"

namespace croq::lower::detail {

Value ExprLowering::select_call(const Expr& e, const Call& c) {
  if (c.args.size() < 3) unchecked(e.location, sema::Rule::select_operands);
  Value factor = require_scalar(expr(*c.args[0]), *c.args[0]);
  if (factor.is_float) unchecked(c.args[0]->location, sema::Rule::select_factor);
  const ExprRef chooser = factor.constant ? nullptr : read(factor);
  std::vector<Value> operands;
  for (std::size_t i = 1; i < c.args.size(); ++i) {
    operands.push_back(expr(*c.args[i]));
    const Value& v = operands.back();
    if ((v.kind != Value::Kind::view && v.kind != Value::Kind::future) || v.view.pending != View::Pending::none)
      unchecked(c.args[i]->location, sema::Rule::select_operands);
  }
  const auto count = static_cast<std::int64_t>(operands.size());
  if (factor.constant) {
    if (*factor.constant < 0 || *factor.constant >= count) unchecked(c.args[0]->location, sema::Rule::select_factor);
    return operands[static_cast<std::size_t>(*factor.constant)];
  }
  const Value& first = operands.front();
  const ir::Buffer& model = buffer(first.view.buffer);
  ExprRef address;
  std::vector<int> roots;
  for (std::size_t i = operands.size(); i-- > 0;) {
    const View& v = operands[i].view;
    const ir::Buffer& b = buffer(v.buffer);
    bool whole = b.dims.size() == model.dims.size() && b.dtype == model.dtype && b.space == model.space &&
                 b.strides.empty() && v.extent.size() == b.dims.size();
    for (std::size_t d = 0; whole && d < b.dims.size(); ++d)
      whole = ir::is_zero(v.origin[d]) && v.extent[d] == dim_value(v.buffer, d) &&
              b.dims[d].value == model.dims[d].value && b.dims[d].dim == model.dims[d].dim;
    if (!whole || operands[i].event >= 0) unchecked(c.args[i + 1]->location, sema::Rule::unsupported_call);
    roots.push_back(b.alias_of >= 0 ? b.alias_of : v.buffer);
    const ExprRef at = tile_address(v);
    address = address ? ir::select(ir::binary("==", chooser, ir::int_const(static_cast<std::int64_t>(i))), at, address)
                      : at;
  }
  line_mark(e.location);
  emit_node(ir::Trap{ir::all_of(ir::binary(">=", chooser, ir::int_const(0)),
                                ir::binary("<", chooser, ir::int_const(count)))},
            e.location);
  ir::Buffer pointer;
  pointer.name = fresh("selected");
  pointer.dtype = model.dtype;
  pointer.dims = model.dims;
  pointer.space = model.space;
  pointer.swizzle = model.swizzle;
  pointer.align_bytes = static_cast<int>(dtype_size(model.dtype));
  pointer.alias_of = roots.back();  // the first operand's storage (shared-memory layout); any of them at run time
  pointer.points_to = std::move(roots);
  kernel_.buffers.push_back(std::move(pointer));
  const int id = static_cast<int>(kernel_.buffers.size()) - 1;
  emit_node(ir::DeclarePointer{id, address}, e.location);
  Value out = first;
  out.view = whole(id);
  return out;
}

}  // namespace croq::lower::detail
