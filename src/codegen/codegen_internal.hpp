// Codegen's internal state and helpers, shared by the files that implement
// it: kernel_codegen.cpp (T1/T2: parallel, loops, dma) and
// hopper_codegen.cpp (T3/T4: events, TMA, warp specialization, WGMMA).
// Not a public interface.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/cuda_emitter.hpp"
#include "codegen/cuda_text.hpp"
#include "codegen/kernel_codegen.hpp"
#include "frontend/frontend.hpp"
#include "support/checked_int.hpp"

namespace croq::codegen::detail {

using namespace frontend::ast;

// ------------------------------------------------------------------ errors

[[noreturn]] inline void fail_at(const Program& program, const SourceLocation& loc, const std::string& message,
                          const std::string& hint = "") {
  Diagnostic d;
  d.message = message;
  d.line = loc.line;
  d.column = loc.column;
  d.length = std::max(1, loc.length);
  d.hint = hint;
  throw CompileError({d}, program.source, program.source_name);
}

// An expression as the user wrote it, for messages: its text in the
// program's source (each run of whitespace as one space); the AST's printed
// form where the parser kept no text.
inline std::string source_text(const Program& program, const Expr& e) {
  if (e.source_begin < 0 || e.source_end <= e.source_begin || static_cast<std::size_t>(e.source_end) > program.source.size())
    return frontend::print_expression(e);
  std::string text;
  for (int i = e.source_begin; i < e.source_end; ++i) {
    const char c = program.source[static_cast<std::size_t>(i)];
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!space) text += c;
    else if (!text.empty() && text.back() != ' ') text += ' ';
  }
  return text;
}

// "[128, 256]"; a dynamic dim (-1) prints as `?`.
inline std::string shape_list(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] < 0 ? "?" : std::to_string(dims[i]));
  return s + "]";
}

inline std::string shape_text(DType t, const std::vector<std::int64_t>& dims) {
  return std::string(dtype_name(t)) + " " + shape_list(dims);
}

inline const char* cuda_type(DType t) {
  switch (t) {
    case DType::s8: return "signed char";
    case DType::u8: return "unsigned char";
    case DType::s16: return "short";
    case DType::u16: return "unsigned short";
    case DType::s32: return "int";
    case DType::u32: return "unsigned int";
    case DType::s64: return "long long";
    case DType::u64: return "unsigned long long";
    case DType::f16: return "__half";
    case DType::bf16: return "__nv_bfloat16";
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::f8_e4m3: return "__nv_fp8_e4m3";
    case DType::f8_e5m2: return "__nv_fp8_e5m2";
  }
  return "int";
}

// `value` converted to the element type: float(0), static_cast<unsigned char>(0).
inline std::string typed(DType t, const std::string& value) {
  std::string type = cuda_type(t);
  if (type.find(' ') != std::string::npos) return "static_cast<" + type + ">(" + value + ")";
  return type + "(" + value + ")";
}

// ------------------------------------------------------------------ values

struct Buffer {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::int64_t> dims;        // -1: a dynamic dim
  std::vector<std::string> dim_names;    // the dynamic dim's name where dims[d] is -1
  enum class Space { global, shared, local } space = Space::global;
  int argument = -1;  // call argument it comes from; -2: the output; -1: none
  // Proven alignment of the base pointer in bytes: shared buffers start on
  // 128-byte boundaries, the runtime allocates outputs (256-byte aligned),
  // arguments carry theirs in the signature; local arrays only their type's.
  int align_bytes = 16;
  // Shared tiles only: the TMA swizzle span of their layout (0: plain
  // row-major), set by the first `.swiz<N>` copy into them; -1: not yet known.
  int swizzle = -1;
  // `shared T [..] name[slots]`: `slots` tiles of `dims`, each starting on
  // a multiple of `slot_elems` elements (0: not an array).
  std::int64_t slots = 0;
  std::int64_t slot_elems = 0;
};

