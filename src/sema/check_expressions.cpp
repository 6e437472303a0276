// Expressions: names, literals, arithmetic, calls, and the constant rules
// (values that must be known when the kernel is specialized, shapes,
// parallel counts and loop bounds).
#include <algorithm>

#include "frontend/builtins.hpp"
#include "frontend/constant_fold.hpp"
#include "frontend/parser.hpp"
#include "sema/checker.hpp"
#include "support/checked_int.hpp"

namespace croq::sema::detail {

namespace {

Type known_int(std::int64_t v, Number number = Number::int_) {
  Type t;
  t.kind = Kind::scalar;
  t.number = number;
  t.known = Known::now;
  t.value = v;
  return t;
}

// When a value computed from `a` and `b` is known.
Known later(Known a, Known b) { return static_cast<Known>(std::max(static_cast<int>(a), static_cast<int>(b))); }

// An index's values are known only on the device.
Known known_of(const Type& t) { return t.kind == Kind::scalar ? t.known : Known::at_run_time; }

const char* update_operator(UnaryOp op) {
  switch (op) {
    case UnaryOp::pre_increment: case UnaryOp::post_increment: return "`++`";
    case UnaryOp::pre_decrement: case UnaryOp::post_decrement: return "`--`";
    default: return nullptr;
  }
}

const char* unsupported_operator(UnaryOp op) {
  switch (op) {
    case UnaryOp::address_of: return "`&` (address of)";
    case UnaryOp::dereference: return "`*` (dereference)";
    default: return nullptr;
  }
}

using Range = std::pair<std::int64_t, std::int64_t>;

// The values an integer can take, when known.
std::optional<Range> range_of(const Type& t) {
  if (t.known_now() && !t.is_float()) return Range{t.value, t.value};
  if (t.range) return t.range;
  if (t.kind == Kind::index && t.count && *t.count > 0) return Range{0, *t.count - 1};
  return std::nullopt;
}

// Interval arithmetic for + - * and % by a positive constant; small
// operands only, so that nothing overflows.
std::optional<Range> range_arithmetic(BinaryOp op, const Type& l, const Type& r) {
  const auto a = range_of(l), b = range_of(r);
  constexpr std::int64_t limit = std::int64_t{1} << 30;
  if (!a || !b) return std::nullopt;
  for (std::int64_t v : {a->first, a->second, b->first, b->second})
    if (v > limit || v < -limit) return std::nullopt;
  switch (op) {
    case BinaryOp::add: return Range{a->first + b->first, a->second + b->second};
    case BinaryOp::sub: return Range{a->first - b->second, a->second - b->first};
    case BinaryOp::mul: {
      const std::int64_t p[] = {a->first * b->first, a->first * b->second, a->second * b->first, a->second * b->second};
      return Range{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    }
    case BinaryOp::mod:
      if (b->first != b->second || b->first <= 0 || a->first < 0) return std::nullopt;
      return a->second < b->first ? *a : Range{0, b->first - 1};
    default: return std::nullopt;
  }
}

}  // namespace

// The kinds of expression without a member of their own (Dispatch).
template <typename T>
Type ExpressionChecker::other_expression(const Expr& e, const T& n) {
  if constexpr (std::is_same_v<T, IntegerLiteral>) {
    if (cx_.pick_source_ && is_pick(e)) return picked(e, n.value);
    literal_limits(e);
    return known_int(static_cast<std::int64_t>(n.value));
  } else if constexpr (std::is_same_v<T, FloatLiteral>) {
    literal_limits(e);
    Type t;  // never an integer constant, as in lowering
    t.kind = Kind::scalar;
    t.number = Number::float_;
    return t;
  } else if constexpr (std::is_same_v<T, BoolLiteral>) {
    return known_int(n.value ? 1 : 0, Number::bool_);
  } else if constexpr (std::is_same_v<T, Conditional>) {
    return conditional(n);
  } else if constexpr (std::is_same_v<T, ShapeList>) {
    Type t;
    t.kind = Kind::shape;
    for (const auto& d : n.dims)
      for (const auto& dim : shape_dims(*d)) t.elements.push_back(dim ? known_int(*dim) : Type{});
    t.rank = static_cast<int>(t.elements.size());
    return t;
  } else if constexpr (std::is_same_v<T, ITuple>) {
    Type t;
    t.kind = Kind::tuple;
    for (const auto& el : n.elements) {
      Type v = expr(*el);
      // `{a.span}`: a shape inside braces gives its extents, one value each;
      // `{t, 5}` concatenates the tuple t and 5.
      if ((v.kind == Kind::shape && !v.elements.empty()) || v.kind == Kind::tuple)
        t.elements.insert(t.elements.end(), v.elements.begin(), v.elements.end());
      else t.elements.push_back(std::move(v));
    }
    return t;
  } else if constexpr (std::is_same_v<T, ElementCount>) {
    std::int64_t count = 1;
    bool known = true;
    for (const auto& d : shape_dims(*n.operand)) {
      auto product = d ? support::checked_mul(count, *d) : support::CheckedInt{0, support::ArithmeticFault::overflow};
      known = known && product.ok();
      count = product.value;
    }
    Type t = known_int(count);
    if (!known) t.known = Known::at_specialization;
    return t;
  } else if constexpr (std::is_same_v<T, Wildcard>) {
    fail(Rule::wildcard_outside_chunkat, e.location, "`_` (keep a dimension whole) is only an argument of `chunkat`");
  } else if constexpr (std::is_same_v<T, Convert>) {
    DType to;
    if (!n.foreign && parse_dtype(n.target, to)) {  // __to<f16>(x): x converted to an element type
      Type v = expr(*n.operand);
      require_ok(v);
      if (!v.is_number())
        fail(Rule::unsupported_expression, e.location, "`__to<" + n.target + ">` converts a number, got `" + text(*n.operand) + "`");
      Type r;
      r.kind = Kind::scalar;
      r.number = is_floating(to) ? Number::float_ : Number::int_;
      return r;
    }
    fail(Rule::unsupported_expression, e.location, "conversions (`__to<" + n.target + ">`) are not supported yet by libcroqjit");
  } else if constexpr (std::is_same_v<T, frontend::ast::Range>) {  // not this file's value range
    fail(Rule::unsupported_expression, e.location,
         "ranges and strided extents (`" + text(e) + "`) are not supported yet by libcroqjit",
         "a strided view writes its extents, one `:`, then its strides: `x.view(16, 8 : 64, 2)`");
  } else {  // StringLiteral
    fail(Rule::unsupported_expression, e.location, "string literals are not supported yet by libcroqjit",
         "strings appear only in `assert(cond, \"message\")`");
  }
}

Type ExpressionChecker::expr(const Expr& e) { return Dispatch::expression(*this, e); }

Type ExpressionChecker::name_value(const Expr& e, const Name& n) {
  const Symbol* s = lookup(n.name);
  if (!s) {
    // Defines the preprocessor did not expand (option defines of names it kept).
    auto def = cx_.program_.defines.find(n.name);
    if (def != cx_.program_.defines.end() && def->second.value) {
      if (const auto* i = std::get_if<std::int64_t>(&*def->second.value)) return known_int(*i);
      Type f;
      f.kind = Kind::scalar;
      f.number = Number::float_;
      return f;
    }
    if (n.name == "?")  // a dim the call gives: parameters only
      fail(Rule::unknown_name, e.location, "`?` stands for a dim only in the shape of a parameter",
           "name the dim of the parameter, e.g. `f32 [M, 4] x`, and use `M` here");
    std::vector<std::string_view> visible;
    for (const auto& scope : cx_.scopes_)
      for (const auto& entry : scope) visible.push_back(entry.first);
    for (const auto& entry : cx_.symbolic_dims_) visible.push_back(entry.first);
    // One- and two-letter names are each one edit from many others: no guess.
    std::string guess = n.name.size() > 2 ? frontend::closest_name(n.name, visible) : "";
    fail(Rule::unknown_name, e.location, "unknown name `" + n.name + "`", guess.empty() ? "" : "did you mean `" + guess + "`?");
  }
  if (!cx_.trial_) cx_.out_.resolved[&e] = s;
  if (s->type.kind == Kind::future) cx_.named_futures_.insert(s);
  if (s->type.placeholder) {
    // Filled by a copy later in the source (a loop's next iteration): its
    // tile is not known here, so its uses go unchecked.
    cx_.placeholders_used_.insert(s);
    if (!cx_.placeholder_operand_) return Type{};
  }
  if (s->origin == Origin::index_tuple && !cx_.index_tuple_arg_)  // checked as its indices, one per dimension
    limitation(Rule::unsupported_index_tuple, e.location,
               "`" + n.name + "` names a tuple of indices, which is not supported yet by libcroqjit as a value",
               "use its indices (" + s->detail + ") directly");
  return s->type;
}

Type ExpressionChecker::unary(const Expr& e, const Unary& u) {
  if (const char* op = unsupported_operator(u.op))
    fail(Rule::unsupported_operator, e.location, std::string(op) + " is not supported yet by libcroqjit",
         "name the tensor or its element itself");
  if (const char* op = update_operator(u.op)) return update(e, u, op);
  // `#idx` of a tuple of indices is checked as an extent, not as a value.
  Type v = u.op == UnaryOp::extent ? index_arg(*u.operand) : expr(*u.operand);
  require_ok(v);
  if (u.op == UnaryOp::extent) {
    if (v.kind != Kind::index) fail(e.location, extent_of_index(text(*u.operand)), notes_of(v));
    if (v.tuple_of_one)
      fail(Rule::extent_needs_index, e.location,
           "`" + text(*u.operand) + "` is bound by a bound in brackets, a tuple of one index; `#` gives the extent of "
           "one index",
           "bind it without brackets, `with " + text(*u.operand) + " in N`, or name the index: `with {i} in [N]`",
           notes_of(v));
    if (v.count) return known_int(*v.count);
    Type t;
    t.kind = Kind::scalar;
    t.known = v.count_known == Known::at_run_time ? Known::at_run_time : Known::at_specialization;
    return t;
  }
  if (!v.is_number()) {
    if (v.kind == Kind::tensor || v.kind == Kind::future || v.kind == Kind::shape)
      fail(Rule::arithmetic_on_tensor, e.location, "arithmetic on a whole tensor or shape is not supported; index it with `.at`",
           "", notes_of(v));
    fail(Rule::arithmetic_operand, u.operand->location,
         "`" + text(*u.operand) + "` is " + kind_phrase(v.kind) + "; arithmetic takes numbers", "", notes_of(v));
  }
  Type out;
  out.kind = Kind::scalar;
  out.number = v.number == Number::float_ ? Number::float_ : Number::int_;
  out.known = known_of(v);
  out.unbounded = v.unbounded;
  if (out.known == Known::now) {
    switch (u.op) {
      case UnaryOp::negate: {
        auto r = support::checked_neg(v.value);
        if (!r.ok())
          fail(Rule::constant_arithmetic, e.location, "`" + text(e) + "` " + support::describe(r.fault));
        out.value = r.value;
        break;
      }
      case UnaryOp::logical_not: out.value = !v.value; break;
      case UnaryOp::bit_not: out.value = ~v.value; break;
      default: out.value = v.value; break;
    }
  }
  return out;
}

// `x++`, `--x` inside an expression: the mutable scalar `x` changes before
// the statement runs (lowering updates it there), and the expression reads
// its old (`x++`) or new (`++x`) value. Where the expression may run again
// or not at all (a `while` condition, after `&&`, a branch of `?:`), the
// update would run once anyway: a limitation.
Type ExpressionChecker::update(const Expr& e, const Unary& u, const char* op) {
  const auto* n = std::get_if<Name>(&u.operand->node);
  if (!n)
    fail(Rule::unsupported_operator, e.location,
         std::string(op) + " of `" + text(*u.operand) + "` inside an expression is not supported yet by libcroqjit",
         "update it in a statement of its own, e.g. `" + text(*u.operand) + " += 1;`");
  if (cx_.value_call_refused_)
    fail(Rule::unsupported_operator, e.location,
         std::string(op) + " " + cx_.value_call_refused_ + " is not supported yet by libcroqjit",
         "update `" + n->name + "` in a statement of its own");
  Type v = expr(*u.operand);
  require_ok(v);
  const Symbol* s = lookup(n->name);
  if (v.kind != Kind::scalar || v.element || v.immutable || v.known != Known::at_run_time || !s ||
      s->origin != Origin::declaration)
    fail(Rule::assign_target, u.operand->location,
         std::string(op) + " changes `" + n->name + "`, which cannot be assigned to",
         "declare it `mutable`, e.g. `mutable int " + n->name + " = 0;`", notes_of(v));
  Type out;
  out.kind = Kind::scalar;
  out.number = v.number;
  out.known = Known::at_run_time;
  return out;
}

namespace {

// A binary operation on two constants, with its overflow or fault (the
// frontend's folding, which lowering uses too).
support::CheckedInt fold(BinaryOp op, std::int64_t a, std::int64_t c) { return frontend::fold_binary(op, a, c); }

}  // namespace

// `i #- c`, `i #+ c`: the values of the index i, counted as c fewer or more
// (Croqtile's bound declarations: `x.chunkat(q #- 1)` cuts x into #q - 1 tiles).
Type ExpressionChecker::moved_bound(const Expr& e, const Binary& b, const Type& l, const Type& r) {
  const std::string op = b.op == BinaryOp::sub ? "#-" : "#+";
  if (l.kind != Kind::index)
    fail(Rule::bound_move, b.lhs->location,
         "`" + text(*b.lhs) + "` is " + kind_phrase(l.kind) + "; `" + op + "` moves the count of a bounded index", "",
         notes_of(l));
  if (r.kind != Kind::scalar || r.is_float() || r.known == Known::at_run_time)
    fail(Rule::bound_move, b.rhs->location,
         "`" + op + "` moves a count by an integer known when the kernel is specialized, got `" + text(*b.rhs) + "`", "",
         notes_of(r));
  Type out = l;
  out.range = range_of(l);  // the values stay those of i
  out.count = std::nullopt;
  if (l.count && r.known_now()) {
    const support::CheckedInt moved =
        b.op == BinaryOp::sub ? support::checked_sub(*l.count, r.value) : support::checked_add(*l.count, r.value);
    if (!moved.ok()) fail(Rule::constant_arithmetic, e.location, "`" + text(e) + "` " + support::describe(moved.fault));
    if (Verdict broken = moved_count(text(e), moved.value)) fail(e.location, std::move(*broken), notes_of(l));
    out.count = moved.value;
  }
  return out;
}

Type ExpressionChecker::binary(const Expr& e, const Binary& b) {
  Type l = expr(*b.lhs);
  Type r;
  if (b.op == BinaryOp::logical_and || b.op == BinaryOp::logical_or) {
    const RefuseValueCalls once(cx_.value_call_refused_, "in the right operand of `&&` or `||`");
    r = expr(*b.rhs);
  } else {
    r = expr(*b.rhs);
  }
  require_ok(l);
  require_ok(r);
  if (b.moves_bound) return moved_bound(e, b, l, r);
  if (b.op == BinaryOp::compose) {
    if (r.kind != Kind::index) fail(b.rhs->location, compose_index(text(*b.rhs)), notes_of(r));
    if (!l.is_number())
      fail(Rule::arithmetic_operand, b.lhs->location,
           "`" + text(*b.lhs) + "` is " + kind_phrase(l.kind) + "; `#` composes a tile index with an index", "", notes_of(l));
    Type out;
    out.kind = Kind::index;
    std::optional<std::int64_t> outer = l.kind == Kind::index ? l.count : std::optional<std::int64_t>(1);
    if (outer && r.count) {
      auto product = support::checked_mul(*outer, *r.count);
      if (product.ok()) out.count = product.value;
    }
    return out;
  }
  const auto shaped = [](const Type& t) { return t.kind == Kind::shape || t.kind == Kind::tuple; };
  if ((shaped(l) || shaped(r)) && (shaped(l) || l.is_number()) && (shaped(r) || r.is_number()))
    return shape_arithmetic(e, b.op, *b.lhs, *b.rhs, l, r);
  for (const auto* side : {&l, &r}) {
    if (side->is_number()) continue;
    if (side->kind == Kind::tensor || side->kind == Kind::future || side->kind == Kind::shape)
      fail(Rule::arithmetic_on_tensor, e.location, "arithmetic on a whole tensor or shape is not supported; index it with `.at`",
           "", notes_of(*side));
    const Expr& operand = side == &l ? *b.lhs : *b.rhs;
    fail(Rule::arithmetic_operand, operand.location,
         "`" + text(operand) + "` is " + kind_phrase(side->kind) + "; arithmetic takes numbers", "", notes_of(*side));
  }
  Type out;
  out.kind = Kind::scalar;
  out.number = l.is_float() || r.is_float() ? Number::float_ : Number::int_;
  out.known = later(known_of(l), known_of(r));
  out.unbounded = l.unbounded || r.unbounded;
  if (out.number == Number::float_) out.known = Known::at_run_time;
  if (out.known == Known::now) {
    using namespace support;
    const std::int64_t a = l.value, c = r.value;
    CheckedInt v = fold(b.op, a, c);
    if (v.fault == ArithmeticFault::divide_by_zero) fail(Rule::constant_arithmetic, e.location, "division by zero");
    if (!v.ok()) fail(Rule::constant_arithmetic, e.location, "`" + text(e) + "` " + describe(v.fault));
    out.value = v.value;
    return out;
  }
  if (out.number == Number::int_) out.range = range_arithmetic(b.op, l, r);
  // An index plus or minus a constant is still bounded (halo reads), and so
  // is the sum of two indices (stencil taps).
  const bool constant_rhs = r.kind == Kind::scalar && r.known != Known::at_run_time && !r.is_float();
  if (l.kind == Kind::index && constant_rhs && (b.op == BinaryOp::add || b.op == BinaryOp::sub)) {
    out.kind = Kind::index;
    out.count = l.count;
    if (b.op == BinaryOp::add) {
      auto sum = l.count && r.known == Known::now ? support::checked_add(*l.count, r.value)
                                                   : support::CheckedInt{0, support::ArithmeticFault::overflow};
      out.count = sum.ok() ? std::optional<std::int64_t>(sum.value) : std::nullopt;
    }
  } else if (l.kind == Kind::index && r.kind == Kind::index && b.op == BinaryOp::add) {
    out.kind = Kind::index;
    out.count = l.count && r.count ? std::optional<std::int64_t>(*l.count + *r.count - 1) : std::nullopt;
  }
  return out;
}

Type ExpressionChecker::conditional(const Conditional& c) {
  Type cond = expr(*c.condition);
  const RefuseValueCalls once(cx_.value_call_refused_, "in a branch of `?:`");
  Type a = expr(*c.then_value);
  Type b = expr(*c.else_value);
  require_ok(cond);
  require_ok(a);
  require_ok(b);
  if (cond.known_now()) return cond.value ? a : b;
  if (!cond.is_number())
    fail(Rule::condition_not_a_number, c.condition->location,
         "`" + text(*c.condition) + "` is " + kind_phrase(cond.kind) + "; a condition is a number or a comparison", "",
         notes_of(cond));
  for (const auto* side : {&a, &b})
    if (!side->is_number()) {
      const Expr& operand = side == &a ? *c.then_value : *c.else_value;
      fail(Rule::arithmetic_operand, operand.location,
           "`" + text(operand) + "` is " + kind_phrase(side->kind) + "; `?:` chooses between numbers", "", notes_of(*side));
    }
  Type out;
  out.kind = Kind::scalar;
  out.number = a.is_float() || b.is_float() ? Number::float_ : Number::int_;
  out.known = out.number == Number::float_ ? Known::at_run_time : later(known_of(cond), later(known_of(a), known_of(b)));
  return out;
}

Type ExpressionChecker::call(const Expr& e, const Call& c) {
  if (c.intrinsic) return intrinsic_call(e, c);  // check_device_call.cpp
  const auto* callee = std::get_if<Name>(&c.callee->node);
  if (const Function* f = callee && c.with_call_keyword ? cx_.program_.find_co_device_function(callee->name) : nullptr) {
    if (!c.template_args.empty())
      fail(Rule::unsupported_call, e.location, "template __co_device__ functions are not supported yet by libcroqjit",
           "write the function for the types it is called with");
    return device_call(e.location, *f, c.args, true);
  }
  if (const auto* f = callee && !lookup(callee->name) ? cx_.program_.find_device_function(callee->name) : nullptr)
    return cxx_call(e.location, *f, c.template_args, c.args, true, &c);
  if (const Symbol* sym = callee ? lookup(callee->name) : nullptr;
      sym && (sym->type.kind == Kind::shape || sym->type.kind == Kind::tuple))
    return element_of(e, c, sym->type);
  if (callee && callee->name == "select") return select(e, c);
  // `index(1)(-2)`: element 1 of a tuple of indices, then value -2 of that index.
  if (std::holds_alternative<Call>(c.callee->node)) {
    const Type picked = expr(*c.callee);
    require_ok(picked);
    if (picked.kind == Kind::shape || picked.kind == Kind::tuple) return element_of(e, c, picked);
    if (picked.kind == Kind::index) return bounded_value(e, c, picked);
  }
  if (const Symbol* index = callee ? lookup(callee->name) : nullptr; index && index->type.kind == Kind::index)
    return bounded_value(e, c, index->type);
  // print!/println! print while compiling (a note); their arguments are checked as a print's.
  if (callee && (callee->name == "print" || callee->name == "println" || callee->name == "print!" ||
                 callee->name == "println!") &&
      !lookup(callee->name))
    return print(e, c);
  if (callee && callee->name.rfind("__atomic_", 0) == 0)
    if (std::optional<Type> old = atomic(e, c, callee->name)) return *old;
  if (const frontend::MathBuiltin* b = callee ? frontend::find_math_builtin(callee->name) : nullptr)
    return math_builtin(e, c, *b);
  if (callee && (callee->name == "launch_bounds" || callee->name == "maxnreg"))
    fail(Rule::attribute_placement, e.location,
         "`" + callee->name + "` is an attribute, not a function: write `[[" + callee->name +
             "(...)]]` right before a block-level parallel statement");
  if (!callee || callee->name != "cdiv") {
    // The arguments of a call libcroqjit cannot run are still checked.
    for (const auto& arg : c.args) {
      try {
        if (const auto* s = std::get_if<StringLiteral>(&arg->node)) {
          string_literal(*arg, *s);
          continue;
        }
        expr(*arg);
      } catch (const Abort&) {
      }
    }
  }
  // `t(0)`: element 0 of the named tuple or shape `t`.
  const Symbol* named = callee ? lookup(callee->name) : nullptr;
  if (named && (named->type.kind == Kind::tuple || named->type.kind == Kind::shape) && c.args.size() == 1) {
    limitation(Rule::unsupported_call, e.location,
               "an element of a named tuple or shape (`" + text(e) + "`) is not supported yet by libcroqjit",
               "write the value out");
    Type element;
    element.kind = Kind::scalar;
    element.known = Known::at_specialization;
    element.unbounded = from_unbounded(named->type);
    return element;
  }
  // Register-fragment statements: reduce a tile's rows, copy a fragment.
  if (callee && !named && cx_.statement_expr_ == &e &&
      (((callee->name == "reduce_max" || callee->name == "reduce_sum") && c.args.size() == 3) ||
       (callee->name == "copy" && c.args.size() == 2)))
    return Type{};
  if (callee && !named && (callee->name == "__bar_arrive" || callee->name == "__bar_sync"))
    return named_barrier(e, c, callee->name);
  if (callee && !named && cx_.statement_expr_ == &e && callee->name == "all_reduce_sum" && c.args.size() == 1) {
    c_.mma.all_reduce_sum(c);  // check_frag.cpp
    return Type{};
  }
  // `x = call f(...)` of a function of no header libcroqjit sees: its arguments are checked above.
  if (callee && !named && c.with_call_keyword) {
    call_placement(e.location, callee->name, "kernel", true, "int");
    unknown_function(e.location, callee->name);
    Type v;
    v.kind = Kind::scalar;
    v.known = Known::at_run_time;
    return v;
  }
  // Croqtile calls C++ only with `call`, or by a registered intrinsic's name.
  if (callee && !named && cx_.statement_expr_ == &e && callee->name != "cdiv")
    fail(Rule::call_keyword, e.location,
         "`" + callee->name + "(...)` is neither a builtin, a function of this source nor a registered intrinsic",
         "call a C++ function with `call`: `call " + callee->name +
             "(...);`, or register its name: `#pragma croq intrinsic prefix " + callee->name + "`");
  if (!callee || callee->name != "cdiv")
    fail(Rule::unsupported_call, e.location, "calls are not supported yet by libcroqjit (`" + text(*c.callee) + "`)",
         "an expression can call `cdiv(a, b)`, the math builtins (`__sqrt`, `__pow`, ...) and the atomics "
         "(`__atomic_add`, ...)");
  if (c.args.size() != 2)
    fail(Rule::cdiv_arity, e.location, "`cdiv` takes 2 arguments (a, b), got " + std::to_string(c.args.size()));
  Type a = expr(*c.args[0]);
  Type b = expr(*c.args[1]);
  require_ok(a);
  require_ok(b);
  const auto whole = [](const Type& t) { return t.kind == Kind::shape || t.kind == Kind::tuple; };
  if (whole(a) && (whole(b) || b.is_number()))  // cdiv(x.span, {8, 4}): dim by dim
    return shape_arithmetic(e, BinaryOp::div, *c.args[0], *c.args[1], a, b, true);
  for (const auto* side : {&a, &b})
    if (!side->is_number() || side->is_float()) {
      const Expr& operand = side == &a ? *c.args[0] : *c.args[1];
      fail(Rule::arithmetic_operand, operand.location,
           "`" + text(operand) + "` is " + (side->is_float() ? std::string("a float") : kind_phrase(side->kind)) +
               "; `cdiv` takes integers",
           "", notes_of(*side));
    }
  Type out;
  out.kind = Kind::scalar;
  out.known = later(known_of(a), known_of(b));
  if (out.known == Known::now) {
    auto q = support::checked_cdiv(a.value, b.value);
    if (q.fault == support::ArithmeticFault::divide_by_zero) fail(Rule::constant_arithmetic, e.location, "division by zero");
    if (!q.ok()) fail(Rule::constant_arithmetic, e.location, "`" + text(e) + "` " + support::describe(q.fault));
    out.value = q.value;
  }
  return out;
}

// sp(i), t(i): dimension i of a named shape, element i of an ituple.
Type ExpressionChecker::element_of(const Expr& e, const Call& c, const Type& whole) {
  const std::string name = text(*c.callee);
  const std::int64_t size =
      whole.kind == Kind::shape && whole.elements.empty() ? whole.rank : static_cast<std::int64_t>(whole.elements.size());
  if (c.args.size() != 1)
    fail(Rule::pick_index, e.location, "`" + name + "(i)` takes one index, got " + std::to_string(c.args.size()));
  std::optional<std::int64_t> i = constant(*c.args[0], what::element_index);
  if (Verdict broken = i ? element_of_index(name, size, *i) : std::nullopt)
    fail(c.args[0]->location, std::move(*broken));
  if (!i || whole.elements.empty()) {
    Type out;
    out.kind = Kind::scalar;
    out.known = Known::at_specialization;
    return out;
  }
  Type out = whole.elements[static_cast<std::size_t>(*i)];
  out.from = nullptr;
  return out;
}

// ---- constants ---------------------------------------------------------------

std::optional<std::int64_t> ExpressionChecker::constant(const Expr& e, const char* what, bool runtime_in_croqtile) {
  Type v = expr(e);
  require_ok(v);
  const bool runtime_integer = v.kind == Kind::index || (v.kind == Kind::scalar && !v.is_float() && v.known == Known::at_run_time);
  if (runtime_integer && runtime_in_croqtile) runtime_value(e, what, v);
  if (v.kind == Kind::index || v.kind != Kind::scalar || v.is_float() || v.known == Known::at_run_time)
    fail(e.location, constant_required(what, text(e), v.kind == Kind::index), notes_of(v));
  if (v.known == Known::now) return v.value;
  return std::nullopt;
}

// Croqtile computes these at run time on the host; libcroqjit specializes
// each kernel on them, so it needs them from constants and dims.
void ExpressionChecker::runtime_value(const Expr& e, const char* what, const Type& v) {
  fail(Rule::unsupported_runtime_value, e.location,
       std::string(what) + " computed at run time (`" + text(e) + "`) is not supported yet by libcroqjit",
       "use a constant, a #define or an expression of the parameters' dims (`M`, `cdiv(M, 64)`)", notes_of(v));
}

std::vector<std::optional<std::int64_t>> ExpressionChecker::shape_dims(const Expr& e) {
  Type v = index_arg(e);  // a tuple of indices: the error below, not a limitation
  require_ok(v);
  std::vector<std::optional<std::int64_t>> dims;
  const bool indices = std::any_of(v.elements.begin(), v.elements.end(), [](const Type& d) { return d.kind == Kind::index; });
  switch (v.kind == Kind::tuple && indices ? Kind::error : v.kind) {  // a tuple of indices is no shape
    case Kind::shape:
      for (const Type& d : v.elements) dims.push_back(d.known_now() ? std::optional<std::int64_t>(d.value) : std::nullopt);
      return dims;
    case Kind::tensor:
    case Kind::future:
      dims.resize(static_cast<std::size_t>(v.rank));
      return dims;
    case Kind::tuple:  // `f32 [t]` with t = {4, 8}: one dim per value
      for (const Type& d : v.elements) {
        if (d.kind == Kind::scalar && !d.is_float() && d.known == Known::at_run_time && !cx_.runtime_counts_)
          runtime_value(e, "a dimension of a shape", d);
        dims.push_back(d.known_now() ? std::optional<std::int64_t>(d.value) : std::nullopt);
      }
      return dims;
    case Kind::scalar:
      if (!v.is_float() && v.known == Known::now) return {v.value};
      if (!v.is_float() && v.known == Known::at_specialization) return {std::nullopt};
      if (!v.is_float()) runtime_value(e, "a dimension of a shape", v);
      [[fallthrough]];
    default:
      fail(Rule::shape_expected, e.location, "expected a shape such as `[M, N]` or `x.span`, got `" + text(e) + "`", "",
           notes_of(v));
  }
}

// `a + b` with `b` a bool: Croqtile types arithmetic on a bool as no
// integer (its counts are integers), though C++ would promote it.
void ExpressionChecker::bool_in_count(const Expr& part, const char* what) {
  const auto* b = std::get_if<Binary>(&part.node);
  if (!b || !(b->op == BinaryOp::add || b->op == BinaryOp::sub || b->op == BinaryOp::mul || b->op == BinaryOp::div ||
              b->op == BinaryOp::mod))
    return;
  for (const Expr* operand : {b->lhs.get(), b->rhs.get()}) {
    Type t = expr(*operand);
    require_ok(t);
    if (t.kind == Kind::scalar && t.number == Number::bool_)
      fail(Rule::count_not_integer, operand->location,
           std::string(what) + " is an integer, got `" + text(part) + "` (arithmetic on the bool `" + text(*operand) +
               "`)",
           "convert it explicitly: `(" + text(*operand) + " ? 1 : 0)`", notes_of(t));
    bool_in_count(*operand, what);
  }
}

std::vector<Count> ExpressionChecker::counts(const Expr& e, const char* what, bool runtime_ok) {
  std::vector<Count> out;
  auto add = [&](const Expr& part) {
    Type v = expr(part);
    require_ok(v);
    if (from_unbounded(v))
      fail(Rule::unbounded_value, part.location,
           std::string(what) + " is not known before the kernel runs: `" + text(part) + "` comes from an unbounded dim (`??`)",
           "use a constant or a dim the call binds", notes_of(v));
    if (v.kind == Kind::shape || v.kind == Kind::tensor || v.kind == Kind::future || v.kind == Kind::tuple) {
      for (const auto& d : shape_dims(part)) out.push_back(d ? Count{Known::now, *d} : Count{});
      return;
    }
    if (v.kind == Kind::scalar && !v.is_float()) bool_in_count(part, what);
    if (v.kind == Kind::scalar && (v.is_float() || v.number == Number::bool_))
      fail(Rule::count_not_integer, part.location,
           std::string(what) + " is an integer, got `" + text(part) + "` (" + (v.is_float() ? "a float" : "a bool") + ")",
           "", notes_of(v));
    if (v.kind == Kind::scalar && !v.is_float() && v.known != Known::at_run_time) {
      out.push_back(Count{v.known, v.value});
      return;
    }
    if ((v.kind == Kind::scalar && !v.is_float()) || v.kind == Kind::index) {
      if (runtime_ok || (cx_.host_counts_ && !v.element)) {
        out.push_back(Count{Known::at_run_time, 0});
        return;
      }
      if (cx_.runtime_counts_) {
        out.push_back(Count{});
        return;
      }
      runtime_value(part, what, v);
    }
    fail(part.location, count_form(what, text(part)), notes_of(v));
  };
  if (const auto* list = std::get_if<ShapeList>(&e.node)) {
    for (const auto& d : list->dims) add(*d);
  } else {
    add(e);
  }
  return out;
}

// `[M, K] / {8, 64}`, `a.span + 1`: element by element; a number applies to
// every element.
Type ExpressionChecker::shape_arithmetic(const Expr& e, BinaryOp op, const Expr& lhs, const Expr& rhs, const Type& l,
                                         const Type& r, bool ceil) {
  const auto size = [](const Type& t) { return t.kind == Kind::shape || t.kind == Kind::tuple ? t.elements.size() : 0; };
  for (const auto* side : {&l, &r})
    if (side->kind == Kind::scalar && side->number == Number::bool_) {
      const Expr& operand = side == &l ? lhs : rhs;
      fail(Rule::arithmetic_operand, operand.location,
           "`" + text(operand) + "` is a bool; shape arithmetic takes integers", "", notes_of(*side));
    }
  const bool two_shapes = l.kind == Kind::shape && r.kind == Kind::shape;
  if (two_shapes && (op == BinaryOp::add || op == BinaryOp::sub || op == BinaryOp::mul))
    fail(Rule::shape_arithmetic_operator, e.location,
         "`" + text(e) + "` combines two shapes with `" + (op == BinaryOp::add ? "+" : op == BinaryOp::sub ? "-" : "*") +
             "`; two shapes combine only by `/` and `%`",
         "add or scale a shape by numbers or a tuple, e.g. `" + text(lhs) + " + {1, 1}`");
  if (size(l) && size(r) && size(l) != size(r))
    fail(Rule::shape_arithmetic_rank, e.location,
         "`" + text(e) + "` combines " + std::to_string(size(l)) + " values with " + std::to_string(size(r)) +
             "; shape arithmetic takes the same number on both sides or one number");
  Type out;
  // Ratios and remainders of two shapes are counts, not extents: a tuple.
  out.kind = two_shapes && (op == BinaryOp::div || op == BinaryOp::mod) ? Kind::tuple : Kind::shape;
  const std::size_t n = std::max(size(l), size(r));
  for (std::size_t i = 0; i < n; ++i) {
    const Type& a = size(l) ? l.elements[i] : l;
    const Type& c = size(r) ? r.elements[i] : r;
    Type d;  // unknown until specialization unless both are constants
    if (a.known_now() && c.known_now()) {
      support::CheckedInt v = ceil ? support::checked_cdiv(a.value, c.value) : fold(op, a.value, c.value);
      if (v.fault == support::ArithmeticFault::divide_by_zero) fail(Rule::constant_arithmetic, e.location, "division by zero");
      if (v.ok()) d = known_int(v.value);
    }
    out.elements.push_back(d);
  }
  out.rank = static_cast<int>(n);
  return out;
}

Type ExpressionChecker::index_arg(const Expr& a) {
  cx_.index_tuple_arg_ = std::holds_alternative<Name>(a.node);
  Type v;
  try {
    v = expr(a);
  } catch (...) {
    cx_.index_tuple_arg_ = false;
    throw;
  }
  cx_.index_tuple_arg_ = false;
  return v;
}

std::vector<Type> ExpressionChecker::index_args(const ExprList& args) {
  std::vector<Type> out;
  for (const auto& a : args) {
    // A tuple of indices (`foreach x in t.span`) stands for its indices here.
    Type v = index_arg(*a);
    require_ok(v);
    if (v.kind == Kind::tuple) {
      for (auto& el : v.elements) out.push_back(std::move(el));
    } else {
      out.push_back(std::move(v));
    }
  }
  return out;
}

// `y(i)` of a bounded index `y`: its value i, counted from the end when
// negative (`y(-1)` is #y - 1), bounded as `y` is.
Type ExpressionChecker::bounded_value(const Expr& e, const Call& c, const Type& index) {
  if (c.args.size() != 1)
    fail(Rule::pick_index, e.location, "`" + text(*c.callee) + "(i)` takes one value of the index, got " +
                                           std::to_string(c.args.size()));
  const std::optional<std::int64_t> i = constant(*c.args[0], what::bounded_index_value);
  if (Verdict broken = i && index.count ? index_value(text(*c.callee), *index.count, *i) : std::nullopt)
    fail(c.args[0]->location, std::move(*broken));
  Type out = index;
  return out;
}

}  // namespace croq::sema::detail

