// Statements: the walk with its per-statement recovery, loops, conditions,
// returns, and the statements libcroqjit cannot run yet (assignments are in
// check_assignments.cpp, tensor and scalar declarations in
// check_tensor_declarations.cpp).
#include <algorithm>
#include <utility>

#include "frontend/builtins.hpp"
#include "frontend/host_code.hpp"
#include "frontend/limits.hpp"
#include "sema/checker.hpp"
#include "support/checked_int.hpp"

namespace croq::sema::detail {

namespace {

// The Croqtile spelling of a statement libcroqjit does not run yet.
const char* unsupported_statement(const Stmt& s) {
  return std::visit([](const auto& n) -> const char* {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, CallStatement>) return "`call`";
    else if constexpr (std::is_same_v<T, Swap>) return n.rotate ? "`rotate`" : "`swap`";
    else if constexpr (std::is_same_v<T, Yield>) return "`yield`";
    else return nullptr;
  }, s.node);
}

// `(x)` as `x`: the parentheses of `if (...)` are syntax, not part of the value.
std::string without_parentheses(std::string text) {
  while (text.size() >= 2 && text.front() == '(' && text.back() == ')') {
    int depth = 0;
    std::size_t close = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
      if (depth == 0) {
        close = i;
        break;
      }
    }
    if (close != text.size() - 1) break;
    text = text.substr(1, text.size() - 2);
  }
  return text;
}

}  // namespace

// program-host-statement at `s`, unless an error stands in that statement
// already (`mdsa = [7, 8];` that rebinds a name, a `shared` tensor in a host
// `with`): the error says it all.
void StatementChecker::host_limitation(const Stmt& s, std::string message, std::string hint) {
  int last_line = s.location.line;
  walk_statements(s, [&](const Stmt& st) { last_line = std::max(last_line, st.location.line); });
  if (!cx_.has_error_between(s.location, last_line))
    limitation(Rule::program_host_statement, s.location, std::move(message), std::move(hint));
}

void StatementChecker::nested(const Stmt& s) {
  cx_.push();
  if (const auto* b = std::get_if<Block>(&s.node)) {
    // A program (several top-level parallel statements): each is a kernel of
    // its own, and only declarations and `return` may stand between them.
    const bool host_program = &s == cx_.fn_.body.get() && is_host_program(cx_.fn_);
    const bool program = &s == cx_.fn_.body.get() && kernel_count(cx_.fn_) > 1 && !host_program;
    if (&s == cx_.fn_.body.get()) host_program_ = host_program;
    std::size_t kernels = 0;
    for (const auto& c : b->statements) {
      if ((program && std::holds_alternative<Parallel>(c->node)) ||
          (host_program && (std::holds_alternative<Parallel>(c->node) || is_host_device_work(*c)))) {
        cx_.grid_set_ = false;
        if (++kernels > frontend::limits::kMaxKernels) {  // reported once; the rest is not checked
          report(Rule::kernel_count, c->location,
                 "`" + cx_.fn_.name + "` has more than " + std::to_string(frontend::limits::kMaxKernels) +
                     " top-level parallel statements (kernels), the limit; this is kernel " + std::to_string(kernels),
                 "each kernel is an NVRTC compile at the first call: merge kernels, or split the program into functions",
                 {});
          break;
        }
      } else if (program && !std::holds_alternative<Declaration>(c->node) && !std::holds_alternative<Return>(c->node) &&
                 !is_global_sync(*c)) {
        // Its own rules are checked first: a statement in error is not a limitation too.
        statement(*c);
        between_kernels_limitation(*c);
        continue;
      }
      statement(*c);
    }
    // After the statements' own checks, so that one in error is not a limitation too.
    if (host_program) host_statements(s, 0);
  } else {
    statement(s);
  }
  cx_.pop();
}

