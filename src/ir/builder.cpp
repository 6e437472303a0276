#include "ir/builder.hpp"

#include <utility>

#include "ir/index_width.hpp"
#include "support/checked_int.hpp"

namespace croq::ir {

bool Type::is_float() const {
  switch (kind) {
    case Kind::f32: case Kind::f64: return true;
    case Kind::element: return croq::is_floating(dtype);
    default: return false;
  }
}

namespace {

ExprRef make(ExprKind kind, Type type, std::vector<ExprRef> operands = {}) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->type = type;
  e->operands = std::move(operands);
  return e;
}

}  // namespace

ExprRef device_call(const std::string& callee, std::vector<ExprRef> template_args, std::vector<ExprRef> args,
                    std::optional<Type> result) {
  const auto count = static_cast<std::int64_t>(template_args.size());
  for (auto& a : args) template_args.push_back(std::move(a));
  auto e = std::const_pointer_cast<Expr>(make(ExprKind::device_call, result.value_or(Type::i32()), std::move(template_args)));
  e->text = callee;
  e->value = count;
  if (!result) e->op = "void";
  return e;
}

Type common_type(const Type& a, const Type& b) {
  if (a.is_float() || b.is_float()) {
    if (a.kind == Type::Kind::element && a.is_float()) return a;
    if (b.kind == Type::Kind::element && b.is_float()) return b;
    return a.is_float() ? a : b;
  }
  if (a.kind == Type::Kind::i64 || b.kind == Type::Kind::i64) return Type::i64();
  if (a.kind == Type::Kind::element) return a;
  if (b.kind == Type::Kind::element) return b;
  return a.kind == Type::Kind::u32 || b.kind == Type::Kind::u32 ? Type{Type::Kind::u32, DType::u32} : Type::i32();
}

namespace {

bool is_comparison(const std::string& op) {
  return op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=" || op == "&&" || op == "||";
}

}  // namespace

Type binary_type(const std::string& op, const Type& lhs, const Type& rhs) {
  return is_comparison(op) ? Type::boolean() : (op == "<<" || op == ">>") ? lhs : common_type(lhs, rhs);
}

ExprRef by_index_width(ExprRef narrow, ExprRef wide) {
  if (narrow == wide) return narrow;
  Type t = narrow->type;
  return make(ExprKind::by_index_width, t, {std::move(narrow), std::move(wide)});
}

ExprRef int_const(std::int64_t v, Type t) {
  if (t.kind == Type::Kind::index) return by_index_width(int_const(v, Type::i32()), int_const(v, Type::i64()));
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::int_const;
  e->type = t;
  e->value = v;
  return e;
}

ExprRef float_literal(const std::string& text) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::float_literal;
  e->type = Type::f32();
  e->text = text;
  return e;
}

ExprRef var(const std::string& name, Type t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::var;
  e->index_var = t.kind == Type::Kind::index;
  e->type = e->index_var ? Type::i32() : t;
  e->text = name;
  return e;
}

ExprRef special(const std::string& name) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::special;
  e->type = Type{Type::Kind::u32, DType::u32};
  e->text = name;
  return e;
}

bool is_narrow(const Type& t) {
  return t.kind == Type::Kind::element && croq::computes_widened(t.dtype);
}

Type compute_type(const Type& t) {
  if (!is_narrow(t)) return t;
  return croq::is_floating(t.dtype) ? Type::f32() : Type::i32();
}

namespace {

// The prelude's structs (sub-byte, tf32 and scale types): they convert only
// from and to their compute type (explicit constructors, one conversion out).
bool in_prelude(const Type& t) { return is_narrow(t) && !croq::is_fp8(t.dtype); }

// A narrow operand computes in its compute type.
ExprRef widen(ExprRef e) { return is_narrow(e->type) ? convert(std::move(e), compute_type(e->type)) : e; }

}  // namespace

ExprRef unary(const std::string& op, ExprRef operand) {
  operand = widen(std::move(operand));
  Type t = op == "!" ? Type::boolean() : operand->type;
  auto e = std::const_pointer_cast<Expr>(make(ExprKind::unary, t, {std::move(operand)}));
  e->op = op;
  return e;
}

ExprRef binary(const std::string& op, ExprRef lhs, ExprRef rhs) {
  // Arithmetic on two operands of one narrow float type (fp8, fp6, fp4)
  // gives that type, as Croqtile's element types do: computed in f32 and
  // rounded back (f4 1.5 + 3 is 4, not 4.5).
  const Type narrow = lhs->type;
  const bool stays_narrow = (op == "+" || op == "-" || op == "*" || op == "/") && lhs->type == rhs->type &&
                            is_narrow(narrow) && croq::is_floating(narrow.dtype);
  lhs = widen(std::move(lhs));
  rhs = widen(std::move(rhs));
  Type t = binary_type(op, lhs->type, rhs->type);
  auto e = std::const_pointer_cast<Expr>(make(ExprKind::binary, t, {std::move(lhs), std::move(rhs)}));
  e->op = op;
  return stays_narrow ? coerce(e, narrow) : e;
}

ExprRef select(ExprRef condition, ExprRef then_value, ExprRef else_value) {
  condition = widen(std::move(condition));
  if (then_value->type != else_value->type) {
    then_value = widen(std::move(then_value));
    else_value = widen(std::move(else_value));
  }
  Type t = common_type(then_value->type, else_value->type);
  return make(ExprKind::select, t, {std::move(condition), std::move(then_value), std::move(else_value)});
}

