// Lowering of expressions: names, arithmetic (constants folded with overflow
// checks) and element references with their tail guards (the views:
// lower_views.cpp).
#include <cmath>
#include <numeric>

#include "frontend/constant_fold.hpp"
#include "frontend/frontend.hpp"
#include "ir/expr_size.hpp"
#include "lower/lowering.hpp"
#include "lower/multiples.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

namespace {

// Guarded reads repeat their index in the guard, so nesting them (a.at(i +
// a.at(i + ...))) doubles the text at each level: past this an expression
// is refused instead of exhausting memory.
constexpr std::size_t kMaxExpressionText = std::size_t{1} << 20;

}  // namespace

Value scalar_const(std::int64_t v) {
  Value r;
  r.expr = ir::int_const(v);
  r.constant = v;
  // |v|, or 2^62 for INT64_MIN (whose magnitude has no int64).
  r.multiple = v == std::numeric_limits<std::int64_t>::min() ? std::int64_t{1} << 62 : (v < 0 ? -v : v);
  return r;
}

std::string shape_list(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] < 0 ? "?" : std::to_string(dims[i]));
  return s + "]";
}

std::int64_t tile_end(std::int64_t i, std::int64_t step, std::int64_t extent) {
  support::CheckedInt start = support::checked_mul(i, step);
  support::CheckedInt end = start.ok() ? support::checked_add(start.value, extent) : start;
  return end.ok() ? end.value : INT64_MAX;
}

std::string shape_text(DType t, const std::vector<std::int64_t>& dims) {
  return std::string(dtype_name(t)) + " " + shape_list(dims);
}

std::int64_t ExprLowering::const_int(const Expr& e, const char* what) {
  Value v = expr(e);
  if (!v.constant)
    fail(e.location, sema::constant_required(what, source_text(e), v.kind == Value::Kind::index && v.count > 0));
  return *v.constant;
}

std::int64_t ExprLowering::non_negative_int(const Expr& e, const char* what) { return non_negative(expr(e), e, what); }

// `v`, the value of `e` (or of one element of the tuple `e`), as a constant
// that is not negative.
std::int64_t ExprLowering::non_negative(const Value& v, const Expr& e, const char* what) {
  if (!v.constant)
    fail(e.location, sema::constant_required(what, source_text(e), v.kind == Value::Kind::index && v.count > 0));
  if (*v.constant < 0) fail(e.location, std::string(what) + " must not be negative, got " + std::to_string(*v.constant));
  return *v.constant;
}

const Value& ExprLowering::require_scalar(const Value& v, const Expr& e) const {
  if (!v.expr) fail(e.location, "expected a number, an index or an element here, got `" + source_text(e) + "`");
  return v;
}

std::vector<std::int64_t> ExprLowering::shape_of(const Expr& e, std::vector<std::string>* names) {
  Value v = expr(e);
  std::vector<std::int64_t> dims;
  std::vector<std::string> dim_names;
  switch (v.kind) {
    case Value::Kind::shape:
      dims = v.dims;
      dim_names = v.dim_names;
      break;
    case Value::Kind::view: case Value::Kind::future:
      dims = v.view.extent;
      for (std::size_t d = 0; d < dims.size(); ++d) dim_names.push_back(dims[d] < 0 ? dim_name(v.view.buffer, d) : "");
      break;
    case Value::Kind::tuple:  // `f32 [t]` with t = {4, 8}: one dim per value
      for (const Value& el : v.elements) {
        if (el.constant && *el.constant < 0)
          fail(e.location, "a shape extent must not be negative; `" + source_text(e) + "` has " + std::to_string(*el.constant));
        if (!el.constant && !(el.dynamic && el.dynamic->divisor == 1))
          fail(e.location, "the values of `" + source_text(e) + "` are dims of a shape: they must be known when the "
                           "kernel is specialized");
        dims.push_back(el.constant ? *el.constant : -1);
        dim_names.push_back(el.constant ? "" : el.dynamic->dim);
      }
      break;
    case Value::Kind::scalar:
      if (v.constant) {
        // -1 would read as a dynamic dim below.
        if (*v.constant < 0)
          fail(e.location, "a shape extent must not be negative; `" + source_text(e) + "` is " + std::to_string(*v.constant));
        if (names) *names = {""};
        return {*v.constant};
      }
      if (v.dynamic && v.dynamic->divisor == 1) {
        dims = {-1};
        dim_names = {v.dynamic->dim};
        break;
      }
      [[fallthrough]];
    default:
      unchecked(e.location, "a shape operand that is no shape");
  }
  dim_names.resize(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d] < 0 && !names)
      fail(e.location, "this shape involves the dynamic dim `" + dim_names[d] +
                           "`, but it must be known when the kernel is compiled",
           "remove `" + dim_names[d] + "` from CompileOptions::dynamic_dims, or use a constant tile shape");
  if (names) *names = dim_names;
  return dims;
}

