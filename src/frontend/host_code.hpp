// The host part of a __co__ function: Croqtile's model is a host program
// whose `parallel` statements are launches. The statements outside every
// parallel statement ("host level": the body, and the blocks, `foreach`,
// `while` and `if` around the launches) run on the CPU; each parallel
// statement there is a kernel, launched once each time the host reaches it.
//
// Sema, the lowering of the kernels and the lowering of the host program
// (src/host) read the host part's shape here, so they agree on which
// statements are host code and on the numbering of the host's scalars.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "croq/dtype.hpp"
#include "frontend/ast.hpp"

namespace croq::frontend::ast {

// Whether `fn` is a host program: every statement at host level is one the
// host runs (host_statement_problem), and some statement there is host work
// of its own (print/println, an assignment to a `mutable` scalar, a loop or
// branch around a parallel statement) or device work or another statement
// than a declaration or `return` stands beside two or more parallel
// statements. Other functions keep
// what they did before host programs: their top-level parallel statements
// are kernels launched in order (one kernel, the host level included, when
// there is at most one), and a program's host statements are the
// limitation program-host-statement.
bool is_host_program(const Function& fn);

// The parallel statements at host level and, in a host program, its device
// work (is_host_device_work), in source order: kernel k of a host program
// is launches(fn)[k].
std::vector<const Stmt*> launches(const Function& fn);

// A scalar of the host: a declaration at host level (`int n = 4;`,
// `mutable f32 s = 0.0f;`), the index of a host `foreach` or a name a host
// `with` bounds (`x` and `y` of `with index = {x, y} in [n, m]`; 0 outside
// a `foreach` of it). Slot i of a
// host program is host_scalars(fn)[i], in source order.
struct HostScalar {
  std::string name;
  const void* site = nullptr;  // the Declarator or the loop's Identifier
  bool is_float = false;       // declared with a floating type, or from a floating initializer
  // A declaration of the body's own block that is immutable and computed
  // from arguments, dims and other such scalars only: each kernel also
  // computes it (as every function did before host programs), so kernels
  // do not take it as a parameter.
  bool replicated = false;
  // Declared with an element type (`u8 b = ...;`): what is stored converts to it.
  std::optional<DType> dtype;
};
std::vector<HostScalar> host_scalars(const Function& fn);

// Device work at host level: an element store into a tensor
// (`out.at(i) = v;`, `t.at(i, j) += v;`) or a synchronous copy between
// tensors (`dma.copy a => b;`, `dma.copy a.chunkat(i) => b.chunkat(i);`).
// In a host program each runs as a kernel of its own (one thread), launched
// in order with the others (launches(fn) lists it).
bool is_host_device_work(const Stmt& s);

// Why device work `s` at host level of `fn` cannot run as a kernel of its
// own (a store into or copy of a tensor declared in shared or local memory
// there, which no other kernel sees); empty when it can.
std::string host_device_work_problem(const Function& fn, const Stmt& s);

// Why `s`, a statement at host level of a host program, cannot run on the
// host (`what` in "... is not supported in host code yet"); empty when it can.
// Nested statements are asked on their own.
// `between_kernels`: the function has two or more parallel statements at
// host level (host_parallel_count), between which a `with` of host code
// alone runs on the host.
std::string host_statement_problem(const Stmt& s, bool between_kernels = false);
int host_parallel_count(const Function& fn);

// The first statement at host level of `fn` (in source order, parents
// first) that the host cannot run (host_statement_problem, or device work
// host_device_work_problem refuses), and why; `at` null when none. One
// makes `fn` no host program.
struct HostProblem {
  const Stmt* at = nullptr;
  std::string what;
};
HostProblem host_program_blocker(const Function& fn);
// The same within statement `s` of `fn` (`s` itself first).
HostProblem first_host_problem(const Function& fn, const Stmt& s, bool between_kernels);

// One binding of a host `with` (`with index = {x, y} in [n, m]`, `with x in
// n`, and each after a `,`): its names and its bound.
struct WithBinding {
  const Identifier* tuple_name = nullptr;  // `index`; null when not written
  const std::vector<LoopIndex>* indices = nullptr;
  bool braced = false;
  const Expr* bound = nullptr;
};
std::vector<WithBinding> with_bindings(const Loop& l);
// The extent of each index of `b`: the dims of `[n, m]`, or `n` itself.
std::vector<const Expr*> with_extents(const WithBinding& b);
// One host scalar a binding bounds: an index name, or for `with index in
// [n, m]` (one name, no element names) each unnamed element
// (`index__elem__0`, ...; its site is its extent), which `foreach index`
// loops over.
struct WithElement {
  std::string name;
  const void* site = nullptr;
  SourceLocation location;
  const Expr* extent = nullptr;
};
std::vector<WithElement> with_elements(const WithBinding& b);
// The name that stands for all of `b`'s elements in a `foreach`: `index` of
// `with index = {x, y} in ...` and of `with index in [n, m]`; else null.
const Identifier* with_tuple_name(const WithBinding& b);

// Whether `e` is an expression the host computes: numbers, names, unary and
// binary arithmetic, comparisons, `?:`, `__min`, `__max`, `cdiv`,
// `__abs`, `__to<T>(x)`, `x.span(d)`, `|x|` and `|x.span|`.
bool is_host_expression(const Expr& e);
// The element type `__to<T>(x)` converts to; none for a foreign type.
std::optional<DType> converted_dtype(const Convert& c);
// `x` of `|x|` or `|x.span|` (the element count of a tensor argument); else null.
const Name* element_count_of(const Expr& e);

// A number the function returns to the application (`return x + 1;` in an
// `auto` or scalar-typed function): the value of the first `return` at
// host level that is not a tensor (not the returned tensor's name, and
// not the name of a tensor, tuple, future or event); null when none. The
// host program computes it (src/host) and the call returns it as a rank-0
// tensor of returned_scalar_dtype.
const Expr* returned_scalar(const Function& fn);
// Its element type as Croqtile's C++ types it: a scalar-typed function's
// return type; else integers s32 (s64 when a 64-bit operand takes part),
// floats f32 (f64 when a `double`/`f64` or an unsuffixed literal does),
// comparisons s32.
DType returned_scalar_dtype(const Function& fn);

// `print(...)` / `println(...)` as a statement: the call, else null.
const Call* print_call(const Stmt& s);
// `print!(...)` / `println!(...)`: printed while compiling, nothing at run
// time; in host code a statement with no effect.
bool is_compile_time_print(const Stmt& s);

}  // namespace croq::frontend::ast
