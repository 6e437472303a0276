// The checker of one __co__ function: a walk over its AST in source order
// that types every expression (types.hpp) and reports the violated rule at
// the first error of each statement, then goes on with the next statement.
// Its state mirrors what lowering tracks on the same walk (scopes, parallel
// mapping, inthreads regions, tile layouts), so that a rule that depends
// on order (a tile's swizzle, an accumulator written before its store)
// sees what lowering will see. Not a public interface.
//
// One checking context (diagnostics, symbols, where the statements run)
// shared by one checker per area, each in its own check_*.cpp files:
// expressions (with views and builtin calls), statements (declarations,
// assignments, loops), transfers (copies, TMA, futures, events), mma, and
// parallel levels (inthreads, attributes). `Checker` owns them all.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frontend/ast_walk.hpp"
#include "frontend/builtins.hpp"
#include "sema/bound_rules.hpp"
#include "sema/rules.hpp"
#include "sema/sema.hpp"

namespace croq::sema::detail {

using namespace frontend::ast;

// Thrown after a statement's first error has been reported (or when an
// operand already had one): the checker resumes at the next statement.
struct Abort {};
// Thrown when the error limit is reached.
struct Stop {};

// The rings of futures of `fn` (sema.hpp's FutureRing; check_futures.cpp).
std::vector<FutureRing> future_rings(const Function& fn);
// Which trigger completes each TMA load, and whether the function needs
// sm_90's machinery (sema.hpp's CheckedFunction; block_facts.cpp).
// `called`: the __co_device__ functions expanded into it (Context::CallGraph).
std::unordered_map<const Copy*, const Trigger*> completing_triggers(const Function& fn,
                                                                   const std::vector<const Function*>& called);
bool uses_hopper(const Function& fn, const std::vector<const Function*>& called);
bool calls_named_barriers(const Function& fn, const std::vector<const Function*>& called);

// The type of a parameter as written: "f16 [M, K]".
std::string parameter_text(const Program& program, const Parameter& p);


// Program-level: names in __device__ code (rule device-reserved-name).
void check_device_code(const frontend::ast::Program& program, std::vector<Diagnostic>& diagnostics, int& errors);

enum class Scope { kernel, block, thread };

// A parallel count or loop bound: a constant now, or a value known once
// the kernel is specialized (a symbolic dim, an extent).
struct Count {
  Known known = Known::at_specialization;
  std::int64_t value = 0;
};

// Sets `flag` for the lifetime of the object, then puts it back.
struct FlagScope {
  bool& flag;
  bool saved;
  FlagScope(bool& f, bool on) : flag(f), saved(f) { flag = on; }
  ~FlagScope() { flag = saved; }
  FlagScope(const FlagScope&) = delete;
  FlagScope& operator=(const FlagScope&) = delete;
};
// Where a `call` used as a value would not run exactly once before its
// statement (Context::value_call_refused_): `why` names the place.
struct RefuseValueCalls {
  const char*& slot;
  const char* saved;
  RefuseValueCalls(const char*& s, const char* why) : slot(s), saved(s) { slot = why; }
  ~RefuseValueCalls() { slot = saved; }
  RefuseValueCalls(const RefuseValueCalls&) = delete;
  RefuseValueCalls& operator=(const RefuseValueCalls&) = delete;
};
// Counting the bounds of a `with`: run-time values are fine there.
struct RuntimeCounts : FlagScope {
  using FlagScope::FlagScope;
};
// Counting a parallel level at host level: values the host knows before
// the launch (scalar parameters, host scalars) are counts known at run time.
struct HostCounts : FlagScope {
  using FlagScope::FlagScope;
};
// Constant extents of tensors (`.span`, `.span(i)`) fold to numbers.
struct ExtentsNow : FlagScope {
  explicit ExtentsNow(bool& f) : FlagScope(f, true) {}
};

// What every area's checker shares while one function is checked: its
// diagnostics, its symbols, and where the statement being checked runs.
class Context {
 public:
  Context(const Program& program, const Function& fn, const Options& options, CheckedFunction& out,
          std::vector<Diagnostic>& diagnostics, int& errors, std::vector<Diagnostic>& limitations);