std::vector<Value> ExprLowering::counts_of(const Expr& e, const char* what, bool runtime_ok) {
  std::vector<Value> counts;
  auto add = [&](const Expr& part) {
    Value v = expr(part);
    if (v.kind == Value::Kind::shape || v.kind == Value::Kind::view || v.kind == Value::Kind::future) {
      for (auto d : shape_of(part)) counts.push_back(scalar_const(d));
      return;
    }
    if (v.kind == Value::Kind::tuple) {
      for (const Value& el : v.elements) {
        if (el.kind != Value::Kind::scalar || !(el.constant || el.dynamic))
          fail(part.location, std::string(what) + " must be a constant or computed from a dynamic dim; `" +
                                  source_text(part) + "` has a value known only at run time");
        counts.push_back(el);
      }
      return;
    }
    if ((v.kind == Value::Kind::scalar && (v.constant || v.dynamic)) ||
        (runtime_ok && (v.kind == Value::Kind::scalar || v.kind == Value::Kind::index) && v.expr && !v.is_float)) {
      counts.push_back(v);
      return;
    }
    fail(part.location, sema::count_form(what, source_text(part)));
  };
  if (const auto* list = std::get_if<ShapeList>(&e.node)) {
    for (const auto& d : list->dims) add(*d);
  } else {
    add(e);
  }
  return counts;
}

Value ExprLowering::name_value(const Expr& e, const Name& n) {
  // Sema resolved the name to its declaration: a symbolic dim is bound by
  // now (or read at launch); anything else lowering defined in its scopes,
  // as it met the declaration. (#define names are the preprocessor's.)
  const auto resolved = facts_.resolved.find(&e);
  const sema::Symbol* symbol = resolved == facts_.resolved.end() ? nullptr : resolved->second;
  // (A __co_device__ function's dims are bound by each call: in its scope.)
  if (!symbol || symbol->origin != sema::Origin::symbolic_dim || !inline_frames_.empty())
    if (const Value* v = lookup(n.name)) return *v;
  auto dim = dims_.find(n.name);
  if (dim != dims_.end()) return scalar_const(dim->second);
  if (dynamic_.count(n.name)) {
    Value v;
    v.expr = ir::var("dim_" + n.name, ir::Type::i64());
    v.dynamic = DynamicCount{n.name, 1, false};
    return v;
  }
  auto def = program_.defines.find(n.name);
  if (def != program_.defines.end() && def->second.value) {
    if (auto* i = std::get_if<std::int64_t>(&*def->second.value)) return scalar_const(*i);
    Value f;
    f.expr = ir::float_literal(def->second.text);
    f.is_float = true;
    return f;
  }
  unchecked(e.location, "a name sema did not resolve");
}

std::vector<Value> ExprLowering::index_args(const ExprList& args) {
  std::vector<Value> out;
  for (const auto& a : args) {
    Value v = expr(*a);
    if (v.kind == Value::Kind::tuple) {
      for (auto& el : v.elements) out.push_back(el);
    } else {
      out.push_back(std::move(v));
    }
  }
  return out;
}