ExprRef element(int buffer, DType dtype, ExprRef slot, std::vector<ExprRef> coords) {
  std::vector<ExprRef> operands;
  operands.push_back(std::move(slot));
  for (auto& c : coords) operands.push_back(std::move(c));
  auto e = std::const_pointer_cast<Expr>(make(ExprKind::element, Type::element(dtype), std::move(operands)));
  e->buffer = buffer;
  return e;
}

ExprRef address_of(ExprRef element) {
  Type t = element->type;
  return make(ExprKind::address_of, t, {std::move(element)});
}

ExprRef typed_zero(DType t, const std::string& value) {
  auto e = std::const_pointer_cast<Expr>(make(ExprKind::typed_zero, Type::element(t)));
  e->text = value;
  return e;
}

ExprRef zero_like(ExprRef e) {
  // decltype of an element (an lvalue) is a reference: name its type instead.
  if (e->kind == ExprKind::element) return typed_zero(e->type.dtype);
  Type t = e->type;
  return make(ExprKind::zero_like, t, {std::move(e)});
}

ExprRef convert(ExprRef e, Type t) {
  if (t.kind == Type::Kind::index) return by_index_width(convert(e, Type::i32()), convert(e, Type::i64()));
  return make(ExprKind::convert, t, {std::move(e)});
}

namespace {

// coerce() for the types `e` has now.
ExprRef coerce_as_typed(ExprRef e, Type t) {
  if (e->type == t || (!is_narrow(t) && !is_narrow(e->type))) return e;
  // A prelude type's value converts only from and to its compute type; fp8
  // to fp8 of the other format goes through f32 (no direct conversion).
  if (in_prelude(e->type) || (is_narrow(t) && is_narrow(e->type))) e = convert(std::move(e), compute_type(e->type));
  if (in_prelude(t) && e->type != compute_type(t)) e = convert(std::move(e), compute_type(t));
  return e->type == t ? e : convert(std::move(e), t);
}

}  // namespace

ExprRef coerce(ExprRef e, Type t) {
  if (t.kind == Type::Kind::index) return by_index_width(coerce(e, Type::i32()), coerce(e, Type::i64()));
  // Into a prelude integer type, which converts from i32 only: a value over
  // index variables is i32 itself in 32-bit kernels, not in 64-bit ones.
  if (in_prelude(t) && compute_type(t) == Type::i32() && e->type == Type::i32())
    if (ExprRef wide = IndexWidth(true)(e); wide->type != e->type)
      return by_index_width(coerce_as_typed(e, t), coerce_as_typed(wide, t));
  return coerce_as_typed(std::move(e), t);
}

ExprRef truth(ExprRef e) { return widen(std::move(e)); }

ExprRef math(const std::string& op, std::vector<ExprRef> operands, Type t) {
  for (auto& o : operands) o = widen(std::move(o));
  t = compute_type(t);
  auto e = std::const_pointer_cast<Expr>(make(ExprKind::math, op == "isfinite" ? Type::boolean() : t, std::move(operands)));
  e->op = op;
  return e;
}

int math_arity(const std::string& op) {
  static const char* const unary[] = {"sqrt", "rsqrt", "exp",  "exp2", "expm1", "log",  "log1p", "sin",
                                      "cos",  "tan",   "asin", "acos", "atan",  "sinh", "cosh",  "tanh",
                                      "ceil", "floor", "round", "fabs", "rcp",  "isfinite"};
  for (const char* u : unary)
    if (op == u) return 1;
  if (op == "pow" || op == "atan2" || op == "max" || op == "min") return 2;
  if (op == "fma") return 3;
  if (op == "quad_max" || op == "quad_sum") return 1;  // f32 across the 4 lanes of a quad (register fragments)
  return -1;
}

int atomic_arity(const std::string& op) {
  static const char* const binary[] = {"add", "sub", "exch", "min", "max", "and", "or", "xor"};
  for (const char* b : binary)
    if (op == b) return 1;
  return op == "cas" ? 2 : -1;
}

ExprRef atomic(const std::string& op, ExprRef element, std::vector<ExprRef> values) {
  Type t = element->type;
  for (auto& v : values) v = coerce(std::move(v), t);
  values.insert(values.begin(), std::move(element));
  auto e = std::const_pointer_cast<Expr>(make(ExprKind::atomic, t, std::move(values)));
  e->op = op;
  return e;
}

bool is_const(const ExprRef& e, std::int64_t* value) {
  if (!e || e->kind != ExprKind::int_const) return false;
  if (value) *value = e->value;
  return true;
}

bool is_zero(const ExprRef& e) {
  std::int64_t v = 0;
  return is_const(e, &v) && v == 0;
}

ExprRef add(ExprRef a, ExprRef b) {
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  return binary("+", std::move(a), std::move(b));
}

ExprRef mul(ExprRef a, std::int64_t k) {
  if (k == 0 || is_zero(a)) return int_const(0);
  if (k == 1) return a;
  std::int64_t v = 0;
  // A product of constants is folded (a value past 2^31 prints as a 64-bit
  // literal), so it never overflows `int` in the generated code.
  if (is_const(a, &v))
    if (support::CheckedInt product = support::checked_mul(v, k); product.ok()) return int_const(product.value, a->type);
  return binary("*", std::move(a), int_const(k));
}

ExprRef all_of(ExprRef a, ExprRef b) {
  if (!a) return b;
  if (!b) return a;
  return binary("&&", std::move(a), std::move(b));
}

ExprRef less(ExprRef a, ExprRef b) { return binary("<", std::move(a), std::move(b)); }

}  // namespace croq::ir

namespace croq::ir {

void fail(SourcePos where, std::string message, std::string hint) {
  throw SourceError{where, std::move(message), std::move(hint)};
}

}  // namespace croq::ir
