// The lowering's internal classes, shared by the files that implement them
// (the class comment below says which implements what; the values they pass
// around: value.hpp). Not an interface.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast_walk.hpp"
#include "frontend/frontend.hpp"
#include "frontend/host_code.hpp"
#include "ir/builder.hpp"
#include "lower/lower.hpp"
#include "lower/value.hpp"
#include "sema/bound_rules.hpp"
#include "sema/sema.hpp"
#include "support/checked_int.hpp"

namespace croq::lower::detail {

using namespace frontend::ast;
using ir::ExprRef;

std::string shape_text(DType t, const std::vector<std::int64_t>& dims);
// "[128, 256]"; a dynamic dim (-1) prints as `?`.
std::string shape_list(const std::vector<std::int64_t>& dims);

inline constexpr std::int64_t kInt32Max = 0x7fffffff;
// The most blocks a launch has along x (the grid is one-dimensional).
inline constexpr std::int64_t kMaxGridBlocks = 0x7fffffff;

using support::element_count;
// Where tile `i` of `extent` elements placed every `step` elements ends
// (i * step + extent); INT64_MAX, past any buffer, when that overflows.
std::int64_t tile_end(std::int64_t i, std::int64_t step, std::int64_t extent);

enum class Scope { kernel, block, thread };

// Register fragments (lower_frag.cpp): the logical row and column of register
// `r` of a [64, N] fragment for block thread `tid`, and the row of register
// r of a [64] row vector.
ExprRef fragment_row(const ExprRef& tid, const ExprRef& r);
ExprRef fragment_col(const ExprRef& tid, const ExprRef& r);
ExprRef fragment_row_of_vector(const ExprRef& tid, const ExprRef& r);
// A thread level's fragments (lower_frag_thread.cpp): the register of
// `operand` (a fragment of that logical shape) holding the element an apply
// over `tile` visits in register (row_block, in_row); null unless the
// operand's shape is the tile's leading dims (its element is in that thread).
ExprRef thread_fragment_register(const ExprRef& row_block, const ExprRef& in_row, const std::vector<std::int64_t>& tile,
                                 const std::vector<std::int64_t>& operand);

// Lowering is a chain of classes, each with one job, over one lowering
// context (each class sees the ones before it):
//
//   LoweringContext   the state of the kernel being lowered (symbols, the
//                     open statement lists, where the statements run) and
//                     the vocabulary every part uses: errors, buffers and
//                     views, barriers (lower_context.cpp)
//   ExprLowering      expressions, views, element reads, builtins, events
//                     and register tiles as values (lower_expr.cpp, lower_views.cpp,
//                     lower_builtins.cpp, lower_values.cpp)
//   MemoryLowering    copies, futures and their rings, TMA, events, waits,
//                     triggers and warp specialization (lower_copy.cpp,
//                     lower_futures.cpp, lower_tma.cpp, lower_events.cpp)
//   MmaLowering       accumulators, multiplies, block scales, register
//                     fragments and marking pipelining candidates (lower_mma*.cpp,
//                     lower_frag*.cpp, lower_pipeline.cpp)
//   LevelLowering     parallel levels and their mapping (lower_parallel.cpp)
//   Lowerer           statements, declarations, loops and the kernel
//                     (lower_stmt.cpp, lower_loops.cpp)
//
// A part that lowers nested statements (a level's body, an inthreads body,
// an apply body) calls stmt() and block(), which
// the context declares and Lowerer defines.
class LoweringContext {
 public:
  // `kernel`: which of the function's kernel_count() kernels to lower.
  LoweringContext(const BoundFunction& bound, const target::Target& target, std::vector<Diagnostic>& warnings,
                  int kernel = 0);
  virtual ~LoweringContext() = default;
  LoweringContext(const LoweringContext&) = delete;
  LoweringContext& operator=(const LoweringContext&) = delete;

  // Errors, with the bound dims that the construct at `loc` mentions: the
  // shape-dependent rules (sema/bound_rules.hpp) once dims are bound, and
  // lowering's own limits.
  [[noreturn]] void fail(const SourceLocation& loc, const std::string& message, const std::string& hint = "") const;
  [[noreturn]] void fail(const SourceLocation& loc, const sema::Violation& v) const;
  // An internal invariant: `what` at `loc` is a construct sema rejects, so
  // lowering meets it only through a fault of the library.
  [[noreturn]] void unchecked(const SourceLocation& loc, const char* what) const;
  // The same for a construct that sema's rule `rule` forbids.
  [[noreturn]] void unchecked(const SourceLocation& loc, sema::Rule rule) const;
  [[noreturn]] void fail_as_sema(const SourceLocation& loc, const Diagnostic& d) const;
  // A fact sema did not record for the construct at `loc` (`what`): sema
  // rejected it, so its error on that line, as sema reported it.
  [[noreturn]] void unrecorded(const SourceLocation& loc, const char* what) const;
  const Diagnostic* rejected_at(const SourceLocation& loc, const char* rule) const;

 protected:
  // Nested statements (Lowerer).
  virtual void stmt(const Stmt& s) = 0;
  virtual void block(const Stmt& s) = 0;

  // --- symbols
  void push() { symbols_.emplace_back(); }
  void pop() { symbols_.pop_back(); }
  void define(const std::string& name, Value v) { symbols_.back()[name] = std::move(v); }
  const Value* lookup(const std::string& name) const;
  std::string fresh(const std::string& base) { return kernel_.fresh(base); }

