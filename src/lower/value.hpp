// The values lowering passes around: a window into a buffer (View) and what
// an expression lowers to (Value). Not an interface.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/builder.hpp"

namespace croq::lower::detail {

using ir::ExprRef;

// A rectangular window into a buffer: element (i...) is buffer element
// (origin + i...). `exact`: the window never reaches past the buffer.
struct View {
  int buffer = -1;
  std::vector<ExprRef> origin;
  // origin[d] is a known multiple of origin_multiple[d] (0: the origin is
  // exactly 0; a missing entry: nothing is known unless origin[d] is 0).
  std::vector<std::int64_t> origin_multiple;
  std::vector<std::int64_t> extent;  // -1: a dynamic dim
  // Per dim, a runtime extent (`view(1, X)` with X computed in the kernel):
  // elements at index >= limit[d] are not in the window, whose static
  // extent[d] bounds it. Empty or null: none.
  std::vector<ExprRef> limit;
  bool exact = true;
  // subspan(...) / view(...) wait for .at / .step / .from to place them.
  enum class Pending { none, subspan, view } pending = Pending::none;
  std::vector<std::int64_t> step;
  // A pending `.view(e : s)`: its strides, in elements of the buffer's
  // storage (empty: none; `.from` makes a strided pointer of them).
  std::vector<std::int64_t> strides;
  // A pending subspan of a window: the window's extents, which its tiles
  // stay inside to be exact (empty: the buffer's dims).
  std::vector<std::int64_t> parent;
  // A pending `.modspan`: where each dim's remainder starts (the extent
  // rounded down to the step), its placement when no `.at` places it.
  std::vector<std::int64_t> remainder_at;
  ExprRef slot;  // arrays of buffers: which one; null: not selected yet
  // An array of arrays (`s[4][2]`, one ring of 8 slots): the sizes of the
  // dims `[i]` has still to select, the first next; `slot` so far is the
  // flat index of the part selected (row-major).
  std::vector<std::int64_t> array_left;
};

// A runtime integer derived from a dynamic dim: dim, cdiv(dim, divisor) or
// dim / divisor. Enough to size a grid or bound a loop at launch.
struct DynamicCount {
  std::string dim;
  std::int64_t divisor = 1;
  bool ceil = false;
};

struct Value {
  enum class Kind { scalar, index, view, shape, future, tuple, event, accumulator, operand, fragment, mma_future } kind = Kind::scalar;
  ExprRef expr;
  std::optional<std::int64_t> constant;
  std::int64_t count = 0;     // index: how many values it takes (#p); 0: a runtime count
  ExprRef count_expr;         // index bound by `with`: the count as an expression (a runtime one too)
  std::int64_t multiple = 1;  // integers: a known multiple of this (0: it is 0)
  bool is_float = false;
  View view;                           // view / future / operand; fragment: its buffer and logical shape
  std::vector<std::int64_t> dims;      // shape (-1: a dynamic dim)
  std::vector<std::string> dim_names;  // shape: names of the -1 dims
  std::optional<DynamicCount> dynamic;  // scalars computed from a dynamic dim
  std::vector<Value> elements;          // tuple
  std::vector<std::string> element_names;  // tuple bound by `with`: its indices' names ("": unnamed)
  ExprRef guard;                        // element refs: condition for a valid access
  int element_of = -1;                  // element refs: the buffer they address
  bool is_async = false;                // futures
  std::string bound_event;              // futures of `.async<e>` copies: the event as written
  int event = -1;                       // events (and TMA futures: their barrier)
  ExprRef event_index;                  // events: which barrier of the array
  ExprRef event_parity;                 // `e.at(order)`: the phase parity of that generation
  bool counted_event = false;           // `global event`, `local event`: `event` indexes counted_events_
  ExprRef event_generation;             // `e.at(order)` of a global event: order / N
  // `e[2][3]` is one array of 6 events, row-major: the sizes of the dims
  // after the first (3), how many dims `[i]` has selected so far, and the
  // row they select while some are left (`e[1]`: events 3..5).
  std::vector<std::int64_t> event_inner;
  std::size_t event_selected_dims = 0;
  ExprRef event_row;
  int accumulator = -1;                 // accumulators
  ExprRef accumulator_index;            // arrays of them: the flat index selected so far
  std::size_t accumulator_selected = 0;  // how many of the array's dims are selected
  int swizzle = 0;                      // operands: the span mma.load was told
  bool zfill = false;                   // views: `.zfill` on a copy's source
  bool placeholder = false;             // futures: `dma.any` / `tma.any` not filled yet
};

Value scalar_const(std::int64_t v);

}  // namespace croq::lower::detail
