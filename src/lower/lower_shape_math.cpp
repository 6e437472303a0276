// Arithmetic on whole shapes and tuples (`input.span / {4, 1, 5}`,
// `[M, K] / {8, 64}`, `a.span * 2`, `cdiv(x.span, {8, 4})`): element by
// element, a number applying to every element. Sema typed the result (check_expressions.cpp's
// shape_arithmetic): a shape, or a tuple of counts for the ratio or
// remainder of two shapes and for arithmetic on tuples. A shape's dims are
// known when the kernel is specialized, as every extent is.
// Shape selection (`t.span[(0), (2), 4]`) and picks from a tuple
// (`t {(1), (0), 2}`): sema recorded each dim or element of the result
// (CheckedFunction::shape_selections), one of the operand's or a value.
// Named shapes and tuples (`sp : [7, 8]`, `ituple t = ...`) and a shape's
// extents as a tuple.
#include "lower/lowering.hpp"

namespace croq::lower::detail {

Value ExprLowering::whole_arithmetic(const Expr& e, BinaryOp op, const Expr& lhs, const Expr& rhs, const Value& l,
                                     const Value& r, bool ceil) {
  const auto size = [](const Value& v) -> std::size_t {
    return v.kind == Value::Kind::shape ? v.dims.size() : v.kind == Value::Kind::tuple ? v.elements.size() : 0;
  };
  for (const Value* v : {&l, &r})
    if (v->kind == Value::Kind::view || v->kind == Value::Kind::future)
      unchecked(e.location, sema::Rule::arithmetic_on_tensor);
  if (size(l) && size(r) && size(l) != size(r)) unchecked(e.location, sema::Rule::shape_arithmetic_rank);
  const auto element = [&](const Value& v, std::size_t i, const Expr& side) -> Value {
    if (v.kind == Value::Kind::shape) {
      if (v.dims[i] < 0) {
        const std::string dim = i < v.dim_names.size() ? v.dim_names[i] : "?";
        fail(side.location, "`" + source_text(e) + "` involves the dynamic dim `" + dim +
                                "`; arithmetic on whole shapes takes dims known when the kernel is specialized",
             "remove `" + dim + "` from CompileOptions::dynamic_dims, or write each dimension");
      }
      return scalar_const(v.dims[i]);
    }
    if (v.kind == Value::Kind::tuple) return v.elements[i];
    return require_scalar(v, side);
  };
  Value out;
  const bool two_shapes = l.kind == Value::Kind::shape && r.kind == Value::Kind::shape;
  const bool counts = two_shapes && (op == BinaryOp::div || op == BinaryOp::mod);
  out.kind = !counts && (l.kind == Value::Kind::shape || r.kind == Value::Kind::shape) ? Value::Kind::shape
                                                                                      : Value::Kind::tuple;
  const std::size_t n = std::max(size(l), size(r));
  for (std::size_t i = 0; i < n; ++i) {
    const Value a = element(l, i, lhs), c = element(r, i, rhs);
    if (!a.is_float && !c.is_float && c.constant && *c.constant == 0 &&
        (op == BinaryOp::div || op == BinaryOp::mod))
      fail(e.location, "`" + source_text(e) + "` " + support::describe(support::ArithmeticFault::divide_by_zero));
    Value d;
    if (ceil) {
      d = ceil_div(e, a, c);
    } else if (a.constant && c.constant) {
      d = fold(e, op, *a.constant, *c.constant);
    } else {
      d.is_float = a.is_float || c.is_float;
      d.expr = ir::binary(binary_op_name(op), read(a), read(c));
    }
    if (out.kind == Value::Kind::tuple) {
      out.elements.push_back(d);
      continue;
    }
    if (!d.constant)
      fail(e.location, "dim " + std::to_string(i) + " of `" + source_text(e) +
                           "` is known only when the kernel runs; a shape's dims are known when it is specialized");
    if (*d.constant < 0)
      fail(e.location, "a shape extent must not be negative; dim " + std::to_string(i) + " of `" + source_text(e) +
                           "` is " + std::to_string(*d.constant));
    out.dims.push_back(*d.constant);
    out.dim_names.push_back("");
  }
  return out;
}

const std::vector<sema::SelectedDim>* ExprLowering::shape_selection(const Expr& e) const {
  auto it = facts_.shape_selections.find(&e);
  return it == facts_.shape_selections.end() ? nullptr : &it->second;
}

// t {(1), (0), 2}: element 1 of t, element 0, then 2.
Value ExprLowering::selected_tuple(const Expr& e, const Subscript& sub, const std::vector<sema::SelectedDim>& picks) {
  Value operand = expr(*sub.object);
  if (operand.kind != Value::Kind::tuple) unchecked(sub.object->location, sema::Rule::pick_operand);
  Value out;
  out.kind = Value::Kind::tuple;
  for (const sema::SelectedDim& d : picks) {
    if (d.pick < 0) {
      out.elements.push_back(require_scalar(selected_extent(*d.extent, operand), *d.extent));
      continue;
    }
    const auto at = static_cast<std::size_t>(d.pick);
    if (at >= operand.elements.size()) unchecked(e.location, sema::Rule::pick_index);
    out.elements.push_back(operand.elements[at]);
  }
  return out;
}

Value ExprLowering::selected_shape(const Expr& e, const Subscript& sub, const std::vector<sema::SelectedDim>& dims) {
  if (sub.braces) return selected_tuple(e, sub, dims);
  std::vector<std::string> names;
  const std::vector<std::int64_t> operand = shape_of(*sub.object, &names);
  Value dims_of_operand;  // the values a pick `(k)` in an extent names
  dims_of_operand.kind = Value::Kind::shape;
  dims_of_operand.dims = operand;
  dims_of_operand.dim_names = names;
  const Value picks = tuple_of_extents(dims_of_operand);
  Value out;
  out.kind = Value::Kind::shape;
  for (const sema::SelectedDim& d : dims) {
    if (d.pick >= 0) {
      const auto at = static_cast<std::size_t>(d.pick);
      if (at >= operand.size()) unchecked(e.location, sema::Rule::pick_index);
      out.dims.push_back(operand[at]);
      out.dim_names.push_back(names[at]);
      continue;
    }
    const Value v = require_scalar(selected_extent(*d.extent, picks), *d.extent);
    if (!v.constant)
      fail(d.extent->location, "`" + source_text(*d.extent) + "`, an extent of `" + source_text(e) +
                                   "`, is known only when the kernel runs; a shape's dims are known when it is specialized");
    if (*v.constant < 0)
      fail(d.extent->location, "a shape extent must not be negative; `" + source_text(*d.extent) + "`, an extent of `" +
                                   source_text(e) + "`, is " + std::to_string(*v.constant));
    out.dims.push_back(*v.constant);
    out.dim_names.emplace_back();
  }
  return out;
}

// An extent of a selection (`(0) / 2` in `x.span[(0) / 2, 4]`), whose picks
// `(k)` name the values of `source`.
Value ExprLowering::selected_extent(const Expr& extent, const Value& source) {
  const Value* outer = pick_source_;
  pick_source_ = &source;
  try {
    Value v = expr(extent);
    pick_source_ = outer;
    return v;
  } catch (...) {
    pick_source_ = outer;
    throw;
  }
}

// A shape's extents as a tuple of values (`{a.span}`, `ituple t = a.span`).
Value ExprLowering::tuple_of_extents(const Value& shape) {
  Value r;
  r.kind = Value::Kind::tuple;
  for (std::size_t d = 0; d < shape.dims.size(); ++d) {
    if (shape.dims[d] >= 0) {
      r.elements.push_back(scalar_const(shape.dims[d]));
      continue;
    }
    Value dim;  // a dynamic dim: its variable
    dim.expr = ir::var("dim_" + shape.dim_names[d], ir::Type::i64());
    dim.dynamic = DynamicCount{shape.dim_names[d], 1, false};
    r.elements.push_back(dim);
  }
  return r;
}

// `sp : [7, 8]` (a shape: the extents of a tensor, the values of a tuple)
// and `ituple<3> t = {1, x, 3}` (a tuple: the dims of a shape).
Value ExprLowering::named_value(const Expr& init, bool shape) {
  Value v = expr(init);
  if (v.kind == Value::Kind::view || v.kind == Value::Kind::future || (shape && v.kind == Value::Kind::scalar)) {
    Value r;
    r.kind = Value::Kind::shape;
    r.dims = shape_of(init, &r.dim_names);
    v = r;
  }
  if (shape && v.kind == Value::Kind::tuple) {
    Value r;
    r.kind = Value::Kind::shape;
    for (const Value& el : v.elements) {
      if (!el.constant) fail(init.location, "a shape's dims are constants when the kernel is specialized; `" +
                                                source_text(init) + "` has a value known only at run time");
      r.dims.push_back(*el.constant);
      r.dim_names.emplace_back();
    }
    return r;
  }
  if (!shape && v.kind == Value::Kind::shape) return tuple_of_extents(v);
  if (v.kind != (shape ? Value::Kind::shape : Value::Kind::tuple))
    unchecked(init.location, shape ? "a named shape whose value is no shape" : "a tuple whose value is no tuple");
  return v;
}

}  // namespace croq::lower::detail