  // --- emitting statements into the innermost open list
  void emit(ir::StmtPtr s) { out_.back()->push_back(std::move(s)); }
  template <typename Node>
  void emit_node(Node n, const SourceLocation& loc = {}) { emit(ir::make_stmt(std::move(n), pos(loc))); }
  // Runs `body` collecting what it emits into a new list.
  ir::StmtList collect(const std::function<void()>& body);
  ir::StmtPtr braced(ir::StmtList body);
  void line_mark(const SourceLocation& loc);
  static ir::SourcePos pos(const SourceLocation& loc) { return {loc.line, loc.column, std::max(1, loc.length)}; }
  std::string source_text(const Expr& e) const { return frontend::source_text(program_, e); }
  void warn(const Stmt& s, const std::string& message, const std::string& hint = "");
  // A message the source asks the compiler to print (`print!`): a note.
  void note(const Stmt& s, const std::string& message);
  // `e` has no 64-bit value: `values` shows the operation that failed.
  [[noreturn]] void fail_arithmetic(const Expr& e, support::ArithmeticFault fault, const std::string& values) const;
  [[noreturn]] void fail_buffer_array(const Expr& e);

  // --- the function's statements
  // In a program of several kernels: whether top-level statement `s` belongs
  // to this kernel (its parallel statement, the declarations, `return`).
  bool in_this_kernel(const Stmt& s);
  bool contains_parallel(const Stmt& s) const;
  bool has_cooperative_level(const Stmt& s) const;
  // What sema proved about the function: lowering reads names, mappings
  // and decoded modifiers here instead of deriving them again.
  static const sema::CheckedFunction& semantics_of(const BoundFunction& bound);
  int swizzle_span(const Modifier& m) const;  // decoded by sema
  const sema::MmaProtocol& mma_protocol(const Stmt& s, const Mma& m) const;  // its decoded modifiers

  // --- index arithmetic, whose width (32 or 64 bits) the index-width pass
  // chooses (ir/index_width.hpp): the type index variables are declared
  // with, and `e * k` for a tile origin (in 64 bits in 64-bit kernels,
  // whatever the type of `e`).
  ir::Type index_type() const { return ir::Type::index(); }
  ExprRef scaled(const ExprRef& e, std::int64_t k) const;
  // An index, extent, count or coordinate of the kernel may reach `largest`
  // (Kernel::largest_index, which the pass reads).
  void fit_index(std::int64_t largest) { largest_index_ = std::max(largest_index_, largest); }
  // `v` converted to `like`'s type (an index variable's: i32 or i64 once
  // chosen), or coerced where `coerce_only`.
  static ExprRef as_type_of(const ExprRef& v, const ExprRef& like, bool coerce_only = false);

  // --- buffers and views
  // `where`: the statement or declarator that asks for it, for errors.
  int allocate(const std::string& base, DType t, std::vector<std::int64_t> dims, ir::Space space,
               const SourceLocation& where, std::int64_t slots = 0);
  // A `global` tensor at function scope: a kernel parameter the runtime
  // allocates per call; an array of `slots` of them is one allocation.
  int scratch_buffer(const std::string& name, DType dtype, const std::vector<std::int64_t>& dims,
                     const SourceLocation& where, std::int64_t slots = 0);
  // `{v}` on a declared tensor: the runtime fills a program buffer or the
  // returned tensor before the call; the threads declaring a shared tensor
  // fill it (then wait for each other), each thread its local one.
  // `computed`: the value of a Buffer::Initial::computed, lowered by the caller.
  void fill_initial(int buffer, const sema::Buffer& declared, const SourceLocation& where, ExprRef computed = nullptr);
  // A statement updates the buffer in place (`+=`, an atomic): without an
  // initializer, the returned tensor or a program buffer starts at zero.
  void mark_updated(int buffer);
  ir::Buffer& buffer(int id) { return kernel_.buffers[static_cast<std::size_t>(id)]; }
  const ir::Buffer& buffer(int id) const { return kernel_.buffers[static_cast<std::size_t>(id)]; }
  ExprRef dim_expr(int buffer, std::size_t d) const;  // an extent: a number or the dynamic dim
  std::int64_t dim_value(int buffer, std::size_t d) const;  // -1 when dynamic
  std::string dim_name(int buffer, std::size_t d) const;
  View whole(int buffer) const;
  ir::Tile tile_of(const View& v) const;
  ExprRef element_at(const View& v, const std::vector<ExprRef>& idx) const;
  ExprRef tile_address(const View& v) const;
  void mark_written(int buffer);
  void note_dtype(DType t);

  // --- where the statements run, and barriers for their threads
  ExprRef tid() const { return set_.tid; }
  bool on_whole_warpgroups() const;
  bool on_single_warps() const;
  bool at_block_scope() const;  // not in a group, group-4 or inthreads level of the block
  bool mentions_group_index(const ir::Tile& t) const;
  bool per_warpgroup_tile(const View& v) const;
  void emit_barrier();
  // A barrier for the threads running the statement: each warpgroup on its
  // own (a tile of each warpgroup's own in a group-4 level), or the set.
  void emit_unit_barrier(const SourceLocation& where, bool per_warpgroup);
  // Shared memory written element by element (by one thread at block
  // scope, by each thread in a thread level) is read by the block's threads
  // after a barrier: at block scope, a barrier asked for before a read of
  // `buffer` (-1: before a loop or a thread level, whose threads may read
  // any), which passes::place_shared_barriers keeps where a store came
  // since the last barrier.
  void ask_barrier_before_shared_read(int buffer);
  // A copy inside a thread level is done by each thread whole: it reads
  // what the other threads of the level wrote element by element, so it
  // asks for a barrier of the block as well where every thread of the block
  // reaches it (a top thread level as wide as the block, outside branches).
  void ask_barrier_before_thread_copy(int buffer);