Value ExprLowering::element_ref(const Expr& e, const Value& target, const ExprList& args) {
  const View& v = target.view;
  std::vector<Value> idx = index_args(args);
  if (idx.size() != v.extent.size())
    fail(e.location, "`.at` on a rank-" + std::to_string(v.extent.size()) + " tensor takes " +
                         std::to_string(v.extent.size()) + " indices, got " + std::to_string(idx.size()));
  std::vector<ExprRef> coords;
  ExprRef guard;
  for (std::size_t d = 0; d < idx.size(); ++d) {
    const Expr& where = *args[std::min(d, args.size() - 1)];
    if (idx[d].kind != Value::Kind::scalar && idx[d].kind != Value::Kind::index)
      unchecked(where.location, "an index that is no integer");
    if (sema::Verdict broken = idx[d].constant ? sema::element_index(*idx[d].constant, d, v.extent[d]) : std::nullopt)
      fail(where.location, *broken);
    coords.push_back(idx[d].expr);
    // In range by construction when the index cannot exceed the window and
    // the window stays inside the buffer; otherwise guard at run time.
    bool bounded = v.extent[d] >= 0 && (idx[d].constant || (idx[d].kind == Value::Kind::index && idx[d].count > 0 &&
                                                             idx[d].count <= v.extent[d]));
    if (!(bounded && v.exact)) guard = ir::all_of(guard, ir::less(ir::add(v.origin[d], idx[d].expr), dim_expr(v.buffer, d)));
    if (d < v.limit.size() && v.limit[d]) guard = ir::all_of(guard, ir::less(idx[d].expr, v.limit[d]));
  }
  if (!lowering_store_target_ && buffer(v.buffer).space == ir::Space::shared) ask_barrier_before_shared_read(v.buffer);
  Value r;
  r.expr = element_at(v, coords);
  r.guard = guard;
  r.element_of = v.buffer;
  r.is_float = is_floating(buffer(v.buffer).dtype);
  return r;
}

Value ExprLowering::member(const Expr& e, const Member& m) {
  Value obj = expr(*m.object);
  if (obj.kind == Value::Kind::event && m.kind == MemberKind::at) return event_at(e, m, std::move(obj));
  if ((obj.kind == Value::Kind::accumulator || obj.kind == Value::Kind::fragment) &&
      (m.kind == MemberKind::span || m.kind == MemberKind::at))
    return register_member(e, m, obj);
  const bool view_op = m.kind == MemberKind::span || m.kind == MemberKind::at || m.kind == MemberKind::chunkat ||
                       m.kind == MemberKind::subspan || m.kind == MemberKind::modspan || m.kind == MemberKind::view || m.kind == MemberKind::span_as ||
                       m.kind == MemberKind::zfill;
  if (view_op && obj.kind != Value::Kind::view && obj.kind != Value::Kind::future)
    unchecked(e.location, "a view operation on what is no tensor");
  if (m.kind == MemberKind::other && m.name == "sqz") return squeeze(e, obj);
  if (m.kind == MemberKind::other && m.name == "chunk") return chunk_window(e, m, obj);
  switch (m.kind) {
    case MemberKind::span: {
      auto name_of = [&](std::size_t d) { return obj.view.extent[d] < 0 ? dim_name(obj.view.buffer, d) : ""; };
      if (!m.has_args) {
        Value r;
        r.kind = Value::Kind::shape;
        r.dims = obj.view.extent;
        for (std::size_t d = 0; d < r.dims.size(); ++d) r.dim_names.push_back(name_of(d));
        return r;
      }
      std::int64_t i = const_int(*m.args.at(0), sema::what::span_dimension);
      if (i < 0 || i >= static_cast<std::int64_t>(obj.view.extent.size())) unchecked(e.location, "a `.span(i)` past the rank");
      if (obj.view.extent[i] < 0) {
        Value r;
        r.expr = ir::var("dim_" + name_of(i), ir::Type::i64());
        r.dynamic = DynamicCount{name_of(i), 1, false};
        return r;
      }
      return scalar_const(obj.view.extent[i]);
    }
    case MemberKind::data:
      if (obj.kind != Value::Kind::future)
        unchecked(e.location, "`.data` of what is no future");
      obj.kind = Value::Kind::view;
      return obj;
    case MemberKind::span_as:
      return span_as(e, m, obj);
    case MemberKind::zfill:  // `src.zfill => dst`: the same as dma.copy.zfill
      obj.zfill = true;
      return obj;
    case MemberKind::at: case MemberKind::chunkat: case MemberKind::subspan: case MemberKind::modspan:
    case MemberKind::view: case MemberKind::step: case MemberKind::from:
      return view_member(e, m, std::move(obj));
    default:
      unchecked(e.location, "a member sema does not know");
  }
}