// Statement `s` between the kernels of a program that is no host program:
// the statement in it the host cannot run, else (host code itself) the
// one elsewhere that keeps the function from being a host program.
void StatementChecker::between_kernels_limitation(const Stmt& s) {
  const std::string hint =
      "host code between kernels prints, computes scalars, loops, branches, stores elements (`t.at(i) = v;`) and "
      "copies (`dma.copy a => b;`); put other device work inside a `parallel` statement";
  const HostProblem own = first_host_problem(cx_.fn_, s, true);
  if (own.at) return host_limitation(*own.at, own.what + " is not supported in host code yet", hint);
  const HostProblem blocker = host_program_blocker(cx_.fn_);
  std::string message = "statements between the kernels of a program (host code) are not supported yet";
  if (blocker.at)
    message += " beside " + blocker.what + " at " + std::to_string(blocker.at->location.line) + ":" +
               std::to_string(blocker.at->location.column) + ", which the host cannot run";
  host_limitation(s, message, hint);
}

// A host program (frontend/host_code.hpp): each statement of its host
// level must be one the host runs; nested tensors and events are the
// kernels' only at function scope.
void StatementChecker::host_statements(const Stmt& s, int depth) {
  if (std::holds_alternative<Parallel>(s.node)) return;
  std::string problem = host_statement_problem(s, host_parallel_count(cx_.fn_) > 1);
  if (problem.empty() && depth > 1)
    if (const auto* d = std::get_if<Declaration>(&s.node); d && (d->type.has_shape || d->type.storage != Storage::none ||
                                                                 d->type.kind == TypeKind::event))
      problem = "a tensor or event declared inside host control flow";
  if (!problem.empty()) {
    host_limitation(s, problem + " is not supported in host code yet",
                    "host code (outside every parallel statement) prints, computes scalars, loops and branches "
                    "around the kernels; put device work inside a `parallel` statement");
    return;
  }
  if (depth == 0 && launches(cx_.fn_).empty() && returned_tensor_type(cx_.fn_))
    limitation(Rule::program_host_statement, cx_.fn_.location,
               "a function with no parallel statement returns no tensor yet",
               "compute the result in a `parallel` statement");
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block>) {
      for (const auto& c : n.statements) host_statements(*c, depth + 1);
    } else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While>) {
      host_statements(*n.body, depth + 1);
    } else if constexpr (std::is_same_v<T, If>) {
      host_statements(*n.then_branch, depth + 1);
      if (n.else_branch) host_statements(*n.else_branch, depth + 1);
    }
  }, s.node);
}

void StatementChecker::statement(const Stmt& s) {
  // Each parallel statement and each device work (an element store, a copy)
  // at a host program's host level is a kernel of its own.
  if (host_program_ && cx_.parallel_depth_ == 0 && (std::holds_alternative<Parallel>(s.node) || is_host_device_work(s)))
    cx_.grid_set_ = false;
  const std::int64_t pending = cx_.pending_launch_bound_;
  cx_.pending_launch_bound_ = 0;
  if (!s.attributes.empty()) c_.levels.attributes(s);
  try {
    statement_node(s);
  } catch (const Abort&) {
    define_poisoned(s);
  }
  cx_.pending_launch_bound_ = pending;
}

