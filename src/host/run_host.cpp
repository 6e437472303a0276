// The host program's executor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "core/element_bytes.hpp"
#include "croq/error.hpp"
#include "host/host_program.hpp"
#include "support/checked_int.hpp"

namespace croq::host {

namespace {

// Host loops stop here: a host loop launches a kernel per iteration.
constexpr std::int64_t kMaxIterations = std::int64_t{1} << 31;

class Executor {
 public:
  Executor(const Program& program, const Hooks& hooks)
      : program_(program), hooks_(hooks), slots_(program.slots.size()) {
    for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].is_float = program.slot_is_float[i];
    slot_dtype_ = program.slot_dtype;
    slot_dtype_.resize(slots_.size());
  }

  void run(const StmtList& list) {
    for (const Stmt& s : list) {
      statement(s);
      if (finished_) return;
    }
  }

  // The value of the `return` that stopped the program, if it had one.
  std::optional<Value> result() const { return result_; }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw Error("`" + program_.function + "`: host code at line " + std::to_string(line) + ": " + what);
  }

  void statement(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::print: {
        std::string text;
        for (const Stmt::Part& p : s.parts) text += p.value ? value_text(eval(*p.value)) : p.text;
        hooks_.print(text);
        break;
      }
      case Stmt::Kind::assign: store(s.slot, eval(*s.value)); break;
      case Stmt::Kind::loop: {
        const Value bound = eval(*s.value);
        const std::int64_t n = bound.is_float ? static_cast<std::int64_t>(bound.f) : bound.i;
        if (n > kMaxIterations) fail(s.line, "a host loop of " + std::to_string(n) + " iterations (at most 2^31)");
        for (std::int64_t i = 0; i < n; ++i) {
          store(s.slot, Value{false, i, 0});
          run(s.body);
          if (finished_) break;
        }
        break;
      }
      case Stmt::Kind::branch: run(truth(eval(*s.value)) ? s.body : s.other); break;
      case Stmt::Kind::repeat:
        for (std::int64_t i = 0; truth(eval(*s.value)); ++i) {
          if (i == kMaxIterations) fail(s.line, "a host `while` loop of more than 2^31 iterations");
          run(s.body);
          if (finished_) break;
        }
        break;
      case Stmt::Kind::launch: hooks_.launch(s.kernel, slots_); break;
      case Stmt::Kind::finish:
        if (s.value) result_ = eval(*s.value);
        finished_ = true;
        break;
    }
  }

  void store(int slot, Value v) {
    Value& to = slots_[static_cast<std::size_t>(slot)];
    if (const std::optional<DType>& t = slot_dtype_[static_cast<std::size_t>(slot)]) to = converted(v, *t);
    else if (to.is_float) to.f = v.as_float();
    else to.i = v.is_float ? static_cast<std::int64_t>(v.f) : v.i;
  }

  static bool truth(const Value& v) { return v.is_float ? v.f != 0 : v.i != 0; }

  static Value integer(std::int64_t i) { return Value{false, i, 0}; }
  static Value floating(double f) { return Value{true, 0, f}; }

  Value eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::constant: return e.constant;
      case Expr::Kind::slot: return slots_[static_cast<std::size_t>(e.index)];
      case Expr::Kind::argument: return hooks_.argument(e.index);
      case Expr::Kind::dim: return integer(hooks_.dim(e.dim));
      case Expr::Kind::unary: return unary(e, eval(*e.operands[0]));
      case Expr::Kind::select: return truth(eval(*e.operands[0])) ? eval(*e.operands[1]) : eval(*e.operands[2]);
      case Expr::Kind::binary: return binary(e, eval(*e.operands[0]), eval(*e.operands[1]));
      case Expr::Kind::call: return call(e);
      case Expr::Kind::convert: return converted(eval(*e.operands[0]), e.to, e.operands[0]->is_u64);
    }
    return {};
  }

  static Value unary(const Expr& e, const Value& v) {
    if (e.op == "!") return integer(!truth(v));
    if (e.op == "~") return integer(~v.i);
    if (e.op == "-") return v.is_float ? floating(-v.f) : integer(static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(v.i)));
    return v;
  }

  Value call(const Expr& e) {
    const Value a = eval(*e.operands[0]);
    if (e.op == "__abs") {
      if (!a.is_float && a.i == INT64_MIN) fail(e.line, "__abs(" + std::to_string(a.i) + ") overflows 64 bits");
      return a.is_float ? floating(std::fabs(a.f)) : integer(a.i < 0 ? -a.i : a.i);
    }
    const Value b = eval(*e.operands[1]);
    if (e.op == "cdiv") {
      if (b.i == 0) fail(e.line, "cdiv by zero");
      if (a.i == INT64_MIN && b.i == -1) fail(e.line, "cdiv(" + std::to_string(a.i) + ", -1) overflows 64 bits");
      return integer(a.i / b.i + ((a.i % b.i != 0) && ((a.i < 0) == (b.i < 0)) ? 1 : 0));
    }
    const bool less = e.is_float ? a.as_float() < b.as_float() : a.i < b.i;
    const bool take_a = e.op == "__min" ? less : !less;
    if (e.is_float) return floating(take_a ? a.as_float() : b.as_float());
    return take_a ? a : b;
  }

  Value binary(const Expr& e, const Value& a, const Value& b) {
    const std::string& op = e.op;
    if (op == "&&") return integer(truth(a) && truth(b));
    if (op == "||") return integer(truth(a) || truth(b));
    const bool fp = a.is_float || b.is_float;
    if (op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=") {
      const auto cmp = [&](auto x, auto y) {
        return op == "<" ? x < y : op == ">" ? x > y : op == "<=" ? x <= y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
      };
      return integer(fp ? cmp(a.as_float(), b.as_float()) : cmp(a.i, b.i));
    }
    if (fp) {
      const double x = a.as_float(), y = b.as_float();
      if (op == "+") return floating(x + y);
      if (op == "-") return floating(x - y);
      if (op == "*") return floating(x * y);
      if (op == "/") return floating(x / y);
      fail(e.line, "`" + op + "` takes integers");
    }
    support::CheckedInt r;
    if (op == "+") r = support::checked_add(a.i, b.i);
    else if (op == "-") r = support::checked_sub(a.i, b.i);
    else if (op == "*") r = support::checked_mul(a.i, b.i);
    else if (op == "/") r = support::checked_div(a.i, b.i);
    else if (op == "%") r = support::checked_mod(a.i, b.i);
    else if (op == "&") r.value = a.i & b.i;
    else if (op == "|") r.value = a.i | b.i;
    else if (op == "^") r.value = a.i ^ b.i;
    else if (op == "<<" || op == ">>") {
      if (b.i < 0 || b.i > 63) fail(e.line, "a shift by " + std::to_string(b.i));
      r.value = op == "<<" ? static_cast<std::int64_t>(static_cast<std::uint64_t>(a.i) << b.i) : a.i >> b.i;
    }
    if (!r.ok()) fail(e.line, std::to_string(a.i) + " " + op + " " + std::to_string(b.i) + " " + support::describe(r.fault));
    return integer(r.value);
  }

  const Program& program_;
  const Hooks& hooks_;
  std::vector<Value> slots_;
  std::vector<std::optional<DType>> slot_dtype_;
  bool finished_ = false;
  std::optional<Value> result_;
};

}  // namespace

