#include "frontend/host_code.hpp"

#include <functional>
#include <map>
#include <set>

#include "frontend/ast_walk.hpp"

namespace croq::frontend::ast {

namespace {

bool is_float_type_name(const std::string& name) {
  return name == "f16" || name == "bf16" || name == "f32" || name == "f64" || name == "float" || name == "double" ||
         name == "tf32";
}

// A declaration of a scalar: a type without a shape and without storage.
bool is_scalar_declaration(const Declaration& d) {
  const TypeRef& t = d.type;
  if (t.has_shape || t.storage != Storage::none) return false;
  return t.kind == TypeKind::int_ || t.kind == TypeKind::bool_ || t.kind == TypeKind::auto_ ||
         (t.kind == TypeKind::element && !t.has_shape);
}

// The statements nested at host level in `s` (not inside a parallel statement).
template <typename F>
void for_host_children(const Stmt& s, F&& visit) {
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block>) {
      for (const auto& c : n.statements) visit(*c);
    } else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While>) {
      if (n.body) visit(*n.body);
    } else if constexpr (std::is_same_v<T, If>) {
      visit(*n.then_branch);
      if (n.else_branch) visit(*n.else_branch);
    }
  }, s.node);
}

// Every statement at host level of `fn`, in source order (parents first).
void walk_host(const Function& fn, const std::function<void(const Stmt&, int depth)>& visit) {
  std::function<void(const Stmt&, int)> go = [&](const Stmt& s, int depth) {
    visit(s, depth);
    if (std::holds_alternative<Parallel>(s.node)) return;
    for_host_children(s, [&](const Stmt& c) { go(c, depth + 1); });
  };
  if (fn.body) go(*fn.body, 0);
}

void names_in(const Expr& e, std::set<std::string>& out) {
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Name>) out.insert(n.name);
    else if constexpr (std::is_same_v<T, Unary>) names_in(*n.operand, out);
    else if constexpr (std::is_same_v<T, Binary>) {
      names_in(*n.lhs, out);
      names_in(*n.rhs, out);
    } else if constexpr (std::is_same_v<T, Conditional>) {
      names_in(*n.condition, out);
      names_in(*n.then_value, out);
      names_in(*n.else_value, out);
    } else if constexpr (std::is_same_v<T, Call>) {
      for (const auto& a : n.args) names_in(*a, out);
    } else if constexpr (std::is_same_v<T, Member>) {
      names_in(*n.object, out);
    }
  }, e.node);
}

bool mentions_float(const Expr& e, const std::set<std::string>& floats) {
  bool found = false;
  std::function<void(const Expr&)> go = [&](const Expr& x) {
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, FloatLiteral>) found = true;
      else if constexpr (std::is_same_v<T, Name>) found = found || floats.count(n.name) > 0;
      else if constexpr (std::is_same_v<T, Convert>) found = found || (converted_dtype(n) && is_floating(*converted_dtype(n)));
      else if constexpr (std::is_same_v<T, Unary>) go(*n.operand);
      else if constexpr (std::is_same_v<T, Binary>) {
        if (n.op >= BinaryOp::lt && n.op <= BinaryOp::ne) return;  // a comparison is a truth value
        go(*n.lhs);
        go(*n.rhs);
      } else if constexpr (std::is_same_v<T, Conditional>) {
        go(*n.then_value);
        go(*n.else_value);
      } else if constexpr (std::is_same_v<T, Call>) {
        const auto* f = std::get_if<Name>(&n.callee->node);
        if (f && f->name == "cdiv") return;
        for (const auto& a : n.args) go(*a);
      }
    }, x.node);
  };
  go(e);
  return found;
}

bool holds_host_work(const Loop& with);  // below