// The kinds of statement without a member of their own (Dispatch).
template <typename T>
void StatementChecker::other_statement(const Stmt& s, const T& n) {
  if constexpr (std::is_same_v<T, Block>) {
    nested(s);
  } else if constexpr (std::is_same_v<T, ExprStatement>) {
    cx_.atomic_site_ = cx_.statement_expr_ = n.expr.get();
    c_.expressions.expr(*n.expr);
  } else if constexpr (std::is_same_v<T, While>) {
    ++cx_.loops_;
    const bool several = std::exchange(cx_.loop_of_several_indices_, false);
    if (events_only(*n.condition)) {
      // `while (e)`, `while (e && f[0])`: loops while the events are not complete.
      limitation(Rule::unsupported_statement, s.location,
                 "`while` over events is not supported yet by libcroqjit", "wait for them: `wait e;`");
      for (const Expr* part : leaves_of(*n.condition)) {  // `b[5]` is still checked; a whole array is fine here
        try {
          c_.expressions.expr(*part);
        } catch (const Abort&) {
        }
      }
      nested(*n.body);
    } else {
      body_after_condition(*n.condition, "`while`", *n.body);
    }
    cx_.loop_of_several_indices_ = several;
    --cx_.loops_;
  } else if constexpr (std::is_same_v<T, If>) {
    body_after_condition(*n.condition, "`if`", *n.then_branch);
    if (n.else_branch) nested(*n.else_branch);
  } else if constexpr (std::is_same_v<T, InThreads>) {
    if (cx_.parallel_depth_ == 0)
      fail(Rule::inthreads_outside_parallel, s.location,
           std::string(n.is_async ? "`inthreads.async`" : "`inthreads`") + " outside a parallel statement",
           "inthreads selects threads of the parallel levels around it; put it inside `parallel p by N { ... }`");
    if (n.is_async) c_.levels.inthreads_async(s, n);
    else c_.levels.inthreads(s, n);
  } else if constexpr (std::is_same_v<T, Break> || std::is_same_v<T, Continue>) {
    const char* what = std::is_same_v<T, Break> ? "`break`" : "`continue`";
    if (cx_.loops_ == 0)
      fail(Rule::break_outside_loop, s.location, std::string(what) + " outside a loop",
           "it leaves the innermost `foreach` or `while` of the same parallel body");
    if (std::is_same_v<T, Break> && cx_.loop_of_several_indices_)
      fail(Rule::unsupported_statement, s.location,
           "`break` out of a `foreach` of several indices is not supported yet by libcroqjit",
           "nest one `foreach` per index and break out of each, or use `continue`");
  } else if constexpr (std::is_same_v<T, CallStatement>) {
    call_statement(s, n);
  } else if constexpr (std::is_same_v<T, Yield>) {
    // The thread leaves the kernel (lowering: ir::Jump::exit_kernel).
    if (cx_.parallel_depth_ == 0)
      fail(Rule::yield_outside_parallel, s.location, "`yield` outside a parallel statement",
           "`yield` ends the thread's work in the kernel of a parallel statement; the function body has none");
  } else if constexpr (std::is_same_v<T, Return>) {
    return_statement(s, n);
  } else if constexpr (std::is_same_v<T, Assert>) {
    ExtentsNow extents(cx_.extents_now_);
    Type c = condition(*n.condition, n.is_static ? "`static_assert`" : "`assert`");
    if (const auto* message = n.message ? std::get_if<StringLiteral>(&n.message->node) : nullptr)
      c_.expressions.string_literal(*n.message, *message);
    if (c.known_now() && c.value == 0)
      fail(Rule::assertion_false, s.location, "this assertion is always false", "", {});
  } else {
    fail(Rule::unsupported_statement, s.location,
         std::string(unsupported_statement(s)) + " is not supported yet by libcroqjit");
  }
}

void StatementChecker::statement_node(const Stmt& s) { Dispatch::statement(*this, s); }

// The operands of `a && b || c`.
std::vector<const Expr*> StatementChecker::leaves_of(const Expr& e) const {
  const auto* b = std::get_if<Binary>(&e.node);
  if (!b || (b->op != BinaryOp::logical_and && b->op != BinaryOp::logical_or)) return {&e};
  std::vector<const Expr*> out = leaves_of(*b->lhs);
  for (const Expr* r : leaves_of(*b->rhs)) out.push_back(r);
  return out;
}

// Whether every operand of `e`'s `&&` / `||` is an event (`e`, `e[i]`).
bool StatementChecker::events_only(const Expr& e) const {
  for (const Expr* part : leaves_of(e)) {
    const Expr* root = part;
    if (const auto* s = std::get_if<Subscript>(&root->node)) root = s->object.get();
    const auto* n = std::get_if<Name>(&root->node);
    const Symbol* sym = n ? lookup(n->name) : nullptr;
    if (!sym || sym->type.kind != Kind::event) return false;
  }
  return true;
}