  // ---- diagnostics (checker.cpp)
  [[noreturn]] void fail(Rule rule, const SourceLocation& at, std::string message, std::string hint = {},
                         std::vector<std::string> notes = {});
  // A shape-dependent rule (bound_rules.hpp) that a constant broke.
  [[noreturn]] void fail(const SourceLocation& at, Violation v, std::vector<std::string> notes = {}) {
    fail(v.rule, at, std::move(v.message), std::move(v.hint), std::move(notes));
  }
  void report(Rule rule, const SourceLocation& at, std::string message, std::string hint, std::vector<std::string> notes);
  // A limitation (rules.def CROQ_SEMA_LIMIT) whose construct the checker
  // understands well enough to go on checking the statement.
  void limitation(Rule rule, const SourceLocation& at, std::string message, std::string hint = {});
  // Whether an error was reported from `from` (its line, at or after its
  // column) to the end of line `last_line`.
  bool has_error_between(const SourceLocation& from, int last_line) const;
  // Abandons the statement when `t` already has a diagnostic.
  void require_ok(const Type& t) const {
    if (t.is_error()) throw Abort{};
  }
  std::string text(const Expr& e) const;                // as the user wrote it
  std::vector<std::string> notes_of(const Type& t) const;  // how `t` was derived, when it comes from a name
  bool wgmma() const { return !options_.target || options_.target->wgmma(); }

  // ---- symbols (checker.cpp; the names of futures in check_futures.cpp)
  void push() { scopes_.emplace_back(); }
  void pop();  // reports the scope's unused dma.any placeholders and unwaited futures
  Symbol* define(const std::string& name, Type type, Origin origin, const SourceLocation& where,
                 std::string detail = {});
  const Symbol* lookup(const std::string& name) const;
  Buffer* new_buffer(std::string name, DType dtype, int rank, Space space, const SourceLocation& where);
  const Symbol* declared_here(const std::string& name) const;
  void require_new_name(const std::string& name, const SourceLocation& at);
  std::size_t scope_of(const Symbol* symbol) const;

  // ---- the function and its results
  const Program& program_;
  const Function& fn_;
  const Options& options_;
  CheckedFunction& out_;
  std::vector<Diagnostic>& diagnostics_;
  int& errors_;
  std::vector<Diagnostic>& limitations_;

  // ---- names
  std::vector<std::vector<std::pair<std::string, const Symbol*>>> scopes_;
  std::vector<std::pair<std::string, const Symbol*>> symbolic_dims_;  // after every scope, as bind binds them
  bool index_tuple_arg_ = false;  // checking a plain name given to `.at` / `.from`: a tuple of indices is fine
  bool trial_ = false;  // evaluating an inthreads.async condition per index: record no resolutions
  bool deriving_shape_ = false;  // in the value of `sp : ...`: `x [(1), (0)]` derives a shape
  // In an extent of `x [...]` or `t {...}`: x or t, whose element k a pick `(k)` names
  // (`x [(0) / 2, 4]`), and its text.
  const Type* pick_source_ = nullptr;
  std::string pick_source_text_;

  // The function's returned tensor (a shaped return type).
  bool has_output_ = false;
  DType output_dtype_ = DType::f32;
  int output_rank_ = 0;
  bool output_declared_ = false;  // `auto` return: the returned declaration sets the output type
  std::optional<std::int64_t> output_rank_only_;  // `f32 mdspan<2>` return: the rank the declaration must have

