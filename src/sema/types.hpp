// Sema's shape-independent types: what kind of value an expression is,
// with the facts that hold for every call (element type, rank, memory
// space, constant values), never the extents of tensors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "croq/dtype.hpp"
#include "frontend/ast.hpp"

namespace croq::sema {

enum class Kind : std::uint8_t {
  error,        // an expression that already has a diagnostic: accepted everywhere, silently
  scalar,       // int, float or bool value
  index,        // a bounded index: a parallel or loop variable, `a # b`, `i + 1`
  tensor,       // a tensor, a tile of one, or a buffer
  shape,        // x.span, [M, N]
  future,       // the result of a copy
  event,        // shared event e[N]
  accumulator,  // mma.fill's result
  operand,      // mma.load's result
  tuple,        // {a, b}
  mma_future,   // `f = mma.row.row.async acc, a, b;`: only waited on
};

enum class Number : std::uint8_t { int_, float_, bool_, unknown };

// When a scalar's value is known: now (a constant of the source), once the
// kernel is specialized (symbolic dims), or only on the device.
enum class Known : std::uint8_t { now, at_specialization, at_run_time };

enum class Space : std::uint8_t { global, shared, local };

// subspan(...) and view(...) wait for .at / .from to place them.
enum class Pending : std::uint8_t { none, subspan, view };

// Storage of a tensor: a parameter, the returned tensor, a declaration, or
// the destination a copy allocates. Tiles and views point at their buffer.
struct Buffer {
  std::string name;
  DType dtype = DType::f32;
  int rank = 0;
  Space space = Space::global;
  int parameter = -1;     // 0-based parameter index; -1: not a parameter
  bool returned = false;  // the function's returned tensor
  bool declared_global = false;  // says `global` (parameters without it are global by default)
  bool is_array = false;  // shared T [..] name[N]: a ring of N buffers
  std::optional<std::int64_t> slots;  // N when it is a constant
  // `b[2][3]` (an array of arrays, a limitation): each dimension's size.
  std::vector<std::optional<std::int64_t>> array_dims;
  // Shared tiles: the byte span of the `.swiz<N>` layout its first writer
  // or reader fixed (0: plain); -1: not fixed yet. Tracked in source order,
  // as lowering does.
  int swizzle = -1;
  frontend::ast::SourceLocation where;
  bool fragment = false;  // `frag`: a register tile spread over the threads of its level
  // A declared tensor's shape as written: the shape operands (`[M, 64]`,
  // `[a.span]`), which lowering evaluates once the dims are bound, and the
  // extents they give that are constants of the source (nullopt: known at
  // specialization).
  std::vector<const frontend::ast::Expr*> shape;
  std::vector<std::optional<std::int64_t>> dims;
  // `{v}`: the value every element starts with, a constant of the source
  // (an integer exactly, else a float); nullopt: no initializer.
  struct Initial {
    bool integral = true;
    std::int64_t integer = 0;
    double floating = 0;
    // A value computed at run time (`shared s8 [4, 8] t{x};` with `x` a
    // scalar parameter): each kernel evaluates it where the tensor is
    // declared (shared and local tensors only); the constant fields unused.
    const frontend::ast::Expr* computed = nullptr;
  };
  std::optional<Initial> initial;
};

// shared event e[N]
struct EventArray {
  std::string name;
  bool is_array = false;
  std::optional<std::int64_t> count;  // N when it is a constant (1 without [N])
  int dimensions = 1;                  // `e[2][3]`: 2
  // The sizes of the dimensions after the first (`e[2][3]`: 3), each when a
  // constant: `[i]` checks its index against the size of the next one.
  std::vector<std::optional<std::int64_t>> inner_counts;
  // Arrivals per phase as the first trigger fixed them ("4", "blockDim.x").
  std::string arrivals;
  bool ready = false;  // `= ready`: every barrier starts as if completed once (the first wait passes)
  // `global event`: counts in global memory (lowered by lower_events.cpp), not mbarriers.
  bool global = false;
  // `local event`: each thread's own counts, which only its triggers add to.
  bool local = false;
  // `[N]` as written (null without one): lowering evaluates it when N is known only at specialization.
  const frontend::ast::Expr* count_expr = nullptr;
  frontend::ast::SourceLocation first_trigger;
  // `trigger.cluster e` (every block of the cluster arrives on each block's
  // e) or a plain `trigger e`: one event takes one kind, at the first site.
  enum class Scope { unknown, block, cluster } scope = Scope::unknown;
  frontend::ast::SourceLocation first_scope_site;
};

// acc = mma.fill.f32 0.0f
struct Accumulator {
  std::string name;
  DType dtype = DType::f32;
  bool written = false;  // an mma has accumulated into it (in source order)
  // Each warp's own (filled in a `: group` level, or at block scope for the
  // `: group` levels below): warp-level mma.sync, any tile shape and type.
  bool warp = false;
  // `frag mc[2][3] {0.0f}`: an array of accumulators; its sizes, when constants.
  std::vector<std::optional<std::int64_t>> array_dims;
};

struct Symbol;

struct Type {
  Kind kind = Kind::error;
  // scalar and index
  Number number = Number::int_;
  Known known = Known::at_run_time;
  std::int64_t value = 0;   // known == now (bool: 0 or 1)
  bool element = false;     // read from a tensor element
  bool immutable = false;   // a named scalar declared without `mutable` (a `const` in CUDA)
  // Integers: the values it can take, [lo, hi], when bounded indices and
  // constants determine them (halo and stage arithmetic: `p - 1`, `k % 2`).
  std::optional<std::pair<std::int64_t, std::int64_t>> range;
  // index: how many values it takes, when that is a constant
  std::optional<std::int64_t> count;
  Known count_known = Known::at_specialization;
  bool tuple_of_one = false;  // `with x in [4]`: `#x` is a tuple, not an extent
  // Derived from a `??` dim (scalars), or which dims are `??` ones (tiles, a bit each).
  bool unbounded = false;
  std::uint32_t unbounded_dims = 0;
  // tensor, future, operand: the tile
  Buffer* buffer = nullptr;
  int rank = 0;             // also shape
  // tensor, future: the tile's extents where the source makes them constants
  // (`s32 [64, 32] a`, `a.subspan(16, 8)`); empty, or nullopt dims, when not.
  std::vector<std::optional<std::int64_t>> dims;
  Pending pending = Pending::none;
  // A pending subspan or view: the extents it tiles (constants as for
  // dims), and whether `.step` spaced its tiles.
  std::vector<std::optional<std::int64_t>> tiled;
  bool stepped = false;
  // A pending `.modspan(m...)`: the m of each dim (its tiles start at
  // multiples of m; dims holds the remainders), nullopt where not constant.
  std::vector<std::optional<std::int64_t>> modulus;
  bool window = false;      // placed inside a larger tensor (chunkat, .at of a subspan, .from)
  bool strided = false;     // a view with explicit strides (`.view(e : s)`), or a tile of one
  bool slot_selected = false;
  int selected = 0;  // the dims of an array of arrays indexed so far
  bool zfill = false;
  // future
  bool async = false;
  bool placeholder = false;  // `f = dma.any;` that no copy has filled yet
  bool refillable = false;   // declared by dma.any: later copies may fill it again
  frontend::ast::Engine engine = frontend::ast::Engine::dma;
  const frontend::ast::Expr* bound_event = nullptr;  // .async<e>
  // event
  EventArray* event = nullptr;
  bool event_selected = false;
  // accumulator
  Accumulator* accumulator = nullptr;
  std::size_t selected_dims = 0;  // of an array of accumulators: the dims `[i]` has selected
  // operand: the span mma.load was told
  int swizzle = 0;
  // tuple
  std::vector<Type> elements;
  // The named symbol this value was derived from, for notes.
  const Symbol* from = nullptr;