Type StatementChecker::condition(const Expr& e, const char* what) {
  // A `while` condition is evaluated before each iteration; a call's value, once.
  const RefuseValueCalls once(cx_.value_call_refused_,
                              std::string(what) == "`while`" ? "in a `while` condition" : cx_.value_call_refused_);
  Type c = c_.expressions.expr(e);
  require_ok(c);
  if (c.unbounded)
    fail(Rule::unbounded_value, e.location,
         "the condition of " + std::string(what) + " depends on an unbounded dim (`??`), which no one knows",
         "compare with a dim the call binds", notes_of(c));
  if (!c.is_number())
    fail(Rule::condition_not_a_number, e.location,
         "`" + without_parentheses(text(e)) + "` is " + kind_phrase(c.kind) + "; the condition of " + what +
             " is a number or a comparison",
         "",
         notes_of(c));
  return c;
}

// The body is checked even when its condition had an error.
void StatementChecker::body_after_condition(const Expr& cond, const char* what, const Stmt& body) {
  try {
    condition(cond, what);
  } catch (const Abort&) {
  }
  nested(body);
}

void StatementChecker::define_poisoned(const Stmt& s) {
  auto poison = [&](const Expr* e) {
    if (const auto* n = e ? std::get_if<Name>(&e->node) : nullptr)
      if (!lookup(n->name)) define(n->name, Type{}, Origin::binding, e->location);
  };
  if (const auto* d = std::get_if<Declaration>(&s.node)) {
    // A name this scope declared before keeps that declaration: its later
    // uses are checked against it.
    for (const Declarator& decl : d->declarators)
      if (const Symbol* earlier = cx_.declared_here(decl.name); !earlier || earlier->type.is_error())
        define(decl.name, Type{}, Origin::declaration, decl.location);
  } else if (const auto* c = std::get_if<Copy>(&s.node)) {
    if (const auto* n = c->future ? std::get_if<Name>(&c->future->node) : nullptr)
      if (const Symbol* bound = cx_.declared_here(n->name); !bound || bound->type.is_error())
        define(n->name, Type{}, Origin::copy_future, c->future->location);
  } else if (const auto* m = std::get_if<Mma>(&s.node)) {
    if (const auto* n = m->result ? std::get_if<Name>(&m->result->node) : nullptr)
      define(n->name, Type{}, Origin::mma_result, m->result->location);
  } else if (const auto* a = std::get_if<Assignment>(&s.node)) {
    poison(a->target.get());
  }
}