Value ExprLowering::fold(const Expr& e, BinaryOp op, std::int64_t a, std::int64_t c) {
  if (op == BinaryOp::compose) unchecked(e.location, "a `#` of two constants");
  const support::CheckedInt r = frontend::fold_binary(op, a, c);
  if (!r.ok()) fail_arithmetic(e, r.fault, std::to_string(a) + " " + binary_op_name(op) + " " + std::to_string(c));
  return scalar_const(r.value);
}

// `i #- c`, `i #+ c`: i, counted as c fewer or more values.
Value ExprLowering::moved_bound(const Expr& e, const Binary& b, Value l, const Value& r) {
  if (l.kind != Value::Kind::index || !r.constant) unchecked(e.location, sema::Rule::bound_move);
  if (l.count <= 0)
    fail(e.location, "`" + source_text(e) + "` moves a count known only when the kernel runs; not supported yet by libcroqjit",
         "move the count of an index whose count is known when the kernel is specialized");
  const support::CheckedInt moved =
      b.op == BinaryOp::sub ? support::checked_sub(l.count, *r.constant) : support::checked_add(l.count, *r.constant);
  if (!moved.ok()) fail_arithmetic(e, moved.fault, source_text(e));
  if (sema::Verdict broken = sema::moved_count(source_text(e), moved.value)) fail(e.location, *broken);
  l.count = moved.value;
  l.count_expr = nullptr;
  return l;
}

Value ExprLowering::binary(const Expr& e, const Binary& b) {
  Value l = expr(*b.lhs), r = expr(*b.rhs);
  if (b.moves_bound) return moved_bound(e, b, std::move(l), r);
  if (b.op == BinaryOp::compose) {
    if (r.kind != Value::Kind::index || r.count <= 0)
      fail(b.rhs->location, sema::compose_index(source_text(*b.rhs)));
    require_scalar(l, *b.lhs);
    Value out;
    out.kind = Value::Kind::index;
    out.expr = ir::add(ir::mul(l.expr, r.count), r.expr);
    const std::int64_t outer = l.kind == Value::Kind::index ? l.count : 1;
    auto count = support::checked_mul(outer, r.count);
    if (!count.ok())
      fail_arithmetic(e, count.fault, "the index takes " + std::to_string(outer) + " * " + std::to_string(r.count) + " values");
    out.count = count.value;
    out.multiple = multiple_gcd(multiple_product(l.multiple, r.count), r.multiple);
    return out;
  }
  for (const Value* v : {&l, &r})
    if (v->kind == Value::Kind::shape || v->kind == Value::Kind::tuple) return whole_arithmetic(e, b.op, *b.lhs, *b.rhs, l, r);
  for (const Value* v : {&l, &r})
    if (v->kind == Value::Kind::view || v->kind == Value::Kind::future)
      unchecked(e.location, "arithmetic on a whole tensor");
  require_scalar(l, *b.lhs);
  require_scalar(r, *b.rhs);
  if (l.constant && r.constant) return fold(e, b.op, *l.constant, *r.constant);
  Value out;
  out.is_float = l.is_float || r.is_float;
  if (!out.is_float && r.constant && *r.constant == 0 && (b.op == BinaryOp::div || b.op == BinaryOp::mod))
    fail(e.location, "`" + source_text(e) + "` " + support::describe(support::ArithmeticFault::divide_by_zero));
  const std::string op = binary_op_name(b.op);
  // A guarded element read inside arithmetic reads as zero out of range.
  out.expr = ir::binary(op, read(l), read(r));
  if (b.op == BinaryOp::div && l.dynamic && l.dynamic->divisor == 1 && r.constant && *r.constant > 0)
    out.dynamic = DynamicCount{l.dynamic->dim, *r.constant, false};
  if (!out.is_float) {
    if (b.op == BinaryOp::mul) out.multiple = multiple_product(l.multiple, r.multiple);
    else if (b.op == BinaryOp::add || b.op == BinaryOp::sub) out.multiple = multiple_gcd(l.multiple, r.multiple);
  }
  // An index plus a constant offset is still bounded (used for halo reads):
  // below count + c for i + c, below count - c for i - c (c < 0); a bound
  // that overflows bounds nothing.
  if (l.kind == Value::Kind::index && l.count > 0 && r.constant && (b.op == BinaryOp::add || b.op == BinaryOp::sub)) {
    const std::int64_t growth = b.op == BinaryOp::add ? *r.constant : -std::max<std::int64_t>(*r.constant, -INT64_MAX);
    auto count = support::checked_add(l.count, std::max<std::int64_t>(growth, 0));
    if (count.ok()) {
      out.kind = Value::Kind::index;
      out.count = count.value;
    }
  }
  // The sum of two bounded indices is bounded too (stencil taps: i + di).
  if (l.kind == Value::Kind::index && r.kind == Value::Kind::index && l.count > 0 && r.count > 0 &&
      b.op == BinaryOp::add) {
    auto count = support::checked_add(l.count, r.count - 1);
    if (count.ok()) {
      out.kind = Value::Kind::index;
      out.count = count.value;
    }
  }
  return out;
}