  // ---- where the statements run (lowering's scope, thread split and thread set)
  Scope scope_ = Scope::kernel;
  // Instances of the thread, group and group-4 levels inside the block
  // level (0: unknown or many): at thread scope, 1 is a single thread.
  std::int64_t thread_instances_ = 1;
  bool thread_split_ = false;  // inside a `: group` / `: group-4` level: the next level splits its threads
  bool in_warpgroup_ = false;  // each warpgroup of a group-4 level runs the statements
  bool in_warp_ = false;       // each warp of a `: group` level directly in the block runs them
  bool threads_span_group_ = false;  // a thread level spanning each group's threads (lowering's alike)
  std::vector<std::string> span_thread_indices_;  // that level's index names
  struct Region {              // inside inthreads.async
    bool active = false;
    std::optional<std::int64_t> threads, first;  // when the selection is known now
  } region_;
  struct GroupLevel {
    std::string index;
    std::optional<std::int64_t> count;
    std::int64_t unit = 0;
  };
  std::vector<GroupLevel> group_levels_;
  // A single-index thread level that splits the block's threads directly
  // (no group level around): inthreads.async selects whole warps of it
  // (recorded for lowering: block_thread_levels).
  std::optional<GroupLevel> thread_level_;
  // Immutable scalars bound by `name = value;` -> the value (an
  // inthreads.async condition naming one selects by it: region_bindings).
  std::unordered_map<const Symbol*, const Expr*> bound_values_;
  // The level an inthreads.async condition selects among: the innermost
  // group level, else the thread level splitting the block (nullptr: none).
  const GroupLevel* region_level() const {
    if (!group_levels_.empty()) return &group_levels_.back();
    return thread_level_ ? &*thread_level_ : nullptr;
  }
  bool grid_set_ = false;
  bool cluster_open_ = false;
  bool clustered_ = false;  // inside a `: cluster` level (and its block level)
  bool cluster_error_ = false;  // the open cluster level had an error
  int regions_ = 0;  // inthreads.async regions so far (each takes a named barrier)
  // The first named barrier of those regions: 8 in a function that calls
  // __bar_arrive / __bar_sync (0..7 are the source's), as lowering counts.
  int first_region_barrier_ = 1;
  int inthreads_depth_ = 0;  // plain inthreads around the statement
  int parallel_depth_ = 0;  // parallel statements around the statement
  int loops_ = 0;  // foreach and while loops around the statement, inside its parallel body
  bool loop_of_several_indices_ = false;  // the innermost of them is a foreach of several indices
  int cooperative_levels_ = 0;  // `: block<cooperative>` levels around the statement
  // [[launch_bounds(N)]] of the enclosing block-level statement (0: none).
  std::int64_t launch_bound_ = 0;
  SourceLocation launch_bound_at_;
  std::int64_t pending_launch_bound_ = 0;  // set by the attribute, taken by the block level
  // Threads per block of the first leaf thread-level statement of the block.
  std::optional<std::int64_t> block_threads_;
  SourceLocation block_threads_at_;
  SpaceSpecifier parent_space_ = SpaceSpecifier::none;  // the level around the one being checked (as inferred)
  bool level_unfit_ = false;  // inside a level whose inferred space did not fit: reported once
  // The product of the counts of the `: group` / `: group-4` levels around
  // (1: none; nullopt: not a constant): a thread level inside them runs
  // that many times its own count in the block.
  std::optional<std::int64_t> split_groups_ = 1;
  int group4_levels_ = 0;  // `: group-4` levels around the statement
  // What a parallel level changes on entry and puts back on exit.
  struct Placement {
    Scope scope;
    std::int64_t thread_instances;
    bool thread_split, in_warpgroup, in_warp, threads_span_group;
    std::optional<std::int64_t> split_groups;
    int group4_levels;
    std::optional<GroupLevel> thread_level;
  };
  Placement placement() const {
    return {scope_, thread_instances_, thread_split_, in_warpgroup_, in_warp_, threads_span_group_, split_groups_,
            group4_levels_, thread_level_};
  }
  void restore(const Placement& p) {
    scope_ = p.scope;
    thread_instances_ = p.thread_instances;
    thread_split_ = p.thread_split;
    in_warpgroup_ = p.in_warpgroup;
    in_warp_ = p.in_warp;
    threads_span_group_ = p.threads_span_group;
    split_groups_ = p.split_groups;
    group4_levels_ = p.group4_levels;
    thread_level_ = p.thread_level;
  }

  // ---- what earlier statements fixed
  // One "needs sm_90" / "needs sm_80" per function, at the first construct.
  bool needs_sm90_reported_ = false;
  bool needs_sm80_reported_ = false;
  // The whole value of the statement being checked (an expression statement,
  // a declaration's or an assignment's value): where an atomic may stand.
  const Expr* atomic_site_ = nullptr;
  const Expr* statement_expr_ = nullptr;  // the expression of an expression statement
  std::set<const Symbol*> waited_;                      // futures a `wait` has named
  std::set<const Symbol*> named_futures_;               // futures a statement named after their copy
  std::set<const Symbol*> accumulator_arrays_;          // `frag mc[2][3] {0}`: used whole, an error
  bool tma_operands_ = false;                           // checking the operands of a tma.copy
  std::set<const Symbol*> placeholders_used_;           // dma.any placeholders a copy filled or a statement named
  bool placeholder_operand_ = false;                    // a swap operand may be an unfilled placeholder
  // Counting the bounds of a `with` (RuntimeCounts): run-time values are fine there.
  bool runtime_counts_ = false;
  // Counting a parallel level at host level (HostCounts): the launch computes
  // a count from the host's values, so it may be one known at run time.
  bool host_counts_ = false;
  // Constant extents of tensors (`.span`, `.span(i)`) fold to numbers: in
  // assertions, `with` bounds and declared shapes only (ExtentsNow).
  bool extents_now_ = false;
  std::size_t asm_bytes_ = 0;               // inline assembly of the function so far (rule asm-size)