// `call f<T, N>(args);`: a device function libcroqjit does not run yet; its
// template arguments still name types, constants or values in scope.
void StatementChecker::call_statement(const Stmt& s, const CallStatement& c) {
  // Cache hints are modifiers of tma.load now, not calls on its future.
  for (const char* hint : {"evict_last", "evict_first"})
    if (c.callee == std::string("croq::cuda::") + hint)
      fail(Rule::removed_builtin, s.location, "`croq::cuda::" + std::string(hint) + "` was removed from Croqtile",
           "write the hint on the load: `tma.load." + std::string(hint) + " src => dst;`");
  if (const auto* f = cx_.program_.find_device_function(c.callee); f && !cx_.program_.find_co_device_function(c.callee)) {
    c_.expressions.cxx_call(s.location, *f, c.template_args, c.args, false, &c);
    return;
  }
  for (const auto& arg : c.template_args) {
    const auto* n = std::get_if<Name>(&arg->node);
    DType dtype;
    if (!n || parse_dtype(n->name, dtype) || n->name == "int" || n->name == "float" || n->name == "bool" ||
        n->name == "half" || n->name == "double" || n->name.find("::") != std::string::npos ||
        std::any_of(cx_.fn_.template_params.begin(), cx_.fn_.template_params.end(),
                    [&](const TemplateParam& t) { return t.name == n->name; }))
      continue;
    c_.expressions.expr(*arg);  // an unknown name is an error
  }
  if (const Function* callee = cx_.program_.find_co_device_function(c.callee)) {
    if (!c.template_args.empty())
      fail(Rule::unsupported_call, s.location, "template __co_device__ functions are not supported yet by libcroqjit",
           "write the function for the types it is called with");
    c_.expressions.device_call(s.location, *callee, c.args, false);
    return;
  }
  c_.expressions.call_placement(s.location, c.callee, "kernel", false, "");
  // Arguments are numbers, elements and tensors (a future passes as `f.data`).
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    const Expr& arg = *c.args[i];
    // Only the forms that can be a future, a shape or a tuple: the others are
    // the kernel function's business (`a.data` of a tensor, `|x.span|`, ...).
    const auto* member = std::get_if<Member>(&arg.node);
    if (!std::holds_alternative<Name>(arg.node) && !std::holds_alternative<ITuple>(arg.node) &&
        !std::holds_alternative<ShapeList>(arg.node) && !std::holds_alternative<Binary>(arg.node) &&
        !(member && member->name == "span" && !member->has_args)) {
      // Still, the name it starts from is in scope (`f.data` after f's loop is not).
      const Expr* root = &arg;
      while (const auto* m = std::get_if<Member>(&root->node)) root = m->object.get();
      if (const auto* n = std::get_if<Name>(&root->node); n && !lookup(n->name) && !cx_.program_.defines.count(n->name))
        try {
          fail(Rule::unknown_name, root->location, "unknown name `" + n->name + "`");
        } catch (const Abort&) {
        }
      continue;
    }
    try {
      Type v = c_.expressions.expr(arg);
      require_ok(v);
      const auto* n = std::get_if<Name>(&arg.node);
      const Symbol* sym = n ? lookup(n->name) : nullptr;
      if (sym && sym->origin == Origin::index_tuple) continue;
      if (v.kind == Kind::future || v.kind == Kind::shape || v.kind == Kind::tuple)
        fail(Rule::call_argument, arg.location,
             "argument " + std::to_string(i + 1) + " of `call " + c.callee + "` is " + kind_phrase(v.kind) +
                 " (`" + text(arg) + "`); a kernel function takes numbers and tensors",
             v.kind == Kind::future ? "pass the future's tile: `" + text(arg) + ".data`"
                                    : "pass its values one by one, as numbers",
             notes_of(v));
    } catch (const Abort&) {
    }
  }
  c_.expressions.unknown_function(s.location, c.callee);
}

// ---- loops ------------------------------------------------------------------------