// Host work of its own: a print, an assignment to a `mutable` scalar, a
// loop or branch around a parallel statement.
bool is_host_only(const Stmt& s, const std::set<std::string>& mutable_scalars) {
  if (print_call(s) || is_compile_time_print(s)) return true;
  if (const auto* a = std::get_if<Assignment>(&s.node)) {
    const auto* target = std::get_if<Name>(&a->target->node);
    return target && mutable_scalars.count(target->name) > 0;
  }
  // A host `with` around kernels or around a host `foreach` of its names, and
  // such a `foreach`, are the host's; any other `with` (one that only prints
  // its index, say) stays in the kernel, as before host programs.
  if (const auto* l = std::get_if<Loop>(&s.node); l && l->kind == LoopKind::with)
    return holds_host_work(*l);
  if (const auto* l = std::get_if<Loop>(&s.node); l && !l->bound) return true;
  if (std::holds_alternative<Loop>(s.node) || std::holds_alternative<While>(s.node) || std::holds_alternative<If>(s.node))
    return contains_parallel(s);
  return false;
}

}  // namespace

bool is_host_device_work(const Stmt& s) {
  if (const auto* a = std::get_if<Assignment>(&s.node)) {
    const auto* m = std::get_if<Member>(&a->target->node);
    return m && m->kind == MemberKind::at && m->has_args && std::holds_alternative<Name>(m->object->node);
  }
  if (const auto* c = std::get_if<Copy>(&s.node))
    return c->engine == Engine::dma && c->op == CopyOp::copy && !c->future && c->modifiers.empty() && c->source &&
           c->destination && c->after.empty();
  return false;
}

namespace {

// The name a view expression starts from (`b` in `b.chunkat(i).at(j)`).
const Name* root_name(const Expr& e) {
  if (const auto* n = std::get_if<Name>(&e.node)) return n;
  if (const auto* m = std::get_if<Member>(&e.node)) return root_name(*m->object);
  return nullptr;
}

}  // namespace

std::string host_device_work_problem(const Function& fn, const Stmt& s) {
  std::vector<const Expr*> operands;
  if (const auto* a = std::get_if<Assignment>(&s.node)) operands = {a->target.get()};
  else if (const auto* c = std::get_if<Copy>(&s.node)) operands = {c->source.get(), c->destination.get()};
  std::string problem;
  walk_host(fn, [&](const Stmt& st, int) {
    const auto* d = std::get_if<Declaration>(&st.node);
    if (!d || (d->type.storage != Storage::shared && d->type.storage != Storage::local)) return;
    for (const Declarator& decl : d->declarators)
      for (const Expr* e : operands)
        if (const Name* n = e ? root_name(*e) : nullptr; n && n->name == decl.name)
          problem = std::holds_alternative<Copy>(s.node) ? "a copy of a tensor in shared or local memory"
                                                          : "a store into a tensor in shared or local memory";
  });
  return problem;
}

namespace {
// A statement that calls `name` or `line_name` (its newline form): the call, else null.
const Call* statement_call(const Stmt& s, const char* name, const char* line_name) {
  const auto* es = std::get_if<ExprStatement>(&s.node);
  const auto* c = es ? std::get_if<Call>(&es->expr->node) : nullptr;
  const auto* f = c ? std::get_if<Name>(&c->callee->node) : nullptr;
  return f && (f->name == name || f->name == line_name) ? c : nullptr;
}
}  // namespace

const Call* print_call(const Stmt& s) { return statement_call(s, "print", "println"); }

bool is_compile_time_print(const Stmt& s) { return statement_call(s, "print!", "println!") != nullptr; }

const Name* element_count_of(const Expr& e) {
  const auto* c = std::get_if<ElementCount>(&e.node);
  if (!c) return nullptr;
  const Expr* operand = c->operand.get();
  if (const auto* m = std::get_if<Member>(&operand->node); m && m->kind == MemberKind::span && !m->has_args)
    operand = m->object.get();
  return std::get_if<Name>(&operand->node);
}

