// The host program of a __co__ function (frontend/host_code.hpp says which
// statements are host code): what a call runs on the CPU around its kernels.
// lower_host() makes it from a bound function; run() executes it, calling
// back for each launch and each printed text, so the GPU runtime and the
// interpreter (src/api) run the same host program.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "bind/bind.hpp"

namespace croq::host {

// A host scalar's value: a 64-bit integer or a double.
struct Value {
  bool is_float = false;
  std::int64_t i = 0;
  double f = 0;
  double as_float() const { return is_float ? f : static_cast<double>(i); }
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;
struct Expr {
  enum class Kind { constant, slot, argument, dim, unary, binary, select, call, convert } kind = Kind::constant;
  Value constant;             // constant
  int index = -1;             // slot: the host scalar; argument: the call's scalar argument
  abi::DimSource dim;         // dim: a dynamic dim's extent
  std::string op;             // unary, binary ("+", "<", "&&" ...), call ("__min", "__max", "cdiv", "__abs")
  std::vector<ExprPtr> operands;
  bool is_float = false;      // the value's type
  // convert: the operand as a `to` (`__to<T>(x)`); `is_u64`: the value is a
  // u64 (a slot declared so, a conversion to it), its bits in Value::i.
  DType to = DType::s64;
  bool is_u64 = false;
  int line = 0;               // where it is written (errors such as a division by zero)
};

struct Stmt;
using StmtList = std::vector<Stmt>;
struct Stmt {
  // print: `parts` in order (a part with no value is its text);
  // assign: slot `slot` = value; loop: slot `slot` in [0, value) over `body`;
  // branch: `body` when value is true, else `other`; repeat: `body` while
  // value is true (`while`); launch: kernel `kernel`; finish: the program
  // stops (`return`), its result `value` when the function returns a number.
  enum class Kind { print, assign, loop, branch, repeat, launch, finish } kind = Kind::print;
  struct Part {
    std::string text;
    ExprPtr value;
  };
  std::vector<Part> parts;
  int slot = -1;
  ExprPtr value;
  StmtList body, other;
  int kernel = -1;
  int line = 0;
};

struct Program {
  std::string function;            // the __co__ function, for messages
  std::vector<std::string> slots;  // the host scalars' names, by slot
  std::vector<bool> slot_is_float;  // a slot keeps its type: what is assigned converts to it
  // A slot declared with an element type: what is assigned converts to that
  // (rounded to its precision, wrapped to its width), as in Croqtile's C++.
  std::vector<std::optional<DType>> slot_dtype;
  StmtList body;
  // The element type of the number the function returns (a rank-0 result,
  // frontend::ast::returned_scalar); none when it returns none.
  std::optional<DType> result;
  // Whether the program only launches kernels 0..n-1 in order (a function
  // that is not a host program): callers take their direct path.
  bool launches_only = true;
};

// The host program of `bound` with `kernels` kernels. A function that is
// not a host program gives launches 0..kernels-1 (launches_only). Throws
// CompileError at the construct for what the host cannot compute.
Program lower_host(const bind::BoundFunction& bound, int kernels);

// What the executor asks of its caller.
struct Hooks {
  std::function<Value(int argument)> argument;                  // a scalar argument of the call
  std::function<std::int64_t(const abi::DimSource&)> dim;       // a dynamic dim's extent
  std::function<void(int kernel, std::span<const Value> slots)> launch;
  std::function<void(std::string_view text)> print;
};

// Runs `program`; an Error (with the source line) for a division by zero
// or a host loop (`foreach` or `while`) of more than 2^31 iterations.
// Returns the number the program returned (Program::result), else none.
std::optional<Value> run(const Program& program, const Hooks& hooks);

// `v` converted to `to` as the device converts: rounded to a float type's
// precision; an integer wrapped to an integer type's width, a float
// truncated toward zero and saturated at its range. `unsigned_64`: `v`
// holds a u64's bits.
Value converted(const Value& v, DType to, bool unsigned_64 = false);

// The text a print part shows for `v` (as the device's printf: %lld, %f).
std::string value_text(const Value& v);

}  // namespace croq::host