void StatementChecker::loop(const Stmt& s, const Loop& l) {
  std::vector<const Identifier*> index_names;
  if (l.tuple_name) index_names.push_back(&*l.tuple_name);
  for (const LoopIndex& index : l.indices) index_names.push_back(&index.name);
  // Reported without abandoning the loop: its body is checked (a `foreach _`
  // inside a `with {_}` is an error of its own).
  for (const Identifier* id : index_names)
    if (id->name == "_")
      report(Rule::wildcard_outside_chunkat, id->location,
             std::string("`_` cannot name a ") + (l.kind == LoopKind::with ? "`with`" : "loop") +
                 " index; it only keeps a dimension whole in `chunkat`",
             "give the index a name", {});
  // The limitations here leave the loop's meaning clear: its body is checked.
  if (l.kind == LoopKind::apply && !c_.mma.register_apply(l))
    limitation(Rule::unsupported_loop, s.location, "`apply` loops are not supported yet by libcroqjit",
               "write the loop as `foreach`");
  if (!l.where.empty())
    limitation(Rule::unsupported_loop, l.where.front().first.location,
               "`where` clauses are not supported yet by libcroqjit");
  if (!l.bound) {
    // `foreach x { }` iterates an index bound by an enclosing `with`.
    for (const LoopIndex& index : l.indices)
      if (!index.range && index.name.name != "_") unbounded_foreach_index(index.name);
    cx_.push();
    loop_extras(l);
    ++cx_.loops_;
    bool several = l.indices.size() > 1;
    for (const LoopIndex& index : l.indices)
      if (const Symbol* s = lookup(index.name.name); s && s->type.kind == Kind::tuple) several = true;
    several = std::exchange(cx_.loop_of_several_indices_, several);
    nested(*l.body);
    cx_.loop_of_several_indices_ = several;
    --cx_.loops_;
    cx_.pop();
    return;
  }
  std::vector<Count> bounds;
  bool one_name_for_all = false;  // `foreach x in [4, 8]`: x is a tuple of two indices
  bool bracketed_one = false;
  try {
    std::optional<ExtentsNow> extents;
    if (l.kind == LoopKind::with) extents.emplace(cx_.extents_now_);
    {
      // `with` only binds its indices: their bounds may be run-time values.
      RuntimeCounts runtime(cx_.runtime_counts_, l.kind == LoopKind::with);
      // A foreach may loop to a bound computed in the kernel (`foreach y in X`).
      bounds = c_.expressions.counts(*l.bound, what::loop_bound, l.kind == LoopKind::foreach_);
    }
    if (l.indices.size() == 1 && bounds.size() > 1 && !l.tuple_name && !l.indices[0].range && !l.braced)
      one_name_for_all = true;
    // `with x in [4]`: a bound in brackets makes `x` a tuple of one index
    // for `#x` (`with x in 4` binds a plain index); elsewhere it is the index.
    bracketed_one = l.kind == LoopKind::with && l.indices.size() == 1 && !l.braced && !l.tuple_name &&
                    !l.indices[0].range && bounds.size() == 1 && std::holds_alternative<ShapeList>(l.bound->node);
    if (!one_name_for_all && l.indices.size() != bounds.size())
      fail(Rule::loop_index_count, l.bound->location,
           std::to_string(l.indices.size()) + " loop indices but the bound has " + std::to_string(bounds.size()) +
               " dimensions");
  } catch (const Abort&) {
    bounds.assign(l.indices.size(), Count{});
  }
  if (l.kind == LoopKind::with)
    for (std::size_t d = 0; d < bounds.size(); ++d)
      if (bounds[d].known == Known::now && bounds[d].value <= 0)
        fail(Rule::with_zero_extent, l.bound->location,
             "`" + text(*l.bound) + "` gives dimension " + std::to_string(d) + " of the `with` index the extent " +
                 std::to_string(bounds[d].value),
             "a `with ... in` bound needs at least one value per dimension; check the division that makes it");
  cx_.push();
  std::string names;
  Type tuple;
  tuple.kind = Kind::tuple;
  if (one_name_for_all) tuple = index_tuple(l.indices[0].name, bounds);
  for (std::size_t d = 0; d < l.indices.size() && !one_name_for_all; ++d) {
    const LoopIndex& index = l.indices[d];

    names += (d ? ", `" : "`") + index.name.name + "`";
    if (index.range) loop_range(index);
    Type t;
    t.kind = Kind::index;
    if (d < bounds.size() && bounds[d].known == Known::now) t.count = bounds[d].value;
    t.tuple_of_one = bracketed_one;
    if (index.name.name == "_") continue;  // reported above
    tuple.elements.push_back(define(index.name.name, t, Origin::loop_index, index.name.location, "foreach")->type);
  }
  if (l.tuple_name && l.tuple_name->name != "_")
    define(l.tuple_name->name, tuple, Origin::index_tuple, l.tuple_name->location, names);
  loop_extras(l);
  const bool several = l.kind == LoopKind::foreach_
                           ? std::exchange(cx_.loop_of_several_indices_, bounds.size() > 1)
                           : cx_.loop_of_several_indices_;
  if (l.kind == LoopKind::foreach_) ++cx_.loops_;
  nested(*l.body);
  if (l.kind == LoopKind::foreach_) --cx_.loops_;  // `with` only binds indices
  cx_.loop_of_several_indices_ = several;
  cx_.pop();
}

// `i` of `foreach i in [4, 8]` or `with i in [4, 8]`: one name for a tuple
// of indices, one per bound.
Type StatementChecker::index_tuple(const Identifier& name, const std::vector<Count>& bounds) {
  Type tuple;
  tuple.kind = Kind::tuple;
  for (const Count& b : bounds) {
    Type t;
    t.kind = Kind::index;
    if (b.known == Known::now) t.count = b.value;
    tuple.elements.push_back(t);
  }
  define(name.name, tuple, Origin::index_tuple, name.location, std::to_string(bounds.size()) + " loop indices");
  return tuple;
}

