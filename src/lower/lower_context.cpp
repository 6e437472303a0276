// The lowering context (lowering.hpp): errors, symbols, emission, buffers
// and views, where the statements run and the barriers for their threads.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "frontend/ast_walk.hpp"
#include "frontend/host_code.hpp"
#include "frontend/builtins.hpp"
#include "ir/index_width.hpp"
#include "lower/lowering.hpp"
#include "lower/row_major.hpp"
#include "core/element_bytes.hpp"
#include "support/checked_int.hpp"
#include "support/format.hpp"

namespace croq::lower::detail {

// Bytes of memory on the device side that no buffer can reach: sizes past
// this are refused before their arithmetic could overflow.
constexpr std::int64_t kUnreachableBytes = std::int64_t{1} << 40;
// What a thread's local memory holds at most (CUDA's per-thread limit).
constexpr std::int64_t kLocalBytesLimit = 512 * 1024;

namespace {

bool mentions(const ExprRef& e, const std::vector<std::string>& names) {
  if (!e) return false;
  if (e->kind == ir::ExprKind::var && std::find(names.begin(), names.end(), e->text) != names.end()) return true;
  for (const auto& o : e->operands)
    if (mentions(o, names)) return true;
  return false;
}

}  // namespace

bool LoweringContext::mentions_group_index(const ir::Tile& t) const {
  if (group_vars_.empty()) return false;
  if (mentions(t.slot, group_vars_)) return true;
  for (const auto& o : t.origin)
    if (mentions(o, group_vars_)) return true;
  return false;
}

bool LoweringContext::per_warpgroup_tile(const View& v) const {
  return in_warpgroup_ && !group_levels_.empty() && group_levels_.back().unit == 128 && mentions_group_index(tile_of(v));
}

void LoweringContext::emit_unit_barrier(const SourceLocation& where, bool per_warpgroup) {
  if (!per_warpgroup) return emit_barrier();
  if (warpgroup_barrier_base_ < 0) {
    const std::int64_t warpgroups = std::max<std::int64_t>(1, (kernel_.block_threads + 127) / 128);
    if (next_barrier_id_ + warpgroups > 16)
      fail(where, "this block needs a named barrier per warpgroup and has too few left (16 in all; inthreads.async "
                  "regions take one each)");
    warpgroup_barrier_base_ = next_barrier_id_;
    next_barrier_id_ += static_cast<int>(warpgroups);
  }
  ir::Barrier b;
  b.set = set_;
  b.set.barrier_id = warpgroup_barrier_base_;
  b.scope = ir::Barrier::Scope::warpgroup;
  emit_node(std::move(b));
}

void LoweringContext::emit_barrier() { emit_node(ir::Barrier{set_}); }

void LoweringContext::ask_barrier_before_shared_read(int id) {
  if (scope_ != Scope::block) return;
  ir::Barrier b{set_};
  if (id >= 0) {
    const ir::Buffer& read = buffer(id);
    if (read.space != ir::Space::shared) return;
    b.if_written = read.alias_of >= 0 ? read.alias_of : id;
    if (!read.points_to.empty()) b.if_written = -1;  // a select's pointer: whichever buffer it points at
  } else {
    b.if_written = -1;
  }
  emit_node(std::move(b));
}

void LoweringContext::ask_barrier_before_thread_copy(int id) {
  if (scope_ != Scope::thread || thread_branches_ > 0 || set_.threads != 0 || thread_level_threads_ == 0 ||
      thread_level_threads_ != kernel_.block_threads || buffer(id).space != ir::Space::shared)
    return;
  ir::Barrier b{set_};
  b.if_written = buffer(id).alias_of >= 0 ? buffer(id).alias_of : id;
  emit_node(std::move(b));
}

bool LoweringContext::on_single_warps() const { return scope_ == Scope::block && in_warp_ && set_.threads == 0; }

bool LoweringContext::on_whole_warpgroups() const {
  if (scope_ != Scope::block) return false;
  if (set_.threads > 0) return set_.threads % 128 == 0 && set_.first % 128 == 0;
  return in_warpgroup_;
}

int LoweringContext::swizzle_span(const Modifier& m) const {
  if (!facts_.swizzle_spans.count(&m)) unchecked(m.location, sema::Rule::swizzle_mode);
  return facts_.swizzle_span(m);
}

const sema::MmaProtocol& LoweringContext::mma_protocol(const Stmt& s, const Mma& m) const {
  if (!facts_.mmas.count(&m)) unrecorded(s.location, "an mma");
  return facts_.protocol(m, s.location);
}

void LoweringContext::fail_buffer_array(const Expr& e) { unchecked(e.location, "an array of buffers used as one buffer"); }

void LoweringContext::fail_arithmetic(const Expr& e, support::ArithmeticFault fault, const std::string& values) const {
  fail(e.location, "`" + source_text(e) + "` " + support::describe(fault) + " (" + values + ")",
       "integer arithmetic on constants and shapes is evaluated in 64 bits when the kernel is specialized");
}

ExprRef LoweringContext::scaled(const ExprRef& e, std::int64_t k) const {
  if (k == 1 || ir::is_const(e)) return ir::mul(e, k);
  return ir::by_index_width(ir::mul(e, k), ir::binary("*", ir::convert(e, ir::Type::i64()), ir::int_const(k)));
}

ExprRef LoweringContext::as_type_of(const ExprRef& v, const ExprRef& like, bool coerce_only) {
  auto as = [&](const ir::Type& t) { return coerce_only ? ir::coerce(v, t) : ir::convert(v, t); };
  const ir::Type wide = ir::wide_type(like);
  return wide == like->type ? as(like->type) : ir::by_index_width(as(like->type), as(wide));
}

bool LoweringContext::at_block_scope() const {
  return scope_ == Scope::block && !in_warp_ && !in_warpgroup_ && set_.threads == 0;
}

bool LoweringContext::contains_parallel(const Stmt& s) const { return frontend::ast::contains_parallel(s); }

bool LoweringContext::has_cooperative_level(const Stmt& s) const {
  return any_statement(s, [](const Stmt& st) {
    const auto* p = std::get_if<Parallel>(&st.node);
    if (!p) return false;
    for (const ParallelLevel& lv : p->levels)
      if (lv.cooperative && lv.space == SpaceSpecifier::block) return true;
    return false;
  });
}

LoweringContext::LoweringContext(const BoundFunction& bound, const target::Target& target, std::vector<Diagnostic>& warnings,
                 int kernel)
    : program_(*bound.program),
      fn_(*bound.function),
      args_(bound.args),
      dims_(bound.dims),
      dynamic_(bound.dynamic),
      bound_(bound),
      facts_(semantics_of(bound)),
      kernel_index_(kernel),
      kernel_count_(frontend::ast::kernel_count(*bound.function)),
      host_program_(frontend::ast::is_host_program(*bound.function)),
      target_(target),
      warnings_(warnings) {
  thread_id_ = ir::special("threadIdx.x");
  set_.tid = ir::special("threadIdx.x");
  set_.count = ir::special("blockDim.x");
}

const sema::CheckedFunction& LoweringContext::semantics_of(const BoundFunction& bound) {
  if (!bound.semantics) throw Error("internal error: `" + bound.function->name + "` is lowered without sema's facts");
  return *bound.semantics;
}

void LoweringContext::unchecked(const SourceLocation& loc, const char* what) const {
  if (const Diagnostic* d = rejected_at(loc, nullptr)) fail_as_sema(loc, *d);
  fail(loc, std::string("internal error: lowering met ") + what + " that sema did not check",
       "please report this with the source");
}

// Lowering a function sema rejected (generate_program without sema's facts,
// as tests of lowering call it): sema's error of `rule` (any, when null) on
// the line of `loc`, else its first error of `rule`.
const Diagnostic* LoweringContext::rejected_at(const SourceLocation& loc, const char* rule) const {
  const Diagnostic* first = nullptr;
  for (const Diagnostic& d : facts_.rejected) {
    if (d.severity != Severity::error || (rule && d.rule != rule)) continue;
    if (d.line == loc.line) return &d;
    if (!first) first = &d;
  }
  if (rule && first) return first;
  // No error of that rule: the one croq::compile reports first, which
  // stopped it before lowering.
  for (const Diagnostic& d : facts_.rejected)
    if (d.severity == Severity::error) return &d;
  return nullptr;
}

void LoweringContext::unchecked(const SourceLocation& loc, sema::Rule rule) const {
  if (const Diagnostic* d = rejected_at(loc, sema::rule_id(rule))) fail_as_sema(loc, *d);
  fail(loc, std::string("internal error: lowering met what rule `") + sema::rule_id(rule) + "` forbids, which sema did not check",
       "please report this with the source");
}

void LoweringContext::unrecorded(const SourceLocation& loc, const char* what) const {
  if (const Diagnostic* d = rejected_at(loc, nullptr); d && d->line == loc.line)
    throw CompileError({*d}, program_.source, program_.source_name);
  unchecked(loc, what);
}

// Sema's error at lowering's place when it is on that line, else as sema
// reported it (croq::compile's first error).
void LoweringContext::fail_as_sema(const SourceLocation& loc, const Diagnostic& d) const {
  if (d.line == loc.line) fail(loc, d.message, d.hint);
  throw CompileError({d}, program_.source, program_.source_name);
}

void LoweringContext::fail(const SourceLocation& loc, const sema::Violation& v) const { fail(loc, v.message, v.hint); }

void LoweringContext::fail(const SourceLocation& loc, const std::string& message, const std::string& hint) const {
  Diagnostic d;
  d.message = message;
  d.line = loc.line;
  d.column = loc.column;
  d.length = std::max(1, loc.length);
  d.hint = hint;
  d.notes = bind::derivation_notes(bound_, loc.line);
  throw CompileError({d}, program_.source, program_.source_name);
}

const Value* LoweringContext::lookup(const std::string& name) const {
  for (std::size_t i = symbols_.size(); i > lookup_floor_; --i) {
    auto f = symbols_[i - 1].find(name);
    if (f != symbols_[i - 1].end()) return &f->second;
  }
  return nullptr;
}

ir::StmtList LoweringContext::collect(const std::function<void()>& body) {
  ir::StmtList list;
  out_.push_back(&list);
  try {
    body();
  } catch (...) {
    out_.pop_back();
    throw;
  }
  out_.pop_back();
  return list;
}

ir::StmtPtr LoweringContext::braced(ir::StmtList body) { return ir::make_stmt(ir::Seq{std::move(body), true}); }

void LoweringContext::line_mark(const SourceLocation& loc) {
  if (loc.line > 0) emit_node(ir::LineMark{loc.line});
}

void LoweringContext::warn(const Stmt& s, const std::string& message, const std::string& hint) {
  warnings_.push_back(Diagnostic{Severity::warning, message, s.location.line, s.location.column,
                                 std::max(1, s.location.length), hint});
}

void LoweringContext::note(const Stmt& s, const std::string& message) {
  warnings_.push_back(Diagnostic{Severity::note, message, s.location.line, s.location.column,
                                 std::max(1, s.location.length)});
}

void LoweringContext::note_dtype(DType t) {
  if (t == DType::f16) kernel_.needs_half = true;
  if (t == DType::bf16) kernel_.needs_bf16 = true;
  if (t == DType::f8_e4m3 || t == DType::f8_e5m2) kernel_.needs_fp8 = true;
  if (is_subbyte(t)) kernel_.needs_subbyte = true;
  if (t == DType::tf32 || t == DType::f8_ue8m0 || t == DType::f8_ue4m3) kernel_.needs_scale_types = true;
}

void LoweringContext::mark_written(int id) {
  const ir::Buffer& b = buffer(id);
  int root = b.alias_of >= 0 ? b.alias_of : id;
  int argument = buffer(root).argument;
  if (argument >= 0) kernel_.abi.argument_written[static_cast<std::size_t>(argument)] = true;
}

ExprRef LoweringContext::dim_expr(int id, std::size_t d) const {
  const ir::Extent& x = buffer(id).dims[d];
  return x.is_dynamic() ? ir::var("dim_" + x.dim, ir::Type::i64()) : ir::int_const(x.value);
}

std::int64_t LoweringContext::dim_value(int id, std::size_t d) const { return buffer(id).dims[d].value; }

std::string LoweringContext::dim_name(int id, std::size_t d) const {
  return d < buffer(id).dims.size() ? buffer(id).dims[d].dim : "";
}

View LoweringContext::whole(int id) const {
  View v;
  v.buffer = id;
  for (std::size_t d = 0; d < buffer(id).dims.size(); ++d) {
    v.extent.push_back(dim_value(id, d));
    v.origin.push_back(ir::int_const(0));
  }
  return v;
}

ir::Tile LoweringContext::tile_of(const View& v) const {
  ir::Tile t;
  t.buffer = v.buffer;
  t.slot = v.slot;
  t.origin = v.origin;
  t.extent = v.extent;
  t.exact = v.exact;
  t.limit = v.limit;
  for (std::size_t d = 0; d < v.origin.size(); ++d)
    t.origin_multiple.push_back(ir::is_zero(v.origin[d]) ? 0 : d < v.origin_multiple.size() ? v.origin_multiple[d] : 1);
  return t;
}

ExprRef LoweringContext::element_at(const View& v, const std::vector<ExprRef>& idx) const {
  std::vector<ExprRef> coords;
  for (std::size_t d = 0; d < idx.size(); ++d) coords.push_back(ir::add(v.origin[d], idx[d]));
  return ir::element(v.buffer, buffer(v.buffer).dtype, v.slot, std::move(coords));
}

ExprRef LoweringContext::tile_address(const View& v) const {
  return ir::address_of(element_at(v, std::vector<ExprRef>(v.extent.size(), ir::int_const(0))));
}

namespace {

// The largest power of two up to `most` bytes, and at least an element,
// that divides `bytes`: the alignment every slot of that size keeps in an
// array of them.
int alignment_of(std::int64_t bytes, int element, int most) {
  int align = element;
  while (align < most && bytes % (2 * align) == 0) align *= 2;
  return align;
}

}  // namespace

int LoweringContext::allocate(const std::string& base, DType t, std::vector<std::int64_t> dims, ir::Space space,
                      const SourceLocation& where, std::int64_t slots) {
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(t));
  const std::optional<std::int64_t> n = support::checked_product(dims);
  const support::CheckedInt total = n ? support::checked_mul(*n, elem) : support::CheckedInt{0, support::ArithmeticFault::overflow};
  const char* kind = space == ir::Space::shared ? "shared" : "local";
  if (!total.ok() || total.value > kUnreachableBytes)
    fail(where, std::string("this ") + kind + " buffer, " + shape_text(t, dims) + ", is larger than any device memory");
  if (space == ir::Space::shared && slots > 0) {
    // Every term stays below 2^41 (kUnreachableBytes): nothing here overflows.
    const std::int64_t align = kernel_.hopper ? 1024 : 128;
    const support::CheckedInt ring = support::checked_mul((total.value + align - 1) / align * align, slots);
    if (!ring.ok() || ring.value > kUnreachableBytes)
      fail(where, "this ring of " + std::to_string(slots) + " shared buffers " + shape_text(t, dims) +
                      " is larger than any device memory");
  }
  // An array of local buffers is one array of them all, a slot each.
  const std::int64_t local_bytes = slots > 0 && total.value <= kLocalBytesLimit ? total.value * slots : total.value;
  if (space == ir::Space::local && local_bytes > kLocalBytesLimit)
    fail(where, std::string(slots > 0 ? "this array of " + std::to_string(slots) + " local buffers, " : "this local buffer, ") +
                    shape_text(t, dims) + ", needs " + std::to_string(local_bytes) +
                    " bytes per thread; a thread's local memory holds at most " + std::to_string(kLocalBytesLimit),
         "stage large tiles in shared memory or split them");
  ir::Buffer b;
  b.name = fresh(base);
  b.dtype = t;
  for (auto d : dims) b.dims.push_back(ir::Extent{d, ""});
  b.space = space;
  b.slots = slots;
  if (space == ir::Space::local && slots > 0) b.slot_elems = *n;  // shared slots are laid out by the memory pass
  if (space == ir::Space::shared) b.align_bytes = kernel_.hopper ? 1024 : 128;
  if (space == ir::Space::local) {
    // The largest power of two up to 16 bytes that divides its size: whole
    // tiles copied into it may move as 16-byte vectors (vectorize_copies).
    b.align_bytes = alignment_of(total.value, static_cast<int>(dtype_size(t)), 16);
  }
  note_dtype(t);
  kernel_.buffers.push_back(std::move(b));
  int id = static_cast<int>(kernel_.buffers.size()) - 1;
  if (space == ir::Space::shared && overlapped_store_names_.count(base)) overlapped_store_tiles_.insert(id);
  if (space == ir::Space::shared) emit_node(ir::AllocShared{id}, where);
  else if (space == ir::Space::local) emit_node(ir::DeclareLocal{id});
  return id;
}

