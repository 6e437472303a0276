// The typed AST of a Croqtile program. Every node carries the SourceLocation
// of the text it came from. Children are owned through std::unique_ptr; node
// payloads are small structs held in a std::variant, so a later pass walks a
// node with std::visit or std::get_if on the payload it cares about.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "croq/error.hpp"
#include "croq/options.hpp"

namespace croq::frontend::ast {

struct SourceLocation {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes
  int offset = 0;  // byte offset into the original source
  int length = 0;  // bytes the node's first token (or the node) covers
};

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using ExprList = std::vector<ExprPtr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

// ---------------------------------------------------------------- types

enum class Storage { none, global, shared, local, frag };  // frag: a register tile spread over the threads

enum class TypeKind {
  element,   // u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 tf32 f32 f64 f8_* f6_* f4_*
  int_,      // int (scalar control value)
  bool_,
  void_,
  auto_,
  event,     // shared event e[N]
  ituple,    // ituple<3>
  mdspan,    // mdspan<2>, or a bare `sp : [..]` definition
  named,     // a template type parameter or another name the parser cannot resolve
  stream,    // `stream s`: a parameter naming the CUDA stream of an async parallel
};

struct TypeRef {
  SourceLocation location;
  Storage storage = Storage::none;
  bool is_mutable = false;
  TypeKind kind = TypeKind::named;
  std::string name;    // "s32", "int", "T", ...
  ExprPtr rank;        // ituple<N> / mdspan<N>: N; `f32 mdspan<2>` (shape unnamed): 2, with has_shape and no dims
  bool has_shape = false;
  ExprList shape;      // [M, K], [lhs.span], [lhs.span(0), 64]; `?` is Name "?" (a dim left to the call), `??` Name "??" (unbounded)
  ExprPtr arrivals;    // event<256>: the threads that arrive on each event; null when not written
};

// ---------------------------------------------------------- expressions

struct IntegerLiteral {
  std::string spelling;
  std::uint64_t value = 0;
  std::string suffix;  // "u", "ll", ...
};
struct FloatLiteral {
  std::string spelling;
  double value = 0;
  std::string suffix;  // "f"
};
struct BoolLiteral {
  bool value = false;
};
struct StringLiteral {
  std::string spelling;  // with its quotes
};
struct Name {
  std::string name;  // "lhs", "croq::cuda::evict_first", "nullptr"
};
struct Wildcard {};  // `_` in chunkat: keep this dimension whole

enum class UnaryOp {
  negate, plus, logical_not, bit_not,
  extent,  // #p: the count of the bounded variable p
  pre_increment, pre_decrement, post_increment, post_decrement,
  address_of, dereference,
};
struct Unary {
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp {
  compose,  // tr # i: tile coordinate composed with in-tile coordinate
  mul, div, mod, add, sub, shl, shr,
  lt, gt, le, ge, eq, ne,
  bit_and, bit_xor, bit_or, logical_and, logical_or,
};
struct Binary {
  BinaryOp op;
  ExprPtr lhs, rhs;
  // `i #- c`, `i #+ c` (op sub, add): the index i itself, counting c values
  // fewer or more (Croqtile's bound declarations), not i - c or i + c.
  bool moves_bound = false;
};

struct Conditional {
  ExprPtr condition, then_value, else_value;
};

// f(args), cdiv(a, b), sp(0), select(c, f0, f1), k_tiles(7, 6, ...)
struct Call {
  ExprPtr callee;
  ExprList template_args;
  ExprList args;
  bool with_call_keyword = false;  // `x = call f(a)`: a device function's value
  // `hw_f(a)` without `call`, whose name a `#pragma croq intrinsic` in scope
  // registers (the parser matched it): passed through to the device code verbatim.
  bool intrinsic = false;
};

// __to<f16>(x) and __to<"float4">(x)
struct Convert {
  std::string target;  // the type name, or the quoted foreign type verbatim
  bool foreign = false;
  ExprPtr operand;
};

// The view and future operations of the language get their own kind; any
// other member name is `other` (the checker reports it).
enum class MemberKind { at, chunkat, subspan, modspan, step, view, from, span, span_as, data, zfill, other };
struct Member {
  ExprPtr object;
  std::string name;
  MemberKind kind = MemberKind::other;
  bool has_args = false;  // .span(0) vs .span
  ExprList args;
  std::string space;  // `.map<local>(...)` / `.remap<local>(...)`: the space named
};

struct Subscript {  // buffer[stage], full[s]
  ExprPtr object;
  ExprList indices;
  bool braces = false;  // t {(1), (0)}: a tuple picked from the tuple t
};

struct ITuple {  // {a, b}
  ExprList elements;
};
struct ShapeList {  // [a, b]
  ExprList dims;
};
struct ElementCount {  // |x.span|
  ExprPtr operand;
};
// start:end:stride inside parentheses: y(1::), y(1:-1:2), view(ext : stride).
// Absent parts are null.
struct Range {
  ExprPtr start, end, stride;
};

struct Expr {
  SourceLocation location;
  // The expression's whole text in Program::source: bytes [source_begin,
  // source_end), parentheses included; -1 where the parser did not record it.
  int source_begin = -1;
  int source_end = -1;
  std::variant<IntegerLiteral, FloatLiteral, BoolLiteral, StringLiteral, Name, Wildcard, Unary,
               Binary, Conditional, Call, Convert, Member, Subscript, ITuple, ShapeList,
               ElementCount, Range>
      node;
};

// ----------------------------------------------------------- statements

struct Attribute {  // [[schedule(k_tiles(7, 6, 5, 4))]]
  SourceLocation location;
  std::string name;
  ExprList args;
};

struct Block {
  StmtList statements;
};

struct Declarator {
  SourceLocation location;
  std::string name;
  ExprPtr array_size;  // name[STAGES]
  ExprList more_array_dims;  // name[2][3]: the dims after the first (3)
  enum class Init { none, equals, braces, colon } init = Init::none;
  ExprList init_values;  // `= v` and `: [..]` have one; `{0}` lists them
};

// shared f16 [64, 64] a[2], b;  int x = 5;  mutable int n;  shared event e[N] = ready;
// ituple<3> t = {a, b, c};  sp : [7, 8];
struct Declaration {
  TypeRef type;
  std::vector<Declarator> declarators;
};

enum class AssignOp { assign, add, sub, mul, div, mod, bit_and, bit_or, bit_xor, shl, shr };
struct Assignment {
  ExprPtr target;
  AssignOp op = AssignOp::assign;
  ExprPtr value;
};

struct ExprStatement {
  ExprPtr expr;
};

enum class SpaceSpecifier { none, block, thread, group, group4, cluster, device, term };
struct Identifier {
  SourceLocation location;
  std::string name;
};
// One level of a parallel statement: `{px, py} by [8, 16] : block`.
struct ParallelLevel {
  SourceLocation location;
  std::optional<Identifier> tuple_name;  // idx = {a, b}
  std::vector<Identifier> indices;       // empty: `parallel by 2`
  bool braced = false;
  ExprPtr count;
  SpaceSpecifier space = SpaceSpecifier::none;
  SourceLocation space_location;  // of the specifier's word
  std::string device;             // `: device(cpu)`: "cpu"
  bool cooperative = false;       // `: block<cooperative>`
  SourceLocation cooperative_location;  // of its `<`
};
// `parallel p by 2 ;` and `parallel p by 2 parallel q by 4;` have an empty
// Block as the body of the innermost level.
struct Parallel {
  std::vector<ParallelLevel> levels;  // `p by 2, q by 12` gives two
  StmtPtr body;
  bool is_async = false;  // `parallel.async`: the host does not wait for it
  ExprPtr stream;         // `parallel<s>`: the stream it is launched on; may be null
};

enum class LoopKind { foreach_, with, apply };
struct LoopIndex {
  Identifier name;
  ExprPtr range;  // a Range for `y(1::)`; null otherwise
  std::optional<Identifier> local_name;  // `foreach c = a(1:)`: the body sees the index as `c`
};
// A binding of `with` after the first: `with i in s1, j = {x, y} in s2`.
struct LoopBinding {
  std::optional<Identifier> tuple_name;
  std::vector<LoopIndex> indices;
  bool braced = false;
  ExprPtr bound;
};
// `where a <-> b` after the bindings of `with`.
struct WhereBind {
  Identifier first, second;
};
// foreach {i, j} in lhs_load.span;  with index = {x, y} in [10, 10];  foreach y(1::)
struct Loop {
  LoopKind kind = LoopKind::foreach_;
  std::optional<Identifier> tuple_name;
  std::vector<LoopIndex> indices;
  bool braced = false;
  ExprPtr bound;  // after `in`; null for `foreach x { }`
  StmtPtr body;
  std::vector<LoopBinding> more_bindings;  // `with a in s1, b in s2`: the second and later
  std::vector<WhereBind> where;
  std::vector<Attribute> hints;  // `foreach i : unroll(2)`, `: vectorize(v, 4)`
};

struct While {
  ExprPtr condition;
  StmtPtr body;
};

struct If {
  bool is_constexpr = false;
  ExprPtr condition;
  StmtPtr then_branch;
  StmtPtr else_branch;  // may be null
};

// `.async`, `.zfill`, `.swiz<128>`, `.multicast`, `.f16` (on mma.fill).
struct Modifier {
  SourceLocation location;
  std::string name;
  bool has_template_args = false;
  ExprList template_args;
};

enum class Engine { dma, tma };
enum class CopyOp { copy, transp, pad, load, store, any };
// [future =] dma.copy.async.swiz<128> src => shared after f;
struct Copy {
  ExprPtr future;  // null when the result is not named
  Engine engine = Engine::dma;
  CopyOp op = CopyOp::copy;
  SourceLocation op_location;
  ExprList op_args;  // transp<1, 0> / pad<{..}, {..}, {..}, v>
  std::vector<Modifier> modifiers;
  ExprPtr source;                           // null for dma.any
  Storage destination_storage = Storage::none;  // `=> shared`
  SourceLocation destination_storage_location;  // of the word after `=>`
  ExprPtr destination;                      // `=> buffer`; null with a storage
  ExprList after;                           // `after f0, f1`
};

enum class MmaOp { fill, load, multiply, commit, store, scale };
// [result =] mma.row.col.async acc, a, b;  mc = mma.fill.f16 0.0f;  mma.commit;
// `frag mc[2][3] {0.0f};` and `frag.s32 mc {0};` are fills too: they declare
// accumulators (an array of them with dims), the value in braces the operand.
struct Mma {
  ExprPtr result;
  MmaOp op = MmaOp::fill;
  std::string layout;  // "row.row", "row.col", "col.row", "col.col" for multiply
  std::vector<Modifier> modifiers;
  ExprList operands;
  bool frag_declaration = false;  // written `frag [.type] name[..] {value}`
  ExprList array_dims;            // frag mc[2][3]: 2 and 3
};

struct Wait {
  ExprList targets;  // futures or events (e, e[s], e.at(order))
};
struct Trigger {
  ExprList targets;
  ExprList after;
  std::string scope;  // "cluster" for `trigger.cluster e`; empty otherwise
};

struct InThreads {
  bool is_async = false;
  ExprPtr condition;
  StmtPtr body;
};

// sync.shared;  sync.barrier : block;  sync.fence : thread<shared>;
struct Sync {
  std::string scope;  // "shared", "global", ..., "barrier", "fence"
  SpaceSpecifier level = SpaceSpecifier::none;  // after `:` of barrier and fence
  SourceLocation level_location;
  std::string storage;  // `sync.fence : block<shared>`: "shared"
};

struct Return {
  ExprPtr value;  // may be null
};
struct Break {};
struct Continue {};

// call f<T>(args);
struct CallStatement {
  std::string callee;
  ExprList template_args;
  ExprList args;
};

struct Assert {
  bool is_static = false;  // static_assert
  ExprPtr condition;
  ExprPtr message;  // may be null
};

// swap(a, b);  swap a, b;  rotate a, b, c;
struct Swap {
  ExprPtr first, second;
  ExprList more;  // rotate: the third and later
  bool rotate = false;
};
struct Yield {
  ExprPtr value;  // may be null
};

struct AsmOperand {
  SourceLocation location;
  std::string symbolic_name;  // [d]
  std::string constraint;     // "=r", quotes included
  ExprPtr value;
};
struct Asm {
  bool is_volatile = false;
  std::vector<std::string> templates;  // adjacent string literals, quotes included
  std::vector<AsmOperand> outputs, inputs;
  std::vector<std::string> clobbers;
};

struct Stmt {
  SourceLocation location;
  std::vector<Attribute> attributes;
  std::variant<Block, Declaration, Assignment, ExprStatement, Parallel, Loop, While, If, Copy, Mma,
               Wait, Trigger, InThreads, Sync, Return, Break, Continue, CallStatement, Assert, Swap,
               Yield, Asm>
      node;
};

// ------------------------------------------------------------ top level

struct TemplateParam {
  SourceLocation location;
  std::string kind;  // "typename", "int", "bool", ...
  std::string name;
};

struct Parameter {
  SourceLocation location;
  TypeRef type;  // storage qualifier, element type, shape
  std::string name;  // empty for an unnamed parameter (`int` in `f(f16 [M] x, int)`)
  bool by_reference = false;  // f32 [N] &out
};

struct Function {
  SourceLocation location;  // of the name
  bool is_co_device = false;             // __co_device__ instead of __co__
  bool is_template = false;
  std::vector<TemplateParam> template_params;
  ExprList specialization_args;          // template <> __co__ ... f<f16, 64>(...)
  TypeRef return_type;
  std::string name;
  std::vector<Parameter> params;
  StmtPtr body;                          // a Block
};

// A __device__ helper (or __cok__ block) kept verbatim for the backend to paste.
struct DeviceCode {
  SourceLocation location;
  std::string name;  // the function's name; empty for a __cok__ block
  std::string text;
  // The first identifier in it that starts with `croq_`, the prefix of the
  // generated code's names (sema refuses it: rule device-reserved-name).
  std::string reserved_name;
  SourceLocation reserved_at;
  // The `__device__` functions it defines (with a body), also inside a
  // __cok__ block. Only these names may be called (`call f`):
  // a callee reaches the generated CUDA, so it must be one the source defines.
  struct Function {
    std::string name;
    std::string return_type;  // the identifier before the name ("void", "float"); empty: another form
    SourceLocation location;
  };
  std::vector<Function> functions;
};

// One #define after preprocessing; option defines override the source's.
struct Define {
  std::string name;
  std::string text;                  // the value as written ("128", "(64 * 2)")
  std::optional<DefineValue> value;  // when the text is a constant number
  bool from_options = false;
  bool function_like = false;
  int line = 0;  // where the source defines it; 0 for option-only defines
};

// `#pragma croq intrinsic prefix hw_` / `namespace arch`, wherever it stands
// (the parser applies each in its scope; sema checks the names).
struct IntrinsicPragma {
  SourceLocation location;  // the registered name
  bool is_namespace = false;
  std::string name;
};

struct Program {
  std::string source;  // the original text, unmodified
  std::vector<IntrinsicPragma> intrinsic_pragmas;
  std::string source_name;
  std::vector<Function> functions;
  std::vector<DeviceCode> device_code;
  std::map<std::string, Define> defines;
  std::vector<Diagnostic> warnings;

