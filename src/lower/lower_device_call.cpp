// `call f(args)` / `f(args)` of a C++ function the source defines
// (__device__, __cok__): an ir device_call the backend prints as the C++
// call. What each argument passes comes from sema's DeviceCall fact: a
// tile its first element's address (of its element type), a register
// fragment or accumulator the address of the thread's registers, a number
// its value. An intrinsic (`#pragma croq intrinsic`) is such a call too. Unlike a __co_device__ call, nothing is inlined: the body is C++.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

// The IR type of a value of element type `t`: scalars keep the types
// Croqtile's own int and float values have.
ir::Type value_type(DType t) {
  if (t == DType::s32) return ir::Type::i32();
  if (t == DType::f32) return ir::Type::f32();
  return ir::Type::element(t);
}

}  // namespace

Value ExprLowering::cxx_call(const SourceLocation& at, const void* key, const ExprList& template_args,
                             const ExprList& args) {
  const sema::DeviceCall& fact = facts_.device_call(key, at);
  if (fact.template_types.size() != template_args.size() || fact.pointers.size() != args.size())
    unchecked(at, sema::Rule::call_argument);
  std::vector<ExprRef> templates;
  for (std::size_t i = 0; i < template_args.size(); ++i) {
    DType t;
    if (fact.template_types[i].empty())
      templates.push_back(ir::int_const(const_int(*template_args[i], sema::what::template_argument)));
    else if (parse_dtype(fact.template_types[i], t))
      note_dtype(t), templates.push_back(ir::typed_zero(t));
    else
      unchecked(template_args[i]->location, sema::Rule::call_argument);
  }
  std::vector<ExprRef> values;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Value v = expr(*args[i]);
    if (!fact.pointers[i]) {
      values.push_back(read(require_scalar(v, *args[i])));
      continue;
    }
    if (v.kind == Value::Kind::fragment || v.kind == Value::Kind::accumulator) {
      // Registers pass by reference: the thread's own array of them, once
      // the WGMMA groups that write or read them completed.
      const int registers = registers_of(v, *args[i]).buffer;
      emit_node(ir::MmaCommit{{registers}}, args[i]->location);
      values.push_back(ir::address_of(ir::element(registers, buffer(registers).dtype, nullptr, {ir::int_const(0)})));
      continue;
    }
    if (v.kind != Value::Kind::view && v.kind != Value::Kind::future) unchecked(args[i]->location, sema::Rule::call_argument);
    if (buffer(v.view.buffer).swizzle > 0) unchecked(args[i]->location, sema::Rule::unsupported_call);
    values.push_back(tile_address(v.view));
  }
  std::optional<ir::Type> type;
  if (fact.result) {
    note_dtype(*fact.result);
    type = value_type(*fact.result);
  }
  ExprRef call = ir::device_call(fact.callee, std::move(templates), std::move(values), type);
  Value out;
  if (!type) {
    emit_node(ir::Eval{call}, at);
    return out;
  }
  // Called once, where the statement stands, as a __co_device__ call is
  // (at its line: interpret mode reports the call there).
  line_mark(at);
  const std::string name = fresh(fact.callee + "_result");
  emit_node(ir::Let{name, *type, true, call}, at);
  out.expr = ir::var(name, *type);
  out.is_float = type->is_float();
  return out;
}

}  // namespace croq::lower::detail