bool is_host_expression(const Expr& e) {
  return std::visit([&](const auto& n) -> bool {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, IntegerLiteral> || std::is_same_v<T, FloatLiteral> ||
                  std::is_same_v<T, BoolLiteral> || std::is_same_v<T, Name>) {
      return true;
    } else if constexpr (std::is_same_v<T, Unary>) {
      return (n.op == UnaryOp::negate || n.op == UnaryOp::plus || n.op == UnaryOp::logical_not ||
              n.op == UnaryOp::bit_not) && is_host_expression(*n.operand);
    } else if constexpr (std::is_same_v<T, Binary>) {
      return n.op != BinaryOp::compose && is_host_expression(*n.lhs) && is_host_expression(*n.rhs);
    } else if constexpr (std::is_same_v<T, Conditional>) {
      return is_host_expression(*n.condition) && is_host_expression(*n.then_value) &&
             is_host_expression(*n.else_value);
    } else if constexpr (std::is_same_v<T, Call>) {
      const auto* f = std::get_if<Name>(&n.callee->node);
      if (!f || !n.template_args.empty() || n.with_call_keyword) return false;
      const bool two = f->name == "__min" || f->name == "__max" || f->name == "cdiv";
      if (!(two && n.args.size() == 2) && !(f->name == "__abs" && n.args.size() == 1)) return false;
      for (const auto& a : n.args)
        if (!is_host_expression(*a)) return false;
      return true;
    } else if constexpr (std::is_same_v<T, Member>) {
      return n.kind == MemberKind::span && n.has_args && n.args.size() == 1 &&
             std::holds_alternative<Name>(n.object->node) && std::holds_alternative<IntegerLiteral>(n.args[0]->node);
    } else if constexpr (std::is_same_v<T, ElementCount>) {
      return element_count_of(e) != nullptr;
    } else if constexpr (std::is_same_v<T, Convert>) {
      return converted_dtype(n).has_value() && is_host_expression(*n.operand);
    } else {
      return false;
    }
  }, e.node);
}

std::optional<DType> converted_dtype(const Convert& c) {
  DType to{};
  if (c.foreign || !parse_dtype(c.target, to)) return std::nullopt;
  return to;
}

std::vector<WithBinding> with_bindings(const Loop& l) {
  std::vector<WithBinding> out;
  out.push_back({l.tuple_name ? &*l.tuple_name : nullptr, &l.indices, l.braced, l.bound.get()});
  for (const LoopBinding& b : l.more_bindings)
    out.push_back({b.tuple_name ? &*b.tuple_name : nullptr, &b.indices, b.braced, b.bound.get()});
  return out;
}

std::vector<const Expr*> with_extents(const WithBinding& b) {
  if (!b.bound) return {};  // `foreach x` of a with's names
  if (const auto* shape = std::get_if<ShapeList>(&b.bound->node)) {
    std::vector<const Expr*> dims;
    for (const auto& d : shape->dims) dims.push_back(d.get());
    return dims;
  }
  return {b.bound};  // `with x in 128`
}

namespace {

// `with index in [n, m]`: one name for several extents.
bool unnamed_elements(const WithBinding& b) {
  return !b.braced && !b.tuple_name && b.indices->size() == 1 && with_extents(b).size() > 1;
}

}  // namespace

std::vector<WithElement> with_elements(const WithBinding& b) {
  const std::vector<const Expr*> extents = with_extents(b);
  std::vector<WithElement> out;
  if (unnamed_elements(b)) {
    const Identifier& tuple = b.indices->front().name;
    for (std::size_t d = 0; d < extents.size(); ++d)
      out.push_back({tuple.name + "__elem__" + std::to_string(d), extents[d], tuple.location, extents[d]});
    return out;
  }
  for (std::size_t d = 0; d < b.indices->size(); ++d) {
    const Identifier& name = (*b.indices)[d].name;
    out.push_back({name.name, &name, name.location, d < extents.size() ? extents[d] : nullptr});
  }
  return out;
}

const Identifier* with_tuple_name(const WithBinding& b) {
  if (b.tuple_name) return b.tuple_name;
  return unnamed_elements(b) ? &b.indices->front().name : nullptr;
}

