// The tile IR: one specialized __co__ function after lowering, before CUDA.
//
// A Kernel is structured statements over typed scalar expressions, plus the
// tile-level operations that the passes and the backend decide how to run:
// cooperative copies, TMA copies, events (mbarriers), barriers, and MMA
// operations that are abstract over the instruction until a pass selects
// one for the target. Buffers carry their memory space and layout (shared
// offset, swizzle, ring slots), which passes fill in; the backend only
// prints what the IR says. Expressions are immutable and shared; statements
// are owned by their parent and rewritten in place by passes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/dtype.hpp"
#include "croq/error.hpp"

namespace croq::ir {

// Where a statement or operation came from in the Croqtile source.
struct SourcePos {
  int line = 0;
  int column = 0;
  int length = 1;
};

// ------------------------------------------------------------------ types

// Scalar types of expressions: the index and control types of generated
// code, and element types of tensors.
struct Type {
  // `index`: the kernel's index type before the index-width pass chooses
  // i32 or i64; only declarations (Let, For) have it. Their variables read
  // as i32 until then (Expr::index_var), the form lowering builds on.
  enum class Kind { i32, i64, u32, f32, f64, boolean, element, index } kind = Kind::i32;
  DType dtype = DType::s32;  // Kind::element only
  static Type i32() { return {Kind::i32, DType::s32}; }
  static Type index() { return {Kind::index, DType::s32}; }
  static Type i64() { return {Kind::i64, DType::s64}; }
  static Type f32() { return {Kind::f32, DType::f32}; }
  static Type boolean() { return {Kind::boolean, DType::u8}; }
  static Type element(DType t) { return {Kind::element, t}; }
  bool is_float() const;
  friend bool operator==(const Type&, const Type&) = default;
};

// ------------------------------------------------------------ expressions

struct Expr;
using ExprRef = std::shared_ptr<const Expr>;

enum class ExprKind {
  int_const,      // value
  float_literal,  // text: a validated C++ floating literal ("0.0f", "1e-3"), or "inf" (+infinity, f32)
  var,            // text: a local variable or kernel parameter
  special,        // text: threadIdx.x, blockIdx.x, blockDim.x, gridDim.x
  unary,          // op, operands[0]
  binary,         // op, operands[0..1]
  select,         // operands: condition, then, else
  element,        // buffer element: buffer, operands: slot (or null), coords...
  address_of,     // &element: operands[0] is an element
  typed_zero,     // dtype's zero (typed literal): text is the value ("0")
  zero_like,      // decltype(operands[0])(0)
  convert,        // operands[0] converted to `type` (a C-style cast)
  math,           // op (a math function: "sqrt", "atan2", "fma", "isfinite", ...) of operands, all of `type`
                  // (f32 or f64; integers for max and min); isfinite is boolean
  atomic,         // op ("add", "sub", "exch", "min", "max", "and", "or", "xor", "cas") on the element
                  // operands[0] with operands[1..] (of its type); the element's old value
  by_index_width,  // operands[0] where the kernel's indices are 32-bit, operands[1] where they are 64-bit
                   // (of operands[0]'s type): the index-width pass keeps one
  device_call,     // text: a C++ function the source defines (__device__, __cok__), called with
                   // operands: `value` template arguments (an int_const is its value, a typed_zero
                   // its element type), then the call's arguments; op "void": no value (an Eval's
                   // whole expression), else a value of `type`
};

struct Expr {
  ExprKind kind = ExprKind::int_const;
  Type type;
  std::int64_t value = 0;
  std::string text;
  std::string op;  // unary/binary operator as C++ spells it
  int buffer = -1;  // element: Kernel::buffers index
  std::vector<ExprRef> operands;
  // var: an index variable (declared with Type::index()), i32 until the
  // index-width pass gives it the width chosen.
  bool index_var = false;
};

// ------------------------------------------------------------------ data

enum class Space { global, shared, local };

// A dimension's extent: a constant, or a dynamic dim (a kernel parameter).
struct Extent {
  std::int64_t value = -1;  // -1: dynamic
  std::string dim;          // the dynamic dim's name
  bool is_dynamic() const { return value < 0; }
};

struct Buffer {
  std::string name;
  DType dtype = DType::f32;
  std::vector<Extent> dims;
  Space space = Space::global;
  int argument = -1;  // call argument it comes from; -2: the output; -1: none
  // Proven alignment of the base pointer in bytes.
  int align_bytes = 16;
  // Shared tiles: the TMA swizzle span (0: row-major; -1: not fixed yet,
  // read as row-major), a ring of `slots` tiles each `slot_elems` elements
  // apart (0: not an array), and the byte offset in dynamic shared memory
  // (set by the shared-memory layout pass; -1 until then).
  int swizzle = -1;
  std::int64_t slots = 0;
  std::int64_t slot_elems = 0;
  std::int64_t smem_offset = -1;
  // Another view of buffer `alias_of`'s storage with other dims (span_as):
  // same name and memory, allocated once.
  int alias_of = -1;
  // A register fragment (`frag`, `mma.load.frag`): `fragment` is its logical
  // shape, a warpgroup's [64, N] tile or [64] rows; `dims` are one thread's
  // registers in the WGMMA accumulator layout (N / 2 of a tile, 2 rows of a
  // row vector). Empty: not a fragment.
  std::vector<std::int64_t> fragment;
  // A strided view's storage (`x.view(e : s)`, a `DeclarePointer`): element
  // (i, j, ...) is `strides[0] * i + strides[1] * j + ...` elements past
  // the pointer. Empty: row-major over `dims`.
  std::vector<std::int64_t> strides;
  // A `select`'s pointer (a `DeclarePointer`): the buffers (roots, not
  // aliases) it may point at, chosen at run time; `alias_of` is the first.
  // Empty: not a select.
  std::vector<int> points_to;
};

// `shared event e[N]`: N mbarriers, and each thread's expected phase bits.
struct Event {
  std::string source_name;  // as the source names it, for messages
  std::string name;   // the barrier array
  std::string phase;  // the per-thread phase bits
  std::int64_t count = 1;
  bool ready = false;
  // TMA completion barriers that no source event names: one arrival, set up
  // with the other barriers and placed after every other shared object.
  bool is_private = false;
  std::int64_t smem_offset = -1;
  // Arrivals per phase, from the trigger sites (the event-arrivals pass):
  // a number, or every thread of the block (blockDim.x); 0: none seen.
  std::int64_t arrivals = 0;
  bool arrivals_whole_block = false;
  // `trigger.cluster`: every block of the cluster arrives on each block's
  // barrier, so a phase counts the arrivals times Kernel::cluster_live.
  bool cluster_arrivals = false;
  SourcePos first_trigger;
};

// A warpgroup's WGMMA-layout accumulator: 64 x n, n from the mma writing it.
struct Accumulator {
  std::string name;
  DType dtype = DType::f32;
  ExprRef fill;
  std::int64_t n = 0;
  // 64: one warpgroup's tile (WGMMA or 4 warps of mma.sync). With `warp`,
  // each warp its own rows x n tile (warp-level mma, always mma.sync), held
  // as ceil(rows / 16) x ceil(n / 8) m16n8 blocks of 4 registers (float for
  // f32 and f16 accumulators, int for s32); the fragment layout of one
  // m16n8 block is the same either way.
  std::int64_t rows = 64;
  // Element-wise work on it (`apply`): a local buffer of the same name that
  // reads and writes its f32 registers (declared by the fill); -1: none.
  int registers = -1;
  bool warp = false;
  // `frag mc[2][3]`: an array of warp accumulators (sizes; empty: one).
  std::vector<std::int64_t> array_dims;
};

// The threads that run a statement together: the whole block, or (inside
// inthreads.async) `threads` threads from `first` with named barrier `barrier_id`.
struct ThreadSet {
  std::int64_t threads = 0;  // 0: the whole block
  std::int64_t first = 0;
  int barrier_id = 0;
  ExprRef tid;    // 0-based thread index within the set
  ExprRef count;  // its size
};

// A rectangular window of a buffer: element i is buffer element
// origin + i (in slot `slot` of a ring).
struct Tile {
  int buffer = -1;
  ExprRef slot;  // null: not a ring
  std::vector<ExprRef> origin;
  std::vector<std::int64_t> origin_multiple;  // known divisors of origin (0: exactly 0)
  std::vector<std::int64_t> extent;
  bool exact = true;  // never reaches past the buffer
  // Per dim, a runtime extent below `extent` (null or empty: none): element
  // i of the dim is in the tile when i < limit[d].
  std::vector<ExprRef> limit;
};

// ------------------------------------------------------------- statements

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

struct Seq {
  StmtList body;
  bool braces = false;  // a C++ scope of its own
};
struct Let {
  std::string name;
  Type type;
  bool is_const = true;
  ExprRef init;  // null: zero
};
struct Assign {
  ExprRef target;  // a var or an element
  std::string op = "=";
  ExprRef value;
  ExprRef guard;   // null: unconditional
};
struct Eval {
  ExprRef value;
};
// Lowering's mark on a k loop of Croqtile's README GEMM form: its body
// starts with synchronous TMA loads (each completing on a private event of
// its own, then waited for) into whole shared buffers that the rest of the
// body only multiplies. The pipelining pass (passes::pipeline_k_loops)
// decides whether to pipeline it and builds the pipeline; the mark holds
// what the pass cannot read from the IR.
struct PipelineMark {
  // The names lowering reserved for the pipeline's variables (the slot
  // shift, the prologue's pass, the pass's slot), so that pipelining by the
  // pass names things as lowering's fresh counter would have.
  std::string shift, pass, slot;
  // Kernel::buffers [0, buffers_before) were declared when the loop was
  // lowered: the shared memory the pipeline's budget counts besides its rings.
  int buffers_before = 0;
};
struct For {
  std::string var;
  Type type = Type::i32();
  ExprRef begin, end;
  ExprRef step;  // null: ++var
  StmtPtr body;
  bool unroll = false;
  std::optional<PipelineMark> pipeline;  // a pipelining candidate (cleared by the pass)
};
struct If {
  ExprRef condition;
  StmtPtr then_branch;
  StmtPtr else_branch;  // may be null
};
struct While {
  ExprRef condition;
  StmtPtr body;
};
struct Jump {  // break / continue of the innermost For or While
  bool next_iteration = false;  // continue
  // `yield`: the thread leaves the kernel (`return;`), from any depth.
  bool exit_kernel = false;
};
struct LineMark {  // #line: the source line of what follows
  int line = 0;
};
struct Comment {
  std::string text;  // generated text only, never user input
};
struct Trap {      // assert: stop the kernel when the condition is false
  ExprRef condition;
};

// How a parallel level maps onto the hardware.
enum class Mapping { cluster, grid, threads, flat };
struct Region {  // one parallel level: its indices are Lets in the body
  Mapping mapping = Mapping::grid;
  std::int64_t unit = 1;  // threads per index (32: group, 128: group-4)
  StmtPtr body;           // braced
};

struct Barrier {  // every thread of the set waits for the others
  ThreadSet set;
  // Who waits: the threads of `set` (sync.shared, sync.barrier : block), the
  // warp (sync.barrier : group), the warp's active lanes (: thread), or every
  // thread of the grid (a cooperative launch's `sync.barrier : block`).
  // warpgroup: each warpgroup of a group-4 level on its own named barrier,
  // set.barrier_id + threadIdx.x / 128.
  // cluster: every thread of every block of the cluster (barrier.cluster),
  // so no block writes a peer's shared memory the peer still reads, nor
  // leaves while a peer may still write its own.
  enum class Scope { set, warp, lanes, grid, warpgroup, cluster } scope = Scope::set;
  int counter = -1;  // grid: the zeroed global u32 buffer the blocks count in
  // A barrier lowering asks for where the threads of `set` read shared
  // memory that one thread (or each thread of a thread level) may have
  // written element by element: `if_written` is the buffer read (-1: any,
  // before a loop or a thread level). passes::place_shared_barriers keeps
  // it (as a plain barrier, kAlways) when an element store to that buffer
  // came since the last barrier of the set, and drops it otherwise.
  static constexpr int kAlways = -2;
  int if_written = kAlways;
};
// __asm__: PTX with operands %0, %1, ... (outputs, then inputs). Outputs
// are variables of the constraint's type; the text is the user's and the
// backend escapes it into a string literal.
struct InlineAsm {
  struct Operand {
    std::string constraint;  // "=r", "+f", "l", "n"
    ExprRef value;
  };
  std::string text;
  bool is_volatile = false;
  std::vector<Operand> outputs, inputs;
  bool memory = false;  // the "memory" clobber
};
// print / println: one printf of the parts in order. Text parts are the
// user's (the backend escapes them); values print as integers, floats or
// true/false by their type.
struct Print {
  struct Part {
    std::string text;
    ExprRef value;  // null: a text part
  };
  std::vector<Part> parts;
  ExprRef guard;  // null: every thread prints
};
struct Fence {  // sync.fence: this thread's writes are seen in this order by the block or the device
  bool device = false;
};

// dma.copy / dma.transp / dma.pad from `src` into `dst`, by the threads of
// `set` cooperatively (one thread per element, strided) or by each thread.
struct Padding {
  std::vector<std::int64_t> low, high, mid;
  ExprRef value;
};
struct CopyTiles {
  Tile src, dst;
  bool zfill = false;
  std::vector<std::int64_t> perm;  // empty: identity; else dst index of each src dim
  std::optional<Padding> pad;
  bool cooperative = false;
  ThreadSet set;
  std::int64_t vector = 0;  // elements per access (the copy-vectorization pass); 0: undecided
};

struct AllocShared {  // the pointer to a shared buffer, at its first use
  int buffer = -1;
};
struct DeclareLocal {  // a local array
  int buffer = -1;
};
struct DeclarePointer {  // another buffer's elements from `address` on, under the buffer's name (`.sqz()`)
  int buffer = -1;
  ExprRef address;
};

// Events (mbarriers).
struct DeclareEvent {
  int event = -1;
};
struct BarrierPrologue {  // the block's barrier set-up, filled by the event pass
  std::vector<int> init;            // events initialized here
  std::vector<int> private_events;  // private TMA barriers declared here
  bool hopper = false;              // print a placeholder comment when empty
};
struct Arrive {
  int event = -1;
  ExprRef index;
  ThreadSet set;
  bool per_warp = false;  // lane 0 of each warp arrives, after __syncwarp
  SourcePos where;
  // The trigger is the last statement of a loop body and names one event:
  // with WGMMA in flight its release may be deferred by one iteration.
  bool ends_loop_body = false;
  // `trigger.cluster`: one arrival on this barrier in every running block of
  // the cluster (Kernel::cluster_live of them), the own block's included.
  bool cluster = false;
};
struct WaitEvent {
  int event = -1;
  ExprRef index;
  // `wait e.at(order)`: the phase parity to wait for, (order / N) % 2 (flipped
  // for `= ready` events); the thread's phase bits are left alone. Null:
  // the thread's own phase bit, flipped after the wait.
  ExprRef parity;
};
// A global event's wait (`global event e`): every thread of the statement
// spins until the counter element (a signed integer in global memory, which
// each trigger increments) is above `above`, then reads memory after it
// (acquire at the device's scope). `event` names it for messages.
struct WaitCounter {
  ExprRef counter;  // an element of a global buffer
  ExprRef above;
  std::string event;
};

// TMA.
struct TmaLoad {
  int map = -1;        // Kernel::params index of the tensor map
  ExprRef destination;  // address of the shared tile
  std::vector<ExprRef> coords;  // innermost first
  int event = -1;
  ExprRef event_index;
  std::int64_t bytes = 0;
  bool arrive = false;  // a private barrier: the issuing thread arrives too
  ExprRef leader;       // the issuing thread's condition
  // `.multicast`: one load for the cluster writes the tile into every
  // running block (`mask`), each of which expects its bytes. slices 0: each
  // block loads the tile itself (no rank or mask). slices 1: the
  // block of rank 0 loads the whole box; slices C: the block of rank r
  // loads rows [r, r + 1) * slice_rows of the box (the map's box is one
  // slice) into the tile slice_elements * r elements on. Interpret mode
  // loads every slice into each block and checks that the blocks agree on
  // the tile.
  struct Multicast {
    ExprRef rank;  // this block's rank in its cluster
    ExprRef mask;  // the receiving blocks, bit r for rank r (a u16)
    int slices = 1;
    std::int64_t slice_rows = 0, slice_elements = 0;
  };
  std::optional<Multicast> multicast;
  // L2 eviction priority of the lines read (`tma.load.evict_first`):
  // "evict_first", "evict_last", "evict_normal"; empty: the default.
  std::string l2_eviction;
};
struct TmaStore {
  int map = -1;
  ExprRef source;
  std::vector<ExprRef> coords;
  ExprRef leader;
  // false: committed only, so the threads move on while the copy engine
  // writes; a BulkStoreWait comes before the tile's next write.
  bool wait = true;
};
// The thread's committed TMA stores have read their tiles (read_only) or
// completed. Every thread waits (only a store's leader has any), so no
// thread test is needed.
struct BulkStoreWait {
  bool read_only = true;
};
struct FenceProxyAsync {};

// MMA, abstract until the instruction-selection pass.
// mma_sync_gather: warp-level mma.sync whose fragments each lane reads
// element by element (any memory, layout, element type or tile edge).
enum class MmaInstruction { unselected, wgmma, mma_sync, mma_sync_gather };
// Writes every element of an accumulator: op "" declares it with
// Accumulator::fill; "=" refills it with `value` (`mma.fill acc, v;`);
// "+=", "-=", "*=", "/=" update it element-wise (`acc += v;`).
struct MmaFill {
  int accumulator = -1;
  std::string op;
  ExprRef value;
  ExprRef index;  // which of an array of accumulators (op not ""); null: not an array
};
struct MmaOperand {
  ExprRef address;        // the tile's first element
  std::int64_t pitch = 0;  // bytes per row of the buffer
  int swizzle = 0;
  Space space = Space::shared;
  ExprRef leading;  // elements per row of the buffer (gathered fragments)
  // A global tile that may reach past the tensor's edge (gathered
  // fragments): the rows and columns the tensor has from the tile's origin,
  // clamped to the tile; the elements past them read 0. Null: the whole tile.
  ExprRef rows, cols;
  Tile tile;
  SourcePos where;
};
struct Mma {
  int accumulator = -1;
  MmaOperand a, b;
  DType input = DType::f16;    // a's elements
  DType input_b = DType::f16;  // b's (differs from a's only for fp8: e4m3 x e5m2)
  std::int64_t k = 0;
  ExprRef index;  // which of an array of accumulators; null: not an array
  bool b_n_major = false;  // row.col: b is [K, N] (ldmatrix.trans at warp level, imm-trans-b on WGMMA)
  bool a_m_major = false;  // col.*: a is [K, M], M contiguous (imm-trans-a on WGMMA; shared a only)
  // 2:4 sparse lhs (mma.row.row.sp, WGMMA .sp): `a` holds k / 2 packed
  // values per row and `metadata` points at the u8 [64, k / 8] tile of their
  // positions, `metadata_pitch` bytes per row. Null for dense multiplies.
  ExprRef metadata;
  std::int64_t metadata_pitch = 0;
  // RS mode: a comes from the registers of this fragment buffer (WGMMA's A
  // fragment layout, which is the accumulator layout of [64, K]); -1: a is
  // a shared tile.
  int a_fragment = -1;
  MmaInstruction instruction = MmaInstruction::unselected;
  SourcePos where;
};
struct MmaWait {  // wait until at most `pending` WGMMA groups are in flight
  int pending = 0;
  std::string note;  // why, for readers of the CUDA
  // Accumulator registers read next, fenced after the wait so that no read
  // of them is scheduled before it.
  std::vector<int> fence;
  // Kept after the work that precedes it (pin_overlapped_waits): that work
  // was placed between the multiplies and the wait to run while they do.
  bool pinned = false;
};
struct MmaStore {
  int accumulator = -1;
  ExprRef destination;
  ExprRef leading;  // elements per row of the destination buffer
  Space space = Space::shared;
  ExprRef rows, cols;  // global stores: the valid part (tails)
  ExprRef index;  // which of an array of accumulators; null: not an array
  bool transpose = false;  // mma.store.transp: element (r, c) goes to (c, r) (warp accumulators)
  int swizzle = 0;  // a shared destination laid out with this swizzle span (bytes; 0: plain rows)
};
// `mc = mma.load tile;` as an accumulator's initial value: each element of
// a warp accumulator (the inverse of MmaStore, every lane its own fragment's
// elements) read from the rows x cols tile at `source`, converted to the
// accumulator's type; elements past `rows` or `cols` (a tail of global
// memory; null: none) read 0.
struct MmaLoad {
  int accumulator = -1;
  ExprRef source;
  ExprRef leading;  // elements per row of the source buffer
  Space space = Space::shared;
  ExprRef rows, cols;
};
// A point where WGMMA groups must be complete: every group, or (buffers
// named) those that write or read these register buffers (accumulators'
// registers, fragments) or read these shared buffers (about to be
// overwritten), and so every older group.
struct MmaCommit {
  std::vector<int> registers;
  std::vector<int> shared;  // root buffers (not aliases)
};
// mma.scale: accumulator += partial * scale_a[row] * scale_b over a
// warpgroup's fragment; every WGMMA group completes first (as for a store).
struct MmaScale {
  int accumulator = -1;
  int partial = -1;        // the mmas before the scale in its block wrote this, from zero
  ExprRef scale_a;         // address of row 0's lhs scale (f32)
  ExprRef scale_a_stride;  // elements between consecutive rows' scales
  ExprRef scale_a_rows;    // rows that have a scale (a tail tile); the others add nothing
  ExprRef scale_b;         // the rhs scale (f32)
};
struct SetMaxNReg {
  bool increase = false;
  int registers = 0;
};
// Warp-specialized region of inthreads.async: warpgroups [first, first +
// threads) run `body`; `mma` says whether it multiplies (a consumer).
struct WarpgroupRegion {
  ExprRef condition;
  ThreadSet set;
  bool whole_warpgroups = false;  // a `: group-4` level's warpgroups (registers can move)
  bool mma = false;
  StmtPtr body;
};

struct Stmt {
  SourcePos where;
  std::variant<Seq, Let, Assign, Eval, For, If, While, Jump, LineMark, Comment, Trap, Region, Barrier, Fence, InlineAsm, Print, CopyTiles,
               AllocShared, DeclareLocal, DeclarePointer, DeclareEvent, BarrierPrologue, Arrive, WaitEvent, WaitCounter, TmaLoad,
               TmaStore, FenceProxyAsync, BulkStoreWait, MmaFill, Mma, MmaWait, MmaStore, MmaLoad, MmaCommit, MmaScale, SetMaxNReg,
               WarpgroupRegion>
      node;
};

template <typename Node>
StmtPtr make_stmt(Node node, SourcePos where = {}) {
  auto s = std::make_unique<Stmt>();
  s->where = where;
  s->node = std::move(node);
  return s;
}

// ------------------------------------------------------------------ kernel

struct Param {
  abi::KernelParam::Kind kind = abi::KernelParam::Kind::tensor;
  std::string name;  // the CUDA parameter's name
  Type type;         // tensors: the element type
  int buffer = -1;   // tensors and the output: their buffer
};

struct Kernel {
  SourcePos where;          // the function's name, for messages about the whole kernel
  std::string entry;        // the __global__ symbol
  std::string function;     // the __co__ function's name
  std::string source_name;  // for #line: sanitized by lowering
  std::string description;  // header comment lines (generated text only)
  std::vector<Param> params;
  std::vector<Buffer> buffers;
  std::vector<Event> events;
  std::vector<Accumulator> accumulators;
  // __device__ helpers pasted before the kernel, with the source line they
  // start on (0: unknown), so NVRTC errors in them are the user's.
  struct DeviceCode {
    int line = 0;
    std::string text;
  };
  std::vector<DeviceCode> device_code;
  // The object-like #defines with a number for a value (source and option
  // defines), visible to the device code above from the line they are
  // defined on, as the C preprocessor would have them. Names are
  // identifiers; values are printed from the number, never the source text.
  struct DeviceDefine {
    std::string name;
    std::variant<std::int64_t, double> value;
    bool float_suffix = false;  // written `0.5f`: a float in C++ too
    int line = 0;               // where the source defines it; 0: an option only
  };
  std::vector<DeviceDefine> device_defines;
  StmtPtr body;  // a Seq