Value converted(const Value& v, DType to, bool unsigned_64) {
  if (is_floating(to)) {
    const double d = v.is_float ? v.f
                     : unsigned_64 ? static_cast<double>(static_cast<std::uint64_t>(v.i))
                                   : static_cast<double>(v.i);
    return Value{true, 0, detail::rounded_to(to, d)};
  }
  if (!v.is_float) return Value{false, detail::wrapped_to(to, v.i), 0};
  // A float saturates at the integer type's range (the device's cvt.rzi).
  const int bits = std::min(dtype_bits(to), 64);
  double d = v.f;
  if (bits < 64) {
    const double hi = is_signed_integer(to) ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    const double lo = is_signed_integer(to) ? -std::ldexp(1.0, bits - 1) : 0;
    d = std::isnan(d) ? 0 : std::clamp(d, lo, hi);
  }
  return Value{false, detail::wrapped_to(to, detail::truncated_integer(d, to == DType::u64)), 0};
}

std::string value_text(const Value& v) {
  if (!v.is_float) return std::to_string(v.i);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", v.f);
  return buf;
}

std::optional<Value> run(const Program& program, const Hooks& hooks) {
  Executor executor(program, hooks);
  executor.run(program.body);
  std::optional<Value> result = executor.result();
  if (program.result && !result)
    throw Error("`" + program.function + "` ended without returning a value (its result is a number)");
  return result;
}

}  // namespace croq::host