// `foreach x { }` iterates an index that an enclosing `with` binds (or the
// tuple of them); a parallel index or any other name has no bound to iterate.
void StatementChecker::unbounded_foreach_index(const Identifier& id) {
  try {
    const Symbol* sym = lookup(id.name);
    if (!sym) fail(Rule::unknown_name, id.location, "unknown name `" + id.name + "`", "");
    if (sym->origin == Origin::loop_index || sym->origin == Origin::index_tuple) return;
    const std::string what = "`foreach " + id.name + "` without `in` iterates an index that a `with` binds; ";
    if (sym->origin == Origin::parallel_index)
      fail(Rule::foreach_index, id.location, what + "`" + id.name + "` is an index of a parallel level",
           "a parallel index takes one value per thread; loop with `foreach i in [N]`, or bind it with "
           "`with " + id.name + " in [N]`", {describe(*sym)});
    fail(Rule::foreach_index, id.location, what + "`" + id.name + "` is not one",
         "give the loop bounds, `foreach i in [N]`, or name an index of an enclosing `with`", {describe(*sym)});
  } catch (const Abort&) {
  }
}

// ---- return ------------------------------------------------------------------------

void StatementChecker::return_statement(const Stmt& s, const Return& r) {
  if (cx_.device_function_) return device_function_return(s, r);
  if (cx_.parallel_depth_ > 0)
    fail(Rule::return_in_parallel, s.location, "`return` inside a parallel statement",
         "the function returns once, after its parallel statements; move the `return` out of the parallel body");
  if (!r.value) return;
  const auto* n = std::get_if<Name>(&r.value->node);
  const bool rank_only = is_rank_only(cx_.fn_.return_type);
  const TypeRef& type = cx_.fn_.return_type;
  const bool scalar_typed = type.kind == TypeKind::int_ || (type.kind == TypeKind::element && !type.has_shape && !type.rank);
  if ((!n || !cx_.has_output_ || n->name != cx_.out_.returned) &&
      (type.kind == TypeKind::auto_ || rank_only || scalar_typed)) {
    // Croqtile returns values and tensors to the host from `auto` functions
    // (and tensors from rank-only ones).
    cx_.placeholder_operand_ = true;  // an unfilled placeholder is reported as returned, below
    Type v;
    try {
      v = c_.expressions.expr(*r.value);
    } catch (const Abort&) {
      cx_.placeholder_operand_ = false;
      throw;
    }
    cx_.placeholder_operand_ = false;
    require_ok(v);
    // A function gives the host numbers and tensors; a future, an index, a
    // tuple or a shape lives only inside it.
    if (v.kind == Kind::future || v.kind == Kind::index || v.kind == Kind::tuple || v.kind == Kind::shape ||
        v.kind == Kind::event || v.kind == Kind::accumulator || v.kind == Kind::operand || v.kind == Kind::mma_future)
      fail(Rule::return_value, r.value->location,
           "`" + text(*r.value) + "` is " + kind_phrase(v.kind) + "; a function returns a number or a tensor",
           v.kind == Kind::future ? "return the tile: copy it into a tensor declared at function scope and return that"
                                  : "",
           notes_of(v));
    if (!rank_only && v.kind == Kind::scalar) return returned_number(*r.value);
    if (v.kind == Kind::tensor && v.buffer)
      fail(Rule::unsupported_return, r.value->location,
           "returning `" + text(*r.value) + "` is not supported yet by libcroqjit",
           "return a tensor declared at function scope, e.g. `s32 [x.span] out; ... return out;`", notes_of(v));
    if (rank_only)
      fail(Rule::return_value, r.value->location,
           "`" + text(*r.value) + "` is " + kind_phrase(v.kind) + "; the function returns a tensor (`" +
               cx_.fn_.return_type.name + " mdspan<" + text(*cx_.fn_.return_type.rank) + ">`)",
           "return a tensor declared at function scope", notes_of(v));
  }
  if (!n || !cx_.has_output_ || n->name != cx_.out_.returned)
    fail(Rule::return_value, r.value->location, "only a tensor declared in the function can be returned",
         cx_.has_output_ ? "" : "give the function a tensor return type, e.g. `__co__ s32 [M, N] f(...)`");
  Type v = c_.expressions.expr(*r.value);
  require_ok(v);
  if (!v.is_tile() || !v.buffer || !v.buffer->returned)
    fail(Rule::return_value, r.value->location, "only a tensor declared in the function can be returned",
         "declare it in the function body, e.g. `" + std::string(dtype_name(cx_.output_dtype_)) + " [...] " + n->name + ";`",
         notes_of(v));
}