ExprRef ExprLowering::read(const Value& v) const {
  return guarded(v, v.element_of >= 0 ? ir::typed_zero(buffer(v.element_of).dtype) : ir::int_const(0));
}

ExprRef ExprLowering::guarded(const Value& v, ExprRef zero) const {
  if (!v.guard) return v.expr;
  return ir::select(v.guard, v.expr, std::move(zero));
}

Value ExprLowering::unary(const Expr& e, const Unary& n) {
  Value v = expr(*n.operand);
  const bool up = n.op == UnaryOp::pre_increment || n.op == UnaryOp::post_increment;
  if (up || n.op == UnaryOp::pre_decrement || n.op == UnaryOp::post_decrement)
    return update(e, v, up, n.op == UnaryOp::post_increment || n.op == UnaryOp::post_decrement);
  if (n.op != UnaryOp::extent) require_scalar(v, *n.operand);
  if (n.op == UnaryOp::extent) {
    if (v.kind == Value::Kind::index && v.count <= 0 && v.count_expr) {  // a count known at run time
      Value extent;
      extent.expr = v.count_expr;
      return extent;
    }
    if (v.kind != Value::Kind::index || v.count <= 0)
      fail(e.location, sema::extent_of_index(source_text(*n.operand)));
    return scalar_const(v.count);
  }
  if (v.constant && n.op == UnaryOp::negate) {
    auto r = support::checked_neg(*v.constant);
    if (!r.ok()) fail_arithmetic(e, r.fault, "-(" + std::to_string(*v.constant) + ")");
    return scalar_const(r.value);
  }
  if (v.constant && n.op == UnaryOp::logical_not) return scalar_const(!*v.constant);
  if (v.constant && n.op == UnaryOp::plus) return v;
  const char* op = n.op == UnaryOp::negate ? "-" : n.op == UnaryOp::plus ? "+" : n.op == UnaryOp::logical_not ? "!"
                   : n.op == UnaryOp::bit_not ? "~" : nullptr;
  if (!op) fail(e.location, "this operator is not supported yet by libcroqjit");
  Value out;
  out.expr = ir::unary(op, guarded(v, ir::int_const(0)));
  out.is_float = v.is_float;
  return out;
}

// `x++` / `--x` inside an expression (sema allows a mutable scalar where
// the expression runs once): x changes before the statement, which reads
// the value x had (`x++`, kept in a new constant) or has (`++x`).
Value ExprLowering::update(const Expr& e, const Value& v, bool up, bool post) {
  if (v.kind != Value::Kind::scalar || v.constant || !v.expr || v.expr->kind != ir::ExprKind::var || v.guard)
    unchecked(e.location, sema::Rule::assign_target);
  const ir::Type type = v.expr->index_var ? index_type() : v.expr->type;
  Value out = v;
  if (peeking_updates_) {
    if (!post) out.expr = as_type_of(ir::binary(up ? "+" : "-", v.expr, ir::int_const(1)), v.expr, true);
    return out;
  }
  if (post) {
    const std::string old = fresh("old");
    emit_node(ir::Let{old, type, true, v.expr}, e.location);
    out.expr = ir::var(old, type);
  }
  const char* op = up ? "+" : "-";
  ExprRef one = as_type_of(ir::int_const(1), v.expr);
  // Narrow types have no compound assignment (as in Lowerer::assignment).
  if (ir::is_narrow(v.expr->type))
    emit_node(ir::Assign{v.expr, "=", as_type_of(ir::binary(op, v.expr, one), v.expr, true), nullptr}, e.location);
  else
    emit_node(ir::Assign{v.expr, std::string(op) + "=", one, nullptr}, e.location);
  return out;
}