  // ---- __co_device__ functions (check_call.cpp)
  // The calls being checked, outermost first (rule call-recursion), and the
  // functions whose bodies the kernel has checked already: a body is checked
  // once per __co__ function, where it is first called, into its facts.
  struct CallGraph {
    std::vector<const Function*> chain;
    std::set<const Function*> checked;
  };
  CallGraph own_calls_;
  CallGraph* calls_ = &own_calls_;
  bool device_function_ = false;  // checking the body of a __co_device__ function
  // Where a `call` used as a value would not run once before its statement
  // (rule call-placement): what the place is, null when it is fine.
  const char* value_call_refused_ = nullptr;
  // The body of a __co_device__ function runs where it is called: it is
  // checked where the caller's statement runs (its level, its thread set).
  void enter_call_from(const Context& caller);
  void leave_call_into(Context& caller) const;  // what the body fixed (shared bytes, sm_90 notes)
  std::int64_t kernel_shared_bytes_ = 0;  // shared tiles of constant shape declared in this kernel so far
};

class Checker;

// The base of each area's checker: the context, the other areas (through
// the Checker that owns them all), and the context's diagnostics and names
// that every rule uses.
class Part {
 public:
  explicit Part(Checker& checker);

 protected:

  [[noreturn]] void fail(Rule rule, const SourceLocation& at, std::string message, std::string hint = {},
                         std::vector<std::string> notes = {}) const {
    cx_.fail(rule, at, std::move(message), std::move(hint), std::move(notes));
  }
  [[noreturn]] void fail(const SourceLocation& at, Violation v, std::vector<std::string> notes = {}) const {
    cx_.fail(at, std::move(v), std::move(notes));
  }
  void report(Rule rule, const SourceLocation& at, std::string message, std::string hint,
              std::vector<std::string> notes) const {
    cx_.report(rule, at, std::move(message), std::move(hint), std::move(notes));
  }
  void limitation(Rule rule, const SourceLocation& at, std::string message, std::string hint = {}) const {
    cx_.limitation(rule, at, std::move(message), std::move(hint));
  }
  void require_ok(const Type& t) const { cx_.require_ok(t); }
  std::string text(const Expr& e) const { return cx_.text(e); }
  std::vector<std::string> notes_of(const Type& t) const { return cx_.notes_of(t); }
  const Symbol* lookup(const std::string& name) const { return cx_.lookup(name); }
  Symbol* define(const std::string& name, Type type, Origin origin, const SourceLocation& where,
                 std::string detail = {}) const {
    return cx_.define(name, std::move(type), origin, where, std::move(detail));
  }

  Checker& c_;
  Context& cx_;
};

// Expressions: names, literals, arithmetic, calls and the constant rules
// (check_expressions.cpp), views and element access (check_views.cpp),
// builtin calls (check_builtins.cpp), picks and literals (check_declarations.cpp).
class ExpressionChecker : public Part {
 public:
  using Part::Part;
  friend struct frontend::ast::Dispatch;

  Type expr(const Expr& e);  // Dispatch::expression
  // lowering's const_int: a value known at specialization; returns it when known now.
  // `runtime_in_croqtile`: Croqtile also takes a value computed at run time
  // here (a tile extent, a step); libcroqjit does not yet (a limitation).
  std::optional<std::int64_t> constant(const Expr& e, const char* what, bool runtime_in_croqtile = false);
  // lowering's shape_of: the dims of a shape operand, each known now or not.
  std::vector<std::optional<std::int64_t>> shape_dims(const Expr& e);
  // lowering's counts_of: parallel counts and loop bounds.
  // `runtime_ok`: integers computed in the kernel are counts known at run time.
  std::vector<Count> counts(const Expr& e, const char* what, bool runtime_ok = false);
  void bool_in_count(const Expr& part, const char* what);
  // An array of buffers used where one buffer is needed.
  void require_selected(const Expr& e, const Type& t);
  void string_literal(const Expr& e, const StringLiteral& s);  // rule string-escape

