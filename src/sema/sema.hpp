// The semantic checker: runs once per croq::compile (and `croq check`) on
// the AST, before any call, and reports every error that does not depend on
// the argument shapes. What it proves is recorded in a CheckedProgram that
// later stages rely on (lowering reads it rather than deriving it again):
// each name resolved to a symbol of a known kind (tensor of
// dtype/rank/space, bounded index, scalar, future, event, accumulator, mma
// operand, shape), each declared buffer's element type, space and shape and
// each event's count, how each parallel level maps, each copy's protocol
// (async, bound event, zfill, direction, its future), the rings of swapped
// futures, and the decoded modifiers (swizzle spans, paddings).
//
// Types are shape-independent: ranks, element types, memory spaces, kinds
// and values that are constants in the source; never tensor extents (those
// are bound per call, by bind (src/bind)).
//
// The rules live in one file per area (check_*.cpp); rules.def lists them
// with their stable ids.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "croq/error.hpp"
#include "frontend/ast.hpp"
#include "sema/types.hpp"
#include "target/target.hpp"

namespace croq::sema {

struct Options {
  // The target, when CompileOptions::arch names it: its arch rules (tma.copy
  // and clusters need sm_90, events and mma sm_80) are then checked here
  // instead of when a specialization is generated for the device's arch.
  std::optional<target::Target> target;
  int max_errors = 50;  // then one note says the rest were not reported
  // Limitations (rules.def's CROQ_SEMA_LIMIT: valid Croqtile that libcroqjit
  // cannot run yet) are errors for croq::compile. `croq check` turns this
  // off: they come back as warnings in CheckedProgram::limitations.
  bool limitations_are_errors = true;
  // Return the facts of functions with errors instead of throwing; the
  // errors go to CheckedFunction::rejected. For pipeline::generate_program
  // called without sema's facts (tests of lowering on sources that
  // croq::compile rejects): lowering reports sema's error of the construct
  // it cannot lower.
  bool keep_going = false;
};

// How a parallel level runs (docs/guide/language.md, "Parallel mapping").
enum class Mapping { cluster, grid, threads, flat };

// `dma.pad<low, high, mid, value>`: per part (low, high, mid) one
// expression per dimension of the tile, and the value. The expressions are
// evaluated when the kernel is specialized (they may name symbolic dims).
struct Padding {
  std::array<std::vector<const frontend::ast::Expr*>, 3> parts;
  const frontend::ast::Expr* value = nullptr;
};

// How a copy runs, decoded from its modifiers and operands once: lowering
// issues the copy and completes its future from this.
struct CopyProtocol {
  bool async = false;  // `.async`: completes later, through its future or its event
  bool zfill = false;  // `.zfill` written (a `.zfill` view as the source adds its own)
  const frontend::ast::Modifier* swizzle = nullptr;  // `.swiz<N>` (its span: CheckedFunction::swizzle_span)
  const frontend::ast::Modifier* bound = nullptr;    // `.async<e>`: completes on event e, not on a wait
  bool store = false;  // tma.copy from a shared tile to global memory (otherwise a load)
  // `.multicast`: the tile into every block of the cluster (the same tile
  // in each: every block loads it; interpret mode checks they agree).
  const frontend::ast::Modifier* multicast = nullptr;
  // `tma.load.evict_first` / `.evict_last` / `.evict_normal`: the L2
  // eviction priority of the lines it reads ("" none).
  std::string l2_eviction;
  // The future the copy defines or fills (`f = dma.copy ...`); null: none.
  const frontend::ast::Name* future = nullptr;
};

// How an mma statement runs, decoded from its modifiers once (recorded
// only for a statement sema accepted whole): lowering reads this.
struct MmaProtocol {
  DType accumulator = DType::f32;  // mma.fill `.f32` / `.f16` / `.s32` (a warp's)
  const frontend::ast::Modifier* swizzle = nullptr;  // mma.load `.swiz<N>` (CheckedFunction::swizzle_span)
  bool to_registers = false;  // mma.load.frag: a register fragment of the tile
  // `mc = mma.load tile;` where an mma accumulates into mc: the tile is a
  // warp accumulator's initial value, of type `accumulator`.
  bool accumulator_load = false;
  bool sparse = false;        // mma.row.row.sp acc, a, b, meta: a 2:4 sparse lhs
  bool transpose = false;     // mma.store.transp: a warp's accumulator stored as [N, M]
  // mma.store.mask acc, tile, rows[, cols]: only the tile's elements (r, c)
  // with r < rows and c < cols are written (integers, any value; no cols:
  // every column). Null for an unmasked store.
  const frontend::ast::Expr* mask_rows = nullptr;
  const frontend::ast::Expr* mask_cols = nullptr;
};

// One dim of a shape derived by selection (`t.span[(0), (2), 4]`,
// `x[(1), (0)]`): dim `pick` of the operand's shape, or the extent
// `extent` (an integer known when the kernel is specialized).
struct SelectedDim {
  int pick = -1;
  const frontend::ast::Expr* extent = nullptr;
};

// Futures that `swap` and `rotate` statements exchange (the union of the
// lists that share a name), and each `dma.any` / `tma.any` placeholder not
// swapped: one shared buffer of a slot per future, which the future's copies
// fill. Names in order of first mention.
struct FutureRing {
  std::vector<std::string> futures;
};

// One checked __co__ function. Symbols, buffers, events and accumulators
// are owned here; the maps point into them (the object is not copyable).
// `call f(args)` or `f(args)` of a C++ function the source defines
// (`__device__`, or in a `__cok__ { }` block): the generated CUDA calls it.
struct DeviceCall {
  std::string callee;  // a name find_device_function knows
  // Per template argument: the C++ type it names ("int", "float"), or
  // empty for a constant integer that lowering evaluates (known when the
  // kernel is specialized).
  std::vector<std::string> template_types;
  // Per argument: passed as the pointer to its tile's first element (a
  // tensor, a tile, a future's `.data`), or else as a number.
  std::vector<bool> pointers;
  // Used as a value: the element type of its result (from the C++ return type).
  std::optional<DType> result;
};

struct CheckedFunction {
  const frontend::ast::Function* function = nullptr;
  std::deque<Symbol> symbols;  // parameters, symbolic dims, then definitions in source order
  std::deque<Buffer> buffers;
  std::deque<EventArray> events;
  std::deque<Accumulator> accumulators;
  // Every Name expression of the body, shapes and return type -> what it names.
  std::unordered_map<const frontend::ast::Expr*, const Symbol*> resolved;
  std::unordered_map<const frontend::ast::ParallelLevel*, Mapping> mappings;
  // Each parallel level -> the space it runs at: the one it names, or the
  // one inferred for an unannotated level (level_inference.hpp); `none` for
  // an unannotated level at the top of a kernel with no level below it.
  std::unordered_map<const frontend::ast::ParallelLevel*, frontend::ast::SpaceSpecifier> level_spaces;
  // Each single-index thread level that splits the block's threads directly
  // (no group level around it): inthreads.async inside selects whole warps
  // of its index.
  std::unordered_set<const frontend::ast::ParallelLevel*> block_thread_levels;
  std::string returned;  // the name of the returned tensor; empty when none
  // Decoded modifiers, which lowering reads instead of decoding them again:
  // each `.swiz<N>` of a copy or mma.load -> its byte span (0, 32, 64, 128),
  // and each `dma.pad<low, high, mid, value>` -> its parts per dimension.
  std::unordered_map<const frontend::ast::Modifier*, int> swizzle_spans;
  std::unordered_map<const frontend::ast::Copy*, Padding> paddings;
  // Each `.sqz()` whose view's dims sema knows -> which dims it drops (those
  // of extent 1 in the source: a dim that is 1 only for some arguments stays).
  std::unordered_map<const frontend::ast::Expr*, std::vector<bool>> squeezed_dims;
  // Each tensor and event declarator -> its buffer (element type, space,
  // shape, ring slots, the returned tensor or a program buffer) or event
  // array (count, `= ready`).
  std::unordered_map<const frontend::ast::Declarator*, const Buffer*> declared_buffers;
  std::unordered_map<const frontend::ast::Declarator*, const EventArray*> declared_events;
  // Each dma.copy / tma.copy (not dma.any) -> its protocol.
  std::unordered_map<const frontend::ast::Copy*, CopyProtocol> copies;
  // Each mma statement sema accepted -> its protocol.
  std::unordered_map<const frontend::ast::Mma*, MmaProtocol> mmas;
  // Each shape derived by selection (and tuple picked from another) sema accepted -> its dims (elements) in order.
  std::unordered_map<const frontend::ast::Expr*, std::vector<SelectedDim>> shape_selections;
  std::vector<FutureRing> future_rings;
  // Each `name = value;` that binds a new immutable `name` in an inner scope
  // over a `name` of an outer one (`sum = sum + x;` inside a loop), rather
  // than assigning to it.
  std::unordered_set<const frontend::ast::Assignment*> rebindings;
  // Each inthreads.async whose condition names immutable scalars bound from
  // the level's index (`pred = t >= 64; inthreads.async (!pred)`) -> those
  // bindings (name, value), each after the ones its value names: the
  // selection evaluates them again for each value of the index.
  std::unordered_map<const frontend::ast::InThreads*, std::vector<std::pair<std::string, const frontend::ast::Expr*>>>
      region_bindings;
  // Each inthreads.async in a group level whose condition also tests the
  // index of the thread level spanning each group's threads (`g == 0 &&
  // t < 64`): it selects threads, evaluated for each (group, thread) pair.
  std::unordered_set<const frontend::ast::InThreads*> thread_selected_regions;
  // Each call of a __device__ function -> what it passes (keyed by the
  // frontend::ast::CallStatement or frontend::ast::Call).
  std::unordered_map<const void*, DeviceCall> device_calls;
  // Each TMA load completed by a trigger of its block: an async load by the
  // `trigger e after f` naming its future; a synchronous one by the
  // `trigger e;` that closes the run of synchronous TMA copies it is in.
  std::unordered_map<const frontend::ast::Copy*, const frontend::ast::Trigger*> completing_triggers;
  // Whether the function uses TMA, swizzled copies, mma, events or
  // inthreads.async: its kernels need sm_90's machinery.
  bool uses_hopper = false;
  // Whether the function (or a __co_device__ function it calls) calls
  // __bar_arrive / __bar_sync: the source's named barriers are 0..7, and its
  // kernels' own (inthreads.async regions, warpgroups) start at 8.
  bool named_barriers = false;
  // With Options::keep_going: the errors sema found (sorted by position).
  std::vector<Diagnostic> rejected;