  // --- the state shared by the parts
  // The `apply` being lowered: its index names, the register it visits, the
  // rank of the tile it walks and that tile's registers per thread.
  struct ApplyContext {
    std::vector<std::string> indices;
    ExprRef reg;
    std::size_t rank = 0;
    std::int64_t registers = 0;
    std::vector<int> touched;  // the register buffers its body reads or writes
    // Over a thread level's fragment (lower_frag_thread.cpp): the tile's
    // logical extent, and for register `reg` the block of rows it is in and
    // its element in the row (extent empty: a warpgroup's tile).
    std::vector<std::int64_t> extent;
    ExprRef row_block, in_row;
  };
  std::optional<ApplyContext> apply_;
  // The innermost `: thread` level around the statements: its linear index
  // and thread count (threads 0: none). A fragment declared in it is spread
  // over those threads (lower_frag_thread.cpp), recorded per buffer.
  struct ThreadLevel {
    ExprRef index;
    std::int64_t threads = 0;
  };
  ThreadLevel thread_level_;
  std::map<int, ThreadLevel> thread_fragments_;
  std::map<int, int> scale_partials_;  // accumulator -> the partial its block's mmas write
  struct FutureRing {
    std::vector<std::string> names;      // the futures, in order of first mention
    std::vector<std::string> slot_vars;  // per future: the slot it refers to now
    int buffer = -1;                     // shared, one slot per future (at the first copy)
    int event = -1;                      // TMA copies: private barriers, one per slot
    ir::Stmt* anchor = nullptr;          // where the slot variables are; the buffer's pointer joins them
  };
  // --- the function and the kernel being lowered
  const Program& program_;
  const Function& fn_;
  const std::vector<abi::ArgSignature>& args_;
  std::map<std::string, std::int64_t> dims_;
  std::map<std::string, std::vector<abi::DimSource>> dynamic_;
  const BoundFunction& bound_;  // for the derivation notes of errors
  // What sema proved about the function (semantics_of).
  const sema::CheckedFunction& facts_;
  const int kernel_index_;      // which top-level parallel statement this kernel runs
  const int kernel_count_;      // how many the function has (at least 1)
  const bool host_program_;     // frontend::ast::is_host_program: the host level is the host's
  int top_parallels_seen_ = 0;
  const target::Target& target_;
  std::vector<Diagnostic>& warnings_;
  std::int64_t largest_index_ = 0;  // fit_index
  std::int64_t shared_reach_ = 0;  // shared bytes of the tiles so far, aligned (limit checks only)

  ir::Kernel kernel_;
  std::vector<ir::StmtList*> out_;
  std::vector<std::map<std::string, Value>> symbols_;
  // Inside the body of a __co_device__ function being inlined
  // (lower_call.cpp): names are looked up from this scope on (the body sees
  // its parameters and its own names only), and `return` sets `result`.
  std::size_t lookup_floor_ = 0;
  struct InlineFrame {
    const Function* callee = nullptr;
    ExprRef result;  // null: a void function, or a call whose value is not used
  };
  std::vector<InlineFrame> inline_frames_;
  Scope scope_ = Scope::kernel;
  // Instances of the thread, group and group-4 levels inside the block
  // level (0: unknown or many): at thread scope, 1 is a single thread.
  std::int64_t thread_instances_ = 1;
  // The index variables of the enclosing `: group` / `: group-4` levels: a
  // block-cooperative copy cannot take a tile that differs between groups.
  std::vector<std::string> group_vars_;
  ExprRef thread_id_;  // what the next thread-space level splits

