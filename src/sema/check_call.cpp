// `call f(args)` of a __co_device__ function: a function written in
// Croqtile whose body runs where it is called, with its parameters bound to
// the arguments (lowering inlines it: src/lower/lower_call.cpp). The
// arguments are checked against the parameters here; the body is checked
// once per __co__ function, at its first call, as if it stood there (the level and
// thread set of the caller's statement), and its facts (names, buffers,
// copies) go into the kernel's CheckedFunction, which lowering reads when it
// inlines the body at every call.
#include <algorithm>

#include "frontend/frontend.hpp"
#include "sema/call_rules.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

void Context::enter_call_from(const Context& caller) {
  restore(caller.placement());
  region_ = caller.region_;
  group_levels_ = caller.group_levels_;
  grid_set_ = caller.grid_set_;
  cluster_open_ = caller.cluster_open_;
  clustered_ = caller.clustered_;
  regions_ = caller.regions_;
  inthreads_depth_ = caller.inthreads_depth_;
  parallel_depth_ = caller.parallel_depth_;
  cooperative_levels_ = caller.cooperative_levels_;
  launch_bound_ = caller.launch_bound_;
  launch_bound_at_ = caller.launch_bound_at_;
  block_threads_ = caller.block_threads_;
  block_threads_at_ = caller.block_threads_at_;
  parent_space_ = caller.parent_space_;
  needs_sm90_reported_ = caller.needs_sm90_reported_;
  needs_sm80_reported_ = caller.needs_sm80_reported_;
  asm_bytes_ = caller.asm_bytes_;
  kernel_shared_bytes_ = caller.kernel_shared_bytes_;
  calls_ = caller.calls_;
  device_function_ = true;
}

void Context::leave_call_into(Context& caller) const {
  caller.regions_ = regions_;
  caller.needs_sm90_reported_ = needs_sm90_reported_;
  caller.needs_sm80_reported_ = needs_sm80_reported_;
  caller.asm_bytes_ = asm_bytes_;
  caller.kernel_shared_bytes_ = kernel_shared_bytes_;
}

namespace {

// The first statement in `s` (itself included) that `want` picks.
template <typename Want>
const Stmt* find_statement(const Stmt& s, const Want& want) {
  if (want(s)) return &s;
  return std::visit(
      [&](const auto& n) -> const Stmt* {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Block>) {
          for (const auto& c : n.statements)
            if (const Stmt* found = c ? find_statement(*c, want) : nullptr) return found;
          return nullptr;
        } else if constexpr (std::is_same_v<T, If>) {
          const Stmt* found = n.then_branch ? find_statement(*n.then_branch, want) : nullptr;
          return found ? found : n.else_branch ? find_statement(*n.else_branch, want) : nullptr;
        } else if constexpr (requires { n.body; }) {
          return n.body ? find_statement(*n.body, want) : nullptr;
        } else {
          return nullptr;
        }
      },
      s.node);
}

bool returns_number(const TypeRef& t) {
  return (t.kind == TypeKind::int_ || t.kind == TypeKind::bool_ || t.kind == TypeKind::element) && !t.has_shape;
}

}  // namespace

void Checker::run_device_function(const Context& caller) {
  context.enter_call_from(caller);
  const Function& fn = context.fn_;
  context.push();
  define_parameters();
  const TypeRef& ret = fn.return_type;
  const auto* body = fn.body ? std::get_if<Block>(&fn.body->node) : nullptr;
  try {
    if (ret.kind != TypeKind::void_ && !returns_number(ret))
      context.fail(Rule::device_function_return, ret.location,
                   "`" + fn.name + "` returns `" + ret.name + (ret.has_shape ? " [...]" : "") +
                       "`; a __co_device__ function returns `void` or a number",
                   "write the result into a tensor parameter instead");
    if (!body) context.fail(Rule::device_function_body, fn.location, "`" + fn.name + "` has no body");
    if (const Stmt* p = find_statement(*fn.body, [](const Stmt& s) { return std::holds_alternative<Parallel>(s.node); }))
      context.fail(Rule::device_function_body, p->location,
                   "a parallel statement inside the __co_device__ function `" + fn.name + "`",
                   "a __co_device__ function runs where it is called, by the threads that call it; put the "
                   "parallel statement around the call");
    // One `return`, the last statement: the value the call gives.
    const Stmt* last = body->statements.empty() ? nullptr : body->statements.back().get();
    const bool last_returns = last && std::holds_alternative<Return>(last->node);
    if (const Stmt* early = find_statement(*fn.body, [&](const Stmt& s) {
          return std::holds_alternative<Return>(s.node) && &s != last;
        }))
      context.fail(Rule::device_function_return, early->location,
                   "`return` before the end of the __co_device__ function `" + fn.name + "`",
                   "a __co_device__ function returns once, as its last statement: keep the value in a `mutable` "
                   "scalar and return it at the end");
    if (ret.kind != TypeKind::void_ && !last_returns)
      context.fail(Rule::device_function_return, fn.location,
                   "`" + fn.name + "` returns `" + ret.name + "` but does not end with `return VALUE;`",
                   "end the function with `return` and its value");
  } catch (const Abort&) {
    context.pop();
    return;
  }
  for (const auto& s : body->statements) statements.statement(*s);
  context.pop();
}