namespace {

// A `foreach` of a `with`'s names (no bound of its own).
bool is_with_foreach(const Stmt& s) {
  const auto* l = std::get_if<Loop>(&s.node);
  return l && l->kind == LoopKind::foreach_ && !l->bound;
}

// Whether `s` holds, at host level (outside every parallel statement), a
// `foreach` of a `with`'s names.
bool host_with_foreach(const Stmt& s) {
  if (is_with_foreach(s)) return true;
  if (std::holds_alternative<Parallel>(s.node)) return false;
  bool found = false;
  for_host_children(s, [&](const Stmt& c) { found = found || host_with_foreach(c); });
  return found;
}

// A `with` around kernels or around a host `foreach` of its names: host work.
bool holds_host_work(const Loop& with) {
  return with.body && (contains_parallel(*with.body) || host_with_foreach(*with.body));
}

// Whether every statement of `s` (nested ones too) is one the host runs: no
// device work, no tensor or event declared there.
bool only_host_code(const Stmt& s) {
  if (std::holds_alternative<Parallel>(s.node) || is_host_device_work(s)) return false;
  if (const auto* d = std::get_if<Declaration>(&s.node); d && !is_scalar_declaration(*d)) return false;
  if (!host_statement_problem(s, true).empty()) return false;
  bool all = true;
  for_host_children(s, [&](const Stmt& c) { all = all && only_host_code(c); });
  return all;
}

std::string host_with_problem(const Loop& l, bool between_kernels) {
  if (!l.where.empty() || !l.bound) return "this `with` (`where` at host level)";
  // With no kernel and no host `foreach` of its names inside, the `with` is
  // device work (the function's one kernel runs it, as before host
  // programs); between two kernels, one that holds only host code runs on
  // the host, once.
  if (!holds_host_work(l) && !(between_kernels && l.body && only_host_code(*l.body)))
    return "this `with` (no kernel or host `foreach` of its names inside)";
  // Kernels inside that loop over the names themselves (or hold no host loop
  // of them) keep the `with` in the kernel, as before host programs.
  bool kernel_loops = false;
  walk_statements(*l.body, [&](const Stmt& st) {
    if (const auto* p = std::get_if<Parallel>(&st.node))
      kernel_loops = kernel_loops || (p->body && any_statement(*p->body, is_with_foreach));
  });
  if (contains_parallel(*l.body) && (kernel_loops || !host_with_foreach(*l.body)))
    return "this `with` (its names looped over inside a kernel)";
  for (const WithBinding& b : with_bindings(l)) {
    const std::vector<const Expr*> extents = with_extents(b);
    if (extents.size() != b.indices->size() && !unnamed_elements(b))
      return "this `with` (name each element: `with index = {x, y} in [n, m]`)";
    for (const LoopIndex& i : *b.indices)
      if (i.range || i.local_name) return "this `with`'s index range";
    for (const Expr* e : extents)
      if (!is_host_expression(*e)) return "this `with`'s bound (only numbers, scalars and arithmetic on them)";
  }
  return "";
}

}  // namespace