// A rectangular window into a buffer: element (i...) is buffer element
// (origin + i...). `exact`: the window never reaches past the buffer.
struct View {
  std::shared_ptr<Buffer> buffer;
  std::vector<std::string> origin;
  // origin[d] is a known multiple of origin_multiple[d] (0: the origin is
  // exactly 0; a missing entry: nothing is known unless origin[d] is "0").
  std::vector<std::int64_t> origin_multiple;
  std::vector<std::int64_t> extent;
  bool exact = true;
  // subspan(...) / view(...) wait for .at / .step / .from to place them.
  enum class Pending { none, subspan, view } pending = Pending::none;
  std::vector<std::int64_t> step;
  std::string slot;  // arrays: which tile (CUDA text); empty: not selected yet
};

// A runtime integer derived from a dynamic dim: dim, cdiv(dim, divisor) or
// dim / divisor. Enough to size a grid or bound a loop at launch.
struct DynamicCount {
  std::string dim;
  std::int64_t divisor = 1;
  bool ceil = false;
};

// `shared event e[N]`: N mbarriers in shared memory, and each thread's
// expected phase bit per barrier (bit i of `phase`).
struct Event {
  std::string name;    // the barrier array in the CUDA text
  std::string phase;   // the per-thread phase bits
  std::int64_t offset = 0;    // byte offset in shared memory
  std::int64_t count = 1;
  std::string arrivals;       // arrivals per phase (CUDA text), from the trigger sites; empty: none seen yet
  SourceLocation first_trigger;
};

// A WGMMA accumulator (`mc = mma.fill.f32 0.0f`): a warpgroup's 64 x n
// tile, n known from the first mma that uses it.
struct Accumulator {
  std::string name;
  DType dtype = DType::f32;  // f32 or f16
  std::string fill;          // the initial value
  std::int64_t n = 0;
  std::string token;         // placeholder for the declaration, replaced once n is known
};

struct Value {
  enum class Kind { scalar, index, view, shape, future, tuple, event, accumulator, operand } kind = Kind::scalar;
  std::string text;
  std::optional<std::int64_t> constant;
  std::int64_t count = 0;  // index: how many values it takes (#p)
  std::int64_t multiple = 1;  // integers: the value is a known multiple of this (0: it is 0)
  bool is_float = false;
  View view;               // view / future
  std::vector<std::int64_t> dims;  // shape (-1: a dynamic dim)
  std::vector<std::string> dim_names;  // shape: names of the -1 dims
  std::optional<DynamicCount> dynamic;  // scalars computed from a dynamic dim
  std::vector<Value> elements;     // tuple
  std::string guard;               // element refs: condition for a valid access
  std::shared_ptr<Buffer> element_of;  // element refs: the buffer they address
  bool is_async = false;               // futures
  std::string bound_event;             // futures of `.async<e>` copies: the event as written
  std::shared_ptr<Event> event;        // events (and TMA futures: their barrier)
  std::string event_index;             // events: which barrier of the array
  std::shared_ptr<Accumulator> acc;    // accumulators
  int swizzle = 0;                     // operands: the span mma.load was told
  bool zfill = false;                  // views: `.zfill` on a copy's source
};

// |v|, or 2^62 for INT64_MIN (whose magnitude has no int64): what a
// constant is known to be a multiple of.
inline std::int64_t magnitude_multiple(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::min()) return std::int64_t{1} << 62;
  return v < 0 ? -v : v;
}

// The known multiple of a product of values that are multiples of `a` and
// `b`; nothing (1) when that overflows.
inline std::int64_t multiple_product(std::int64_t a, std::int64_t b) {
  support::CheckedInt r = support::checked_mul(a, b);
  return r.ok() && r.value >= 0 ? r.value : 1;
}

inline Value scalar_const(std::int64_t v) {
  Value r;
  // INT64_MIN has no literal (9223372036854775808 is not a signed value).
  r.text = v == std::numeric_limits<std::int64_t>::min() ? "(-9223372036854775807LL - 1)" : std::to_string(v);
  r.constant = v;
  r.multiple = magnitude_multiple(v);
  return r;
}

inline bool is_zero(const std::string& s) { return s == "0"; }

inline std::string add_text(const std::string& a, const std::string& b) {
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  return "(" + a + " + " + b + ")";
}