 private:
  [[noreturn]] void runtime_value(const Expr& e, const char* what, const Type& v);
  // Arguments of `.at` / `.from`: tuples flattened.
  std::vector<Type> index_args(const ExprList& args);
  // An index argument, where a plain name of a tuple of indices is fine (it stands for its indices).
  Type index_arg(const Expr& a);
  void literal_limits(const Expr& e);
  Type picked(const Expr& e, std::uint64_t k);
  void require_pick_in_range(const Expr& e, std::uint64_t k, std::int64_t size, const std::string& source,
                             const Type& object);
  Type name_value(const Expr& e, const Name& n);
  template <typename T>
  Type other_expression(const Expr& e, const T& n);  // the kinds Dispatch has no member name for
  Type unary(const Expr& e, const Unary& u);
  Type update(const Expr& e, const Unary& u, const char* op);  // `x++` inside an expression
  bool select_operand_limits(const Expr& operand, const Type& v);  // reported one
  Type binary(const Expr& e, const Binary& b);
  Type moved_bound(const Expr& e, const Binary& b, const Type& l, const Type& r);
  Type call(const Expr& e, const Call& c);
  Type bounded_value(const Expr& e, const Call& c, const Type& index);
  Type conditional(const Conditional& c);
  // `lhs op rhs` on whole shapes or tuples; `ceil`: `cdiv(lhs, rhs)` (op is `/`).
  Type shape_arithmetic(const Expr& e, BinaryOp op, const Expr& lhs, const Expr& rhs, const Type& l, const Type& r,
                        bool ceil = false);
  Type element_of(const Expr& e, const Call& c, const Type& whole);

  // ---- views and element access (check_views.cpp)
  Type member(const Expr& e, const Member& m);
  Type subscript(const Expr& e, const Subscript& s);
  Type element(const Expr& e, const Type& target, const ExprList& args);
  Type span_as(const Expr& e, const Member& m, const Type& obj);
  Type view_member(const Expr& e, const Member& m, Type obj);
  Type chunkat_member(const Expr& e, const Member& m, Type obj, std::vector<std::optional<std::int64_t>> dims);
  Type subspan_member(const Expr& e, const Member& m, Type obj, std::vector<std::optional<std::int64_t>> dims);
  Type chunk_member(const Expr& e, const Member& m, Type obj, std::vector<std::optional<std::int64_t>> dims);
  void strided_view(const Expr& e, const Member& m, const Type& obj, std::size_t extents,
                    const std::vector<const Expr*>& strides);
  void event_order(const Expr& e, const Member& m, const Type& ev);  // `e.at(order)`
  Type pick(const Expr& e, const Subscript& s, const Type& object);
  bool is_pick(const Expr& e) const;

  // ---- builtin calls (check_builtins.cpp)
  Type select(const Expr& e, const Call& c);
  std::optional<Type> atomic(const Expr& e, const Call& c, const std::string& name);
  Type math_builtin(const Expr& e, const Call& c, const frontend::MathBuiltin& b);
  Type print(const Expr& e, const Call& c);
  // __bar_arrive(id, threads) / __bar_sync(id, threads): PTX's named barriers (check_builtins.cpp).
  Type named_barrier(const Expr& e, const Call& c, const std::string& name);

 public:
  // `call f(args)` of the __co_device__ function `callee` (check_call.cpp):
  // its arguments against its parameters, then its body, once per __co__ function.
  // The value's type when `value_wanted` (void: an error then).
  Type device_call(const SourceLocation& at, const Function& callee, const ExprList& args, bool value_wanted);
  void call_placement(const SourceLocation& at, const std::string& callee, const char* kind, bool value_wanted,
                      const std::string& value_type);
  // `call f(args)` / `f(args)` of the C++ function `callee` (check_device_call.cpp):
  // records its DeviceCall fact under `key` (the CallStatement or Call).
  Type cxx_call(const SourceLocation& at, const frontend::ast::DeviceCode::Function& callee,
                const ExprList& template_args, const ExprList& args, bool value_wanted, const void* key);
  // `hw_f(args)` matching a `#pragma croq intrinsic` in scope (check_device_call.cpp):
  // a C++ call passed through by name, as a statement inside a parallel body.
  Type intrinsic_call(const Expr& e, const Call& c);
  // What each argument of a call into C++ passes (a tile's element pointer,
  // a number), into `fact` (check_device_call.cpp).
  void device_arguments(const std::string& called, const ExprList& args, DeviceCall& fact);
  // `call f(...)` naming no function of the source: valid Croqtile (a
  // function of some header), a limitation here (check_call.cpp).
  void unknown_function(const SourceLocation& at, const std::string& callee) const;