std::string host_statement_problem(const Stmt& s, bool between_kernels) {
  auto expressions_ok = [](std::initializer_list<const Expr*> list) {
    for (const Expr* e : list)
      if (e && !is_host_expression(*e)) return false;
    return true;
  };
  return std::visit([&](const auto& n) -> std::string {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Parallel>) {
      return "";
    } else if constexpr (std::is_same_v<T, Return>) {
      return expressions_ok({n.value.get()}) ? "" : "returning this value (only numbers, scalars and arithmetic on them)";
    } else if constexpr (std::is_same_v<T, Sync>) {
      return is_global_sync(s) ? "" : "this `sync`";
    } else if constexpr (std::is_same_v<T, Declaration>) {
      if (!is_scalar_declaration(n)) return "";  // tensors and events: the kernels' function-scope declarations
      for (const Declarator& d : n.declarators) {
        if (d.array_size || d.init == Declarator::Init::braces || d.init == Declarator::Init::colon)
          return "this declaration";
        for (const auto& v : d.init_values)
          if (!is_host_expression(*v)) return "this initializer (only numbers, scalars and arithmetic on them)";
      }
      return "";
    } else if constexpr (std::is_same_v<T, Assignment>) {
      if (is_host_device_work(s)) return "";
      if (!std::holds_alternative<Name>(n.target->node)) return "this store (the host stores elements: `t.at(i) = v;`)";
      return expressions_ok({n.value.get()}) ? "" : "this value (only numbers, scalars and arithmetic on them)";
    } else if constexpr (std::is_same_v<T, ExprStatement>) {
      if (is_compile_time_print(s)) return "";
      const Call* c = print_call(s);
      if (!c) return "this expression statement";
      for (const auto& a : c->args)
        if (!std::holds_alternative<StringLiteral>(a->node) && !is_host_expression(*a))
          return "printing this value (only strings and scalars)";
      return "";
    } else if constexpr (std::is_same_v<T, Loop>) {
      if (n.kind == LoopKind::with) return host_with_problem(n, between_kernels);
      if (n.kind == LoopKind::foreach_ && !n.bound && n.more_bindings.empty() && n.where.empty() && !n.tuple_name) {
        // `foreach x, index`: over the names a host `with` bounds (lower_host checks each name).
        for (const LoopIndex& i : n.indices)
          if (i.range || i.local_name) return "this loop's index range";
        return "";
      }
      if (n.kind != LoopKind::foreach_ || !n.more_bindings.empty() || !n.where.empty() || n.tuple_name || !n.bound)
        return "this loop (a host loop is `foreach i in [n]`, `foreach {i, j} in [n, m]` or `foreach` of the names of a "
               "`with`)";
      const auto* shape = std::get_if<ShapeList>(&n.bound->node);
      if (!shape || shape->dims.size() != n.indices.size()) return "this loop's bound (write `in [n, ...]`)";
      for (const LoopIndex& i : n.indices)
        if (i.range || i.local_name) return "this loop's index range";
      for (const auto& d : shape->dims)
        if (!is_host_expression(*d)) return "this loop's bound (only numbers, scalars and arithmetic on them)";
      return "";
    } else if constexpr (std::is_same_v<T, If>) {
      return expressions_ok({n.condition.get()}) ? "" : "this condition (only scalars)";
    } else if constexpr (std::is_same_v<T, While>) {
      return expressions_ok({n.condition.get()}) ? "" : "this `while` condition (only scalars)";
    } else if constexpr (std::is_same_v<T, Copy>) {
      return is_host_device_work(s) ? "" : "this copy (the host copies with a synchronous `dma.copy a => b;`)";
    } else {
      return "this statement";
    }
  }, s.node);
}

int host_parallel_count(const Function& fn) {
  int parallels = 0;
  walk_host(fn, [&](const Stmt& s, int) { parallels += std::holds_alternative<Parallel>(s.node); });
  return parallels;
}

HostProblem first_host_problem(const Function& fn, const Stmt& s, bool between_kernels) {
  if (std::holds_alternative<Parallel>(s.node)) return {};
  std::string what = host_statement_problem(s, between_kernels);
  if (what.empty() && is_host_device_work(s)) what = host_device_work_problem(fn, s);
  if (!what.empty()) return {&s, std::move(what)};
  HostProblem found;
  for_host_children(s, [&](const Stmt& c) {
    if (!found.at) found = first_host_problem(fn, c, between_kernels);
  });
  return found;
}

HostProblem host_program_blocker(const Function& fn) {
  return fn.body ? first_host_problem(fn, *fn.body, host_parallel_count(fn) > 1) : HostProblem{};
}