  // The threads running the current statements, for cooperative copies,
  // barriers and single-thread work: the whole block, or (inside
  // inthreads.async) a contiguous range of warpgroups.
  ir::ThreadSet set_;
  // Inside `inthreads (p == 1) { ... }`: the threads that arrive on a
  // trigger there (the event counts their warps, not the whole set's).
  std::optional<ir::ThreadSet> trigger_set_;
  std::set<std::string> overlapped_store_names_;  // source names (find_overlapped_store_tiles)
  std::set<int> overlapped_store_tiles_;          // their shared buffers
  // `.sqz()` views (pointer aliases): the tensor they squeeze and the origins
  // of its dropped leading dims, so tma.copy can address the tensor itself
  // (its tensor map is built on the host, once per tensor).
  struct Squeezed {
    int tensor = -1;
    std::vector<ExprRef> leading_origin;
  };
  std::map<int, Squeezed> squeezed_;
  bool committed_stores_ = false;                 // a TMA store was committed without a wait
  int warpgroup_barrier_base_ = -1;
  // The leading loads of a k loop marked as a pipelining candidate: the
  // private event each completes on, reserved with the mark
  // (lower_pipeline.cpp).
  std::map<const Stmt*, int> candidate_load_events_;
  bool lowering_store_target_ = false;  // element_ref of an assignment's target
  // Lowering a later statement's expression ahead of it (a TMA load reads the
  // event of the `trigger ... after` that completes it): `x++` there gives
  // the value it will have, and updates nothing (the trigger does).
  bool peeking_updates_ = false;
  // Each warpgroup of an enclosing `parallel p by N : group-4` runs the statements.
  bool in_warpgroup_ = false;
  // The block is one warpgroup (its thread levels are `: group-4` by 1):
  // those levels' statements run on every thread of the block.
  bool block_one_warpgroup_ = false;
  // Each warp of an enclosing `: group` level (directly in the block) runs them.
  bool in_warp_ = false;
  // `parallel g by N : group-4, t by 128 : thread`: t spans each group's threads, so
  // an inthreads.async on g inside runs at the group's scope.
  bool threads_span_group_ = false;
  std::vector<std::string> span_thread_indices_;  // that thread level's index names
  // Single-index `: group` / `: group-4` levels enclosing the statements,
  // innermost last (inthreads.async conditions select among them).
  struct GroupLevel {
    std::string index;
    std::int64_t count = 0, unit = 0;
  };
  std::vector<GroupLevel> group_levels_;
  // A single-index thread level splitting the block's threads directly (no
  // group level around; sema's block_thread_levels): inthreads.async
  // selects whole warps of it.
  std::optional<GroupLevel> thread_group_;
  // The level an inthreads.async condition selects among (nullptr: none).
  const GroupLevel* region_level() const {
    if (!group_levels_.empty()) return &group_levels_.back();
    return thread_group_ ? &*thread_group_ : nullptr;
  }
  int first_barrier_id_ = 1;  // 8 where the source has named barriers 0..7 (__bar_sync)
  int next_barrier_id_ = 1;
  // The threads of the innermost thread level when it splits the block's
  // threads directly (0 otherwise), and the branches (if, while, loops that
  // break or continue) around the statement inside it: where all of the
  // level's threads reach a statement, for ask_barrier_before_thread_copy.
  std::int64_t thread_level_threads_ = 0;
  int thread_branches_ = 0;
  // The statements of the innermost block and the position being lowered
  // (tma.copy looks ahead for the `trigger` that completes it).
  const StmtList* block_statements_ = nullptr;
  std::size_t block_position_ = 0;
  std::vector<const StmtList*> loop_bodies_;  // the body blocks of enclosing foreach loops
  std::vector<std::string> tensor_map_keys_;  // one kernel parameter per distinct map
  bool grid_set_ = false;
  // `: cluster` (the outermost level, followed by its `: block` level): the
  // cluster count's constant part and runtime terms; `cluster_open_` between the two.
  bool cluster_open_ = false;
  // `: block<cooperative>`: the grid barrier's counter (a program buffer of
  // every kernel of a function that has such a level), and whether the
  // statements being lowered are inside that level.
  int grid_barrier_ = -1;
  // `global event e[N]` (lower_events.cpp): its counts (a program buffer),
  // each thread's counts of the generations it waited for (local), its size.
  // A global event's counts (a program buffer) or a local event's (each
  // thread's own registers): triggers add to `counter`, waits to `seen`.
  struct CountedEvent { std::string name; int counter = -1, seen = -1; std::int64_t count = 1; bool ready = false, local = false; };
  std::vector<CountedEvent> counted_events_;
  std::map<int, std::size_t> scratch_index_;  // a program buffer's place in abi.scratch
  bool in_cooperative_ = false;
  std::string output_name_;
  int output_ = -1;
  std::vector<FutureRing> rings_;
  std::map<std::string, int> ring_of_;
};

// Expressions and views: a source expression's Value.
class ExprLowering : public LoweringContext {
 public:
  using LoweringContext::LoweringContext;