  const Function* find_function(const std::string& name) const;
  // The C++ function `name` that __device__ code or a __cok__ block defines, or null.
  const DeviceCode::Function* find_device_function(const std::string& name) const;
  // The __co_device__ function `name` (a function `call` expands), or null.
  const Function* find_co_device_function(const std::string& name) const;
};

// Allocates an Expr or a Stmt holding `payload`.
template <typename Node, typename Payload>
std::unique_ptr<Node> make_node(SourceLocation location, Payload payload) {
  auto node = std::make_unique<Node>();
  node->location = location;
  node->node = std::move(payload);
  return node;
}

// Names used in messages and by the printer.
const char* storage_name(Storage s);          // "shared"
const char* space_name(SpaceSpecifier s);     // "group-4"
const char* unary_op_name(UnaryOp op);        // "-", "#", "++"
const char* binary_op_name(BinaryOp op);      // "#", "+", "&&"
const char* assign_op_name(AssignOp op);      // "+="
const char* copy_op_name(CopyOp op);          // "copy"
const char* mma_op_name(MmaOp op);            // "fill"
MemberKind member_kind(const std::string& name);

// `.view(e0, e1 : s0, s1)`: Croqtile separates the extents from the strides
// with one colon, which the parser reads as a Range argument (`e1 : s0`).
// `malformed` is the argument that breaks that form (a second colon, a
// missing part); strides is empty when the view has none.
struct ViewArguments {
  std::vector<const Expr*> extents, strides;
  const Expr* malformed = nullptr;
};
ViewArguments view_arguments(const Member& m);
bool is_element_type_name(std::string_view name);

// How many kernels `fn` launches: one per top-level parallel statement of
// its body, at least one. With several, the function is a program: its
// kernels run in order and share its function-scope declarations. A host
// program (frontend/host_code.hpp) has one kernel per parallel statement at
// its host level, and none when it has no parallel statement.
int kernel_count(const Function& fn);
// `sync.global;`: at function scope it orders the kernels before it before
// those after it, which their launch order on one stream already does.
bool is_global_sync(const Stmt& s);

// The level that follows level `level` of `p` (a `: cluster` level): the
// next level of the statement, or the first level of the sole statement of
// its body; nullptr when there is none.
const ParallelLevel* level_after_cluster(const Parallel& p, std::size_t level);

// The name in `return NAME;` among the function's top-level statements (in
// nested blocks too, not inside loops or parallel levels); empty when none.
std::string returned_name(const Function& fn);

// Whether `t` is an element type with a rank and no dims: `f32 mdspan<2>`.
bool is_rank_only(const TypeRef& t);

// The type of the tensor the function returns: its return type when that is
// shaped (`__co__ f16 [M, N] f(...)`); with `auto` or a rank-only return
// type (`__co__ f16 mdspan<2> f(...)`), the type of the declaration of
// `return NAME;` among the top-level statements, when it is an element
// tensor of host/global storage (`s32 [x.span] out;`). Null when the
// function returns no tensor.
const TypeRef* returned_tensor_type(const Function& fn);

// Whether a `: block` level whose body is `body` runs exactly one
// warpgroup: every parallel statement reached from the body without entering
// another parallel (through blocks, loops and ifs) starts with a
// `: group-4` level of count 1, and there is at least one and no inthreads
// region. Its block-scope statements then run on that warpgroup's 128
// threads, so accumulators can live there (mma.fill / mma.store around
// `parallel p by 1 : group-4 { mma ... }`).
bool block_of_one_warpgroup(const Stmt& body);

// The modifier called `name`, or null.
const Modifier* find_modifier(const std::vector<Modifier>& modifiers, std::string_view name);

}  // namespace croq::frontend::ast
