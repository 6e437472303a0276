// Lowering of builtins: the __atomic_* read-modify-writes, the math
// builtins (__sqrt, __pow, __gelu, ...) and inline assembly (__asm__). Math runs in f64 when an operand is
// f64 and in f32 otherwise (f16 and bf16 too, as CUDA's half types lack most
// functions); the value has the first operand's type, as upstream Croqtile's.
#include <algorithm>

#include "frontend/builtins.hpp"
#include "frontend/lexer.hpp"
#include "ir/index_width.hpp"
#include "lower/lowering.hpp"

namespace croq::lower::detail {

namespace {

bool is_double(const ir::Type& t) {
  return t.kind == ir::Type::Kind::f64 || (t.kind == ir::Type::Kind::element && t.dtype == DType::f64);
}

bool is_wide_integer(const ir::Type& t) {
  return t.kind == ir::Type::Kind::i64 ||
         (t.kind == ir::Type::Kind::element && (t.dtype == DType::s64 || t.dtype == DType::u64));
}

ExprRef as(const ExprRef& e, const ir::Type& t) { return e->type == t ? e : ir::convert(e, t); }

// `text` (a decimal with a point) as a double or a float literal. The IR's
// float literals are f32: a double one is converted, so that expressions
// built on it (gelu's tanh operand) stay f64 and call CUDA's double functions.
ExprRef literal(const std::string& text, bool f64) {
  return f64 ? ir::convert(ir::float_literal(text), ir::Type{ir::Type::Kind::f64, DType::f64})
             : ir::float_literal(text + "f");
}

}  // namespace

Value ExprLowering::builtin_call(const Expr& e, const Call& c, const std::string& name) {
  if (name.rfind("__atomic_", 0) == 0) return atomic_call(e, c, name.substr(9));
  const frontend::MathBuiltin* b = frontend::find_math_builtin(name);
  if (!b) unchecked(e.location, sema::Rule::unsupported_call);
  if (static_cast<int>(c.args.size()) != b->operands)
    fail(e.location, "`" + name + "` takes " + std::to_string(b->operands) + " operands");
  std::vector<Value> args;
  std::vector<ExprRef> operands;
  for (const auto& a : c.args) {
    args.push_back(require_scalar(expr(*a), *a));
    const Value& v = args.back();
    operands.push_back(read(v));
  }
  const std::string function(b->function);
  if (b->integers) return align(e, function, args);
  const bool all_integers = std::none_of(operands.begin(), operands.end(), [](const ExprRef& o) { return o->type.is_float(); });
  if ((function == "max" || function == "min") && all_integers) {
    if (args[0].constant && args[1].constant)
      return scalar_const(function == "max" ? std::max(*args[0].constant, *args[1].constant)
                                            : std::min(*args[0].constant, *args[1].constant));
    // In 64 bits when an operand is: with index variables, maybe only in
    // 64-bit kernels (both forms, for the index-width pass).
    auto min_max = [&](ir::Type (*type_of)(const ExprRef&)) {
      const ir::Type t = is_wide_integer(type_of(operands[0])) || is_wide_integer(type_of(operands[1])) ? ir::Type::i64()
                                                                                                       : ir::Type::i32();
      auto as_t = [&](const ExprRef& o) { return type_of(o) == t ? o : ir::convert(o, t); };
      return ir::math(function, {as_t(operands[0]), as_t(operands[1])}, t);
    };
    const auto narrow_type = [](const ExprRef& o) { return o->type; };
    const bool same = ir::wide_type(operands[0]) == operands[0]->type && ir::wide_type(operands[1]) == operands[1]->type;
    Value out;
    out.expr = same ? min_max(narrow_type) : ir::by_index_width(min_max(narrow_type), min_max(ir::wide_type));
    return out;
  }
  const bool f64 = std::any_of(operands.begin(), operands.end(), [](const ExprRef& o) { return is_double(o->type); });
  const ir::Type compute = f64 ? ir::Type{ir::Type::Kind::f64, DType::f64} : ir::Type::f32();
  for (auto& o : operands) o = as(o, compute);
  const ExprRef& x = operands[0];
  ExprRef r;
  if (function == "sign") {
    r = ir::binary("-", ir::convert(ir::binary(">", x, ir::int_const(0)), ir::Type::i32()),
                   ir::convert(ir::binary("<", x, ir::int_const(0)), ir::Type::i32()));
  } else if (function == "sigmoid") {
    r = ir::binary("/", literal("1.0", f64), ir::binary("+", literal("1.0", f64), ir::math("exp", {ir::unary("-", x)}, compute)));
  } else if (function == "softplus") {
    r = ir::math("log1p", {ir::math("exp", {x}, compute)}, compute);
  } else if (function == "gelu") {  // the tanh approximation
    ExprRef cube = ir::binary("*", ir::binary("*", x, x), x);
    ExprRef inner = ir::binary("*", literal("0.7978845608028654", f64),
                               ir::binary("+", x, ir::binary("*", literal("0.044715", f64), cube)));
    r = ir::binary("*", ir::binary("*", literal("0.5", f64), x),
                   ir::binary("+", literal("1.0", f64), ir::math("tanh", {inner}, compute)));
  } else {
    r = ir::math(function, operands, compute);
  }
  Value out;
  if (function == "isfinite") {
    out.expr = r;
    return out;
  }
  const ir::Type result = args[0].expr->type;  // the first operand's type (an index variable's: i32 or i64)
  const ir::Type wide_result = ir::wide_type(args[0].expr);
  auto as_result = [&](const ir::Type& t) { return as(r, t.kind == ir::Type::Kind::boolean ? ir::Type::i32() : t); };
  out.expr = wide_result == result ? as_result(result) : ir::by_index_width(as_result(result), as_result(wide_result));
  out.is_float = out.expr->type.is_float();
  return out;
}

// __alignup(x, a): x rounded up to a multiple of a; __aligndown: down.
Value ExprLowering::align(const Expr& e, const std::string& function, const std::vector<Value>& args) {
  const Value& x = args[0];
  const Value& a = args[1];
  if (sema::Verdict broken = a.constant ? sema::align_multiple(function, *a.constant) : std::nullopt)
    fail(e.location, *broken);
  if (x.constant && a.constant) {
    support::CheckedInt q = function == "alignup" ? support::checked_cdiv(*x.constant, *a.constant)
                                                  : support::checked_div(*x.constant, *a.constant);
    support::CheckedInt r = q.ok() ? support::checked_mul(q.value, *a.constant) : q;
    if (!r.ok()) fail_arithmetic(e, r.fault, function + "(" + std::to_string(*x.constant) + ", " + std::to_string(*a.constant) + ")");
    return scalar_const(r.value);
  }
  ExprRef top = function == "alignup" ? ir::binary("-", ir::binary("+", x.expr, a.expr), ir::int_const(1)) : x.expr;
  Value out;
  out.expr = ir::binary("*", ir::binary("/", top, a.expr), a.expr);
  if (a.constant) out.multiple = *a.constant;
  return out;
}

// __atomic_add(x.at(i), v) and its kin: sema made it the whole value of a
// statement, so it is printed (and runs) once. Out of range it does nothing.
Value ExprLowering::atomic_call(const Expr& e, const Call& c, const std::string& op) {
  if (ir::atomic_arity(op) < 0 || static_cast<int>(c.args.size()) != ir::atomic_arity(op) + 1)
    fail(e.location, "calls are not supported yet by libcroqjit (`__atomic_" + op + "`)");
  Value target = expr(*c.args[0]);
  if (target.element_of < 0 || !target.expr || target.expr->kind != ir::ExprKind::element)
    unchecked(c.args[0]->location, sema::Rule::atomic_operand);
  const ir::Buffer& b = buffer(target.element_of);
  if (b.space == ir::Space::local)
    unchecked(c.args[0]->location, sema::Rule::atomic_operand);
  mark_written(target.element_of);
  mark_updated(target.element_of);  // it reads what is there
  std::vector<ExprRef> values;
  for (std::size_t i = 1; i < c.args.size(); ++i) {
    Value v = require_scalar(expr(*c.args[i]), *c.args[i]);
    values.push_back(as(read(v),
                        target.expr->type));
  }
  Value out;
  out.expr = ir::atomic(op, target.expr, std::move(values));
  out.guard = target.guard;
  out.is_float = is_floating(b.dtype);
  return out;
}

namespace {

// The register type a constraint letter binds: h, r, l (16, 32, 64-bit
// integers), f, d (f32, f64); n is an immediate and binds none.
ir::Type register_type(char letter) {
  switch (letter) {
    case 'h': return ir::Type::element(DType::u16);
    case 'r': return ir::Type{ir::Type::Kind::u32, DType::u32};
    case 'l': return ir::Type::element(DType::u64);
    case 'f': return ir::Type::f32();
    default: return ir::Type{ir::Type::Kind::f64, DType::f64};
  }
}

}  // namespace

// __asm__: each output goes through a variable of its register type (read
// first for "+"), written back to its element or scalar after the asm;
// inputs are converted to their register type. %[name] becomes %N.
void ExprLowering::asm_statement(const Stmt& s, const Asm& a) {
  auto decoded = [&](const std::string& spelling) {
    std::optional<std::string> v = frontend::string_value(spelling);
    if (!v) fail(s.location, "`__asm__` takes plain string literals");
    return *v;
  };
  ir::InlineAsm node;
  node.is_volatile = a.is_volatile;
  std::string text;
  for (const std::string& t : a.templates) text += decoded(t);
  std::vector<std::string> names;
  for (const auto* list : {&a.outputs, &a.inputs})
    for (const AsmOperand& op : *list) names.push_back(op.symbolic_name);
  for (std::size_t i = 0; i < text.size(); ++i) {
    node.text += text[i];
    if (text[i] != '%' || i + 1 >= text.size()) continue;
    if (text[i + 1] == '%') {
      node.text += text[++i];
    } else if (text[i + 1] == '[') {
      const std::size_t close = text.find(']', i);
      const auto found = std::find(names.begin(), names.end(), text.substr(i + 2, close - i - 2));
      if (close == std::string::npos || found == names.end())
        fail(s.location, "the template of `__asm__` names an operand it does not have");
      node.text += std::to_string(found - names.begin());
      i = close;
    }
  }
  struct WriteBack {
    Value target;
    ExprRef value;
  };
  std::vector<WriteBack> write_backs;
  line_mark(s.location);
  for (const AsmOperand& op : a.outputs) {
    const std::string c = decoded(op.constraint);
    if (c.size() != 2 || std::string("hrlfd").find(c[1]) == std::string::npos)
      unchecked(op.location, sema::Rule::unsupported_asm);
    Value target = require_scalar(expr(*op.value), *op.value);
    if (target.expr->kind != ir::ExprKind::element && (target.expr->kind != ir::ExprKind::var || target.constant))
      unchecked(op.value->location, sema::Rule::asm_operand);
    const ir::Type type = register_type(c[1]);
    const std::string name = fresh("asm_out");
    ExprRef read = c[0] == '+' ? ir::convert(guarded(target, ir::zero_like(target.expr)), type) : nullptr;
    emit_node(ir::Let{name, type, false, read}, s.location);
    node.outputs.push_back({c, ir::var(name, type)});
    write_backs.push_back({target, node.outputs.back().value});
  }
  for (const AsmOperand& op : a.inputs) {
    const std::string c = decoded(op.constraint);
    if (c.size() != 1 || std::string("hrlfdn").find(c[0]) == std::string::npos)
      unchecked(op.location, sema::Rule::unsupported_asm);
    Value v = require_scalar(expr(*op.value), *op.value);
    if (c == "n") {
      if (!v.constant) fail(op.value->location, "\"n\" takes a constant, got `" + source_text(*op.value) + "`");
      node.inputs.push_back({c, ir::int_const(*v.constant)});
      continue;
    }
    ExprRef value = read(v);
    node.inputs.push_back({c, ir::convert(value, register_type(c[0]))});
  }
  for (const std::string& clobber : a.clobbers) {
    if (decoded(clobber) != "memory") unchecked(s.location, sema::Rule::unsupported_asm);
    node.memory = true;
  }
  emit_node(std::move(node), s.location);
  for (const WriteBack& w : write_backs) {
    ExprRef guard = w.target.guard;
    if (w.target.element_of >= 0) {
      mark_written(w.target.element_of);
      // Block scope: every thread ran the assembly; one store is enough.
      if (scope_ != Scope::thread && buffer(w.target.element_of).space != ir::Space::local)
        guard = ir::all_of(ir::binary("==", set_.tid, ir::int_const(0)), guard);
    }
    emit_node(ir::Assign{w.target.expr, "=", as_type_of(w.value, w.target.expr), guard}, s.location);
  }
}

// __bar_arrive(id, threads) / __bar_sync(id, threads): the PTX instruction,
// as Croqtile emits it; the interpreter runs it as a named barrier
// (interp/ptx_ops.cpp). An id or count known only at run time is checked
// there: sema checked the constant ones.
void ExprLowering::named_barrier(const Stmt& s, const Call& c, bool sync) {
  if (c.args.size() != 2) unchecked(s.location, sema::Rule::named_barrier);
  const Value id = require_scalar(expr(*c.args[0]), *c.args[0]);
  const Value threads = require_scalar(expr(*c.args[1]), *c.args[1]);
  line_mark(s.location);
  const ir::Type u32{ir::Type::Kind::u32, DType::u32};
  // An id out of 0..7 or a count of part warps, known only now: the
  // device's behaviour would be undefined, so the kernel stops.
  ExprRef valid;
  if (!id.constant) {
    const ExprRef i = read(id);
    valid = ir::all_of(ir::binary(">=", i, ir::int_const(0)), ir::binary("<", i, ir::int_const(8)));
  }
  if (!threads.constant) {
    const ExprRef n = read(threads);
    valid = ir::all_of(valid, ir::all_of(ir::binary(">", n, ir::int_const(0)),
                                         ir::binary("==", ir::binary("%", n, ir::int_const(32)), ir::int_const(0))));
  }
  if (valid) emit_node(ir::Trap{valid}, s.location);
  ir::InlineAsm node;
  node.text = sync ? "bar.sync %0, %1;" : "bar.arrive %0, %1;";
  node.is_volatile = true;
  node.memory = true;
  node.inputs.push_back({"r", ir::convert(read(id), u32)});
  node.inputs.push_back({"r", ir::convert(read(threads), u32)});
  emit_node(std::move(node), s.location);
}

// __to<T>(x): x converted to element type T.
Value ExprLowering::conversion(const Expr& e, const Convert& n) {
  DType to;
  if (n.foreign || !parse_dtype(n.target, to)) fail(e.location, "`__to<" + n.target + ">` names no element type");
  Value v = require_scalar(expr(*n.operand), *n.operand);
  Value r;
  r.expr = ir::convert(v.guard ? ir::select(v.guard, v.expr, ir::zero_like(v.expr)) : v.expr, ir::Type::element(to));
  r.is_float = is_floating(to);
  note_dtype(to);
  return r;
}

// `v.sqz()`: the view without its extent-1 dims. libcroqjit takes the form
// whose dropped dims all lead and whose kept dims are whole (a head of a
// [B, H, S, D] tensor, `.subspan(1, 1, S, D).at(b, h, 0, 0).sqz()`): a
// pointer to the view's first element, read as a buffer of the kept dims,
// so tails are guarded against the view's own extents.
Value ExprLowering::squeeze(const Expr& e, const Value& obj) {
  if ((obj.kind != Value::Kind::view && obj.kind != Value::Kind::future) || obj.view.pending != View::Pending::none)
    fail(e.location, "`.sqz()` needs a placed view, e.g. `x.subspan(1, N).at(i, 0).sqz()`");
  const View& v = obj.view;
  const ir::Buffer& b = buffer(v.buffer);
  // The dims sema dropped (of extent 1 in the source), which must lead; a
  // dim that is 1 only for these arguments (`S` at S = 1) stays.
  std::size_t first_kept = 0;
  if (auto known = facts_.squeezed_dims.find(&e); known != facts_.squeezed_dims.end()) {
    const std::vector<bool>& dropped = known->second;
    while (first_kept < dropped.size() && dropped[first_kept]) ++first_kept;
    for (std::size_t d = first_kept; d < dropped.size(); ++d)
      if (dropped[d])
        fail(e.location, "`.sqz()` of this view is not supported yet by libcroqjit: it takes a global view whose "
                         "extent-1 dims lead and whose other dims are whole");
  } else {
    while (first_kept < v.extent.size() && v.extent[first_kept] == 1) ++first_kept;
  }
  bool squeezable = first_kept < v.extent.size() && b.slots == 0 && b.space == ir::Space::global;
  for (std::size_t d = first_kept; squeezable && d < v.extent.size(); ++d)
    squeezable = v.extent[d] >= 0 && v.extent[d] == dim_value(v.buffer, d) && ir::is_zero(v.origin[d]);
  if (!squeezable)
    fail(e.location, "`.sqz()` of this view is not supported yet by libcroqjit: it takes a global view whose extent-1 dims "
                     "lead and whose other dims are whole");
  if (first_kept == 0) return obj;
  ir::Buffer alias;
  alias.name = fresh(b.name.rfind("arg_", 0) == 0 ? b.name.substr(4) : b.name);
  alias.dtype = b.dtype;
  alias.dims.assign(b.dims.begin() + static_cast<std::ptrdiff_t>(first_kept), b.dims.end());
  alias.space = b.space;
  alias.align_bytes = static_cast<int>(dtype_size(b.dtype));
  alias.alias_of = b.alias_of >= 0 ? b.alias_of : v.buffer;
  kernel_.buffers.push_back(std::move(alias));
  const int id = static_cast<int>(kernel_.buffers.size()) - 1;
  emit_node(ir::DeclarePointer{id, tile_address(v)}, e.location);
  Squeezed sq;
  sq.tensor = v.buffer;
  sq.leading_origin.assign(v.origin.begin(), v.origin.begin() + static_cast<std::ptrdiff_t>(first_kept));
  if (auto outer = squeezed_.find(v.buffer); outer != squeezed_.end()) {
    sq.tensor = outer->second.tensor;
    sq.leading_origin.insert(sq.leading_origin.begin(), outer->second.leading_origin.begin(), outer->second.leading_origin.end());
  }
  squeezed_[id] = std::move(sq);
  Value r;
  r.kind = Value::Kind::view;
  r.view = whole(id);
  return r;
}

}  // namespace croq::lower::detail
