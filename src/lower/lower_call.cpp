// `call f(args)` of a __co_device__ function, lowered by inline expansion:
// the arguments are evaluated where the call stands, the parameters are
// bound to them (tensors to the argument's view, numbers to a variable,
// symbolic dims to the argument's extents) and the body is lowered there,
// in a scope of its own, as if written at the call.
//
// Why inline and not a __device__ function in the generated CUDA: the body
// is Croqtile, whose statements lower against the caller's state (the
// level and thread set that run it, its barriers, the buffers and views its
// tensors are, constant extents folded per call); a separate function
// would need all of that as parameters and a second lowering per
// specialization of its arguments, and the interpreter would need calls.
// Inlined, every later stage (passes, printer, interpreter) sees ordinary
// statements. Sema refuses recursion (rule call-recursion), so expansion ends.
#include "frontend/builtins.hpp"
#include "lower/lowering.hpp"
#include "sema/call_rules.hpp"

namespace croq::lower::detail {

namespace {

ir::Type return_type(const TypeRef& t, DType& dtype) {
  if (t.kind == TypeKind::bool_) return ir::Type::boolean();
  if (t.kind == TypeKind::element && frontend::scalar_dtype(t.name, dtype)) return ir::Type::element(dtype);
  return ir::Type::i32();
}

}  // namespace

void ExprLowering::bind_device_parameter(const Function& callee, const Parameter& p, const Expr& arg, const Value& v,
                                         std::map<std::string, std::int64_t>& bound_dims) {
  if (!p.type.has_shape) {
    const Value& number = require_scalar(v, arg);
    if (number.constant && p.type.kind != TypeKind::element && !number.is_float) {
      define(p.name, scalar_const(*number.constant));  // constants stay constants in the body
      return;
    }
    DType dtype = DType::s32;
    ir::Type type = p.type.kind == TypeKind::bool_ ? ir::Type::boolean() : ir::Type::i32();
    if (p.type.kind == TypeKind::element && frontend::scalar_dtype(p.type.name, dtype)) {
      note_dtype(dtype);
      type = ir::Type::element(dtype);
    }
    const std::string name = fresh(callee.name + "_" + p.name);
    emit_node(ir::Let{name, type, true, ir::coerce(read(number), type)}, arg.location);
    Value bound;
    bound.expr = ir::var(name, type);
    bound.is_float = type.is_float();
    define(p.name, bound);
    return;
  }
  if (v.kind != Value::Kind::view && v.kind != Value::Kind::future)
    unchecked(arg.location, sema::Rule::call_argument);
  const std::vector<std::int64_t>& extent = v.view.extent;
  if (extent.size() != p.type.shape.size()) unchecked(arg.location, sema::Rule::call_argument);
  for (std::size_t d = 0; d < extent.size(); ++d) {
    const Expr& dim = *p.type.shape[d];
    const std::string at_dim = " in dim " + std::to_string(d) + " (`" + source_text(arg) + "`)";
    if (extent[d] < 0)
      fail(arg.location, "argument `" + source_text(arg) + "` of `call " + callee.name + "` has a dim known only at launch" +
                             at_dim + "; a __co_device__ function takes tensors of extents known when the kernel is specialized",
           "tile it with constant extents before the call");
    if (const auto* lit = std::get_if<IntegerLiteral>(&dim.node)) {
      if (static_cast<std::uint64_t>(extent[d]) != lit->value)
        fail(arg.location, "argument `" + source_text(arg) + "` of `call " + callee.name + "` has extent " +
                               std::to_string(extent[d]) + at_dim + "; parameter `" + p.name + "` has " +
                               std::to_string(lit->value));
      continue;
    }
    const auto* name = std::get_if<Name>(&dim.node);
    if (!name || name->name == "?") continue;  // a dim without a name takes any extent
    auto [it, fresh_dim] = bound_dims.emplace(name->name, extent[d]);
    if (sema::Verdict broken = sema::call_dim_agrees(callee.name, name->name, it->second, extent[d], d, source_text(arg)))
      fail(arg.location, *broken);
    define(name->name, scalar_const(extent[d]));
  }
  define(p.name, v);
}

Value ExprLowering::inline_call(const SourceLocation& at, const Function& callee, const ExprList& args,
                                bool want_value) {
  if (args.size() != callee.params.size() || !callee.body) unchecked(at, sema::Rule::call_arity);
  for (const InlineFrame& f : inline_frames_)
    if (f.callee == &callee) unchecked(at, sema::Rule::call_recursion);
  // The arguments, in the caller's names.
  std::vector<Value> values;
  for (const auto& arg : args) values.push_back(expr(*arg));
  InlineFrame frame{&callee, nullptr};
  Value result;
  if (want_value) {
    DType dtype = DType::s32;
    const ir::Type type = return_type(callee.return_type, dtype);
    if (type.kind == ir::Type::Kind::element) note_dtype(dtype);
    const std::string name = fresh(callee.name + "_result");
    emit_node(ir::Let{name, type, false, nullptr}, at);
    result.expr = frame.result = ir::var(name, type);
    result.is_float = type.is_float();
  }
  ir::StmtList body = collect([&] {
    push();
    const std::size_t saved_floor = std::exchange(lookup_floor_, symbols_.size() - 1);
    inline_frames_.push_back(frame);
    try {
      std::map<std::string, std::int64_t> bound_dims;
      for (std::size_t i = 0; i < args.size(); ++i)
        bind_device_parameter(callee, callee.params[i], *args[i], values[i], bound_dims);
      block(*callee.body);
    } catch (...) {
      inline_frames_.pop_back();
      lookup_floor_ = saved_floor;
      pop();
      throw;
    }
    inline_frames_.pop_back();
    lookup_floor_ = saved_floor;
    pop();
  });
  emit(braced(std::move(body)));
  return result;
}

// `return VALUE;` of the function being inlined: the last statement of its
// body (sema's rule device-function-return), so it only sets the result.
void Lowerer::inline_return(const Return& r) {
  const InlineFrame& frame = inline_frames_.back();
  if (!r.value || !frame.result) return;
  Value v = require_scalar(expr(*r.value), *r.value);
  emit_node(ir::Assign{frame.result, "=", ir::coerce(read(v), frame.result->type), nullptr});
}

}  // namespace croq::lower::detail