bool is_host_program(const Function& fn) {
  bool host_only = false, device_work = false, between = false;
  const int parallels = host_parallel_count(fn);
  std::set<std::string> mutable_scalars;
  walk_host(fn, [&](const Stmt& s, int depth) {
    // A statement of the body's block besides kernels, blocks, declarations
    // and `return` (`with i in [2] { ... }`, `n = 4;`): host code between kernels.
    between = between || (depth == 1 && !std::holds_alternative<Parallel>(s.node) &&
                           !std::holds_alternative<Block>(s.node) && !std::holds_alternative<Declaration>(s.node) &&
                           !std::holds_alternative<Return>(s.node) && !is_global_sync(s) && !is_compile_time_print(s));
    if (const auto* d = std::get_if<Declaration>(&s.node); d && d->type.is_mutable && is_scalar_declaration(*d))
      for (const Declarator& decl : d->declarators) mutable_scalars.insert(decl.name);
    host_only = host_only || is_host_only(s, mutable_scalars);
    device_work = device_work || is_host_device_work(s);
  });
  const bool device_only = host_program_blocker(fn).at != nullptr;
  // A returned number is the host's to compute.
  host_only = host_only || returned_scalar(fn) != nullptr;
  // Device work or other statements beside a single parallel statement (or
  // none) keep the earlier meaning: the whole body is one kernel.
  return (host_only || ((device_work || between) && parallels > 1)) && !device_only;
}

std::vector<const Stmt*> launches(const Function& fn) {
  std::vector<const Stmt*> out;
  const bool host = is_host_program(fn);
  walk_host(fn, [&](const Stmt& s, int) {
    if (std::holds_alternative<Parallel>(s.node) || (host && is_host_device_work(s))) out.push_back(&s);
  });
  return out;
}

std::vector<HostScalar> host_scalars(const Function& fn) {
  std::set<std::string> floats, host_only_names, assigned;
  for (const Parameter& p : fn.params)
    if (!p.type.has_shape && is_float_type_name(p.type.name)) floats.insert(p.name);
  walk_host(fn, [&](const Stmt& s, int) {
    if (const auto* a = std::get_if<Assignment>(&s.node))
      if (const auto* target = std::get_if<Name>(&a->target->node)) assigned.insert(target->name);
  });
  std::vector<HostScalar> out;
  // The names in scope: one set per depth of host statements (a statement
  // at depth d closes the scopes deeper than d), the parameters below them.
  std::set<std::string> parameters;
  for (const Parameter& p : fn.params) parameters.insert(p.name);
  std::vector<std::set<std::string>> scopes;
  auto in_scope = [&](const std::string& name) {
    if (parameters.count(name)) return true;
    for (const auto& scope : scopes)
      if (scope.count(name)) return true;
    return false;
  };
  walk_host(fn, [&](const Stmt& s, int depth) {
    scopes.resize(static_cast<std::size_t>(depth) + 1);  // this statement's scope
    scopes.emplace_back();                                // and its body's, new
    std::set<std::string>& declared = scopes[static_cast<std::size_t>(depth)];
    std::set<std::string>& inner = scopes[static_cast<std::size_t>(depth) + 1];
    if (const auto* d = std::get_if<Declaration>(&s.node); d && is_scalar_declaration(*d)) {
      for (const Declarator& decl : d->declarators) {
        HostScalar h{decl.name, &decl, is_float_type_name(d->type.name)};
        if (DType declared{}; d->type.kind == TypeKind::element && parse_dtype(d->type.name, declared))
          h.dtype = declared;
        if (d->type.kind == TypeKind::auto_ && !decl.init_values.empty())
          h.is_float = mentions_float(*decl.init_values[0], floats);
        std::set<std::string> uses;
        for (const auto& v : decl.init_values) names_in(*v, uses);
        bool pure = depth == 1 && !d->type.is_mutable && !assigned.count(decl.name);
        for (const std::string& u : uses) pure = pure && !host_only_names.count(u);
        h.replicated = pure;
        if (!pure) host_only_names.insert(decl.name);
        if (h.is_float) floats.insert(decl.name);
        declared.insert(decl.name);
        out.push_back(std::move(h));
      }
    } else if (const auto* a = std::get_if<Assignment>(&s.node)) {
      // `n = 4;` of a name not declared before binds a new scalar.
      const auto* target = std::get_if<Name>(&a->target->node);
      if (!target || in_scope(target->name) || a->op != AssignOp::assign) return;
      HostScalar h{target->name, &s, mentions_float(*a->value, floats)};
      host_only_names.insert(h.name);
      if (h.is_float) floats.insert(h.name);
      declared.insert(h.name);
      out.push_back(std::move(h));
    } else if (const auto* l = std::get_if<Loop>(&s.node); l && l->kind == LoopKind::with) {
      for (const WithBinding& b : with_bindings(*l))
        for (const WithElement& e : with_elements(b)) {
          out.push_back(HostScalar{e.name, e.site, false});
          host_only_names.insert(e.name);
          inner.insert(e.name);
        }
    } else if (const auto* l = std::get_if<Loop>(&s.node); l && l->bound) {  // not `foreach x` of a with's names
      for (const LoopIndex& i : l->indices) {
        out.push_back(HostScalar{i.name.name, &i.name, false});
        host_only_names.insert(i.name.name);
        inner.insert(i.name.name);
      }
    }
  });
  return out;
}

}  // namespace croq::frontend::ast