int LoweringContext::scratch_buffer(const std::string& name, DType dtype, const std::vector<std::int64_t>& dims,
                            const SourceLocation& where, std::int64_t slots) {
  // The runtime allocates the array's buffers one after another: [slots, dims...].
  std::vector<std::int64_t> allocated = dims;
  if (slots > 0) allocated.insert(allocated.begin(), slots);
  std::vector<std::int64_t> known = allocated;  // shape_of refused dynamic dims
  fit_index(element_count(known));
  known.push_back(static_cast<std::int64_t>(dtype_size(dtype)));
  if (!support::stride_product(known))
    fail(where, "the global buffer `" + name + "`, " + shape_text(dtype, dims) +
                    ", holds more bytes than a 64-bit size can count (2^63 - 1)");
  abi::KernelAbi& abi = kernel_.abi;
  ir::Buffer b;
  b.name = "croq_global_" + name;
  b.dtype = dtype;
  for (std::int64_t d : dims) b.dims.push_back(ir::Extent{d, ""});
  b.slots = slots;
  if (slots > 0) b.slot_elems = element_count(dims);
  // A fresh device allocation; the slots of an array start where their size leaves them.
  b.align_bytes = slots > 0 ? alignment_of(b.slot_elems * static_cast<std::int64_t>(dtype_size(dtype)),
                                           static_cast<int>(dtype_size(dtype)), 256)
                            : 256;
  note_dtype(dtype);
  kernel_.buffers.push_back(std::move(b));
  const int id = static_cast<int>(kernel_.buffers.size()) - 1;
  kernel_.params.push_back(ir::Param{abi::KernelParam::Kind::scratch, kernel_.buffers.back().name, ir::Type::element(dtype), id});
  abi.params.push_back(abi::KernelParam{abi::KernelParam::Kind::scratch, static_cast<int>(abi.scratch.size()), name, {}, {}, 0});
  scratch_index_[id] = abi.scratch.size();
  abi.scratch.push_back(abi::ScratchBuffer{name, dtype, allocated, {}});
  return id;
}