 protected:
  friend struct frontend::ast::Dispatch;  // expr_value: the dispatch sema shares
  // --- expressions (lower_expr.cpp)
  Value expr(const Expr& e);  // expr_value, refusing runaway text
  Value expr_value(const Expr& e);
  template <typename T>
  Value other_expression(const Expr& e, const T& n);  // the kinds Dispatch has no member name for
  Value name_value(const Expr& e, const Name& n);
  Value member(const Expr& e, const Member& m);
  Value view_member(const Expr& e, const Member& m, Value obj);
  // `whole`, when given, gets which dims `_` keeps whole.
  Value window_member(const Expr& e, const Member& m, const Value& obj, std::vector<bool>* whole = nullptr);
  Value chunk_window(const Expr& e, const Member& m, const Value& obj);
  Value modspan_window(const Expr& e, const Member& m, Value obj);
  Value moved_bound(const Expr& e, const Binary& b, Value l, const Value& r);
  // In an extent of `x [...]` or `t {...}`: the values of x's dims or t's
  // elements, which a pick `(k)` names (`x [(0) / 2, 4]`).
  const Value* pick_source_ = nullptr;
  Value selected_extent(const Expr& extent, const Value& source);
  Value unplaced_window(const Value& obj) const;
  std::int64_t chunk_extent(const Expr& arg, const View& v, std::size_t d, std::int64_t count) const;
  // `.chunkat`'s index per dimension (nullopt: `_`), a tuple of indices
  // (`with index in [7, 4]`) standing for its indices, one dimension each.
  std::vector<std::pair<const Expr*, std::optional<Value>>> chunkat_indices(const Member& m);
  Value binary(const Expr& e, const Binary& b);
  Value fold(const Expr& e, BinaryOp op, std::int64_t a, std::int64_t c);
  // lower_shape_math.cpp: `lhs op rhs` on whole shapes or tuples; `ceil`: cdiv(lhs, rhs) (op is `/`).
  Value whole_arithmetic(const Expr& e, BinaryOp op, const Expr& lhs, const Expr& rhs, const Value& l, const Value& r,
                         bool ceil = false);
  Value ceil_div(const Expr& e, const Value& a, const Value& b);
  Value unary(const Expr& e, const Unary& u);
  Value update(const Expr& e, const Value& v, bool up, bool post);  // `x++` inside an expression
  Value select_call(const Expr& e, const Call& c);                 // lower_select.cpp
  Value call(const Expr& e, const Call& c);
  // `t(i)` of a shape, tuple or bounded index `whole` that `name` writes.
  std::optional<Value> pick(const Expr& e, const Call& c, const Value& whole, const std::string& name);
  // `call f(args)` of a __co_device__ function (lower_call.cpp): its body
  // where the call stands; the value it returns when `want_value`.
  Value inline_call(const SourceLocation& at, const Function& callee, const ExprList& args, bool want_value);
  void bind_device_parameter(const Function& callee, const Parameter& p, const Expr& arg, const Value& v,
                             std::map<std::string, std::int64_t>& bound_dims);
  // `call f(args)` of a C++ function the source defines (lower_device_call.cpp);
  // `key`: the CallStatement or Call sema recorded its DeviceCall under.
  Value cxx_call(const SourceLocation& at, const void* key, const ExprList& template_args, const ExprList& args);
  Value named_value(const Expr& init, bool shape);
  Value tuple_of_extents(const Value& shape);
  Value span_as(const Expr& e, const Member& m, const Value& obj);
  void place_at_origin(Value& v) const;
  Value element_ref(const Expr& e, const Value& target, const ExprList& args);
  std::int64_t const_int(const Expr& e, const char* what);
  std::int64_t non_negative_int(const Expr& e, const char* what);  // const_int, and not negative
  std::int64_t non_negative(const Value& v, const Expr& e, const char* what);  // v (the value of e) the same way
  // `v`, the value of `e`, has a scalar expression (not a tile, shape,
  // tuple, event or accumulator); CompileError at `e` otherwise.
  const Value& require_scalar(const Value& v, const Expr& e) const;
  // Dynamic dims are refused unless `names` is given (it gets their names).
  std::vector<std::int64_t> shape_of(const Expr& e, std::vector<std::string>* names = nullptr);
  // Parallel counts and loop bounds: constants, or counts of a dynamic dim.
  // `runtime_ok`: an integer computed in the kernel is a count too.
  std::vector<Value> counts_of(const Expr& e, const char* what, bool runtime_ok = false);
  std::vector<Value> index_args(const ExprList& args);
  ExprRef guarded(const Value& v, ExprRef zero) const;
  // `v`'s value, a guarded element read giving its type's zero out of range.
  ExprRef read(const Value& v) const;

  // --- atomics and math builtins (lower_builtins.cpp)
  Value builtin_call(const Expr& e, const Call& c, const std::string& name);
  Value conversion(const Expr& e, const Convert& n);
  Value squeeze(const Expr& e, const Value& obj);
  // lower_view_strided.cpp: `.view(e : s)` and its `.from(o)`.
  std::vector<std::int64_t> view_strides(const std::vector<const Expr*>& strides);
  Value place_strided(const Expr& e, const Member& m, const Value& obj, const std::vector<Value>& offsets);
  Value align(const Expr& e, const std::string& function, const std::vector<Value>& args);
  Value atomic_call(const Expr& e, const Call& c, const std::string& op);
  void asm_statement(const Stmt& s, const Asm& a);
  // __bar_arrive / __bar_sync: PTX's bar.arrive / bar.sync (lower_builtins.cpp).
  void named_barrier(const Stmt& s, const Call& c, bool sync);

  // --- events and register tiles as values (lower_values.cpp)
  Value subscript(const Expr& e, const Subscript& sub);
  Value array_part(Value obj, const Expr& index);  // `s[i]` of an array of arrays (lower_array.cpp)
  // lower_shape_math.cpp: a shape derived by selection (sema's record), else null.
  const std::vector<sema::SelectedDim>* shape_selection(const Expr& e) const;
  Value selected_shape(const Expr& e, const Subscript& sub, const std::vector<sema::SelectedDim>& dims);
  Value selected_tuple(const Expr& e, const Subscript& sub, const std::vector<sema::SelectedDim>& picks);
  Value event_value(const Expr& e, const char* what);
  std::int64_t event_count(const Value& ev) const;  // the events of its array
  std::int64_t event_dim_size(const Value& ev) const;  // of the dim `[i]` selects along next
  std::vector<Value> each_event(const Expr& e);
  Value event_at(const Expr& e, const Member& m, Value ev);
  Value register_member(const Expr& e, const Member& m, const Value& obj);
  // A fragment or accumulator operand: its buffer of registers and logical shape.
  View registers_of(const Value& v, const Expr& where);
};

// Copies, futures, TMA, events and warp specialization.
class MemoryLowering : public ExprLowering {
 public:
  using ExprLowering::ExprLowering;