  bool is_error() const { return kind == Kind::error; }
  bool is_tile() const { return kind == Kind::tensor || kind == Kind::future; }
  bool is_number() const { return kind == Kind::scalar || kind == Kind::index; }
  bool is_float() const { return kind == Kind::scalar && number == Number::float_; }
  // An element of an fp8, tf32, scale-type or sub-byte tensor (element
  // reads keep their buffer): types the device has no registers of.
  bool is_narrow_element() const { return kind == Kind::scalar && element && buffer && computes_widened(buffer->dtype); }
  bool known_now() const { return kind == Kind::scalar && known == Known::now; }
  // Whether a `??` dim shows in it: a scalar derived from one, or an element
  // of a shape or tuple that is.
  friend bool from_unbounded(const Type& t) {
    if (t.unbounded) return true;
    for (const Type& e : t.elements)
      if (from_unbounded(e)) return true;
    return false;
  }
};

// Where a symbol came from, for the derivation notes.
enum class Origin : std::uint8_t {
  parameter, symbolic_dim, declaration, copy_future, mma_result, parallel_index, loop_index, binding, index_tuple,
};

struct Symbol {
  std::string name;
  Type type;
  Origin origin = Origin::declaration;
  frontend::ast::SourceLocation where;
  int parameter = -1;          // parameters and symbolic dims: which parameter (0-based)
  std::string detail;          // parameters: the type as written; loops/levels: the statement kind
};

// "f16", or "an unknown element type".
std::string dtype_text(const Buffer& b);
// "s32 tensor of rank 2 in global memory", "int constant 4", "event array", ...
std::string describe(const Type& t);
// "`lhs` is parameter 1, global f16 [M, K] (rank 2)" and the like.
std::string describe(const Symbol& s);
// `what` with its article: "an index", "a future".
std::string kind_phrase(Kind k);

}  // namespace croq::sema
