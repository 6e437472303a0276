// Assignments: `name = value;` binding a new name, stores to mutable
// scalars and elements, whole-tensor arithmetic, and what a name may hold.
#include <algorithm>

#include "sema/checker.hpp"

namespace croq::sema::detail {

void StatementChecker::assignment(const Stmt& s, const Assignment& a) {
  // `name = <value>;` with a new name binds it (`tile = f.data.span_as(...)`,
  // `stage = iv_k % STAGES`).
  const auto* n = std::get_if<Name>(&a.target->node);
  no_string_or_pointer(text(*a.target), *a.value);
  if (n && a.op == AssignOp::assign && !lookup(n->name) && !cx_.program_.defines.count(n->name)) {
    if (const auto* v = std::get_if<Name>(&a.value->node))
      if (const Symbol* source = lookup(v->name); source && source->type.placeholder) {
        cx_.placeholders_used_.insert(source);
        fail(Rule::placeholder_use, a.value->location,
             "`" + n->name + "` cannot be bound to `" + v->name + "`, a dma.any placeholder that no copy has filled",
             "bind the name to a copy's future: `" + n->name + " = dma.copy ...;`", notes_of(source->type));
      }
    if (std::holds_alternative<ITuple>(a.value->node))
      if (const Symbol* m = mutable_in(*a.value))
        fail(Rule::declaration_init, a.value->location,
             "`" + n->name + "` names a tuple, whose values are fixed; `" + m->name + "` is mutable",
             "copy the value into an immutable name first: `int v = " + m->name + ";`", {describe(*m)});
    cx_.atomic_site_ = a.value.get();
    Type value = c_.expressions.expr(*a.value);
    require_ok(value);
    if (value.is_tile()) {
      define(n->name, value, Origin::binding, a.target->location);
      return;
    }
    if (value.kind == Kind::index) {
      // `q1 = q #- 1`: the name is a bounded index (`p # q1`, `chunkat(q1)`).
      Type v = value;
      v.immutable = true;
      define(n->name, v, Origin::binding, a.target->location);
      return;
    }
    if (value.is_number()) {
      Type v;
      v.kind = Kind::scalar;
      v.number = value.is_float() ? Number::float_ : Number::int_;
      if (value.kind == Kind::scalar && !value.element) {
        v.known = value.known;
        v.value = value.value;
        v.range = value.range;
        v.unbounded = value.unbounded;
      }
      if (value.kind == Kind::index && value.count && *value.count > 0)
        v.range = std::pair<std::int64_t, std::int64_t>{0, *value.count - 1};
      v.immutable = true;
      cx_.bound_values_[define(n->name, v, Origin::binding, a.target->location)] = a.value.get();
      return;
    }
    // A tuple or shape is a compile-time value where its elements are:
    // the name stands for it wherever it is used.
    if (value.kind == Kind::tuple || value.kind == Kind::shape) {
      Type v = value;
      v.immutable = true;
      define(n->name, v, Origin::binding, a.target->location);
      return;
    }
    // The name keeps what it names (an event, an mma value): its uses are checked.
    limitation(Rule::unsupported_binding, a.target->location,
               "`" + n->name + " = " + text(*a.value) + "` names " + kind_phrase(value.kind) +
                   ", which is not supported yet by libcroqjit",
               "use the expression where it is needed");
    define(n->name, value, Origin::binding, a.target->location);
    return;
  }
  Type target = c_.expressions.expr(*a.target);
  cx_.atomic_site_ = a.value.get();
  Type value = c_.expressions.expr(*a.value);
  require_ok(target);
  require_ok(value);
  // A warp's accumulator takes a number element-wise (`mc += bias;`).
  if (target.kind == Kind::accumulator && target.accumulator && target.accumulator->warp && value.is_number() &&
      (a.op == AssignOp::assign || a.op == AssignOp::add || a.op == AssignOp::sub || a.op == AssignOp::mul ||
       a.op == AssignOp::div))
    return;
  if (target.kind == Kind::accumulator && (value.is_number() || value.is_tile() || value.kind == Kind::accumulator))
    fail(Rule::unsupported_fragment_arithmetic, a.target->location,
         "element-wise arithmetic on an mma accumulator (`" + text(*a.target) + "`) is not supported yet by libcroqjit",
         "store it first (`mma.store`) and compute on the stored tile");
  // `f = 5;` in an inner scope of a number that cannot change there (`int
  // f = 4;` outside) binds a new `f` in that scope, as Croqtile does.
  // So does `t = {2, 3};` of a tuple name `t = {...}` bound outside.
  const bool number = value.is_number() && target.kind == Kind::scalar &&
                      (target.known != Known::at_run_time || target.immutable);
  const bool tuple = value.kind == Kind::tuple && target.kind == Kind::tuple;
  if (n && a.op == AssignOp::assign && (number || tuple)) {
    const Symbol* outer = lookup(n->name);
    if (outer && (outer->origin == Origin::binding || (number && outer->origin == Origin::declaration)) &&
        cx_.scope_of(outer) + 1 < cx_.scopes_.size()) {
      // A new tuple or scalar of that name in this scope.
      if (!cx_.trial_) cx_.out_.rebindings.insert(&a);
      Type v = value;
      v.immutable = true;
      define(n->name, v, Origin::binding, a.target->location);
      return;
    }
  }
  if (target.kind == Kind::tensor && a.op != AssignOp::assign && !target.element) {
    tensor_arithmetic(s, a, target, value);
    if (value.is_tile() || value.is_number()) return;
  }
  if (target.kind != Kind::scalar || target.known != Known::at_run_time)
    fail(Rule::assign_target, a.target->location, "cannot assign to `" + text(*a.target) + "`",
         "assign to an element (`x.at(i, j) = ...`) or a `mutable` scalar", notes_of(target));
  if (target.immutable && n)
    fail(Rule::assign_target, a.target->location, "cannot assign to `" + text(*a.target) + "`: it is immutable",
         "declare it `mutable`, e.g. `mutable int " + n->name + " = ...;`", notes_of(target));
  if (!value.is_number())
    fail(Rule::assign_value, a.value->location,
         "`" + text(*a.value) + "` is " + kind_phrase(value.kind) + "; only numbers can be assigned",
         value.is_tile() ? "index it with `.at(...)`, or copy tiles with `dma.copy src => dst;`" : "", notes_of(value));
  (void)s;
}

// `a += b` with tensors `a` and `b` (or a number `b`): element by element,
// `b` repeated along the leading dims of `a` that its shape lacks (lowering
// loops over `a`'s elements). A `b` of higher rank than `a` is a limitation.
void StatementChecker::tensor_arithmetic(const Stmt& s, const Assignment& a, const Type& target, const Type& value) {
  if (value.is_tile()) {
    const bool known = static_cast<int>(target.dims.size()) == target.rank &&
                       static_cast<int>(value.dims.size()) == value.rank;
    if (known)
      if (Verdict v = tensor_arithmetic_extents(text(*a.target), target.dims, text(*a.value), value.dims))
        fail(v->rule, a.value->location, v->message, v->hint, notes_of(value));
    if (value.rank > target.rank)
      fail(Rule::unsupported_tensor_arithmetic, s.location,
           "element-wise arithmetic of `" + text(*a.target) + "` with `" + text(*a.value) +
               "`, of higher rank, is not supported yet by libcroqjit",
           "write the loop: `foreach {i, j} in " + text(*a.target) + ".span { " + text(*a.target) +
               ".at(i, j) += ...; }`");
  } else if (!value.is_number()) {
    return;  // assign-value reports it
  }
}

const Symbol* StatementChecker::mutable_in(const Expr& e) const {
  return std::visit([&](const auto& n) -> const Symbol* {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Name>) {
      const Symbol* s = lookup(n.name);
      const bool mutable_scalar = s && s->origin == Origin::declaration && s->type.kind == Kind::scalar &&
                                  !s->type.immutable && !s->type.element && s->type.known == Known::at_run_time;
      return mutable_scalar ? s : nullptr;
    } else if constexpr (std::is_same_v<T, Binary>) {
      if (const Symbol* s = mutable_in(*n.lhs)) return s;
      return mutable_in(*n.rhs);
    } else if constexpr (std::is_same_v<T, Unary>) {
      return mutable_in(*n.operand);
    } else if constexpr (std::is_same_v<T, ITuple>) {
      for (const auto& el : n.elements)
        if (const Symbol* s = mutable_in(*el)) return s;
      return nullptr;
    } else {
      return nullptr;
    }
  }, e.node);
}

// Strings and addresses are not values a name can hold.
void StatementChecker::no_string_or_pointer(const std::string& name, const Expr& value) {
  const auto* address = std::get_if<Unary>(&value.node);
  if (std::holds_alternative<StringLiteral>(value.node))
    fail(Rule::string_or_pointer, value.location, "`" + name + "` cannot hold a string",
         "strings appear only as the message of `assert` and as arguments of `call`");
  if (address && address->op == UnaryOp::address_of)
    fail(Rule::string_or_pointer, value.location, "`" + name + "` cannot hold an address (`" + text(value) + "`)",
         "name the tensor itself, or one of its elements with `.at(...)`");
}

}  // namespace croq::sema::detail