// `return VALUE;` of a __co_device__ function: a number for its return type.
void StatementChecker::device_function_return(const Stmt& s, const Return& r) {
  const TypeRef& ret = cx_.fn_.return_type;
  if (ret.kind == TypeKind::void_) {
    if (r.value)
      fail(Rule::device_function_return, r.value->location,
           "`" + cx_.fn_.name + "` returns `void`; `return` takes no value here", "write `return;`");
    return;
  }
  if (!r.value)
    fail(Rule::device_function_return, s.location, "`" + cx_.fn_.name + "` returns `" + ret.name + "`; `return` needs a value");
  Type v = c_.expressions.expr(*r.value);
  require_ok(v);
  if (!v.is_number())
    fail(Rule::device_function_return, r.value->location,
         "`" + text(*r.value) + "` is " + kind_phrase(v.kind) + "; `" + cx_.fn_.name + "` returns a number (`" +
             ret.name + "`)",
         "", notes_of(v));
  if (v.is_float() && ret.kind != TypeKind::element)
    fail(Rule::device_function_return, r.value->location,
         "`" + text(*r.value) + "` is a float; `" + cx_.fn_.name + "` returns `" + ret.name + "`",
         "return an integer, or declare the function to return `f32`");
}

// Where a call of a `kind` function (__co_device__ or __device__) may stand:
// in a parallel body, and as a value only where it runs with its statement
// (`value_type`: the variable the hint computes it into).
void ExpressionChecker::call_placement(const SourceLocation& at, const std::string& callee, const char* kind,
                                       bool value_wanted, const std::string& value_type) {
  const std::string called = "`call " + callee + "`";
  if (cx_.parallel_depth_ == 0)
    fail(Rule::call_outside_parallel, at, called + " outside a parallel statement",
         std::string("a ") + kind + " function runs on the device; call it inside a parallel body");
  if (value_wanted && cx_.value_call_refused_)
    fail(Rule::call_placement, at,
         called + " as a value " + cx_.value_call_refused_ + ": the call would run once, before the statement",
         "compute it first: `mutable " + value_type + " v = call " + callee + "(...);`, then use `v`");
}

void ExpressionChecker::unknown_function(const SourceLocation& at, const std::string& callee) const {
  // Croqtile functions do not call each other (a __co__ function is a kernel program).
  if (const Function* co = cx_.program_.find_function(callee); co && !co->is_co_device)
    fail(Rule::call_co_function, at, "`" + callee + "` is a __co__ function; Croqtile functions cannot call other __co__ functions",
         "call a __co_device__ function, or move the shared work into one: `__co_device__ void " + callee + "(...)`");
  limitation(Rule::device_function_unknown, at,
             "`" + callee + "` is not a __device__ function of this source: libcroqjit calls the functions a source "
             "defines with `__device__` (in a `__cok__ { }` block too)",
             "define it in the source, with `__device__`, or write it in Croqtile as a __co_device__ function");
}

Type ExpressionChecker::device_call(const SourceLocation& at, const Function& callee, const ExprList& args,
                                    bool value_wanted) {
  call_placement(at, callee.name, "__co_device__", value_wanted,
                 callee.return_type.kind == TypeKind::void_ ? std::string("int") : callee.return_type.name);
  const std::string called = "`call " + callee.name + "`";
  if (value_wanted && callee.return_type.kind == TypeKind::void_)
    fail(Rule::call_no_value, at, "`" + callee.name + "` returns `void`; " + called + " has no value",
         "call it as a statement: `call " + callee.name + "(...);`");
  if (callee.is_template)
    fail(Rule::unsupported_call, at, "template __co_device__ functions are not supported yet by libcroqjit",
         "write the function for the types it is called with");
  if (args.size() != callee.params.size()) {
    std::string names;
    for (const Parameter& p : callee.params) names += (names.empty() ? "" : ", ") + p.name;
    fail(Rule::call_arity, at,
         "`" + callee.name + "` takes " + std::to_string(callee.params.size()) + " argument" +
             (callee.params.size() == 1 ? "" : "s") + " (" + names + "), got " + std::to_string(args.size()));
  }
  std::map<std::string, std::int64_t> dims;
  for (std::size_t i = 0; i < args.size(); ++i) device_call_argument(callee, i, *args[i], dims);
  auto& chain = cx_.calls_->chain;
  if (std::find(chain.begin(), chain.end(), &callee) != chain.end() || &callee == &cx_.fn_) {
    std::string path;
    for (const Function* f : chain) path += f->name + " -> ";
    fail(Rule::call_recursion, at, "`" + callee.name + "` calls itself (" + path + callee.name + ")",
         "a __co_device__ function is expanded where it is called; write the repetition as a loop");
  }
  // A trial (an inthreads.async condition per group index) keeps no facts,
  // so it does not expand the body either: the real check does.
  if (!cx_.trial_ && cx_.calls_->checked.insert(&callee).second) {
    chain.push_back(&callee);
    Checker body(cx_.program_, callee, cx_.options_, cx_.out_, cx_.diagnostics_, cx_.errors_, cx_.limitations_);
    body.run_device_function(cx_);
    body.context.leave_call_into(cx_);
    chain.pop_back();
  }
  Type v;
  v.kind = Kind::scalar;
  const TypeRef& ret = callee.return_type;
  DType dtype;
  v.number = ret.kind == TypeKind::bool_ ? Number::bool_
             : ret.kind == TypeKind::element && parse_dtype(ret.name, dtype) && is_floating(dtype) ? Number::float_
                                                                                                  : Number::int_;
  v.known = Known::at_run_time;
  return v;
}