  // Launch shape: the grid (constant part; runtime terms in abi), threads
  // per block, blocks per cluster (0: none), and shared bytes (the layout pass).
  std::int64_t grid = 1;
  std::int64_t block_threads = 1;
  std::int64_t cluster_blocks = 0;
  // The blocks of this block's cluster that run (cluster_blocks, or fewer in
  // the last cluster of a grid rounded up to whole clusters); and whether
  // the blocks of a cluster reach into each other's shared memory
  // (multicast loads, cluster triggers): their barriers are set up for the
  // whole cluster before any use, and no block leaves before the others.
  ExprRef cluster_live;
  bool cluster_shared_memory = false;
  std::int64_t shared_bytes = 0;
  bool hopper = false;  // the device prelude and 1024-byte shared alignment
  bool needs_half = false, needs_bf16 = false, needs_fp8 = false;
  bool needs_subbyte = false;  // the prelude's sub-byte types
  bool needs_scale_types = false;  // the prelude's tf32, f8_ue8m0 and f8_ue4m3
  // The first construct that needs sm_90 (TMA, clusters, WGMMA), if any.
  std::optional<Diagnostic> needs_sm90;
  // Index arithmetic: i32, or i64 when tensors, counts or coordinates may
  // pass 2^31 - 1 (the backend scales addresses in this type).
  Type index = Type::i32();
  // Until the index-width pass chooses `index`: the largest value an index,
  // extent, count or coordinate of the kernel may take (INT64_MAX: no bound,
  // as with dynamic dims). Empty once chosen.
  std::optional<std::int64_t> largest_index;
  // The outermost level loops over more block indices than the grid has.
  bool grid_stride = false;
  // `: block<cooperative>`: the blocks run together (a cooperative launch).
  bool cooperative = false;
  int next_name = 0;  // fresh names: base + "_" + counter

  // What the runtime needs (filled along the way; entry/launch by the backend).
  abi::KernelAbi abi;

  // A unique CUDA name for a user's or lowering's `base`: base_N. Bases that
  // could meet a name the backend emits unnumbered (arg_P, dim_D, croq_*) or
  // a reserved one (_X, __x) get a `u` in front, so no two names collide.
  std::string fresh(const std::string& base) {
    const bool clash = base.rfind("arg_", 0) == 0 || base.rfind("dim_", 0) == 0 || base.rfind("croq_", 0) == 0 ||
                       base.rfind('_', 0) == 0;
    return (clash ? "u" + base : base) + "_" + std::to_string(next_name++);
  }
};

// A specialized program: its kernels in launch order.
struct Module {
  std::vector<Kernel> kernels;
};

// A rule violated in a later stage (a pass), at a source position; the
// pipeline turns it into a CompileError with the program's source.
struct SourceError {
  SourcePos where;
  std::string message;
  std::string hint;
};
[[noreturn]] void fail(SourcePos where, std::string message, std::string hint = "");

}  // namespace croq::ir