  // The facts of a construct that passed the checks (an internal error
  // when sema recorded none: lowering met what sema did not check).
  Mapping mapping(const frontend::ast::ParallelLevel& level) const;
  frontend::ast::SpaceSpecifier level_space(const frontend::ast::ParallelLevel& level) const;
  int swizzle_span(const frontend::ast::Modifier& swiz) const;
  const Padding& padding(const frontend::ast::Copy& copy) const;
  const Buffer& buffer(const frontend::ast::Declarator& declarator) const;
  const EventArray& event(const frontend::ast::Declarator& declarator) const;
  const CopyProtocol& protocol(const frontend::ast::Copy& copy) const;
  const MmaProtocol& protocol(const frontend::ast::Mma& mma, const frontend::ast::SourceLocation& at) const;
  // The trigger completing `copy`, or null (completing_triggers).
  const frontend::ast::Trigger* completing_trigger(const frontend::ast::Copy& copy) const;
  const DeviceCall& device_call(const void* call, const frontend::ast::SourceLocation& at) const;

  CheckedFunction() = default;
  CheckedFunction(const CheckedFunction&) = delete;
  CheckedFunction& operator=(const CheckedFunction&) = delete;
};

struct CheckedProgram {
  const frontend::ast::Program* program = nullptr;
  std::vector<std::unique_ptr<CheckedFunction>> functions;
  const CheckedFunction* find(const std::string& name) const;
  // Warnings, one per construct libcroqjit cannot run yet, when
  // Options::limitations_are_errors is off (in source order).
  std::vector<Diagnostic> limitations;
  // The target whose arch rules were checked (Options::target); without
  // one, a specialization for a target checks the function again.
  std::optional<target::Target> target;
};

// Checks `functions` of `program` (all of them when empty). Throws
// croq::CompileError with every error found (each with its rule id, notes
// and hint), sorted by position; recovers after each statement.
CheckedProgram check(const frontend::ast::Program& program,
                     const std::vector<const frontend::ast::Function*>& functions = {},
                     const Options& options = {});

}  // namespace croq::sema