void LoweringContext::mark_updated(int id) {
  std::vector<std::uint8_t>* fill = nullptr;
  if (buffer(id).argument == -2) fill = &kernel_.abi.output_fill;
  else if (auto it = scratch_index_.find(id); it != scratch_index_.end()) fill = &kernel_.abi.scratch[it->second].fill;
  if (fill && fill->empty()) fill->assign(dtype_size(buffer(id).dtype), 0);
}

namespace {

// `d` as a C++ floating literal (ir::float_literal's form, which has no
// sign: a negative value is its negation).
ExprRef floating_constant(double d) {
  if (std::signbit(d)) return ir::unary("-", floating_constant(-d));
  if (std::isinf(d)) return ir::float_literal("inf");
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", d);
  std::string literal = text;
  if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
  return ir::float_literal(literal);
}

}  // namespace

void LoweringContext::fill_initial(int id, const sema::Buffer& declared, const SourceLocation& where,
                                   ExprRef computed) {
  if (!declared.initial) return;
  const sema::Buffer::Initial& initial = *declared.initial;
  const ir::Buffer& b = buffer(id);
  if (initial.computed && (!computed || b.space == ir::Space::global))
    unchecked(where, sema::Rule::unsupported_runtime_value);  // sema allows it for shared and local tensors only
  if (b.space == ir::Space::global) {
    std::vector<std::uint8_t> bytes = initial.integral ? croq::detail::element_bytes(b.dtype, initial.integer)
                                                       : croq::detail::element_bytes(b.dtype, initial.floating);
    if (b.argument == -2) kernel_.abi.output_fill = std::move(bytes);
    else kernel_.abi.scratch[scratch_index_.at(id)].fill = std::move(bytes);
    return;
  }
  const bool shared = b.space == ir::Space::shared;
  // A shared tile: the block's threads (or a region's) fill it, or those of
  // a thread level that splits the whole block, all reaching this point
  // (as ask_barrier_before_thread_copy asks); then they wait for each other.
  const bool thread_level = shared && scope_ == Scope::thread;
  if (thread_level && (thread_branches_ > 0 || set_.threads != 0 || thread_level_threads_ == 0 ||
                       thread_level_threads_ != kernel_.block_threads || !group_levels_.empty()))
    fail(where, "an initial value of a shared tensor declared in a thread level that does not run every thread of the "
                "block here is not supported yet by libcroqjit",
         "move the declaration before the level's branches, or fill the tile with stores");
  if (shared && scope_ != Scope::block && !thread_level) unchecked(where, sema::Rule::unsupported_expression);
  // One loop over the elements of every slot: coordinates from the flat index.
  std::int64_t elements = 1;
  for (const ir::Extent& d : b.dims) elements *= d.value;
  const std::int64_t total = elements * std::max<std::int64_t>(b.slots, 1);
  const std::string e = fresh("fill");
  ExprRef flat = ir::var(e);
  ExprRef slot = b.slots > 0 ? ir::binary("/", flat, ir::int_const(elements)) : nullptr;
  ExprRef in_slot = b.slots > 0 ? ir::binary("%", flat, ir::int_const(elements)) : flat;
  std::vector<std::int64_t> extents;
  for (const ir::Extent& d : b.dims) extents.push_back(d.value);
  std::vector<ExprRef> coords = row_major_coords(in_slot, extents);
  ExprRef value = computed                ? computed
                  : initial.integral      ? ir::int_const(initial.integer, ir::Type::i64())
                                          : floating_constant(initial.floating);
  ir::For f;
  f.var = e;
  f.begin = !shared ? ir::int_const(0) : thread_level ? thread_level_.index : set_.tid;
  f.end = ir::int_const(total);
  if (shared) f.step = thread_level ? ir::int_const(thread_level_.threads) : set_.count;
  ir::StmtList body;
  body.push_back(ir::make_stmt(ir::Assign{ir::element(id, b.dtype, slot, std::move(coords)), "=",
                                          ir::convert(value, ir::Type::element(b.dtype)), nullptr}));
  f.body = ir::make_stmt(ir::Seq{std::move(body), false});  // loop bodies are sequences (ir::nested_bodies)
  emit_node(std::move(f), where);
  mark_written(id);
  if (shared) {
    ir::Barrier wait;
    wait.set = set_;
    emit_node(std::move(wait), where);
  }
}

bool LoweringContext::in_this_kernel(const Stmt& s) {
  if (std::holds_alternative<Parallel>(s.node)) return top_parallels_seen_++ == kernel_index_;
  if (std::holds_alternative<Declaration>(s.node) || std::holds_alternative<Return>(s.node)) return true;
  if (is_global_sync(s)) return false;  // stream order: nothing to emit
  unchecked(s.location, sema::Rule::program_host_statement);
}

}  // namespace croq::lower::detail