 private:
  // `dims`: the constant extents the arguments so far gave the callee's dims.
  void device_call_argument(const Function& callee, std::size_t i, const Expr& arg,
                            std::map<std::string, std::int64_t>& dims);
};

// Statements: the walk, declarations, loops, returns, conditions
// (check_statements.cpp), assignments (check_assignments.cpp), `sync` and
// loop forms (check_forms.cpp), inline assembly (check_asm.cpp), declaration
// forms and parameters (check_declarations.cpp).
class StatementChecker : public Part {
 public:
  using Part::Part;
  friend struct frontend::ast::Dispatch;

  void statement(const Stmt& s);
  void nested(const Stmt& s);  // a body: its own scope
  void host_statements(const Stmt& s, int depth);  // a host program's host level (check_statements.cpp)
  void host_limitation(const Stmt& s, std::string message, std::string hint);
  void between_kernels_limitation(const Stmt& s);
  bool host_program_ = false;  // the function is a host program (frontend/host_code.hpp)
  void body_after_condition(const Expr& cond, const char* what, const Stmt& body);
  void parameter_form(const Parameter& p);  // `?` dims, a rank only, `stream`

 private:
  // A `mutable` scalar that `e` names, if any: tuples and shapes hold fixed values.
  const Symbol* mutable_in(const Expr& e) const;
  void statement_node(const Stmt& s);  // Dispatch::statement
  template <typename T>
  void other_statement(const Stmt& s, const T& n);  // the kinds Dispatch has no member name for
  // The kinds other areas check (Dispatch's names).
  void parallel(const Stmt& s, const Parallel& p, std::size_t level);
  void copy(const Stmt& s, const Copy& c);
  void mma_statement(const Stmt& s, const Mma& m);
  void wait_statement(const Stmt& s, const Wait& w);
  void trigger_statement(const Stmt& s, const Trigger& t);
  void swap_statement(const Stmt& s, const Swap& sw);

  void declaration(const Stmt& s, const Declaration& d);
  // Checks the declaration when it is a named shape, an ituple or a
  // fragment (true: done); arrays of arrays, `event<N>`, `auto` without a value.
  bool declaration_form(const Stmt& s, const Declaration& d);
  void named_value_declaration(const Declaration& d);
  void tensor_declaration(const Stmt& s, const Declaration& d);
  std::optional<Buffer::Initial> tensor_initial(const Declarator& decl, Storage storage);
  void scalar_declaration(const Declaration& d);
  // Rule shared-memory-limit: a shared declaration of constant shape, counted
  // against the target's per-block limit.
  void count_shared_memory(const Declarator& decl, DType dtype,
                           const std::vector<std::optional<std::int64_t>>& dims, std::optional<std::int64_t> slots);
  void loop(const Stmt& s, const Loop& l);
  void loop_range(const LoopIndex& index);
  void loop_extras(const Loop& l);
  void unbounded_foreach_index(const frontend::ast::Identifier& id);
  Type index_tuple(const Identifier& name, const std::vector<Count>& bounds);
  void return_statement(const Stmt& s, const Return& r);
  void returned_number(const Expr& value);
  void call_statement(const Stmt& s, const CallStatement& c);
  void sync_statement(const Stmt& s, const Sync& y);
  void asm_statement(const Stmt& s, const Asm& a);
  void device_function_return(const Stmt& s, const Return& r);  // check_call.cpp
  Type condition(const Expr& e, const char* what);
  std::vector<const Expr*> leaves_of(const Expr& e) const;
  bool events_only(const Expr& e) const;
  // Names a failed statement would have defined, as errors (no cascades).
  void define_poisoned(const Stmt& s);

  // ---- assignments (check_assignments.cpp)
  void assignment(const Stmt& s, const Assignment& a);
  void tensor_arithmetic(const Stmt& s, const Assignment& a, const Type& target, const Type& value);
  void no_string_or_pointer(const std::string& name, const Expr& value);
};

// Copies (check_copies.cpp: dma.copy / transp / pad, tma.copy), futures
// (check_futures.cpp: placeholders, swap) and events (check_events.cpp:
// declarations, wait, trigger, a copy's future).
class TransferChecker : public Part {
 public:
  using Part::Part;