// The value of CUDA text that is a plain decimal integer ("42", "-7").
inline std::optional<std::int64_t> integer_text(const std::string& s) {
  const std::size_t digits = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() == digits || s.size() > 19 + digits) return std::nullopt;
  std::int64_t v = 0;
  for (std::size_t i = digits; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    support::CheckedInt shifted = support::checked_mul(v, 10);
    support::CheckedInt next = shifted.ok() ? support::checked_add(shifted.value, s[i] - '0') : shifted;
    if (!next.ok()) return std::nullopt;
    v = next.value;
  }
  return digits ? -v : v;
}

// a * k as CUDA text. Constant products are folded (a literal above 2^31
// is a 64-bit literal in C++), so a product of constants never overflows
// `int` in the generated code.
inline std::string mul_text(const std::string& a, std::int64_t k) {
  if (k == 0 || is_zero(a)) return "0";
  if (k == 1) return a;
  if (std::optional<std::int64_t> v = integer_text(a)) {
    support::CheckedInt product = support::checked_mul(*v, k);
    if (product.ok()) return std::to_string(product.value);
  }
  return "(" + a + " * " + std::to_string(k) + ")";
}

// The sum of non-negative terms, or nothing when it overflows (INT64_MAX
// terms, tile_end's "overflowed", count as overflow).
inline std::optional<std::int64_t> checked_sum(std::initializer_list<std::int64_t> terms) {
  std::int64_t sum = 0;
  for (std::int64_t t : terms) {
    support::CheckedInt next = support::checked_add(sum, t);
    if (!next.ok() || t == INT64_MAX) return std::nullopt;
    sum = next.value;
  }
  return sum;
}

// The product of the extents with each 0 counted as 1: the largest stride
// index arithmetic forms over a buffer of these extents, even an empty
// one. Nothing when it overflows.
inline std::optional<std::int64_t> stride_product(const std::vector<std::int64_t>& extents) {
  std::int64_t p = 1;
  for (std::int64_t e : extents) {
    support::CheckedInt next = support::checked_mul(p, std::max<std::int64_t>(e, 1));
    if (!next.ok()) return std::nullopt;
    p = next.value;
  }
  return p;
}

// Elements of a tensor with these (non-negative) extents; INT64_MAX when
// the product overflows (a tensor that size needs 64-bit indices anyway).
inline std::int64_t element_count(const std::vector<std::int64_t>& extents) {
  if (std::find(extents.begin(), extents.end(), 0) != extents.end()) return 0;
  return support::checked_product(extents).value_or(INT64_MAX);
}

// Where tile `i` of `extent` elements placed every `step` elements ends
// (i * step + extent); INT64_MAX, past any buffer, when that overflows.
inline std::int64_t tile_end(std::int64_t i, std::int64_t step, std::int64_t extent) {
  support::CheckedInt start = support::checked_mul(i, step);
  support::CheckedInt end = start.ok() ? support::checked_add(start.value, extent) : start;
  return end.ok() ? end.value : INT64_MAX;
}

// A buffer extent as CUDA text: the number, or the dynamic dim's parameter.
inline std::string dim_text(const Buffer& b, std::size_t d) {
  if (b.dims[d] >= 0) return std::to_string(b.dims[d]);
  return "dim_" + b.dim_names[d];
}

inline std::int64_t origin_multiple(const View& v, std::size_t d) {
  if (is_zero(v.origin[d])) return 0;
  return d < v.origin_multiple.size() ? v.origin_multiple[d] : 1;
}

// Moves the window's origin in dimension d by `offset`, a known multiple of `multiple`.
inline void shift_origin(View& v, std::size_t d, const std::string& offset, std::int64_t multiple) {
  std::int64_t before = origin_multiple(v, d);
  if (v.origin_multiple.size() < v.origin.size()) v.origin_multiple.resize(v.origin.size(), 1);
  for (std::size_t i = 0; i < v.origin.size(); ++i)
    if (is_zero(v.origin[i])) v.origin_multiple[i] = 0;
  v.origin[d] = add_text(v.origin[d], offset);
  v.origin_multiple[d] = is_zero(offset) ? before : std::gcd(before, multiple);
}