 protected:
  // --- copies (lower_copy.cpp)
  void copy(const Stmt& s, const Copy& c);
  ir::Padding padding(const Copy& c, const std::vector<std::int64_t>& extent);
  std::vector<std::int64_t> transposition(const Copy& c, const std::vector<std::int64_t>& src_extent,
                                          std::vector<std::int64_t>& dst_extent);
  std::vector<std::int64_t> padded_extents(const Copy& c, const ir::Padding& pad,
                                           const std::vector<std::int64_t>& src_extent);
  void swizzled_destination(const Modifier& swiz, int dst);
  void require_static(const View& v, const Expr& where);

  // --- placeholders and swapped futures (lower_futures.cpp)
  void find_future_rings();
  FutureRing* ring_of(const std::string& name);
  void open_ring(FutureRing& ring);
  ExprRef ring_slot(const FutureRing& ring, const std::string& name) const;
  View ring_destination(const std::string& name, DType dtype, const std::vector<std::int64_t>& extent,
                        const SourceLocation& where);
  void ring_event(FutureRing& ring, Value& ev, const std::string& name);
  void define_future(const std::string& name, const Value& f);
  void placeholder(const Stmt& s, const Copy& c);
  void swap_statement(const Stmt& s, const Swap& sw);
  void limit_extents(const Stmt& s, const Copy& c, View& src, View& dst, std::vector<std::int64_t>& dst_extent);

  // --- events, waits, warp specialization (lower_events.cpp)
  void event_declaration(const Stmt& s, const Declaration& d);
  void wait_statement(const Stmt& s, const Wait& w);
  void copy_after(const Stmt& s, const Copy& c);  // `dma.copy ... after f`
  Value trigger_event_ahead(const Expr& target);  // lower_tma.cpp
  void trigger_statement(const Stmt& s, const Trigger& t);
  void counted_event_declaration(const Declarator& decl, const sema::EventArray& declared, bool local);
  // The events of `e[N][..]` in all (the product of its sizes); `inner` gets the sizes after the first.
  std::int64_t event_array_count(const Declarator& decl, const sema::EventArray& declared, std::vector<std::int64_t>& inner);
  void trigger_counted(const Value& ev, const SourceLocation& where);
  void wait_counted(const Value& ev, const SourceLocation& where);
  void wait_event(const Value& ev, const SourceLocation& where);  // one event, selected
  void inthreads_async(const Stmt& s, const InThreads& t);
  // The indices of `level` for which `condition` holds; nullopt when it
  // depends on more than the index (or, with `probe`, fails to evaluate).
  using RegionBindings = std::vector<std::pair<std::string, const Expr*>>;
  // With `thread_index` (sema's thread_selected_regions), the values of
  // `index * unit + thread_index` selected instead of the groups.
  std::optional<std::vector<std::int64_t>> selected_groups(const Expr& condition, const GroupLevel& level, bool probe,
                                                           const RegionBindings* bindings = nullptr,
                                                           const std::string* thread_index = nullptr);
  // The threads that run a (synchronous) `inthreads (cond)` body when cond
  // selects a contiguous range of the innermost group level's groups among
  // the running threads; else nullopt.
  std::optional<ir::ThreadSet> inthreads_trigger_set(const Expr& condition);
  void arrive(const Value& ev, const SourceLocation& where);
  void find_overlapped_store_tiles(const Stmt& body);
  void wait_before_tile_write(const View& tile, const SourceLocation& where);
  // Before a copy overwrites shared buffer `id`: this warpgroup's WGMMA
  // groups that read it complete (a completion point for the pass).
  ir::StmtPtr shared_readers_completion(int id) const;
  void complete_shared_readers(int id);
  void sync_statement(const Stmt& s, const Sync& y);
  bool lifts_to_group(const Stmt& body) const;  // an inthreads.async body without the thread index

  // --- TMA (lower_tma.cpp)
  void tma_copy(const Stmt& s, const Copy& c);
  void check_dense_store_tile(const Copy& c, const View& tile);
  void check_tma_box(const Stmt& s, const Copy& c, const View& global, const View* stored,
                     const std::vector<std::int64_t>& tile_shape, int span, bool zfill);
  // A tma.copy ready to issue: its shared and global tiles, tensor map,
  // coordinates (innermost first) and the thread that issues it.
  struct TmaIssue {
    View tile, global;
    int map = -1;
    std::vector<ExprRef> coords;
    ExprRef leader;
    bool single_thread = false;
    std::optional<ir::TmaLoad::Multicast> multicast;  // one load for the cluster
    std::string l2_eviction;                          // `tma.load.evict_first`: ir::TmaLoad::l2_eviction
  };
  // `.multicast` as one load for the cluster (narrowing `box` to a slice when
  // each block loads one), or none: each block loads the tile itself.
  std::optional<ir::TmaLoad::Multicast> cluster_load(const View& tile, bool ring_or_candidate, bool single_thread,
                                                     std::vector<std::int64_t>& box, std::int64_t elem);
  void tma_store(const Stmt& s, const TmaIssue& t);
  void tma_load(const Stmt& s, const TmaIssue& t, const std::vector<std::int64_t>& box, std::int64_t elem,
                const Modifier* bound, FutureRing* ring, const Name* future, bool async);
  int tensor_map_param(const View& global, const std::vector<std::int64_t>& box, int swizzle, const SourceLocation& where);
};

// Accumulators, multiplies, register fragments and pipelining candidates.
class MmaLowering : public MemoryLowering {
 public:
  using MemoryLowering::MemoryLowering;

