// Builtin calls sema types: `select` among tiles or futures, and the
// __atomic_* read-modify-write operations (operand counts and targets).
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

std::string operand_text(const Type& t) {
  std::string s = t.kind == Kind::future ? (t.async ? "asynchronous future of " : "future of ") : "";
  if (!t.buffer) return s + "a tile";
  const char* space = t.buffer->space == Space::shared ? "shared" : t.buffer->space == Space::local ? "local" : "global";
  return s + space + " " + std::string(dtype_name(t.buffer->dtype)) + " rank-" + std::to_string(t.rank);
}

}  // namespace

// select(i, a, b, ...): one of the operands, chosen at run time by `i`.
Type Checker::select(const Expr& e, const Call& c) {
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
  for (std::size_t i = 1; i < c.args.size(); ++i) {
    Type v = expr(*c.args[i]);
    require_ok(v);
    if (!v.is_tile() || !v.buffer)
      fail(Rule::select_operands, c.args[i]->location,
           "`select` chooses between tiles or futures, got `" + text(*c.args[i]) + "`", "", notes_of(v));
    if (i == 1) {
      first = v;
      continue;
    }
    const bool same = v.kind == first.kind && v.rank == first.rank && v.buffer->dtype == first.buffer->dtype &&
                      v.buffer->space == first.buffer->space && v.async == first.async;
    if (!same)
      fail(Rule::select_operands, c.args[i]->location,
           "`" + text(*c.args[i]) + "` (" + operand_text(v) + ") differs from `" + text(*c.args[1]) + "` (" +
               operand_text(first) + ")",
           "the operands of `select` have one kind, element type, rank and memory");
  }
  limitation(Rule::unsupported_call, e.location, "`select` is not supported yet by libcroqjit");
  first.from = nullptr;
  return first;
}


// __atomic_add(x.at(i), v) and its kin: the first operand is an element of
// a tensor; __atomic_cas takes a compare value too.
void Checker::atomic(const Expr& e, const Call& c, const std::string& name) {
  static const char* const binary[] = {"add", "sub", "exch", "min", "max", "and", "or", "xor"};
  const std::string op = name.substr(9);
  std::size_t want = 0;
  if (op == "cas") want = 3;
  for (const char* b : binary)
    if (op == b) want = 2;
  if (want == 0) return;  // another intrinsic: a call like any other
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
}

// The math builtins (__sqrt(x), __pow(x, y), __fmaf(a, b, c), ...): each
// takes its number of operands, numbers; other `__` names are left alone.
void Checker::math_builtin(const Expr& e, const Call& c, const std::string& name) {
  static const char* const unary[] = {"acos", "asin",  "atan",    "ceil",  "cos",   "cosh",  "exp",      "exp2f",
                                      "expm1", "fabs", "frcp_rn", "floor", "gelu",  "isfinite", "round", "rsqrt",
                                      "sigmoid", "sinh", "softplus", "sqrt", "tan",  "log1p", "log",   "sign",
                                      "sin",  "tanh"};
  static const char* const binary[] = {"atan2", "max", "min", "pow", "alignup", "aligndown"};
  const std::string op = name.substr(2);
  std::size_t want = 0;
  for (const char* u : unary)
    if (op == u) want = 1;
  for (const char* b : binary)
    if (op == b) want = 2;
  if (op == "fmaf") want = 3;
  if (want == 0) return;
  if (c.args.size() != want)
    fail(Rule::math_arity, e.location,
         "`" + name + "` takes " + std::to_string(want) + (want == 1 ? " operand" : " operands") + ", got " +
             std::to_string(c.args.size()));
  for (const ExprPtr& arg : c.args) {
    Type v = expr(*arg);
    require_ok(v);
    if (!v.is_number())
      fail(Rule::math_arity, arg->location,
           "`" + name + "` takes numbers, got `" + text(*arg) + "` (" + kind_phrase(v.kind) + ")",
           v.is_tile() ? "apply it to elements: `" + name + "(x.at(i))`" : "", notes_of(v));
  }
}

}  // namespace croq::sema::detail