// cdiv(a, b), the quotient rounded up.
Value ExprLowering::ceil_div(const Expr& e, const Value& a, const Value& b) {
  if (b.constant && *b.constant == 0 && !b.is_float)
    fail(e.location, "`" + source_text(e) + "` " + support::describe(support::ArithmeticFault::divide_by_zero));
  if (a.constant && b.constant) {
    auto r = support::checked_cdiv(*a.constant, *b.constant);
    if (!r.ok()) fail_arithmetic(e, r.fault, "cdiv(" + std::to_string(*a.constant) + ", " + std::to_string(*b.constant) + ")");
    return scalar_const(r.value);
  }
  Value out;
  out.expr = ir::binary("/", ir::binary("-", ir::binary("+", a.expr, b.expr), ir::int_const(1)), b.expr);
  if (a.dynamic && a.dynamic->divisor == 1 && b.constant && *b.constant > 0)
    out.dynamic = DynamicCount{a.dynamic->dim, *b.constant, true};
  return out;
}

// sp(i), t(i): dimension i of a shape, element i of a tuple; `y(i)` of a
// bounded index: the value i (from the end when negative), bounded as `y`.
// None for other values.
std::optional<Value> ExprLowering::pick(const Expr& e, const Call& n, const Value& whole, const std::string& name) {
  if ((whole.kind == Value::Kind::shape || whole.kind == Value::Kind::tuple) && n.args.size() == 1) {
    const std::int64_t i = const_int(*n.args[0], sema::what::element_index);
    const std::size_t size = whole.kind == Value::Kind::shape ? whole.dims.size() : whole.elements.size();
    if (sema::Verdict broken = sema::element_of_index(name, static_cast<std::int64_t>(size), i))
      fail(n.args[0]->location, *broken);
    if (whole.kind == Value::Kind::tuple) return whole.elements[static_cast<std::size_t>(i)];
    return tuple_of_extents(whole).elements[static_cast<std::size_t>(i)];
  }
  if (whole.kind != Value::Kind::index) return std::nullopt;
  const std::int64_t i = n.args.size() == 1 ? const_int(*n.args[0], sema::what::bounded_index_value) : -1;
  if (n.args.size() != 1) fail(e.location, "`" + name + "(i)` takes one value of the index");
  if (whole.count <= 0) fail(e.location, "`" + source_text(e) + "` needs the bound of `" + name + "` at compile time");
  if (sema::Verdict broken = sema::index_value(name, whole.count, i)) fail(n.args[0]->location, *broken);
  Value out = whole;
  const std::int64_t value = i < 0 ? whole.count + i : i;
  out.expr = ir::int_const(value);
  out.constant = value;
  out.multiple = value == 0 ? 0 : value;
  return out;
}

Value ExprLowering::call(const Expr& e, const Call& n) {
  const auto* callee = std::get_if<Name>(&n.callee->node);
  if (const Function* f = callee && n.with_call_keyword ? program_.find_co_device_function(callee->name) : nullptr)
    return inline_call(e.location, *f, n.args, true);
  if (facts_.device_calls.count(&n)) return cxx_call(e.location, &n, n.template_args, n.args);
  if (const Value* whole = callee ? lookup(callee->name) : nullptr)
    if (std::optional<Value> picked = pick(e, n, *whole, callee->name)) return *picked;
  // `index(1)(-2)`: a value picked from what a pick gave.
  if (std::holds_alternative<Call>(n.callee->node))
    if (std::optional<Value> picked = pick(e, n, expr(*n.callee), source_text(*n.callee))) return *picked;
  if (callee && callee->name == "cdiv" && n.args.size() == 2) {
    Value a = expr(*n.args[0]), b = expr(*n.args[1]);
    const auto whole = [](const Value& v) { return v.kind == Value::Kind::shape || v.kind == Value::Kind::tuple; };
    if (whole(a)) return whole_arithmetic(e, BinaryOp::div, *n.args[0], *n.args[1], a, b, true);  // dim by dim
    return ceil_div(e, require_scalar(a, *n.args[0]), require_scalar(b, *n.args[1]));
  }
  if (!callee) unchecked(e.location, "a call of what is no name");
  if (callee->name == "select" && !lookup("select")) return select_call(e, n);
  return builtin_call(e, n, callee->name);
}