  void copy(const Stmt& s, const Copy& c);
  int swizzle_span(const Modifier& m);
  void swap_statement(const Stmt& s, const Swap& sw);
  void event_declaration(const Stmt& s, const Declaration& d);
  void wait_statement(const Stmt& s, const Wait& w);
  void trigger_statement(const Stmt& s, const Trigger& t);

 private:
  static void place_at_origin(Type& t);
  // `after f`: the future counts as used (async-not-waited) even when the
  // statement is not checked further.
  void note_named_future(const Expr& e);
  void copy_after(const Stmt& s, const Expr& dependency);  // `dma.copy ... after f`
  // whole_array: `trigger e;` / `wait e;`, where a whole array means each of its events.
  Type event_value(const Expr& e, const char* what, bool whole_array = false);
  CopyProtocol copy_protocol(const Copy& c);
  void dma_copy(const Stmt& s, const Copy& c);
  void tma_copy(const Stmt& s, const Copy& c);
  std::vector<std::optional<std::int64_t>> transpose(const Copy& c, int rank);  // the permutation
  void padding(const Copy& c, int rank);
  Type copy_source(const Copy& c);
  void bind_future(const Copy& c, Type tile, bool async, const Expr* bound_event);
  // The destination `dst` (at `where`) of a copy from a tile of `from`: same rank and element type.
  void require_copy_types(const Expr& where, const char* engine, const Type& from, const Type& dst);
  void copy_direction(const Stmt& s, const Copy& c, const Type& src, const Type& dst, bool async);
  void require_named_async(const Stmt& s, const Copy& c);
  void placeholder(const Stmt& s, const Copy& c);
  void define_future(const std::string& name, Type tile, const SourceLocation& at, std::string detail);
  void trigger_after(const Trigger& t);
  void arrive(const Type& event, const SourceLocation& where);
  // `global event`: triggered by threads only (global-event-use), inside parallel statements.
  void counted_event_trigger(const Stmt& s, const Trigger& t, const Expr& target);
  void host_event(const Expr& target, const Type& event, const char* what);
};

// mma statements (check_mma.cpp, check_mma_sparse.cpp, check_mma_scale.cpp),
// register fragments (check_declarations.cpp) and `apply` over registers
// (check_statements.cpp).
class MmaChecker : public Part {
 public:
  using Part::Part;

  void mma_statement(const Stmt& s, const Mma& m);
  void fragment_declaration(const Stmt& s, const Declaration& d);
  bool register_apply(const Loop& l);
  void all_reduce_sum(const Call& c);  // all_reduce_sum(row) (check_frag.cpp)

 private:
  // check_frag.cpp: fragments declared inside a thread level (spread over
  // its threads by rows), and the warpgroup's [64] row fragments an apply
  // over a 2-D register tile accumulates into (partial sums per lane).
  std::set<const Buffer*> thread_fragments_, row_partials_;
  bool thread_apply(const Symbol& tile);
  void note_row_partials(const Loop& l);
  bool register_operand(const Expr& e);
  Accumulator* accumulator(const Expr& e);
  Accumulator* written_accumulator(const Expr& e);
  void mma_forms(const Stmt& s, const Mma& m);  // the checks of each form
  void mma_fill(const Stmt& s, const Mma& m);
  void mma_load(const Stmt& s, const Mma& m);
  void accumulator_load(const Mma& m, Type v, const Name& name);  // `mc = mma.load tile;` as C
  void fragment_load(const Stmt& s, const Mma& m);  // mma.load src, frag (check_frag.cpp)
  void mma_multiply(const Stmt& s, const Mma& m);
  void mma_sparse_multiply(const Stmt& s, const Mma& m);
  void mma_scale(const Stmt& s, const Mma& m);
  void mma_scaled_multiply(const Stmt& s, const Mma& m);  // mma.row.row.scale acc, a, b, sa, sb
  void scale_operands(const Expr& scale_a, const Expr& scale_b, const std::string& op);
  void mma_store(const Stmt& s, const Mma& m);
  void mma_store_mask(const Stmt& s, const Mma& m);  // mma.store.mask acc, tile, rows[, cols]
  void require_warpgroups(const Stmt& s, const std::string& op, bool block_scope_fill = false);
  // `lhs`: the operand may be a register fragment (RS-mode WGMMA).
  DType mma_operand(const Expr& e, bool lhs = false);
};

// Parallel levels, inthreads (check_parallel.cpp), launch and placement
// forms (check_forms.cpp) and the attributes of a statement
// (check_attributes.cpp: launch bounds, schedules, threads per block).
class LevelChecker : public Part {
 public:
  using Part::Part;