// dma.pad<low, high, mid, value>, per dimension.
struct Padding {
  std::vector<std::int64_t> low, high, mid;
  std::string value;
};

// ------------------------------------------------------------------ codegen

enum class Scope { kernel, block, thread };

// The byte span of `.swiz<N>` (0, 32, 64, 128); CompileError otherwise.
int swizzle_span(const Program& program, const Modifier& m);

// Thrown by a Codegen with 32-bit indices that meets an extent, count or
// coordinate past 2^31 - 1; generate_cuda catches it and starts over with
// 64-bit indices. Never leaves codegen.
struct NeedsWideIndices {};

inline constexpr std::int64_t kInt32Max = 0x7fffffff;
// The most blocks a launch has along x (the grid is one-dimensional).
inline constexpr std::int64_t kMaxGridBlocks = 0x7fffffff;

class Codegen {
 public:
  // `wide`: index arithmetic in 64 bits (`long long`), for kernels whose
  // extents, counts or coordinates may pass 2^31 - 1; otherwise `int`, and
  // such a value throws NeedsWideIndices.
  Codegen(const Program& program, const Function& fn, const std::vector<ArgSignature>& args,
          std::map<std::string, std::int64_t> dims, int max_shared,
          std::map<std::string, std::vector<DimSource>> dynamic, Target target = {}, bool wide = false)
      : program_(program), fn_(fn), args_(args), dims_(std::move(dims)), max_shared_(max_shared),
        dynamic_(std::move(dynamic)), target_sm_(target.sm), target_wgmma_(target.wgmma && target.sm >= 90),
        wide_(wide), source_name_literal_(cuda_string_literal(program.source_name)) {}

  GeneratedKernel run();