namespace croq::frontend::ast {

namespace {

// Whether `fn` may return a number: `auto`, `int`, or an element type with no shape.
bool scalar_return_type(const Function& fn) {
  const TypeRef& t = fn.return_type;
  return t.kind == TypeKind::auto_ || t.kind == TypeKind::int_ ||
         (t.kind == TypeKind::element && !t.has_shape && !t.rank);
}

// The class of a host scalar's type that a returned number keeps: 64-bit
// or not, integer or floating (narrower floats compute as f32).
DType scalar_class(const TypeRef& t) {
  if (t.kind != TypeKind::element) return DType::s32;
  if (t.name == "double" || t.name == "f64") return DType::f64;
  if (t.name == "float" || is_float_type_name(t.name)) return DType::f32;
  return t.name == "s64" || t.name == "u64" ? DType::s64 : DType::s32;
}

// The same class of an element type (`__to<T>`'s).
DType class_of(DType t) {
  if (t == DType::f64) return DType::f64;
  if (is_floating(t)) return DType::f32;
  return t == DType::s64 || t == DType::u64 ? DType::s64 : DType::s32;
}

// C++'s usual arithmetic conversions, on those classes.
DType promoted(DType a, DType b) {
  const auto rank = [](DType t) { return t == DType::f64 ? 3 : t == DType::f32 ? 2 : t == DType::s64 ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

// The type of a host expression, its names typed by `names` (s32 when not there: dims, indices).
DType expression_class(const Expr& e, const std::map<std::string, DType>& names) {
  const auto of = [&](const Expr& x) { return expression_class(x, names); };
  return std::visit([&](const auto& n) -> DType {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, IntegerLiteral>) {
      const bool wide = n.value > 0x7fffffffULL || n.suffix.find_first_of("lL") != std::string::npos;
      return wide ? DType::s64 : DType::s32;
    } else if constexpr (std::is_same_v<T, FloatLiteral>) {
      return n.suffix.empty() ? DType::f64 : DType::f32;
    } else if constexpr (std::is_same_v<T, Name>) {
      auto it = names.find(n.name);
      return it == names.end() ? DType::s32 : it->second;
    } else if constexpr (std::is_same_v<T, Unary>) {
      return n.op == UnaryOp::logical_not ? DType::s32 : of(*n.operand);
    } else if constexpr (std::is_same_v<T, Binary>) {
      if ((n.op >= BinaryOp::lt && n.op <= BinaryOp::ne) || n.op == BinaryOp::logical_and || n.op == BinaryOp::logical_or)
        return DType::s32;
      return promoted(of(*n.lhs), of(*n.rhs));
    } else if constexpr (std::is_same_v<T, Conditional>) {
      return promoted(of(*n.then_value), of(*n.else_value));
    } else if constexpr (std::is_same_v<T, Call>) {
      DType out = DType::s32;
      for (const auto& a : n.args) out = promoted(out, of(*a));
      return out;
    } else if constexpr (std::is_same_v<T, Convert>) {
      const std::optional<DType> to = converted_dtype(n);
      return to ? class_of(*to) : DType::s32;
    } else {
      return DType::s32;  // `x.span(d)`: an extent, an int
    }
  }, e.node);
}

// Names that are not numbers: tensor and stream parameters, tensors, events
// and futures declared at host level, tuples and with-bound names.
std::set<std::string> non_scalar_names(const Function& fn) {
  std::set<std::string> out;
  for (const Parameter& p : fn.params)
    if (p.type.has_shape || p.type.kind == TypeKind::stream) out.insert(p.name);
  walk_host(fn, [&](const Stmt& s, int) {
    if (const auto* d = std::get_if<Declaration>(&s.node); d && !is_scalar_declaration(*d))
      for (const Declarator& decl : d->declarators) out.insert(decl.name);
    if (const auto* c = std::get_if<Copy>(&s.node); c && c->future)
      if (const auto* n = std::get_if<Name>(&c->future->node)) out.insert(n->name);
    if (const auto* l = std::get_if<Loop>(&s.node); l && l->kind == LoopKind::with)
      for (const WithBinding& b : with_bindings(*l)) {
        if (b.tuple_name) out.insert(b.tuple_name->name);
        if (!b.braced)
          for (const LoopIndex& i : *b.indices) out.insert(i.name.name);
      }
  });
  return out;
}

}  // namespace

const Expr* returned_scalar(const Function& fn) {
  if (!scalar_return_type(fn) || !fn.body) return nullptr;
  const std::set<std::string> others = non_scalar_names(fn);
  const TypeRef* tensor = returned_tensor_type(fn);
  const std::string tensor_name = tensor ? returned_name(fn) : std::string();
  const Expr* found = nullptr;
  walk_host(fn, [&](const Stmt& s, int) {
    const auto* r = std::get_if<Return>(&s.node);
    if (found || !r || !r->value) return;
    if (const auto* n = std::get_if<Name>(&r->value->node); n && (n->name == tensor_name || others.count(n->name))) return;
    found = r->value.get();
  });
  return found;
}

DType returned_scalar_dtype(const Function& fn) {
  if (fn.return_type.kind == TypeKind::element) return scalar_class(fn.return_type);
  if (fn.return_type.kind == TypeKind::int_) return DType::s32;
  const Expr* value = returned_scalar(fn);
  std::map<std::string, DType> names;
  for (const Parameter& p : fn.params)
    if (!p.type.has_shape) names[p.name] = scalar_class(p.type);
  bool done = false;
  walk_host(fn, [&](const Stmt& s, int) {
    if (done) return;
    if (const auto* r = std::get_if<Return>(&s.node); r && r->value.get() == value) done = true;
    if (const auto* d = std::get_if<Declaration>(&s.node); d && is_scalar_declaration(*d))
      for (const Declarator& decl : d->declarators)
        names[decl.name] = d->type.kind == TypeKind::auto_ && !decl.init_values.empty()
                               ? expression_class(*decl.init_values[0], names)
                               : scalar_class(d->type);
    if (const auto* a = std::get_if<Assignment>(&s.node))
      if (const auto* t = std::get_if<Name>(&a->target->node); t && !names.count(t->name) && a->op == AssignOp::assign)
        names[t->name] = expression_class(*a->value, names);
    if (const auto* l = std::get_if<Loop>(&s.node); l && l->bound && l->kind != LoopKind::with)
      for (const LoopIndex& i : l->indices) names[i.name.name] = DType::s32;
  });
  return value ? expression_class(*value, names) : DType::s32;
}

}  // namespace croq::frontend::ast