 protected:
  // --- mma statements (lower_mma.cpp, lower_mma_sparse.cpp, lower_mma_scale.cpp)
  void mma_statement(const Stmt& s, const Mma& m);
  void accumulator_update(const Stmt& s, const Assignment& a, const Value& target);
  void mma_multiply(const Stmt& s, const Mma& m);
  void mma_sparse_multiply(const Stmt& s, const Mma& m);
  // A 2-D mma operand (shared tile or mma.load result) and its view.
  ir::MmaOperand mma_tile_operand(const Expr& e, View& tile, bool fragment_ok = false, bool global_ok = false);
  void mma_store(const Stmt& s, const Mma& m);
  // `mc = mma.load tile;` as a warp accumulator's initial value.
  void accumulator_load(const Stmt& s, const Mma& m, const std::string& name, const sema::MmaProtocol& protocol);
  // What is left of a global tile's tensor from the tile's origin along dim d,
  // at most `tile` (an i32; the tails of an mma.store or an accumulator's load).
  ExprRef tile_rest(const View& v, std::size_t d, std::int64_t tile);
  ExprRef store_guard(const Expr& guard, std::int64_t extent, const ExprRef& bound);  // mma.store.mask
  // mma.scale: the partial accumulators of a block.
  void open_scale_partials(const StmtList& statements);
  int scale_target(int accumulator) const;
  void mma_scale(const Stmt& s, const Mma& m);
  // mma.row.row.scale acc, a, b, sa, sb: a partial of its own, then scaled.
  void mma_scaled_multiply(const Stmt& s, const Mma& m);
  int open_scale_partial(int accumulator, const SourceLocation& at);
  void scale_accumulator(const Stmt& s, const Expr& acc, const Expr& scale_a, const Expr& scale_b);
  // Shared tiles written by mma.store and read by WGMMA (lower_mma_proxy.cpp):
  // the writes are noted; a multiply reading such a tile is preceded by
  // fence.proxy.async and a barrier among its writers.
  void note_generic_write(int buffer);
  void fence_before_async_read(const View& tile, const SourceLocation& where);
  std::set<int> generic_written_tiles_;  // their roots

  // --- register fragments (lower_frag.cpp)
  // A warpgroup's register tile of logical `shape` ([64, N] or [64]).
  Value fragment(const std::string& base, DType t, const std::vector<std::int64_t>& shape, const SourceLocation& where);
  void fill_fragment(int buffer, const ExprRef& value);
  void fragment_declaration(const Stmt& s, const Declaration& d);
  void mma_load_fragment(const Stmt& s, const Mma& m, const sema::MmaProtocol& protocol);
  bool names_fragment(const Expr& e) const;
  // Emits `body(r)` for each register r of a fragment of `registers` (an unrolled loop).
  void for_each_register(std::int64_t registers, const std::function<void(const ExprRef&)>& body);
  // Element-wise work on accumulators and fragments (lower_frag_apply.cpp).
  void apply_loop(const Stmt& s, const Loop& l);
  // The body of an apply, its indices bound to `index_values` in a scope of
  // their own, with `context` as apply_; the register buffers it touched.
  std::vector<int> apply_body(const Stmt& body, ApplyContext context, const std::vector<ExprRef>& index_values);
  void fragment_statement(const Stmt& s, const Call& c, const std::string& name);
  // all_reduce_sum(row): the partial sums of a row fragment combined (lower_frag_apply.cpp).
  void all_reduce_sum(const Stmt& s, const Call& c);
  // A thread level's register fragments (lower_frag_thread.cpp): row i of a
  // fragment is thread i % T's, in its registers of row block i / T.
  Value thread_fragment(const std::string& base, DType t, const std::vector<std::int64_t>& shape, const SourceLocation& where);
  void thread_apply_loop(const Stmt& s, const Loop& l, const View& tile);
  void thread_fragment_statement(const Stmt& s, const Call& c, const std::string& name);

  // --- k loops the pipelining pass may pipeline (lower_pipeline.cpp)
  // For a k loop of synchronous TMA loads into whole shared buffers and the
  // multiplies that read them (the form passes::pipeline_k_loops takes):
  // its mark, with the names the pass's pipeline takes reserved in the order
  // it declares them (the slot's after the loop variable's: finish_pipeline_mark),
  // and each load's private event (candidate_load_events_). Empty for a loop
  // of another form.
  std::optional<ir::PipelineMark> mark_pipeline_candidate(const Stmt& s, const Loop& l);
  void finish_pipeline_mark(ir::PipelineMark& mark);
  // Puts the mark on the loop just emitted and forgets its loads.
  void attach_pipeline_mark(ir::PipelineMark mark, const Loop& l);
};

// Parallel levels: the mapping sema chose, counts, linear indices, guards.
class LevelLowering : public MmaLowering {
 public:
  using MmaLowering::MmaLowering;