  void parallel(const Stmt& s, const Parallel& p, std::size_t level);
  void inthreads_async(const Stmt& s, const InThreads& t);
  std::vector<std::pair<std::string, const Expr*>> region_bindings(const Expr& condition) const;
  const std::string* region_thread_index(const Expr& condition,
                                         const std::vector<std::pair<std::string, const Expr*>>& bindings) const;
  void inthreads(const Stmt& s, const InThreads& t);  // the plain (not async) form
  void attributes(const Stmt& s);
  bool on_whole_warpgroups() const;
  bool on_single_warps() const;  // warp-level mma: one m16n8k16 tile per warp
  bool at_block_scope() const;  // in the block, outside its group, group-4 and inthreads levels

 private:
  using Region = Context::Region;
  using GroupLevel = Context::GroupLevel;
  struct LevelCounts {
    std::vector<Count> values;
    std::int64_t total = 1;  // the product of the counts, when `known`
    bool known = true;
  };
  LevelCounts level_counts(const ParallelLevel& lv);
  void runtime_count_fits(const ParallelLevel& lv, const std::vector<Count>& counts, Mapping mapping, bool cooperative);
  SpaceSpecifier level_space(const Parallel& p, std::size_t level_index);
  Mapping level_mapping(const Parallel& p, std::size_t level_index, SpaceSpecifier space, bool nested_below);
  void check_level_fits(const Parallel& p, std::size_t level_index, SpaceSpecifier space, Mapping mapping,
                        const LevelCounts& n, std::int64_t unit, bool nested_below);
  std::optional<std::int64_t> cluster_blocks(const Parallel& p, std::size_t level);
  void parallel_launch(const Stmt& s, const Parallel& p);
  bool placement_level(const Stmt& s, const Parallel& p, std::size_t level_index);
  // One integer argument of an attribute: a constant, at least `least`.
  std::int64_t attribute_integer(const Attribute& a, const Expr& arg, std::int64_t least, const char* what);
  void schedule_attribute(const Stmt& s, const Attribute& a);
  // A thread-mapped level entered at block scope: the block's thread count
  // against [[launch_bounds]] and against its sibling statements.
  void block_threads(const ParallelLevel& lv, std::int64_t threads, bool leaf);
  // A `: thread` level under a `: group` / `: group-4` level fills whole units.
  void thread_level_units(const ParallelLevel& lv, std::int64_t threads);
};

// The checker of one function: the context and each area's checker.
class Checker {
 public:
  Checker(const Program& program, const Function& fn, const Options& options, CheckedFunction& out,
          std::vector<Diagnostic>& diagnostics, int& errors, std::vector<Diagnostic>& limitations);
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;
  void run();
  void define_parameters();
  // A __co_device__ function's body, checked for the call being checked by
  // `caller` (check_call.cpp).
  void run_device_function(const Context& caller);

  Context context;
  ExpressionChecker expressions;
  StatementChecker statements;
  TransferChecker transfers;
  MmaChecker mma;
  LevelChecker levels;
};

inline Part::Part(Checker& checker) : c_(checker), cx_(checker.context) {}

// The statement kinds other areas check, as Dispatch names them.
inline void StatementChecker::parallel(const Stmt& s, const Parallel& p, std::size_t level) {
  c_.levels.parallel(s, p, level);
}
inline void StatementChecker::copy(const Stmt& s, const Copy& c) { c_.transfers.copy(s, c); }
inline void StatementChecker::mma_statement(const Stmt& s, const Mma& m) { c_.mma.mma_statement(s, m); }
inline void StatementChecker::wait_statement(const Stmt& s, const Wait& w) { c_.transfers.wait_statement(s, w); }
inline void StatementChecker::trigger_statement(const Stmt& s, const Trigger& t) { c_.transfers.trigger_statement(s, t); }
inline void StatementChecker::swap_statement(const Stmt& s, const Swap& sw) { c_.transfers.swap_statement(s, sw); }

}  // namespace croq::sema::detail
