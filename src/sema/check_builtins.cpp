// Builtin calls sema types: `select` among tiles or futures, and the
// __atomic_* read-modify-write operations (operand counts and targets).
#include <algorithm>

#include "frontend/builtins.hpp"
#include "frontend/lexer.hpp"
#include "sema/checker.hpp"
#include "support/checked_int.hpp"

namespace croq::sema::detail {

namespace {

std::string operand_text(const Type& t) {
  std::string s = t.kind == Kind::future ? (t.async ? "asynchronous future of " : "future of ") : "";
  if (!t.buffer) return s + "a tile";
  const char* space = t.buffer->space == Space::shared ? "shared" : t.buffer->space == Space::local ? "local" : "global";
  std::string extents;  // "[4, 2]" when every extent is a constant
  for (std::size_t d = 0; d < t.dims.size() && static_cast<int>(t.dims.size()) == t.rank; ++d) {
    if (!t.dims[d]) {
      extents.clear();
      break;
    }
    extents += (d ? ", " : "[") + std::to_string(*t.dims[d]);
  }
  const std::string shape = extents.empty() ? "rank-" + std::to_string(t.rank) : extents + "]";
  return s + space + " " + std::string(dtype_name(t.buffer->dtype)) + " " + shape;
}

}  // namespace

// select(i, a, b, ...): one of the operands, chosen at run time by `i`.
Type ExpressionChecker::select(const Expr& e, const Call& c) {
  if (c.args.size() < 3)
    fail(Rule::select_operands, e.location,
         "`select` takes a choice and at least two operands, got " + std::to_string(c.args.size()) + " arguments");
  const std::int64_t n = static_cast<std::int64_t>(c.args.size()) - 1;
  const Expr& factor = *c.args[0];
  Type f = expr(factor);
  require_ok(f);
  if (!f.is_number() || f.is_float())
    fail(Rule::select_factor, factor.location,
         "`select` chooses with an integer, got `" + text(factor) + "` (" + describe(f) + ")", "", notes_of(f));
  if (f.known_now() && (f.value < 0 || f.value >= n))
    fail(Rule::select_factor, factor.location,
         "`select` chooses among " + std::to_string(n) + " operands (0.." + std::to_string(n - 1) + "), got " +
             std::to_string(f.value));
  Type first;
  bool limited = false;  // one limitation per select, at the first operand it names
  for (std::size_t i = 1; i < c.args.size(); ++i) {
    Type v = expr(*c.args[i]);
    require_ok(v);
    if (!v.is_tile() || !v.buffer)
      fail(Rule::select_operands, c.args[i]->location,
           "`select` chooses between tiles or futures, got `" + text(*c.args[i]) + "`", "", notes_of(v));
    limited = limited || select_operand_limits(*c.args[i], v);
    if (i == 1) {
      first = v;
      continue;
    }
    bool same = v.kind == first.kind && v.rank == first.rank && v.buffer->dtype == first.buffer->dtype &&
                v.buffer->space == first.buffer->space && v.async == first.async;
    for (std::size_t d = 0; same && d < v.dims.size() && d < first.dims.size(); ++d)
      same = !v.dims[d] || !first.dims[d] || *v.dims[d] == *first.dims[d];  // extents, where both are constants
    if (!same)
      fail(Rule::select_operands, c.args[i]->location,
           "`" + text(*c.args[i]) + "` (" + operand_text(v) + ") differs from `" + text(*c.args[1]) + "` (" +
               operand_text(first) + ")",
           "the operands of `select` have one kind, element type, rank and memory");
  }
  first.from = nullptr;
  return first;
}

// Lowering points at the chosen operand's first element: each operand is a
// whole tile (a buffer, a future's, a slot of an array) that a copy
// completes with the block's barrier, not an mbarrier.
bool ExpressionChecker::select_operand_limits(const Expr& operand, const Type& v) {
  if (v.window || v.strided || v.pending != Pending::none) {
    limitation(Rule::unsupported_call, operand.location,
               "`select` among parts of tensors (`" + text(operand) + "`) is not supported yet by libcroqjit",
               "copy the part into a tile of its own first, or select the whole tensors");
    return true;
  }
  if (v.kind == Kind::future && v.engine == frontend::ast::Engine::tma) {
    limitation(Rule::unsupported_call, operand.location,
               "`select` among TMA futures (`" + text(operand) + "`) is not supported yet by libcroqjit",
               "wait for each future, then select their tiles: `select(i, a.data, b.data)`");
    return true;
  }
  return false;
}


namespace {

// The element types CUDA has each atomic for (atomicAdd, atomicCAS, ...).
bool atomic_takes(const std::string& op, DType t) {
  using D = DType;
  auto one_of = [t](std::initializer_list<D> types) { return std::find(types.begin(), types.end(), t) != types.end(); };
  if (op == "add") return one_of({D::s32, D::u32, D::u64, D::f32, D::f64, D::f16});
  if (op == "sub") return one_of({D::s32, D::u32});
  if (op == "exch") return one_of({D::s32, D::u32, D::u64, D::f32});
  if (op == "cas") return one_of({D::s32, D::u32, D::u64, D::u16});
  return one_of({D::s32, D::u32, D::s64, D::u64});  // min, max, and, or, xor
}

}  // namespace

// __atomic_add(x.at(i), v) and its kin: the first operand is an element of
// a shared or global tensor; __atomic_cas takes a compare value too. The
// value is the element's old value.
std::optional<Type> ExpressionChecker::atomic(const Expr& e, const Call& c, const std::string& name) {
  static const char* const binary[] = {"add", "sub", "exch", "min", "max", "and", "or", "xor"};
  const std::string op = name.substr(9);
  std::size_t want = 0;
  if (op == "cas") want = 3;
  for (const char* b : binary)
    if (op == b) want = 2;
  if (want == 0) return std::nullopt;  // another intrinsic: a call like any other
  if (c.args.size() != want)
    fail(Rule::atomic_arity, e.location,
         "`" + name + "` takes " + std::to_string(want) + " operands, got " + std::to_string(c.args.size()),
         want == 3 ? "`__atomic_cas(x.at(i), compare, value)`" : "`" + name + "(x.at(i), value)`");
  Type target = expr(*c.args[0]);
  require_ok(target);
  if (!target.element || !target.buffer)
    fail(Rule::atomic_operand, c.args[0]->location,
         "`" + name + "` updates an element of a tensor, got `" + text(*c.args[0]) + "`",
         "name the element: `" + name + "(x.at(i), ...)`", notes_of(target));
  if (target.buffer->space == Space::local)
    fail(Rule::atomic_operand, c.args[0]->location,
         "`" + name + "` updates an element of shared or global memory; `" + target.buffer->name + "` is local",
         "other threads cannot see a local tensor; update it with plain arithmetic", notes_of(target));
  const DType dtype = target.buffer->dtype;
  if (!atomic_takes(op, dtype))
    fail(Rule::atomic_type, c.args[0]->location,
         "`" + name + "` does not take " + std::string(dtype_name(dtype)) + " elements",
         "`__atomic_add` takes s32, u32, u64, f32, f64 and f16; `__atomic_sub` s32 and u32; `__atomic_exch` s32, "
         "u32, u64 and f32; `__atomic_cas` s32, u32, u64 and u16; the others s32, u32, s64 and u64");
  for (std::size_t i = 1; i < c.args.size(); ++i) {
    Type v = expr(*c.args[i]);
    require_ok(v);
    if (!v.is_number())
      fail(Rule::arithmetic_operand, c.args[i]->location,
           "`" + text(*c.args[i]) + "` is " + kind_phrase(v.kind) + "; `" + name + "` takes a number", "", notes_of(v));
  }
  // Its value is read once: inside a larger expression the generated code
  // could evaluate it twice or not at all.
  if (&e != cx_.atomic_site_)
    limitation(Rule::unsupported_call, e.location,
               "`" + name + "` inside a larger expression is not supported yet by libcroqjit",
               "make it a statement of its own, or the whole value of a declaration or an assignment");
  Type out;
  out.kind = Kind::scalar;
  out.number = is_floating(dtype) ? Number::float_ : Number::int_;
  out.known = Known::at_run_time;
  return out;
}

// print(...) and println(...): strings, numbers, shapes and tuples, printed
// one after the other (println ends the line). Only a statement of its own.
Type ExpressionChecker::print(const Expr& e, const Call& c) {
  const std::string name = text(*c.callee);
  for (const auto& arg : c.args) {
    if (const auto* s = std::get_if<StringLiteral>(&arg->node)) {
      string_literal(*arg, *s);
      continue;
    }
    // A tuple of indices prints as its values.
    const auto* n = std::get_if<Name>(&arg->node);
    const Symbol* sym = n ? lookup(n->name) : nullptr;
    Type v = sym && sym->origin == Origin::index_tuple ? sym->type : expr(*arg);
    require_ok(v);
    if (!v.is_number() && v.kind != Kind::shape && v.kind != Kind::tuple)
      fail(Rule::print_argument, arg->location,
           "`" + text(*arg) + "` is " + kind_phrase(v.kind) + "; `" + name + "` prints strings, numbers, shapes and tuples",
           v.is_tile() ? "print its elements: `" + name + "(" + text(*arg) + ".at(...))`" : "", notes_of(v));
  }
  if (&e != cx_.statement_expr_)
    fail(Rule::print_argument, e.location, "`" + name + "` is a statement of its own, not a value",
         "write `" + name + "(...);` on its own line");
  Type out;
  out.kind = Kind::scalar;
  out.known = Known::at_run_time;
  return out;
}

// A string's bytes are what the generated code prints: its escapes are
// checked here, not when a call first specializes the kernel.
void ExpressionChecker::string_literal(const Expr& e, const StringLiteral& s) {
  std::string problem;
  if (!frontend::string_value(s.spelling, &problem))
    fail(Rule::string_escape, e.location, "the string " + frontend::quote(s.spelling, 60) + " has " + problem,
         "libcroqjit takes C's escapes: \\n \\t \\r \\\\ \\\" \\' \\? \\a \\b \\f \\v, \\ooo and \\x00 to \\xff");
}

// __sqrt(x), __pow(x, y), __alignup(x, a), ...: numbers in; the value has
// the first operand's kind of number (upstream's rule), except __isfinite
// (a truth value). __alignup and __aligndown take integers and fold when
// both are known.
Type ExpressionChecker::math_builtin(const Expr& e, const Call& c, const frontend::MathBuiltin& b) {
  const std::string name(b.name);
  if (static_cast<int>(c.args.size()) != b.operands)
    fail(Rule::builtin_arity, e.location,
         "`" + name + "` takes " + std::to_string(b.operands) + (b.operands == 1 ? " operand" : " operands") + ", got " +
             std::to_string(c.args.size()));
  std::vector<Type> operands;
  for (const auto& arg : c.args) {
    Type v = expr(*arg);
    require_ok(v);
    if (!v.is_number() || (b.integers && v.is_float()))
      fail(Rule::arithmetic_operand, arg->location,
           "`" + text(*arg) + "` is " + (v.is_float() ? std::string("a float") : kind_phrase(v.kind)) + "; `" + name +
               "` takes " + (b.integers ? "integers" : "numbers"),
           "", notes_of(v));
    operands.push_back(v);
  }
  Type out;
  out.kind = Kind::scalar;
  out.known = Known::at_run_time;
  out.number = b.function == "isfinite" ? Number::bool_ : operands[0].is_float() ? Number::float_ : Number::int_;
  if (!b.integers) return out;
  const Type& x = operands[0];
  const Type& a = operands[1];
  const auto known = [](const Type& t) { return t.kind == Kind::scalar ? t.known : Known::at_run_time; };
  out.known = std::max(known(x), known(a));
  if (out.known != Known::now) return out;
  if (Verdict broken = align_multiple(name, a.value)) fail(c.args[1]->location, std::move(*broken));
  support::CheckedInt q = b.function == "alignup" ? support::checked_cdiv(x.value, a.value)
                                                  : support::checked_div(x.value, a.value);
  support::CheckedInt r = q.ok() ? support::checked_mul(q.value, a.value) : q;
  if (!r.ok()) fail(Rule::constant_arithmetic, e.location, "`" + text(e) + "` " + support::describe(r.fault));
  out.value = r.value;
  return out;
}

// `__bar_arrive(id, threads)` / `__bar_sync(id, threads)`: an arrival on
// PTX's named barrier `id`, which completes when `threads` threads have
// arrived; __bar_sync also waits for that. libcroqjit's own named barriers
// (inthreads.async regions, warpgroups) take 8..15 in a kernel that calls
// these, so the source has 0..7 (Croqtile's convention for user code).
Type ExpressionChecker::named_barrier(const Expr& e, const Call& c, const std::string& name) {
  const std::string called = "`" + name + "`";
  if (cx_.statement_expr_ != &e)
    fail(Rule::named_barrier, e.location, called + " is a statement, not a value", "write it on its own: `" + name + "(id, threads);`");
  if (cx_.parallel_depth_ == 0)
    fail(Rule::named_barrier, e.location, called + " outside a parallel statement",
         "a named barrier synchronizes threads of a block; use it inside a parallel body");
  if (c.args.size() != 2)
    fail(Rule::named_barrier, e.location,
         called + " takes 2 arguments (barrier id, thread count), got " + std::to_string(c.args.size()));
  std::optional<std::int64_t> values[2];
  for (std::size_t i = 0; i < 2; ++i) {
    const Expr& arg = *c.args[i];
    Type v = expr(arg);
    require_ok(v);
    if (!v.is_number() || v.is_float())
      fail(Rule::named_barrier, arg.location,
           std::string(i == 0 ? "the barrier id" : "the thread count") + " of " + called + " is an integer, got `" +
               text(arg) + "`",
           "", notes_of(v));
    if (v.known_now()) values[i] = v.value;
  }
  if (values[0] && (*values[0] < 0 || *values[0] > 15))
    fail(Rule::named_barrier, c.args[0]->location,
         "a block has named barriers 0..15, got " + std::to_string(*values[0]) + " (`" + text(*c.args[0]) + "`)");
  if (values[1] && (*values[1] <= 0 || *values[1] % 32 != 0))
    fail(Rule::named_barrier, c.args[1]->location,
         "the thread count of " + called + " is a positive multiple of 32 (whole warps), got " +
             std::to_string(*values[1]));
  if (values[0] && *values[0] > 7)
    limitation(Rule::unsupported_call, c.args[0]->location,
               "named barrier " + std::to_string(*values[0]) +
                   " is libcroqjit's own in a kernel that calls __bar_arrive or __bar_sync (its inthreads.async "
                   "regions and warpgroups take 8..15)",
               "use barrier ids 0..7");
  return Type{};
}

}  // namespace croq::sema::detail