Value ExprLowering::expr(const Expr& e) {
  Value v = expr_value(e);
  if (v.expr) {
    const std::size_t size = ir::expression_text_size(kernel_, v.expr, kMaxExpressionText) +
                             ir::expression_text_size(kernel_, v.guard, kMaxExpressionText);
    if (size > kMaxExpressionText)
      fail(e.location, "this expression generates more than " + std::to_string(kMaxExpressionText >> 20) +
                           " MiB of CUDA (each guarded element read inside an index repeats the index)",
           "nest fewer element reads inside indices");
  }
  return v;
}

// The kinds of expression without a member of their own (Dispatch).
template <typename T>
Value ExprLowering::other_expression(const Expr& e, const T& n) {
  if constexpr (std::is_same_v<T, IntegerLiteral>) {
    if (pick_source_ && source_text(e).rfind('(', 0) == 0) {  // a pick `(k)` in an extent of a selection
      if (n.value >= pick_source_->elements.size()) unchecked(e.location, sema::Rule::pick_index);
      return pick_source_->elements[static_cast<std::size_t>(n.value)];
    }
    if (n.value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(e.location, "the integer literal `" + n.spelling + "` does not fit in a 64-bit signed integer");
    return scalar_const(static_cast<std::int64_t>(n.value));
  } else if constexpr (std::is_same_v<T, FloatLiteral>) {
    Value v;
    v.expr = ir::float_literal(std::isinf(n.value) ? "inf" : n.spelling);
    v.is_float = true;
    return v;
  } else if constexpr (std::is_same_v<T, BoolLiteral>) {
    return scalar_const(n.value ? 1 : 0);
  } else if constexpr (std::is_same_v<T, Convert>) {
    return conversion(e, n);
  } else if constexpr (std::is_same_v<T, Conditional>) {
    Value c = require_scalar(expr(*n.condition), *n.condition);
    Value a = require_scalar(expr(*n.then_value), *n.then_value), b = require_scalar(expr(*n.else_value), *n.else_value);
    if (c.constant) return *c.constant ? a : b;
    Value out;
    out.expr = ir::select(c.expr, a.expr, b.expr);
    out.is_float = a.is_float || b.is_float;
    return out;
  } else if constexpr (std::is_same_v<T, ShapeList>) {
    Value v;
    v.kind = Value::Kind::shape;
    for (const auto& d : n.dims) {
      std::vector<std::string> names;
      std::vector<std::int64_t> part = shape_of(*d, &names);  // [a.span, 4] flattens a.span
      v.dims.insert(v.dims.end(), part.begin(), part.end());
      v.dim_names.insert(v.dim_names.end(), names.begin(), names.end());
    }
    return v;
  } else if constexpr (std::is_same_v<T, ITuple>) {
    Value v;
    v.kind = Value::Kind::tuple;
    // `{t, 5}` concatenates the tuple t and 5; `{a.span}` gives a.span's extents.
    for (const auto& el : n.elements) {
      Value part = expr(*el);
      if (part.kind == Value::Kind::shape) part = tuple_of_extents(part);
      if (part.kind == Value::Kind::tuple)
        v.elements.insert(v.elements.end(), part.elements.begin(), part.elements.end());
      else
        v.elements.push_back(std::move(part));
    }
    return v;
  } else if constexpr (std::is_same_v<T, ElementCount>) {
    std::vector<std::int64_t> dims = shape_of(*n.operand);
    std::optional<std::int64_t> count = support::checked_product(dims);
    if (!count) fail_arithmetic(e, support::ArithmeticFault::overflow, "the product of " + shape_list(dims));
    return scalar_const(*count);
  } else {
    fail(e.location, "this expression is not supported yet by libcroqjit");
  }
}

Value ExprLowering::expr_value(const Expr& e) { return Dispatch::expression(*this, e); }

}  // namespace croq::lower::detail