void ExpressionChecker::device_call_argument(const Function& callee, std::size_t i, const Expr& arg,
                                             std::map<std::string, std::int64_t>& dims) {
  const Parameter& p = callee.params[i];
  const std::string what = "argument " + std::to_string(i + 1) + " of `call " + callee.name + "`";
  const std::string param = "`" + p.name + "` (`" + parameter_text(cx_.program_, p) + "`)";
  Type v = expr(arg);
  require_ok(v);
  if (!p.type.has_shape) {
    if (!v.is_number())
      fail(Rule::call_argument, arg.location,
           what + " is " + kind_phrase(v.kind) + " (`" + text(arg) + "`); parameter " + param + " is a number",
           v.kind == Kind::future ? "pass an element of its tile: `" + text(arg) + ".data.at(...)`" : "", notes_of(v));
    if (v.is_float() && p.type.kind != TypeKind::element)
      fail(Rule::call_argument, arg.location,
           what + " is a float (`" + text(arg) + "`); parameter " + param + " is an integer",
           "pass an integer, or declare the parameter `f32 " + p.name + "`", notes_of(v));
    return;
  }
  if (v.kind == Kind::future)
    fail(Rule::call_argument, arg.location,
         what + " is a future (`" + text(arg) + "`); parameter " + param + " is a tensor",
         "pass the future's tile: `" + text(arg) + ".data`", notes_of(v));
  if (v.kind != Kind::tensor)
    fail(Rule::call_argument, arg.location,
         what + " is " + kind_phrase(v.kind) + " (`" + text(arg) + "`); parameter " + param + " is a tensor", "",
         notes_of(v));
  require_selected(arg, v);
  if (v.pending != Pending::none)
    fail(Rule::call_argument, arg.location,
         what + " (`" + text(arg) + "`) is not placed yet; parameter " + param + " is a tensor",
         "place it with `.at(...)`");
  DType want;
  if (parse_dtype(p.type.name, want) && v.buffer && v.buffer->dtype != want)
    fail(Rule::call_argument, arg.location,
         what + " has " + std::string(dtype_name(v.buffer->dtype)) + " elements (`" + text(arg) + "`); parameter " +
             param + " takes " + std::string(dtype_name(want)),
         "", notes_of(v));
  if (v.rank != static_cast<int>(p.type.shape.size()))
    fail(Rule::call_argument, arg.location,
         what + " has rank " + std::to_string(v.rank) + " (`" + text(arg) + "`); parameter " + param + " has rank " +
             std::to_string(p.type.shape.size()),
         "", notes_of(v));
  for (std::size_t d = 0; d < p.type.shape.size() && d < v.dims.size(); ++d) {
    const auto* lit = std::get_if<IntegerLiteral>(&p.type.shape[d]->node);
    const auto* name = std::get_if<Name>(&p.type.shape[d]->node);
    if (name && name->name == "?") continue;  // a dim without a name takes any extent
    if (name && v.dims[d]) {  // lowering checks the extents known only once the kernel is specialized
      auto [it, first] = dims.emplace(name->name, *v.dims[d]);
      if (Verdict broken = call_dim_agrees(callee.name, name->name, it->second, *v.dims[d], d, text(arg)))
        fail(arg.location, *broken);
    }
    if (lit && v.dims[d] && static_cast<std::uint64_t>(*v.dims[d]) != lit->value)
      fail(Rule::call_argument, arg.location,
           what + " has extent " + std::to_string(*v.dims[d]) + " in dim " + std::to_string(d) + " (`" + text(arg) +
               "`); parameter " + param + " has " + std::to_string(lit->value),
           "", notes_of(v));
  }
}

}  // namespace croq::sema::detail