// `return x + 1;`: the host program computes the number (src/host) and the
// call returns it (frontend::ast::returned_scalar).
void StatementChecker::returned_number(const Expr& value) {
  if (const TypeRef* tensor = returned_tensor_type(cx_.fn_))
    fail(Rule::return_value, value.location,
         "`" + cx_.fn_.name + "` returns the tensor `" + returned_name(cx_.fn_) + "` and the number `" + text(value) +
             "`; a function returns one or the other",
         "return the number in a tensor: store it with `" + returned_name(cx_.fn_) + ".at(...) = " + text(value) + ";`",
         {"the returned tensor's type is at " + std::to_string(tensor->location.line) + ":" +
          std::to_string(tensor->location.column)});
  const std::string what = "returning `" + text(value) + "` is not supported yet by libcroqjit";
  if (!is_host_expression(value))
    limitation(Rule::unsupported_return, value.location, what + ": the host computes a returned number from numbers, "
               "scalars, arguments and dims, and this value is read on the device",
               "store the value into a tensor declared at function scope and return that");
  else if (!host_program_ && !cx_.has_error_between(cx_.fn_.location, value.location.line))  // the error says it all
    limitation(Rule::unsupported_return, value.location, what + ": the host computes a returned number, and `" +
               cx_.fn_.name + "` has statements outside its parallel statements that only a kernel runs",
               "move the device work into a `parallel` statement");
}

// `y(start:end:stride)`: y from start below #y + end, stepping stride.
void StatementChecker::loop_range(const LoopIndex& index) {
  const auto* r = std::get_if<Range>(&index.range->node);
  if (!r) return;  // the parser makes ranges only
  for (const ExprPtr* part : {&r->start, &r->end}) {
    if (!*part) continue;
    Type v = c_.expressions.expr(**part);
    require_ok(v);
    if (!v.is_number() || v.is_float())
      fail(Rule::loop_range, (*part)->location, "the bounds of a loop range are integers, got `" + text(**part) + "`", "",
           notes_of(v));
  }
  if (!r->stride) return;
  const std::optional<std::int64_t> stride = c_.expressions.constant(*r->stride, "the stride of a loop range");
  if (stride && *stride <= 0)
    fail(Rule::loop_range, r->stride->location,
         "the stride of a loop range must be positive, got " + std::to_string(*stride));
}

// `apply {i, j} in acc.span` over an mma accumulator or a register fragment
// of the warpgroup: each thread visits the elements its registers hold.
bool MmaChecker::register_apply(const Loop& l) {
  const auto* m = l.bound ? std::get_if<Member>(&l.bound->node) : nullptr;
  const auto* n = m && m->kind == MemberKind::span && !m->has_args ? std::get_if<Name>(&m->object->node) : nullptr;
  const Symbol* sym = n ? lookup(n->name) : nullptr;
  if (sym && cx_.scope_ == Scope::thread) return thread_apply(*sym);  // check_frag.cpp
  if (!sym || !c_.levels.on_whole_warpgroups()) return false;
  const bool registers = sym->type.kind == Kind::accumulator || (sym->type.is_tile() && sym->type.buffer && sym->type.buffer->fragment);
  if (registers) note_row_partials(l);
  return registers;
}

}  // namespace croq::sema::detail