 private:
  // --- symbols
  void push() { symbols_.emplace_back(); }
  void pop() { symbols_.pop_back(); }
  void define(const std::string& name, Value v) { symbols_.back()[name] = std::move(v); }
  const Value* lookup(const std::string& name) const {
    for (auto it = symbols_.rbegin(); it != symbols_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  // A unique CUDA name for a user's or codegen's `base`: base_N. Bases that
  // could meet a name codegen emits unnumbered (arg_P, dim_D, croq_*) or a
  // reserved one (_X, __x) get a `u` in front, so no two names collide.
  std::string fresh(const std::string& base) {
    const bool clash = base.rfind("arg_", 0) == 0 || base.rfind("dim_", 0) == 0 || base.rfind("croq_", 0) == 0 ||
                       base.rfind('_', 0) == 0;
    return (clash ? "u" + base : base) + "_" + std::to_string(counter_++);
  }

  // --- expressions
  std::string source_text(const Expr& e) const { return detail::source_text(program_, e); }
  Value expr(const Expr& e);        // expr_value, refusing runaway text
  Value expr_value(const Expr& e);
  Value name_value(const Expr& e, const Name& n);
  Value member(const Expr& e, const Member& m);
  Value binary(const Expr& e, const Binary& b);
  std::int64_t fold(const Expr& e, BinaryOp op, std::int64_t a, std::int64_t c);
  // `e` has no 64-bit value: `values` shows the operation that failed.
  [[noreturn]] void fail_arithmetic(const Expr& e, support::ArithmeticFault fault, const std::string& values);
  Value span_as(const Expr& e, const Member& m, const Value& obj);
  Value element_ref(const Expr& e, const Value& target, const ExprList& args);
  std::int64_t const_int(const Expr& e, const char* what);
  std::int64_t non_negative_int(const Expr& e, const char* what);  // const_int, and not negative
  // Index arithmetic: the type of index variables, and `text * k` for a
  // tile origin (in 64 bits when wide, whatever the type of `text`).
  const char* index_type() const { return wide_ ? "long long" : "int"; }
  std::string scaled_text(const std::string& text, std::int64_t k) const;
  // Values up to `largest` need 64-bit indices: restart wide unless already.
  void fit_index(std::int64_t largest) const {
    if (!wide_ && largest > kInt32Max) throw NeedsWideIndices{};
  }
  // Dynamic dims are refused unless `names` is given (it gets their names).
  std::vector<std::int64_t> shape_of(const Expr& e, std::vector<std::string>* names = nullptr);
  // Parallel counts and loop bounds: constants, or counts of a dynamic dim.
  std::vector<Value> counts_of(const Expr& e, const char* what);
  std::vector<Value> index_args(const ExprList& args);

  // --- statements
  void stmt(const Stmt& s);
  void block(const Stmt& s);
  void declaration(const Stmt& s, const Declaration& d);
  void assignment(const Stmt& s, const Assignment& a);
  void parallel(const Stmt& s, const Parallel& p, std::size_t level);
  std::int64_t cluster_size(const Parallel& p, std::size_t level);
  void loop(const Stmt& s, const Loop& l);
  void copy(const Stmt& s, const Copy& c);

  // --- Hopper (hopper_codegen.cpp)
  void event_declaration(const Stmt& s, const Declaration& d);
  void wait_statement(const Stmt& s, const Wait& w);
  void trigger_statement(const Stmt& s, const Trigger& t);
  void inthreads_async(const Stmt& s, const InThreads& t);
  void tma_copy(const Stmt& s, const Copy& c);
  void mma_statement(const Stmt& s, const Mma& m);
  std::string target_name() const { return "sm_" + std::to_string(target_sm_); }
  Value subscript(const Expr& e, const Subscript& sub);
  // `lhs_s` names an array of buffers where one buffer is needed.
  [[noreturn]] void fail_buffer_array(const Expr& e);
  Value event_value(const Expr& e, const char* what);
  void arrive(const Value& ev, const SourceLocation& where);
  void complete_pending_mma();
  std::string tile_pointer(const View& v);
  std::string tensor_map_param(const View& global, const std::vector<std::int64_t>& box, int swizzle,
                               const SourceLocation& where);
  void emit_barrier();
  bool uses_hopper(const Stmt& s) const;
  std::string finish_hopper_text(std::string body);
  void emit_copy(const View& src, const View& dst, bool zfill, const std::vector<std::int64_t>& perm);
  Padding padding(const Copy& c, const std::vector<std::int64_t>& extent);
  void emit_pad(const View& src, const View& dst, const Padding& pad);
  // The type of a copy loop's counter and coordinates: the loop runs over
  // `space` and its coordinates stay below `extent` (both with products
  // known to fit in 64 bits).
  static const char* element_index_type(const std::vector<std::int64_t>& space, const std::vector<std::int64_t>& extent) {
    const bool wide = element_count(space) > kInt32Max || element_count(extent) > kInt32Max;
    return wide ? "long long" : "int";
  }
  std::vector<std::string> open_element_loop(const View& dst, const std::vector<std::int64_t>& space, std::int64_t vec,
                                             std::int64_t inner_begin);
  std::int64_t vector_width(const View& src, const View& dst, const std::vector<std::int64_t>& perm) const;
  void emit_copy_loop(const View& src, const View& dst, bool zfill, const std::vector<std::int64_t>& perm,
                      std::int64_t vec, std::int64_t inner_begin, std::int64_t inner_count);
  void line_directive(const SourceLocation& loc);
  std::string line_directive_text(const SourceLocation& loc) const;
  void warn(const Stmt& s, const std::string& message, const std::string& hint = "");

  // --- helpers
  bool contains_parallel(const Stmt& s) const;
  bool uses_shared(const Stmt& s) const;
  // `where`: the statement or declarator that asks for it, for errors.
  std::shared_ptr<Buffer> allocate(const std::string& base, DType t, std::vector<std::int64_t> dims,
                                   Buffer::Space space, const SourceLocation& where, std::int64_t slots = 0);
  std::string address(const View& v, const std::vector<std::string>& idx) const;
  void mark_written(const Buffer& b);

  const Program& program_;
  const Function& fn_;
  const std::vector<ArgSignature>& args_;
  std::map<std::string, std::int64_t> dims_;
  int max_shared_;
  std::map<std::string, std::vector<DimSource>> dynamic_;
  // The compute capability compiled for (90: sm_90a; 80, 86, 89: mma lowers
  // to mma.sync and the Hopper-only constructs are refused).
  int target_sm_ = 90;
  bool target_wgmma_ = true;  // sm_90a / compute_90a: WGMMA and setmaxnreg
  bool wide_ = false;         // 64-bit index arithmetic
  std::string source_name_literal_;  // the source name as a CUDA string literal, for #line

  Emitter out_;
  std::vector<std::map<std::string, Value>> symbols_;
  int counter_ = 0;
  Scope scope_ = Scope::kernel;
  std::string thread_id_ = "threadIdx.x";  // what the next thread-space level splits

  // The threads running the current statements, for cooperative copies,
  // barriers and single-thread work: the whole block, or (inside
  // inthreads.async) a contiguous range of warpgroups.
  struct ThreadSet {
    std::string tid = "threadIdx.x";   // 0-based thread index within the set
    std::string count = "blockDim.x";  // its size as CUDA text
    std::int64_t threads = 0;          // its size; 0: the whole block
    int barrier_id = 0;                // named barrier (0: __syncthreads)
    std::int64_t first = 0;            // its first thread in the block (with `threads`)
  } set_;
  // Each warpgroup of an enclosing `parallel p by N : group-4` runs the
  // statements (the innermost thread-space level splits the block into warpgroups).
  bool in_warpgroup_ = false;
  // mma.* need whole warpgroups: a region of them, or each of a group-4 level.
  bool on_whole_warpgroups() const;
  // Single-index `: group` / `: group-4` levels enclosing the statements,
  // innermost last (inthreads.async conditions select among them).
  struct GroupLevel {
    std::string index;
    std::int64_t count = 0, unit = 0;
  };
  std::vector<GroupLevel> group_levels_;
  int next_barrier_id_ = 1;
  // The statements of the innermost block and the position being lowered
  // (tma.copy looks ahead for the `trigger` that completes it).
  const StmtList* block_statements_ = nullptr;
  std::size_t block_position_ = 0;
  bool hopper_ = false;        // the kernel uses T3/T4: prelude, 1024-byte smem alignment
  bool pending_mma_ = false;   // wgmma issued and not yet waited for
  std::vector<std::shared_ptr<Event>> events_;
  std::vector<std::shared_ptr<Accumulator>> accumulators_;
  std::vector<std::string> tensor_map_keys_;  // one kernel parameter per distinct map
  // foreach loops being lowered, innermost last: a trigger at the end of a
  // loop body may defer its release by one iteration (wgmma pipelining).
  struct LoopContext {
    const StmtList* body = nullptr;
    std::string id;
    std::string pre, post;  // text placed before and after the loop
    bool deferred = false;
  };
  std::vector<LoopContext> loops_;
  std::vector<std::pair<std::string, std::string>> loop_texts_;  // token -> text
  std::int64_t region_threads_[2] = {0, 0};  // inthreads.async threads: producers, consumers
  bool register_split_ = false;
  std::vector<std::string> extra_signature_;  // kernel parameters found in the body (tensor maps)
  std::vector<std::shared_ptr<Event>> private_barriers_;  // completion barriers of tma.copy

  GeneratedKernel result_;
  std::int64_t grid_ = 1;  // the launch's blocks
  bool grid_set_ = false;
  bool grid_stride_ = false;  // the outermost level loops over more instances than the grid has
  // `: cluster` (the outermost level, followed by its `: block` level):
  // blocks per cluster (0: no cluster level), the cluster count's constant
  // part and runtime terms; `cluster_open_` between the two levels.
  std::int64_t cluster_blocks_ = 0;
  std::int64_t clusters_ = 1;
  RuntimeGrid cluster_runtime_;
  bool cluster_open_ = false;
  std::int64_t block_threads_ = 1;
  std::int64_t shared_bytes_ = 0;
  bool needs_half_ = false, needs_bf16_ = false, needs_fp8_ = false;
  std::string output_name_;
  std::shared_ptr<Buffer> output_;
};

}  // namespace croq::codegen::detail