 protected:
  // --- parallel levels (lower_parallel.cpp)
  void parallel(const Stmt& s, const Parallel& p, std::size_t level);
  // Where the statements run: what a parallel level changes on entry and
  // puts back on exit.
  struct Placement {
    Scope scope;
    bool in_warpgroup, in_warp, threads_span_group, in_cooperative;
    ExprRef thread_id;
    std::int64_t thread_instances;
    std::size_t group_vars;
    std::optional<GroupLevel> thread_group;
  };
  Placement placement() const;
  void restore(const Placement& saved);
  // One level being lowered: its counts (constants, and the runtime part),
  // mapping, linear index and what encloses its body (a guard or a loop).
  struct LevelFrame {
    const ParallelLevel* level = nullptr;
    ir::Mapping mapping = ir::Mapping::flat;
    SpaceSpecifier space = SpaceSpecifier::none;  // as sema inferred it for an unannotated level
    std::vector<Value> count_values;
    std::vector<std::int64_t> counts;  // 0: a runtime count
    std::int64_t total = 1;            // the product of the constant counts
    ExprRef runtime_total;             // the runtime part of the total
    abi::RuntimeGrid runtime;
    std::string linear;
    ExprRef linear_var;
    std::int64_t unit = 1;  // threads per instance: 1, 32 (group), 128 (group-4)
    ExprRef guard;
    // A grid-stride loop over the level's instances (grids past 2^31 - 1
    // blocks, or counts known only at launch): `linear` from `loop_begin`
    // below `loop_end`, stepping `loop_step`.
    ExprRef loop_begin, loop_end, loop_step;
    bool barrier_at_close = false;     // a block-index loop: fence shared memory before the next index
    bool pushed_group = false;
    bool one_warpgroup_block = false;  // a group-4 level in a block of one warpgroup
    Placement saved{};
  };
  LevelFrame level_counts(const ParallelLevel& lv);
  // A count the host computes at launch from `value`, the IR of count
  // `source` over the kernel's integer parameters (lower_launch_count.cpp).
  abi::LaunchCount launch_count(const ExprRef& value, const Expr& source);
  void launch_ops(const ExprRef& e, abi::LaunchCount& count, const Expr& source);
  void let_linear(LevelFrame& f, ExprRef value, ir::Type type = ir::Type::i32());
  void enter_cluster_level(LevelFrame& f, const Parallel& p, std::size_t level);
  ExprRef clustered_block_index(const LevelFrame& f);
  void enter_grid_level(LevelFrame& f, const Parallel& p, std::size_t level);
  void enter_flat_level(LevelFrame& f);
  void enter_thread_level(LevelFrame& f);
  void bind_level_indices(const LevelFrame& f);
  void implicit_block(const Stmt& s, const Parallel& p, std::size_t level);
  void device_level(const Stmt& s, const Parallel& p, std::size_t level);
};

// Statements, declarations, loops and the kernel: the whole lowering.
class Lowerer : public LevelLowering {
 public:
  using LevelLowering::LevelLowering;
  ir::Kernel run();

 protected:
  friend struct frontend::ast::Dispatch;  // stmt: the dispatch sema shares
  // --- statements (lower_stmt.cpp)
  void stmt(const Stmt& s) override;
  template <typename T>
  void other_statement(const Stmt& s, const T& n);  // the kinds Dispatch has no member name for
  void block(const Stmt& s) override;
  void declaration(const Stmt& s, const Declaration& d);
  void scalar_declaration(const Declaration& d);
  // `s[4][2]`: each array size (the first is `first`); empty for one dimension (lower_array.cpp).
  std::vector<std::int64_t> array_of_arrays(const Declarator& decl, std::int64_t first);
  void assignment(const Stmt& s, const Assignment& a);
  // `target op value` for the element `target` (lower_stmt.cpp).
  void store_element(const Stmt& s, AssignOp op, const Value& target, ExprRef value);
  // `a += b` of whole tensors: a loop nest over `target`'s elements (lower_loops.cpp).
  void tensor_arithmetic(const Stmt& s, const Assignment& a, const Value& target);
  void atomic_value_in_thread(const Value& v, const Expr& e) const;
  void inline_return(const Return& r);  // lower_call.cpp
  void setup_parameters();
  void setup_output();

  // --- loops (lower_stmt.cpp, lower_loops.cpp: `with` and `foreach` over its indices)
  void loop(const Stmt& s, const Loop& l);
  void with_loop(const Stmt& s, const Loop& l);
  void bind_with(const std::optional<Identifier>& tuple_name, const std::vector<LoopIndex>& indices, bool braced,
                 const Expr& bound);
  void foreach_bound_indices(const Stmt& s, const Loop& l);
  void print_statement(const Stmt& s, const Call& c, bool newline);
  void compile_time_print(const Stmt& s, const Call& c);
  void print_arguments(const Call& c, const std::function<void(const std::string&)>& text,
                       const std::function<void(const Value&, const Expr&)>& value);
  struct LoopRange {
    ExprRef begin, end, step;  // step null: 1
  };
  LoopRange loop_range(const LoopIndex& index, const ExprRef& count);
  // Emits `body` inside one ir::For per variable, the first outermost; while
  // the body is lowered it is the innermost of `loop_bodies_`.
  void foreach_nest(const Stmt& s, const Stmt& body, const std::vector<std::string>& vars,
                    const std::vector<LoopRange>& ranges);
  // Emits `body` (lowered already) inside one ir::For per variable.
  void emit_loop_nest(const Stmt& s, const std::vector<std::string>& vars, const std::vector<LoopRange>& ranges,
                      ir::StmtList body);

  // --- a host program's kernel (lower_host_level.cpp): the host level of
  // the body down to this kernel's parallel statement, whose host scalars
  // (frontend::ast::host_scalars) become parameters of the kernel.
  void host_level(const Stmt& s);
  void bind_host_scalars();
  std::vector<std::pair<std::string, int>> host_visible_;  // host scalars in scope: name, slot
  std::map<int, Value> host_params_;                       // slot -> its parameter
  std::vector<frontend::ast::HostScalar> host_scalars_;    // by slot
};

}  // namespace croq::lower::detail
