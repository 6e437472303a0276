// Codegen for T1/T2: a tree walk over one __co__ function that prints CUDA.
//
// Parallel mapping (documented in README "Parallel mapping"):
//   * `: block` levels become the (flattened, 1-D) grid; `: thread`,
//     `: group` (32 threads) and `: group-4` (128 threads) levels become the
//     threads of a block. Multi-index levels decompose row-major, last index
//     fastest, so neighbouring threads touch neighbouring elements.
//   * A level without a space specifier at the top of the function becomes
//     `: block` when it contains another parallel level or stages data in
//     shared memory; otherwise it is "flat": one thread per instance, 256
//     threads per block. An unannotated level inside a block level becomes
//     `: thread`.
//   * An outermost `: cluster` level groups the blocks of the `: block` level
//     that directly follows it: the grid is clusters x blocks per cluster
//     (<= 8), cluster = blockIdx.x / B, block rank = blockIdx.x % B.
// Statements at block scope run on every thread of the block (uniform
// control flow); their stores are done by thread 0. Copies into shared
// memory are cooperative over all threads and fenced by __syncthreads().
#include "codegen/kernel_codegen.hpp"

#include <cstdlib>

#include "codegen/codegen_internal.hpp"
#include "codegen/hopper_prelude.hpp"
#include "codegen/signature_check.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::codegen::detail {

// ---- helpers ---------------------------------------------------------------

void Codegen::line_directive(const SourceLocation& loc) {
  if (loc.line > 0) out_.raw(line_directive_text(loc));
}

std::string Codegen::line_directive_text(const SourceLocation& loc) const {
  return "#line " + std::to_string(loc.line) + " " + source_name_literal_;
}

// Bytes of memory on the device side that no buffer can reach: sizes past
// this are refused before their arithmetic could overflow.
constexpr std::int64_t kUnreachableBytes = std::int64_t{1} << 40;
// What a thread's local memory holds at most (CUDA's per-thread limit).
constexpr std::int64_t kLocalBytesLimit = 512 * 1024;

std::shared_ptr<Buffer> Codegen::allocate(const std::string& base, DType t, std::vector<std::int64_t> dims,
                                          Buffer::Space space, const SourceLocation& where, std::int64_t slots) {
  auto b = std::make_shared<Buffer>();
  b->name = fresh(base);
  b->dtype = t;
  b->dims = std::move(dims);
  b->space = space;
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(t));
  const std::optional<std::int64_t> n = support::checked_product(b->dims);
  const support::CheckedInt total = n ? support::checked_mul(*n, elem) : support::CheckedInt{0, support::ArithmeticFault::overflow};
  const char* kind = space == Buffer::Space::shared ? "shared" : "local";
  if (!total.ok() || total.value > kUnreachableBytes)
    fail_at(program_, where, std::string("this ") + kind + " buffer, " + shape_text(t, b->dims) + ", is larger than any device memory");
  if (t == DType::f16) needs_half_ = true;
  if (t == DType::bf16) needs_bf16_ = true;
  if (space == Buffer::Space::shared) {
    // 128-byte aligned (16 B vectors); Hopper kernels align tiles to 1024
    // bytes, the period of the 128B swizzle that TMA and WGMMA use. Every
    // term stays below 2^41 (kUnreachableBytes), so nothing here overflows.
    const std::int64_t align = hopper_ ? 1024 : 128;
    std::int64_t offset = (shared_bytes_ + align - 1) / align * align;
    std::int64_t bytes = total.value;
    if (slots > 0) {
      b->slots = slots;
      std::int64_t slot_bytes = (bytes + align - 1) / align * align;
      b->slot_elems = slot_bytes / elem;
      support::CheckedInt ring = support::checked_mul(slot_bytes, slots);
      if (!ring.ok() || ring.value > kUnreachableBytes)
        fail_at(program_, where, "this ring of " + std::to_string(slots) + " shared buffers " + shape_text(t, b->dims) +
                                     " is larger than any device memory");
      bytes = ring.value;
    }
    if (offset + bytes > kUnreachableBytes)
      fail_at(program_, where, "`" + fn_.name + "` needs more than " + std::to_string(kUnreachableBytes) +
                                   " bytes of shared memory per block; the device allows " + std::to_string(max_shared_));
    shared_bytes_ = offset + bytes;
    out_.line(std::string(cuda_type(t)) + "* " + b->name + " = reinterpret_cast<" + cuda_type(t) +
              "*>(croq_smem + " + std::to_string(offset) + ");");
  } else if (space == Buffer::Space::local) {
    if (total.value > kLocalBytesLimit)
      fail_at(program_, where, "this local buffer, " + shape_text(t, b->dims) + ", needs " + std::to_string(total.value) +
                                   " bytes per thread; a thread's local memory holds at most " +
                                   std::to_string(kLocalBytesLimit),
              "stage large tiles in shared memory or split them");
    b->align_bytes = static_cast<int>(elem);
    // An empty tile still declares one element: C++ has no zero-length arrays.
    out_.line(std::string(cuda_type(t)) + " " + b->name + "[" + std::to_string(std::max<std::int64_t>(*n, 1)) + "];");
  }
  return b;
}

std::string Codegen::address(const View& v, const std::vector<std::string>& idx) const {
  std::string linear = "0";
  std::int64_t stride = 1;
  std::string dynamic_stride;  // product of the dynamic extents inside dimension d
  for (int d = static_cast<int>(v.extent.size()) - 1; d >= 0; --d) {
    std::string coord = add_text(v.origin[d], idx[d]);
    std::string term = scaled_text(coord, stride);
    if (!dynamic_stride.empty() && !is_zero(term)) term = "(" + term + " * " + dynamic_stride + ")";
    linear = add_text(linear, term);
    if (v.buffer->dims[d] >= 0) stride *= v.buffer->dims[d];
    else dynamic_stride += (dynamic_stride.empty() ? "" : " * ") + dim_text(*v.buffer, d);
  }
  if (v.buffer->swizzle > 0) {  // the TMA layout: 16-byte chunks permuted within each 8-row atom
    const std::string elem = std::to_string(dtype_size(v.buffer->dtype));
    linear = "(croq_dev::swizzle_offset((unsigned)(" + linear + ") * " + elem + "u, " + std::to_string(v.buffer->swizzle) +
             "u) / " + elem + "u)";
  }
  if (v.buffer->slots > 0) linear = add_text(mul_text(v.slot.empty() ? "0" : v.slot, v.buffer->slot_elems), linear);
  return v.buffer->name + "[" + linear + "]";
}

void Codegen::mark_written(const Buffer& b) {
  if (b.argument >= 0) result_.argument_written[b.argument] = true;
}

bool Codegen::contains_parallel(const Stmt& s) const {
  bool found = false;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (found) return;
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Parallel>) found = true;
      else if constexpr (std::is_same_v<T, Block>) { for (const auto& c : n.statements) walk(*c); }
      else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While> || std::is_same_v<T, InThreads>) { if (n.body) walk(*n.body); }
      else if constexpr (std::is_same_v<T, If>) { walk(*n.then_branch); if (n.else_branch) walk(*n.else_branch); }
    }, st.node);
  };
  walk(s);
  return found;
}

bool Codegen::uses_shared(const Stmt& s) const {
  bool found = false;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (found) return;
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Copy>) { if (n.destination_storage == Storage::shared) found = true; }
      else if constexpr (std::is_same_v<T, Declaration>) { if (n.type.storage == Storage::shared) found = true; }
      else if constexpr (std::is_same_v<T, Sync>) found = true;
      else if constexpr (std::is_same_v<T, Block>) { for (const auto& c : n.statements) walk(*c); }
      else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While> || std::is_same_v<T, InThreads> ||
                         std::is_same_v<T, Parallel>) { if (n.body) walk(*n.body); }
      else if constexpr (std::is_same_v<T, If>) { walk(*n.then_branch); if (n.else_branch) walk(*n.else_branch); }
    }, st.node);
  };
  walk(s);
  return found;
}

// ---- expressions -------------------------------------------------------------

std::int64_t Codegen::const_int(const Expr& e, const char* what) {
  Value v = expr(e);
  if (v.kind == Value::Kind::index && v.count > 0 && !v.constant)
    fail_at(program_, e.location, std::string(what) + " must be known when the kernel is specialized; `" +
                                      source_text(e) + "` is a runtime index");
  if (!v.constant) fail_at(program_, e.location, std::string(what) + " must be a constant, got `" +
                                                     source_text(e) + "`");
  return *v.constant;
}

std::int64_t Codegen::non_negative_int(const Expr& e, const char* what) {
  std::int64_t v = const_int(e, what);
  if (v < 0) fail_at(program_, e.location, std::string(what) + " must not be negative, got " + std::to_string(v));
  return v;
}

std::string Codegen::scaled_text(const std::string& text, std::int64_t k) const {
  if (!wide_ || k == 1 || is_zero(text) || integer_text(text)) return mul_text(text, k);
  return "((long long)(" + text + ") * " + std::to_string(k) + ")";
}

std::vector<std::int64_t> Codegen::shape_of(const Expr& e, std::vector<std::string>* names) {
  Value v = expr(e);
  std::vector<std::int64_t> dims;
  std::vector<std::string> dim_names;
  switch (v.kind) {
    case Value::Kind::shape:
      dims = v.dims;
      dim_names = v.dim_names;
      break;
    case Value::Kind::view: case Value::Kind::future:
      dims = v.view.extent;
      for (std::size_t d = 0; d < dims.size(); ++d)
        dim_names.push_back(dims[d] < 0 && d < v.view.buffer->dim_names.size() ? v.view.buffer->dim_names[d] : "");
      break;
    case Value::Kind::scalar:
      if (v.constant) {
        // -1 would read as a dynamic dim below.
        if (*v.constant < 0)
          fail_at(program_, e.location, "a shape extent must not be negative; `" + source_text(e) + "` is " +
                                            std::to_string(*v.constant));
        if (names) *names = {""};
        return {*v.constant};
      }
      if (v.dynamic && v.dynamic->divisor == 1) {
        dims = {-1};
        dim_names = {v.dynamic->dim};
        break;
      }
      [[fallthrough]];
    default:
      fail_at(program_, e.location, "expected a shape such as `[M, N]` or `x.span`, got `" +
                                        source_text(e) + "`");
  }
  dim_names.resize(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d] < 0 && !names)
      fail_at(program_, e.location, "this shape involves the dynamic dim `" + dim_names[d] +
                                        "`, but it must be known when the kernel is compiled",
              "remove `" + dim_names[d] + "` from CompileOptions::dynamic_dims, or use a constant tile shape");
  if (names) *names = dim_names;
  return dims;
}

std::vector<Value> Codegen::counts_of(const Expr& e, const char* what) {
  std::vector<Value> counts;
  auto add = [&](const Expr& part) {
    Value v = expr(part);
    if (v.kind == Value::Kind::shape || v.kind == Value::Kind::view || v.kind == Value::Kind::future) {
      for (auto d : shape_of(part)) counts.push_back(scalar_const(d));
      return;
    }
    if (v.kind == Value::Kind::scalar && (v.constant || v.dynamic)) {
      counts.push_back(v);
      return;
    }
    fail_at(program_, part.location, std::string(what) + " must be a constant or computed from a dynamic dim "
                                     "(`M`, `cdiv(M, 64)`, `M / 64`), got `" + source_text(part) + "`");
  };
  if (const auto* list = std::get_if<ShapeList>(&e.node)) {
    for (const auto& d : list->dims) add(*d);
  } else {
    add(e);
  }
  return counts;
}

Value Codegen::name_value(const Expr& e, const Name& n) {
  if (const Value* v = lookup(n.name)) return *v;
  auto dim = dims_.find(n.name);
  if (dim != dims_.end()) return scalar_const(dim->second);
  if (dynamic_.count(n.name)) {
    Value v;
    v.text = "dim_" + n.name;
    v.dynamic = DynamicCount{n.name, 1, false};
    return v;
  }
  auto def = program_.defines.find(n.name);
  if (def != program_.defines.end() && def->second.value) {
    if (auto* i = std::get_if<std::int64_t>(&*def->second.value)) return scalar_const(*i);
    Value f;
    f.text = def->second.text;
    f.is_float = true;
    return f;
  }
  fail_at(program_, e.location, "unknown name `" + n.name + "`");
}

std::vector<Value> Codegen::index_args(const ExprList& args) {
  std::vector<Value> out;
  for (const auto& a : args) {
    Value v = expr(*a);
    if (v.kind == Value::Kind::tuple) {
      for (auto& el : v.elements) out.push_back(el);
    } else {
      out.push_back(std::move(v));
    }
  }
  return out;
}

Value Codegen::element_ref(const Expr& e, const Value& target, const ExprList& args) {
  const View& v = target.view;
  std::vector<Value> idx = index_args(args);
  if (idx.size() != v.extent.size())
    fail_at(program_, e.location, "`.at` on a rank-" + std::to_string(v.extent.size()) + " tensor takes " +
                                      std::to_string(v.extent.size()) + " indices, got " +
                                      std::to_string(idx.size()));
  std::vector<std::string> texts;
  std::string guard;
  for (std::size_t d = 0; d < idx.size(); ++d) {
    if (idx[d].kind != Value::Kind::scalar && idx[d].kind != Value::Kind::index)
      fail_at(program_, args[std::min(d, args.size() - 1)]->location, "an index must be an integer");
    if (idx[d].constant && (*idx[d].constant < 0 || (v.extent[d] >= 0 && *idx[d].constant >= v.extent[d])))
      fail_at(program_, args[std::min(d, args.size() - 1)]->location,
              "index " + std::to_string(*idx[d].constant) + " is out of range for dimension " + std::to_string(d) +
                  " of extent " + std::to_string(v.extent[d]));
    texts.push_back(idx[d].text);
    // In range by construction when the index cannot exceed the window and
    // the window stays inside the buffer; otherwise guard at run time.
    bool bounded = v.extent[d] >= 0 && (idx[d].constant || (idx[d].kind == Value::Kind::index && idx[d].count > 0 &&
                                                             idx[d].count <= v.extent[d]));
    if (!(bounded && v.exact)) {
      std::string coord = add_text(v.origin[d], idx[d].text);
      guard += (guard.empty() ? "" : " && ") + coord + " < " + dim_text(*v.buffer, d);
    }
  }
  Value r;
  r.text = address(v, texts);
  r.guard = guard;
  r.element_of = v.buffer;
  r.is_float = is_floating(v.buffer->dtype);
  return r;
}

Value Codegen::member(const Expr& e, const Member& m) {
  Value obj = expr(*m.object);
  auto need_view = [&](const char* op) {
    if (obj.kind == Value::Kind::event && std::string_view(op) == "at")
      fail_at(program_, e.location, "`" + source_text(*m.object) + ".at(...)` (ordered event arrival) is not supported yet by "
                                    "libcroqjit codegen",
              "index the event array instead: `" + source_text(*m.object) + "[i]`");
    if (obj.kind != Value::Kind::view && obj.kind != Value::Kind::future)
      fail_at(program_, e.location, std::string("`.") + op + "` needs a tensor, got `" +
                                        source_text(*m.object) + "`");
  };
  auto place = [&](const std::vector<std::string>& offsets, const std::vector<std::int64_t>& multiples) {
    View v = obj.view;
    for (std::size_t d = 0; d < v.extent.size(); ++d) shift_origin(v, d, offsets[d], multiples[d]);
    v.pending = View::Pending::none;
    Value r;
    r.kind = Value::Kind::view;
    r.view = v;
    return r;
  };
  switch (m.kind) {
    case MemberKind::span: {
      need_view("span");
      auto name_of = [&](std::size_t d) {
        return obj.view.extent[d] < 0 && d < obj.view.buffer->dim_names.size() ? obj.view.buffer->dim_names[d] : "";
      };
      if (!m.has_args) {
        Value r;
        r.kind = Value::Kind::shape;
        r.dims = obj.view.extent;
        for (std::size_t d = 0; d < r.dims.size(); ++d) r.dim_names.push_back(name_of(d));
        return r;
      }
      std::int64_t i = const_int(*m.args.at(0), "the dimension of `.span(i)`");
      if (i < 0 || i >= static_cast<std::int64_t>(obj.view.extent.size()))
        fail_at(program_, e.location, "`.span(" + std::to_string(i) + ")` on a rank-" +
                                          std::to_string(obj.view.extent.size()) + " tensor");
      if (obj.view.extent[i] < 0) {
        Value r;
        r.text = "dim_" + name_of(i);
        r.dynamic = DynamicCount{name_of(i), 1, false};
        return r;
      }
      return scalar_const(obj.view.extent[i]);
    }
    case MemberKind::data:
      if (obj.kind != Value::Kind::future)
        fail_at(program_, e.location, "`.data` needs the future of a copy, got `" +
                                          source_text(*m.object) + "`");
      obj.kind = Value::Kind::view;
      return obj;
    case MemberKind::at: {
      need_view("at");
      if (obj.view.pending == View::Pending::subspan) {
        std::vector<Value> idx = index_args(m.args);
        if (idx.size() != obj.view.extent.size())
          fail_at(program_, e.location, "`.at` after `subspan` takes " + std::to_string(obj.view.extent.size()) +
                                            " tile coordinates, got " + std::to_string(idx.size()));
        std::vector<std::string> offsets;
        std::vector<std::int64_t> multiples;
        View& v = obj.view;
        for (std::size_t d = 0; d < idx.size(); ++d) {
          std::int64_t step = v.step.empty() ? v.extent[d] : v.step[d];
          offsets.push_back(scaled_text(idx[d].text, step));
          multiples.push_back(multiple_product(idx[d].multiple, step));
          // The last tile may reach past the parent: guard unless tiles divide it.
          std::int64_t parent = v.buffer->dims[d];  // -1 when dynamic: never provably inside
          std::optional<std::int64_t> last;         // the largest tile coordinate, when known
          if (idx[d].constant && *idx[d].constant < 0)
            fail_at(program_, m.args[std::min(d, m.args.size() - 1)]->location,
                    "tile coordinate " + std::to_string(*idx[d].constant) + " is negative");
          if (idx[d].kind == Value::Kind::index && idx[d].count > 0) last = idx[d].count - 1;
          else if (idx[d].constant) last = *idx[d].constant;
          if (last && tile_end(*last, step, v.extent[d]) == INT64_MAX)
            fail_arithmetic(*m.args[std::min(d, m.args.size() - 1)], support::ArithmeticFault::overflow,
                            "tile " + std::to_string(*last) + " of " + std::to_string(step) + " elements ends past 2^63 - 1");
          if (last) fit_index(tile_end(*last, step, v.extent[d]));
          if (!(last && parent >= 0 && tile_end(*last, step, v.extent[d]) <= parent)) v.exact = false;
        }
        return place(offsets, multiples);
      }
      if (obj.view.pending != View::Pending::none)
        fail_at(program_, e.location, "`.view(...)` must be placed with `.from(...)`");
      return element_ref(e, obj, m.args);
    }
    case MemberKind::chunkat: {
      need_view("chunkat");
      if (m.args.size() != obj.view.extent.size())
        fail_at(program_, e.location, "`.chunkat` on a rank-" + std::to_string(obj.view.extent.size()) +
                                          " tensor takes " + std::to_string(obj.view.extent.size()) +
                                          " arguments, got " + std::to_string(m.args.size()));
      View v = obj.view;
      for (std::size_t d = 0; d < m.args.size(); ++d) {
        if (std::holds_alternative<Wildcard>(m.args[d]->node)) continue;
        Value idx = expr(*m.args[d]);
        if (idx.kind != Value::Kind::index || idx.count <= 0)
          fail_at(program_, m.args[d]->location, "`chunkat` takes parallel or loop indices (or `_`), got `" +
                                                     source_text(*m.args[d]) + "`",
                  "use `subspan(...).at(...)` for tiles of an explicit size");
        if (v.extent[d] < 0)
          fail_at(program_, m.args[d]->location, "`chunkat` splits dimension " + std::to_string(d) +
                                                     ", the dynamic dim `" + v.buffer->dim_names[d] +
                                                     "`, into chunks whose size must be known at compile time",
                  "use `subspan(T, ...).at(...)` with a constant tile extent");
        std::int64_t chunk = support::checked_cdiv(v.extent[d], idx.count).value;  // both positive: no fault
        fit_index(tile_end(idx.count, chunk, 0));
        if (v.extent[d] % idx.count != 0) v.exact = false;
        shift_origin(v, d, scaled_text(idx.text, chunk), multiple_product(idx.multiple, chunk));
        v.extent[d] = chunk;
      }
      Value r;
      r.kind = Value::Kind::view;
      r.view = v;
      return r;
    }
    case MemberKind::subspan:
    case MemberKind::view: {
      need_view(m.kind == MemberKind::view ? "view" : "subspan");
      if (m.args.size() != obj.view.extent.size())
        fail_at(program_, e.location, std::string("`.") + m.name + "` on a rank-" +
                                          std::to_string(obj.view.extent.size()) + " tensor takes " +
                                          std::to_string(obj.view.extent.size()) + " extents, got " +
                                          std::to_string(m.args.size()));
      Value r = obj;
      r.kind = Value::Kind::view;
      for (std::size_t d = 0; d < m.args.size(); ++d) r.view.extent[d] = non_negative_int(*m.args[d], "a tile extent");
      r.view.pending = m.kind == MemberKind::view ? View::Pending::view : View::Pending::subspan;
      return r;
    }
    case MemberKind::step: {
      if (obj.view.pending != View::Pending::subspan)
        fail_at(program_, e.location, "`.step(...)` follows `.subspan(...)`");
      if (m.args.size() != obj.view.extent.size())
        fail_at(program_, e.location, "`.step` on a rank-" + std::to_string(obj.view.extent.size()) + " tile takes " +
                                          std::to_string(obj.view.extent.size()) + " steps, got " + std::to_string(m.args.size()));
      obj.view.step.clear();
      for (const auto& a : m.args) obj.view.step.push_back(non_negative_int(*a, "a step"));
      return obj;
    }
    case MemberKind::from: {
      if (obj.view.pending != View::Pending::view) fail_at(program_, e.location, "`.from(...)` follows `.view(...)`");
      std::vector<Value> idx = index_args(m.args);
      if (idx.size() != obj.view.extent.size())
        fail_at(program_, e.location, "`.from` takes " + std::to_string(obj.view.extent.size()) +
                                          " offsets, got " + std::to_string(idx.size()));
      std::vector<std::string> offsets;
      std::vector<std::int64_t> multiples;
      for (std::size_t d = 0; d < idx.size(); ++d) {
        if (idx[d].constant && *idx[d].constant < 0)
          fail_at(program_, m.args[std::min(d, m.args.size() - 1)]->location,
                  "`.from` offset " + std::to_string(*idx[d].constant) + " is negative");
        offsets.push_back(idx[d].text);
        multiples.push_back(idx[d].multiple);
        if (!(idx[d].constant && obj.view.buffer->dims[d] >= 0 &&
              tile_end(*idx[d].constant, 1, obj.view.extent[d]) <= obj.view.buffer->dims[d]))
          obj.view.exact = false;  // a runtime offset: guard every access
      }
      return place(offsets, multiples);
    }
    case MemberKind::span_as:
      need_view("span_as");
      return span_as(e, m, obj);
    case MemberKind::zfill:  // `src.zfill => dst`: the same as dma.copy.zfill
      need_view("zfill");
      obj.zfill = true;
      return obj;
    default:
      fail_at(program_, e.location, "`." + m.name + "` is not supported yet by libcroqjit codegen");
  }
}

// x.span_as([d0, d1, ...]): the same elements, in the same row-major order,
// seen with another shape. No data moves, so `x` must be a whole buffer
// (every element of a contiguous block) and the element counts must agree.
Value Codegen::span_as(const Expr& e, const Member& m, const Value& obj) {
  if (m.args.empty())
    fail_at(program_, e.location, "`.span_as` takes the new shape, such as `.span_as([rows, cols])`");
  std::vector<std::int64_t> dims;
  for (const auto& a : m.args) {
    std::vector<std::int64_t> part = shape_of(*a);
    dims.insert(dims.end(), part.begin(), part.end());
  }
  const View& v = obj.view;
  for (std::size_t d = 0; d < v.extent.size(); ++d)
    if (v.extent[d] < 0)
      fail_at(program_, e.location, "`.span_as` needs the element count at compile time, but dimension " +
                                        std::to_string(d) + " is the dynamic dim `" + v.buffer->dim_names[d] + "`");
  for (auto d : dims)
    if (d <= 0) fail_at(program_, m.args[0]->location, "`.span_as` needs positive extents, got " + shape_list(dims));
  const std::optional<std::int64_t> count = support::checked_product(dims);
  if (!count) fail_arithmetic(e, support::ArithmeticFault::overflow, "the product of " + shape_list(dims));
  const std::optional<std::int64_t> before = support::checked_product(v.extent);
  if (!before) fail_arithmetic(e, support::ArithmeticFault::overflow, "the product of " + shape_list(v.extent));
  if (*count != *before)
    fail_at(program_, e.location, "`.span_as(" + shape_list(dims) + ")` has " + std::to_string(*count) +
                                      " elements but the tensor it reinterprets has " + std::to_string(*before) +
                                      " (" + shape_list(v.extent) + ")",
            "the element count must stay the same");
  bool whole = v.extent == v.buffer->dims && v.pending == View::Pending::none;
  for (const auto& o : v.origin) whole = whole && is_zero(o);
  if (!whole)
    fail_at(program_, e.location, "`.span_as` reinterprets a whole buffer, not a window into a larger tensor",
            "copy the tile first, then reinterpret its `.data`");
  auto buf = std::make_shared<Buffer>(*v.buffer);
  buf->dims = dims;
  Value r = obj;
  r.view.buffer = buf;
  r.view.extent = dims;
  r.view.origin.assign(dims.size(), "0");
  r.view.origin_multiple.clear();
  r.view.step.clear();
  return r;
}

// A binary operation on two constants (literals, #defines, bound dims),
// checked: overflow, INT64_MIN / -1, division by zero and bad shifts are
// CompileErrors at `e` instead of undefined behaviour or SIGFPE.
std::int64_t Codegen::fold(const Expr& e, BinaryOp op, std::int64_t a, std::int64_t c) {
  using namespace support;
  CheckedInt v;
  switch (op) {
    case BinaryOp::mul: v = checked_mul(a, c); break;
    case BinaryOp::div: v = checked_div(a, c); break;
    case BinaryOp::mod: v = checked_mod(a, c); break;
    case BinaryOp::add: v = checked_add(a, c); break;
    case BinaryOp::sub: v = checked_sub(a, c); break;
    case BinaryOp::shl: v = checked_shl(a, c); break;
    case BinaryOp::shr: v = checked_shr(a, c); break;
    case BinaryOp::lt: v = {a < c}; break;
    case BinaryOp::gt: v = {a > c}; break;
    case BinaryOp::le: v = {a <= c}; break;
    case BinaryOp::ge: v = {a >= c}; break;
    case BinaryOp::eq: v = {a == c}; break;
    case BinaryOp::ne: v = {a != c}; break;
    case BinaryOp::bit_and: v = {a & c}; break;
    case BinaryOp::bit_xor: v = {a ^ c}; break;
    case BinaryOp::bit_or: v = {a | c}; break;
    case BinaryOp::logical_and: v = {a && c}; break;
    case BinaryOp::logical_or: v = {a || c}; break;
    default: fail_at(program_, e.location, "this operator is not supported yet by libcroqjit codegen");
  }
  static const std::map<BinaryOp, const char*> symbols = {{BinaryOp::mul, "*"}, {BinaryOp::div, "/"}, {BinaryOp::mod, "%"},
                                                          {BinaryOp::add, "+"}, {BinaryOp::sub, "-"}, {BinaryOp::shl, "<<"},
                                                          {BinaryOp::shr, ">>"}};
  if (!v.ok())
    fail_arithmetic(e, v.fault, std::to_string(a) + " " + symbols.at(op) + " " + std::to_string(c));
  return v.value;
}

void Codegen::fail_arithmetic(const Expr& e, support::ArithmeticFault fault, const std::string& values) {
  fail_at(program_, e.location, "`" + source_text(e) + "` " + support::describe(fault) + " (" + values + ")",
          "integer arithmetic on constants and shapes is evaluated in 64 bits when the kernel is specialized");
}

Value Codegen::binary(const Expr& e, const Binary& b) {
  Value l = expr(*b.lhs), r = expr(*b.rhs);
  if (b.op == BinaryOp::compose) {
    if (r.kind != Value::Kind::index || r.count <= 0)
      fail_at(program_, b.rhs->location, "the right side of `#` must be a bounded index (a parallel or loop "
                                         "variable), got `" + source_text(*b.rhs) + "`");
    Value out;
    out.kind = Value::Kind::index;
    out.text = add_text(mul_text(l.text, r.count), r.text);
    const std::int64_t outer = l.kind == Value::Kind::index ? l.count : 1;
    support::CheckedInt count = support::checked_mul(outer, r.count);
    if (!count.ok())
      fail_arithmetic(e, count.fault, "the index takes " + std::to_string(outer) + " * " + std::to_string(r.count) + " values");
    out.count = count.value;
    out.multiple = std::gcd(multiple_product(l.multiple, r.count), r.multiple);
    return out;
  }
  static const std::map<BinaryOp, const char*> ops = {
      {BinaryOp::mul, "*"}, {BinaryOp::div, "/"}, {BinaryOp::mod, "%"}, {BinaryOp::add, "+"},
      {BinaryOp::sub, "-"}, {BinaryOp::shl, "<<"}, {BinaryOp::shr, ">>"}, {BinaryOp::lt, "<"},
      {BinaryOp::gt, ">"}, {BinaryOp::le, "<="}, {BinaryOp::ge, ">="}, {BinaryOp::eq, "=="},
      {BinaryOp::ne, "!="}, {BinaryOp::bit_and, "&"}, {BinaryOp::bit_xor, "^"}, {BinaryOp::bit_or, "|"},
      {BinaryOp::logical_and, "&&"}, {BinaryOp::logical_or, "||"}};
  for (const Value* v : {&l, &r})
    if (v->kind == Value::Kind::view || v->kind == Value::Kind::future || v->kind == Value::Kind::shape)
      fail_at(program_, e.location, "arithmetic on a whole tensor or shape is not supported; index it with `.at`");
  Value out;
  out.is_float = l.is_float || r.is_float;
  if (l.constant && r.constant) return scalar_const(fold(e, b.op, *l.constant, *r.constant));
  if (!out.is_float && r.constant && *r.constant == 0 && (b.op == BinaryOp::div || b.op == BinaryOp::mod))
    fail_at(program_, e.location, "`" + source_text(e) + "` " + support::describe(support::ArithmeticFault::divide_by_zero));
  out.text = "(" + l.text + " " + ops.at(b.op) + " " + r.text + ")";
  if (b.op == BinaryOp::div && l.dynamic && l.dynamic->divisor == 1 && r.constant && *r.constant > 0)
    out.dynamic = DynamicCount{l.dynamic->dim, *r.constant, false};
  if (!out.is_float) {
    if (b.op == BinaryOp::mul) out.multiple = multiple_product(l.multiple, r.multiple);
    else if (b.op == BinaryOp::add || b.op == BinaryOp::sub) out.multiple = std::gcd(l.multiple, r.multiple);
  }
  // An index plus a constant offset is still bounded (used for halo reads):
  // below count + c for i + c, below count - c for i - c (c < 0); a bound
  // that overflows bounds nothing.
  if (l.kind == Value::Kind::index && l.count > 0 && r.constant && (b.op == BinaryOp::add || b.op == BinaryOp::sub)) {
    const std::int64_t growth = b.op == BinaryOp::add ? *r.constant : -std::max<std::int64_t>(*r.constant, -INT64_MAX);
    support::CheckedInt bound = support::checked_add(l.count, std::max<std::int64_t>(growth, 0));
    if (bound.ok()) {
      out.kind = Value::Kind::index;
      out.count = bound.value;
    }
  }
  // The sum of two bounded indices is bounded too (stencil taps: i + di).
  if (l.kind == Value::Kind::index && r.kind == Value::Kind::index && l.count > 0 && r.count > 0 &&
      b.op == BinaryOp::add) {
    support::CheckedInt bound = support::checked_add(l.count, r.count - 1);
    if (bound.ok()) {
      out.kind = Value::Kind::index;
      out.count = bound.value;
    }
  }
  if (!l.guard.empty() || !r.guard.empty()) {
    // A guarded element read inside arithmetic reads as zero out of range.
    auto guarded = [](const Value& v) {
      if (v.guard.empty()) return v.text;
      std::string zero = v.element_of ? typed(v.element_of->dtype, "0") : "0";
      return "((" + v.guard + ") ? " + v.text + " : " + zero + ")";
    };
    out.text = "(" + guarded(l) + " " + ops.at(b.op) + " " + guarded(r) + ")";
  }
  return out;
}

// Guarded reads repeat their index in the guard, so nesting them (a.at(i +
// a.at(i + ...))) doubles the text at each level: past this an expression
// is refused instead of exhausting memory.
constexpr std::size_t kMaxExpressionText = std::size_t{1} << 20;

Value Codegen::expr(const Expr& e) {
  Value v = expr_value(e);
  if (v.text.size() + v.guard.size() > kMaxExpressionText)
    fail_at(program_, e.location, "this expression generates more than " + std::to_string(kMaxExpressionText >> 20) +
                                      " MiB of CUDA (each guarded element read inside an index repeats the index)",
            "nest fewer element reads inside indices");
  return v;
}

Value Codegen::expr_value(const Expr& e) {
  return std::visit([&](const auto& n) -> Value {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, IntegerLiteral>) {
      if (n.value > static_cast<std::uint64_t>(INT64_MAX))
        fail_at(program_, e.location, "the integer literal `" + n.spelling + "` does not fit in a 64-bit signed integer");
      return scalar_const(static_cast<std::int64_t>(n.value));
    } else if constexpr (std::is_same_v<T, FloatLiteral>) {
      Value v;
      v.text = n.spelling;
      v.is_float = true;
      return v;
    } else if constexpr (std::is_same_v<T, BoolLiteral>) {
      return scalar_const(n.value ? 1 : 0);
    } else if constexpr (std::is_same_v<T, Name>) {
      return name_value(e, n);
    } else if constexpr (std::is_same_v<T, Unary>) {
      if (n.op == UnaryOp::extent) {
        Value v = expr(*n.operand);
        if (v.kind != Value::Kind::index || v.count <= 0)
          fail_at(program_, e.location, "`#` gives the extent of a parallel or loop index; `" +
                                            source_text(*n.operand) + "` is not one");
        return scalar_const(v.count);
      }
      Value v = expr(*n.operand);
      if (v.constant && n.op == UnaryOp::negate) {
        support::CheckedInt negated = support::checked_neg(*v.constant);
        if (!negated.ok()) fail_arithmetic(e, negated.fault, "-(" + std::to_string(*v.constant) + ")");
        return scalar_const(negated.value);
      }
      if (v.constant && n.op == UnaryOp::logical_not) return scalar_const(!*v.constant);
      if (v.constant && n.op == UnaryOp::plus) return v;
      static const std::map<UnaryOp, const char*> ops = {{UnaryOp::negate, "-"}, {UnaryOp::plus, "+"},
                                                         {UnaryOp::logical_not, "!"}, {UnaryOp::bit_not, "~"}};
      auto op = ops.find(n.op);
      if (op == ops.end()) fail_at(program_, e.location, "this operator is not supported yet by libcroqjit codegen");
      Value out;
      out.text = std::string("(") + op->second + (v.guard.empty() ? v.text : "((" + v.guard + ") ? " + v.text + " : 0)") + ")";
      out.is_float = v.is_float;
      return out;
    } else if constexpr (std::is_same_v<T, Binary>) {
      return binary(e, n);
    } else if constexpr (std::is_same_v<T, Conditional>) {
      Value c = expr(*n.condition), a = expr(*n.then_value), b = expr(*n.else_value);
      if (c.constant) return *c.constant ? a : b;
      Value out;
      out.text = "(" + c.text + " ? " + a.text + " : " + b.text + ")";
      out.is_float = a.is_float || b.is_float;
      return out;
    } else if constexpr (std::is_same_v<T, Call>) {
      const auto* callee = std::get_if<Name>(&n.callee->node);
      if (callee && callee->name == "cdiv" && n.args.size() == 2) {
        Value a = expr(*n.args[0]), b = expr(*n.args[1]);
        if (b.constant && *b.constant == 0 && !b.is_float)
          fail_at(program_, e.location, "`" + source_text(e) + "` " + support::describe(support::ArithmeticFault::divide_by_zero));
        if (a.constant && b.constant) {
          support::CheckedInt q = support::checked_cdiv(*a.constant, *b.constant);
          if (!q.ok()) fail_arithmetic(e, q.fault, "cdiv(" + std::to_string(*a.constant) + ", " + std::to_string(*b.constant) + ")");
          return scalar_const(q.value);
        }
        Value out;
        out.text = "((" + a.text + " + " + b.text + " - 1) / " + b.text + ")";
        if (a.dynamic && a.dynamic->divisor == 1 && b.constant && *b.constant > 0)
          out.dynamic = DynamicCount{a.dynamic->dim, *b.constant, true};
        return out;
      }
      fail_at(program_, e.location, "calls are not supported yet by libcroqjit codegen (`" +
                                        source_text(*n.callee) + "`)");
    } else if constexpr (std::is_same_v<T, Member>) {
      return member(e, n);
    } else if constexpr (std::is_same_v<T, ShapeList>) {
      Value v;
      v.kind = Value::Kind::shape;
      for (const auto& d : n.dims) {
        std::vector<std::string> names;
        std::vector<std::int64_t> part = shape_of(*d, &names);  // [a.span, 4] flattens a.span
        v.dims.insert(v.dims.end(), part.begin(), part.end());
        v.dim_names.insert(v.dim_names.end(), names.begin(), names.end());
      }
      return v;
    } else if constexpr (std::is_same_v<T, ITuple>) {
      Value v;
      v.kind = Value::Kind::tuple;
      for (const auto& el : n.elements) v.elements.push_back(expr(*el));
      return v;
    } else if constexpr (std::is_same_v<T, Subscript>) {
      return subscript(e, n);
    } else if constexpr (std::is_same_v<T, ElementCount>) {
      std::vector<std::int64_t> dims = shape_of(*n.operand);
      std::optional<std::int64_t> count = support::checked_product(dims);
      if (!count) fail_arithmetic(e, support::ArithmeticFault::overflow, "the product of " + shape_list(dims));
      return scalar_const(*count);
    } else {
      fail_at(program_, e.location, "this expression is not supported yet by libcroqjit codegen");
    }
  }, e.node);
}

// ---- statements ----------------------------------------------------------------

void Codegen::block(const Stmt& s) {
  if (const auto* b = std::get_if<Block>(&s.node)) {
    push();
    const StmtList* saved_list = block_statements_;
    std::size_t saved_position = block_position_;
    block_statements_ = &b->statements;
    for (block_position_ = 0; block_position_ < b->statements.size(); ++block_position_) stmt(*b->statements[block_position_]);
    block_statements_ = saved_list;
    block_position_ = saved_position;
    pop();
  } else {
    push();
    stmt(s);
    pop();
  }
}

void Codegen::declaration(const Stmt& s, const Declaration& d) {
  const TypeRef& t = d.type;
  if (t.kind == TypeKind::event) {
    event_declaration(s, d);
    return;
  }
  if (t.kind == TypeKind::element && t.has_shape) {
    DType dtype;
    if (!parse_dtype(t.name, dtype)) fail_at(program_, t.location, "element type `" + t.name + "` is not supported yet");
    // Only the returned tensor may have dynamic extents (the runtime sizes it).
    bool returned = t.storage != Storage::shared && t.storage != Storage::local && d.declarators.size() == 1 &&
                    d.declarators[0].name == output_name_;
    std::vector<std::int64_t> dims;
    for (const auto& dim : t.shape) {
      std::vector<std::string> names;
      auto part = shape_of(*dim, returned ? &names : nullptr);
      dims.insert(dims.end(), part.begin(), part.end());
    }
    for (const Declarator& decl : d.declarators) {
      std::int64_t slots = 0;
      if (decl.array_size) {
        if (t.storage != Storage::shared)
          fail_at(program_, decl.location, "arrays of buffers live in shared memory (a ring of stages)");
        slots = const_int(*decl.array_size, "the number of buffers");
        if (slots < 1) fail_at(program_, decl.array_size->location, "an array of buffers needs at least one");
      }
      std::shared_ptr<Buffer> buf;
      if (t.storage == Storage::shared) buf = allocate(decl.name, dtype, dims, Buffer::Space::shared, decl.location, slots);
      else if (t.storage == Storage::local) buf = allocate(decl.name, dtype, dims, Buffer::Space::local, decl.location);
      else if (decl.name == output_name_) {
        if (dtype != result_.output_dtype || dims != result_.output_shape)
          fail_at(program_, decl.location, "`" + decl.name + "` is declared " + shape_text(dtype, dims) +
                                               " but the function returns " +
                                               shape_text(result_.output_dtype, result_.output_shape));
        buf = output_;
      } else {
        fail_at(program_, decl.location, "global tensors other than the returned one are not supported yet",
                "declare it `shared` or `local`, or return it");
      }
      Value v;
      v.kind = Value::Kind::view;
      v.view.buffer = buf;
      v.view.extent = dims;
      v.view.origin.assign(dims.size(), "0");
      define(decl.name, v);
    }
    return;
  }
  if (t.kind == TypeKind::int_ || t.kind == TypeKind::bool_ || t.kind == TypeKind::auto_ ||
      (t.kind == TypeKind::element && !t.has_shape)) {
    for (const Declarator& decl : d.declarators) {
      std::string ctype = t.kind == TypeKind::bool_ ? "bool" : t.kind == TypeKind::element ? "" : "int";
      if (t.kind == TypeKind::element) {
        DType dt;
        if (!parse_dtype(t.name, dt)) fail_at(program_, t.location, "element type `" + t.name + "` is not supported yet");
        ctype = cuda_type(dt);
      }
      Value init;
      bool has_init = !decl.init_values.empty();
      if (has_init) init = expr(*decl.init_values[0]);
      if (t.kind == TypeKind::auto_) ctype = has_init && init.is_float ? "float" : index_type();
      // Immutable integers with a constant value stay compile-time constants.
      if (!t.is_mutable && has_init && init.constant && t.kind != TypeKind::element) {
        define(decl.name, scalar_const(*init.constant));
        continue;
      }
      std::string name = fresh(decl.name);
      // `int`/`bool` are immutable unless `mutable`; element-typed scalars are
      // accumulators and stay assignable.
      bool is_const = !t.is_mutable && t.kind != TypeKind::element;
      out_.line((is_const ? "const " : "") + ctype + " " + name + " = " + (has_init ? init.text : "0") + ";");
      Value v;
      v.text = name;
      v.is_float = init.is_float || t.kind == TypeKind::element;
      define(decl.name, v);
    }
    return;
  }
  fail_at(program_, s.location, "this declaration is not supported yet by libcroqjit codegen");
}

void Codegen::assignment(const Stmt& s, const Assignment& a) {
  static const std::map<AssignOp, const char*> ops = {
      {AssignOp::assign, "="}, {AssignOp::add, "+="}, {AssignOp::sub, "-="}, {AssignOp::mul, "*="},
      {AssignOp::div, "/="}, {AssignOp::mod, "%="}, {AssignOp::bit_and, "&="}, {AssignOp::bit_or, "|="},
      {AssignOp::bit_xor, "^="}, {AssignOp::shl, "<<="}, {AssignOp::shr, ">>="}};
  // `name = <tensor expression>;` names a view (`tile_2d = f.data.span_as([8, 16]);`).
  if (const auto* n = std::get_if<Name>(&a.target->node);
      n && a.op == AssignOp::assign && !lookup(n->name) && !dims_.count(n->name) && !program_.defines.count(n->name)) {
    Value value = expr(*a.value);
    if (value.kind == Value::Kind::view || value.kind == Value::Kind::future) {
      define(n->name, value);
      return;
    }
    // `stage = iv_k % STAGES;` declares an immutable scalar (the tutorials' form).
    if ((value.kind == Value::Kind::scalar || value.kind == Value::Kind::index) && value.guard.empty()) {
      if (value.constant) {
        define(n->name, scalar_const(*value.constant));
        return;
      }
      std::string name = fresh(n->name);
      line_directive(s.location);
      out_.line(std::string("const ") + (value.is_float ? "float" : index_type()) + " " + name + " = " + value.text + ";");
      Value v;
      v.text = name;
      v.is_float = value.is_float;
      v.multiple = value.multiple;
      define(n->name, v);
      return;
    }
  }
  Value target = expr(*a.target);
  Value value = expr(*a.value);
  if (target.kind != Value::Kind::scalar || target.constant)
    fail_at(program_, a.target->location, "cannot assign to `" + source_text(*a.target) + "`",
            "assign to an element (`x.at(i, j) = ...`) or a `mutable` scalar");
  std::string value_text = value.guard.empty() ? value.text
                                               : "((" + value.guard + ") ? " + value.text + " : decltype(" + value.text + ")(0))";
  std::string code = target.text + " " + ops.at(a.op) + " " + value_text + ";";
  std::string guard = target.guard;
  if (target.element_of) {
    mark_written(*target.element_of);
    if (target.element_of->argument == -2 && a.op != AssignOp::assign) result_.output_needs_zero = true;
    // Block scope: every thread runs this statement; one store is enough.
    if (scope_ != Scope::thread && target.element_of->space != Buffer::Space::local)
      guard = guard.empty() ? set_.tid + " == 0" : set_.tid + " == 0 && " + guard;
  }
  line_directive(s.location);
  out_.line(guard.empty() ? code : "if (" + guard + ") " + code);
}

// The blocks per cluster of the `: cluster` level p.levels[level]: the count
// of the `: block` level that must follow it, as the next level of the same
// statement or the first level of the sole statement of its body.
std::int64_t Codegen::cluster_size(const Parallel& p, std::size_t level) {
  const ParallelLevel& lv = p.levels[level];
  const ParallelLevel* next = nullptr;
  if (level + 1 < p.levels.size()) {
    next = &p.levels[level + 1];
  } else {
    const Stmt* body = p.body.get();
    if (const auto* b = std::get_if<Block>(&body->node)) body = b->statements.size() == 1 ? b->statements[0].get() : nullptr;
    if (body)
      if (const auto* inner = std::get_if<Parallel>(&body->node)) next = &inner->levels.front();
  }
  if (!next || next->space != SpaceSpecifier::block)
    fail_at(program_, lv.location, "a `: cluster` level must be directly followed by a `: block` level",
            "write `parallel c by C : cluster, b by B : block { ... }`, or a `: block` level as the only "
            "statement of the cluster level");
  std::int64_t blocks = 1;
  for (const Value& c : counts_of(*next->count, "a parallel count")) {
    if (!c.constant)
      fail_at(program_, next->count->location, "the number of blocks in a cluster must be known at compile time, but `" +
                                                  source_text(*next->count) + "` depends on a dynamic dim",
              "size the `: cluster` level with the dynamic dim instead");
    if (*c.constant <= 0)
      fail_at(program_, next->count->location, "a parallel count must be positive, got " + std::to_string(*c.constant));
    support::CheckedInt product = support::checked_mul(blocks, *c.constant);
    if (!product.ok() || product.value > 8)
      fail_at(program_, next->count->location, "a cluster holds at most 8 blocks, got " +
                                                  (product.ok() ? std::to_string(product.value) : source_text(*next->count)),
              "8 is the portable cluster size");
    blocks = product.value;
  }
  return blocks;
}

void Codegen::parallel(const Stmt& s, const Parallel& p, std::size_t level_index) {
  if (level_index == p.levels.size()) {
    block(*p.body);
    return;
  }
  const ParallelLevel& lv = p.levels[level_index];
  // The counts: `by 8`, `by [8, 16]`, or a shape expression; a count
  // computed from a dynamic dim is a runtime value (count 0 below).
  std::vector<Value> count_values = counts_of(*lv.count, "a parallel count");
  std::vector<std::int64_t> counts;
  std::vector<std::string> count_texts;
  if (!lv.indices.empty() && lv.indices.size() != count_values.size())
    fail_at(program_, lv.location, std::to_string(lv.indices.size()) + " indices but " +
                                       std::to_string(count_values.size()) + " counts after `by`");
  std::int64_t total = 1;
  std::string total_text;  // the runtime part of the total, as CUDA text
  RuntimeGrid runtime;
  for (const Value& c : count_values) {
    counts.push_back(c.constant ? *c.constant : 0);
    count_texts.push_back(c.text);
    if (!c.constant) {
      const std::vector<DimSource>& where = dynamic_.at(c.dynamic->dim);
      runtime.terms.push_back({where.front(), c.dynamic->divisor, c.dynamic->ceil});
      total_text += (total_text.empty() ? "" : " * ") + c.text;
      continue;
    }
    if (*c.constant <= 0)
      fail_at(program_, lv.count->location, "a parallel count must be positive, got " + std::to_string(*c.constant));
    support::CheckedInt product = support::checked_mul(total, *c.constant);
    if (!product.ok())
      fail_arithmetic(*lv.count, product.fault, "the level's total count, " + std::to_string(total) + " * " +
                                                    std::to_string(*c.constant));
    total = product.value;
  }
  if (!total_text.empty()) total_text = "(" + (total == 1 ? total_text : total_text + " * " + std::to_string(total)) + ")";
  // Where this level runs.
  SpaceSpecifier space = lv.space;
  bool nested_below = level_index + 1 < p.levels.size() || contains_parallel(*p.body);
  enum class Mapping { cluster, grid, threads, flat } mapping;
  if (space == SpaceSpecifier::block) mapping = Mapping::grid;
  else if (space == SpaceSpecifier::thread || space == SpaceSpecifier::group || space == SpaceSpecifier::group4)
    mapping = Mapping::threads;
  else if (space == SpaceSpecifier::cluster)
    mapping = Mapping::cluster;
  else if (scope_ == Scope::kernel)
    mapping = (nested_below || uses_shared(*p.body)) ? Mapping::grid : Mapping::flat;
  else
    mapping = Mapping::threads;

  if (mapping == Mapping::cluster && (scope_ != Scope::kernel || cluster_open_))
    fail_at(program_, lv.location, "a `: cluster` level must be the outermost parallel level");
  if (mapping == Mapping::grid && scope_ != Scope::kernel)
    fail_at(program_, lv.location, "a `: block` level must be the outermost parallel level");
  if (mapping == Mapping::threads && scope_ == Scope::thread && space != SpaceSpecifier::thread)
    fail_at(program_, lv.location, "parallel levels inside a thread level are not supported");
  if (mapping != Mapping::threads && grid_set_)
    fail_at(program_, lv.location, "only one block-level parallel statement per kernel is supported yet");
  if (mapping == Mapping::threads && !total_text.empty())
    fail_at(program_, lv.count->location, "the thread count of a block must be known at compile time, but `" +
                                              source_text(*lv.count) + "` depends on a dynamic dim",
            "size the grid (the outermost level) with the dynamic dim instead");

  std::string linear = fresh("lin");
  Scope saved_scope = scope_;
  const bool saved_in_warpgroup = in_warpgroup_;
  std::string saved_tid = thread_id_;
  out_.line("{");
  out_.indent();
  line_directive(lv.location);
  bool guarded = false;           // an `if` or `for` to close after the body
  bool barrier_at_close = false;  // a block-index loop: fence shared memory before the next index
  bool pushed_group = false;
  if (mapping == Mapping::cluster) {
    // Clusters are contiguous runs of cluster_blocks_ blocks along x: the
    // cluster index is blockIdx.x / size, the block's rank in it the rest.
    cluster_blocks_ = cluster_size(p, level_index);
    clusters_ = total;
    cluster_runtime_ = runtime;
    cluster_open_ = true;
    if (!result_.needs_sm90)
      result_.needs_sm90 = Diagnostic{Severity::error, "`: cluster` needs sm_90 (Hopper)", lv.location.line,
                                      lv.location.column, std::max(1, lv.location.length), ""};
    out_.line("const int " + linear + " = blockIdx.x / " + std::to_string(cluster_blocks_) + ";");
  } else if (mapping == Mapping::grid && cluster_open_) {
    // The blocks of one cluster: the grid is clusters x blocks per cluster.
    cluster_open_ = false;
    support::CheckedInt blocks = support::checked_mul(clusters_, total);
    if (!blocks.ok() || blocks.value > kMaxGridBlocks)
      fail_at(program_, lv.location, "this launch needs " + std::to_string(clusters_) + " clusters of " + std::to_string(total) +
                                         " blocks, more than a grid holds (2^31 - 1 blocks)",
              "give each block more work");
    grid_ = blocks.value;
    grid_set_ = true;
    runtime = cluster_runtime_;
    runtime.factor = grid_;
    if (runtime.dynamic()) result_.runtime_grid = runtime;
    out_.line("const int " + linear + " = blockIdx.x % " + std::to_string(total) + ";");
    if (hopper_) out_.line("@@HOPPER_PROLOGUE@@");  // mbarrier initialization, filled in at the end
    scope_ = Scope::block;
  } else if (mapping == Mapping::grid) {
    grid_ = total;
    grid_set_ = true;
    runtime.factor = total;
    if (runtime.dynamic()) result_.runtime_grid = runtime;
    // A grid holds 2^31 - 1 blocks: more (or a runtime count) loop over
    // block indices, except in Hopper kernels, whose barriers are set up
    // once per block.
    if (hopper_ && total > kMaxGridBlocks)
      fail_at(program_, lv.location, "this level needs " + std::to_string(total) + " blocks, more than a grid holds (2^31 - 1); "
                                         "kernels with events, TMA or mma cannot loop over block indices",
              "give each block more work");
    if (!hopper_ && (total > kMaxGridBlocks || runtime.dynamic())) {
      fit_index(INT64_MAX);
      grid_ = std::min(total, kMaxGridBlocks);
      result_.runtime_grid.grid_stride = true;
      grid_stride_ = true;
      const std::string end = total_text.empty() ? std::to_string(total) : total_text;
      out_.line("for (long long " + linear + " = blockIdx.x; " + linear + " < " + end + "; " + linear + " += gridDim.x) {");
      out_.indent();
      guarded = true;
      barrier_at_close = true;  // the next block index reuses shared memory
    } else {
      fit_index(total);
      out_.line(std::string("const ") + index_type() + " " + linear + " = blockIdx.x;");
    }
    if (hopper_) out_.line("@@HOPPER_PROLOGUE@@");  // mbarrier initialization, filled in at the end
    scope_ = Scope::block;
  } else if (mapping == Mapping::flat) {
    const std::int64_t threads = total_text.empty() ? std::min<std::int64_t>(total, 256) : 256;
    const std::int64_t blocks = support::checked_cdiv(total, threads).value;  // both positive: no fault
    grid_ = blocks;
    grid_set_ = true;
    block_threads_ = std::max(block_threads_, threads);
    runtime.factor = total;
    runtime.per_block = threads;
    if (runtime.dynamic()) result_.runtime_grid = runtime;
    const std::string end = total_text.empty() ? std::to_string(total) : total_text;
    const std::string first = "(long long)blockIdx.x * " + std::to_string(threads) + " + threadIdx.x";
    if (!total_text.empty() || blocks > kMaxGridBlocks) {
      // Instances past what one pass of the grid covers loop.
      fit_index(INT64_MAX);
      grid_ = std::min(blocks, kMaxGridBlocks);
      result_.runtime_grid.grid_stride = true;
      grid_stride_ = true;
      out_.line("for (long long " + linear + " = " + first + "; " + linear + " < " + end + "; " + linear +
                " += (long long)gridDim.x * " + std::to_string(threads) + ") {");
      out_.indent();
      guarded = true;
    } else {
      fit_index(blocks * threads);  // the last block's threads count past `total`
      if (wide_) out_.line("const long long " + linear + " = " + first + ";");
      else out_.line("const int " + linear + " = blockIdx.x * " + std::to_string(threads) + " + threadIdx.x;");
      if (grid_ * threads != total) {
        out_.line("if (" + linear + " < " + end + ") {");
        out_.indent();
        guarded = true;
      }
    }
    scope_ = Scope::thread;
  } else {
    std::int64_t unit = space == SpaceSpecifier::group ? 32 : space == SpaceSpecifier::group4 ? 128 : 1;
    support::CheckedInt needed_threads = support::checked_mul(total, unit);
    if (!needed_threads.ok() || needed_threads.value > 1024)
      fail_at(program_, lv.location, "this parallel level needs " +
                                         (needed_threads.ok() ? std::to_string(needed_threads.value)
                                                              : std::to_string(total) + " x " + std::to_string(unit)) +
                                         " threads in a block; a block has at most 1024");
    const std::int64_t needed = needed_threads.value;
    if (thread_id_ == "threadIdx.x") block_threads_ = std::max(block_threads_, needed);
    out_.line("const int " + linear + " = " + (unit == 1 ? thread_id_ : "(" + thread_id_ + ") / " + std::to_string(unit)) + ";");
    out_.line("if (" + linear + " < " + std::to_string(total) + ") {");
    out_.indent();
    guarded = true;
    if (unit > 1 && counts.size() == 1 && lv.indices.size() == 1 && thread_id_ == "threadIdx.x") {
      group_levels_.push_back({lv.indices[0].name, total, unit});
      pushed_group = true;
    }
    in_warpgroup_ = unit == 128 && thread_id_ == "threadIdx.x";
    if (unit > 1) thread_id_ = "(" + thread_id_ + ") % " + std::to_string(unit);
    scope_ = unit == 1 ? Scope::thread : scope_;
  }
  push();
  // Row-major decomposition, last index fastest.
  std::int64_t inner_const = 1;
  std::string inner_dynamic;  // runtime factors of the inner counts
  for (int d = static_cast<int>(counts.size()) - 1; d >= 0; --d) {
    if (!lv.indices.empty()) {
      std::string name = fresh(lv.indices[d].name);
      std::string inner = std::to_string(inner_const);
      if (!inner_dynamic.empty()) inner = inner_const == 1 ? inner_dynamic : "(" + inner_dynamic + " * " + inner + ")";
      std::string text = inner == "1" ? linear : "(" + linear + " / " + inner + ")";
      if (d > 0) text = "(" + text + " % " + count_texts[d] + ")";
      // Thread indices are below 1024; block and flat ones take the index type.
      out_.line(std::string("const ") + (mapping == Mapping::threads ? "int" : index_type()) + " " + name + " = " + text + ";");
      Value v;
      v.kind = Value::Kind::index;
      v.text = name;
      v.count = counts[d];  // 0: a runtime count
      define(lv.indices[d].name, v);
    }
    if (counts[d] > 0) inner_const *= counts[d];
    else inner_dynamic += (inner_dynamic.empty() ? "" : " * ") + count_texts[d];
  }
  parallel(s, p, level_index + 1);
  pop();
  if (pushed_group) group_levels_.pop_back();
  if (guarded) {
    if (barrier_at_close) out_.barrier();
    out_.dedent();
    out_.line("}");
  }
  out_.dedent();
  out_.line("}");
  scope_ = saved_scope;
  in_warpgroup_ = saved_in_warpgroup;
  thread_id_ = saved_tid;
}

void Codegen::loop(const Stmt& s, const Loop& l) {
  if (l.kind != LoopKind::foreach_)
    fail_at(program_, s.location, "`with` and `apply` loops are not supported yet by libcroqjit codegen");
  if (!l.bound) fail_at(program_, s.location, "`foreach` without `in` bounds is not supported yet");
  std::vector<Value> bounds = counts_of(*l.bound, "a loop bound");
  if (l.indices.size() != bounds.size())
    fail_at(program_, l.bound->location, std::to_string(l.indices.size()) + " loop indices but the bound has " +
                                             std::to_string(bounds.size()) + " dimensions");
  push();
  line_directive(s.location);
  const std::string loop_id = hopper_ ? fresh("loop") : "";
  if (hopper_) out_.line("@@PRE_" + loop_id + "@@");
  int opened = 0;
  for (std::size_t d = 0; d < bounds.size(); ++d) {
    if (l.indices[d].range) fail_at(program_, l.indices[d].name.location, "range loops are not supported yet");
    std::string name = fresh(l.indices[d].name.name);
    if (bounds[d].constant) fit_index(*bounds[d].constant);
    out_.line(std::string("for (") + index_type() + " " + name + " = 0; " + name + " < " + bounds[d].text + "; ++" + name + ") {");
    out_.indent();
    ++opened;
    Value v;
    v.kind = Value::Kind::index;
    v.text = name;
    v.count = bounds[d].constant ? *bounds[d].constant : 0;  // 0: a runtime bound
    define(l.indices[d].name.name, v);
  }
  if (hopper_) {
    const auto* body = std::get_if<Block>(&l.body->node);
    loops_.push_back({body ? &body->statements : nullptr, loop_id, "", "", false});
  }
  block(*l.body);
  for (int i = 0; i < opened; ++i) {
    out_.dedent();
    out_.line("}");
  }
  if (hopper_) {
    LoopContext done = loops_.back();
    loops_.pop_back();
    out_.line("@@POST_" + loop_id + "@@");
    loop_texts_.push_back({"@@PRE_" + loop_id + "@@", done.pre});
    loop_texts_.push_back({"@@POST_" + loop_id + "@@", done.post});
    if (done.deferred) pending_mma_ = false;  // the text after the loop waits for every group
  }
  pop();
}

// The widest vector (in elements) that moves whole rows of the copy with
// naturally aligned accesses on both sides, or 1 for the scalar path. A row
// starts at a multiple of the vector when the innermost origin and every
// outer stride (multiples of the innermost buffer extent) are multiples of
// it and both base pointers are aligned to its size. Guarded windows,
// zero-filled or permuted copies and local arrays take the scalar path.
std::int64_t Codegen::vector_width(const View& src, const View& dst, const std::vector<std::int64_t>& perm) const {
  for (std::size_t d = 0; d < perm.size(); ++d)
    if (perm[d] != static_cast<std::int64_t>(d)) return 1;
  if (!src.exact || !dst.exact || src.extent != dst.extent || dst.extent.empty()) return 1;
  if (src.buffer->space == Buffer::Space::local || dst.buffer->space == Buffer::Space::local) return 1;
  const std::size_t last = dst.extent.size() - 1;
  const std::int64_t elem = static_cast<std::int64_t>(dtype_size(dst.buffer->dtype));
  const std::int64_t row = dst.extent[last];
  std::int64_t with_tail = 1;
  for (std::int64_t bytes : {16, 8, 4}) {
    std::int64_t v = bytes / elem;
    if (v < 2 || row < v) continue;
    bool aligned = true;
    for (const View* side : {&src, &dst}) {
      if (side->buffer->align_bytes < bytes || origin_multiple(*side, last) % v != 0 ||
          (last > 0 && side->buffer->dims[last] % v != 0))
        aligned = false;
    }
    if (!aligned) continue;
    if (row % v == 0) return v;
    if (with_tail == 1) with_tail = v;  // whole vectors, then a scalar tail per row
  }
  return with_tail;
}

void Codegen::emit_copy(const View& src, const View& dst, bool zfill, const std::vector<std::int64_t>& perm) {
  std::int64_t vec = vector_width(src, dst, perm);
  if (vec == 1) {
    emit_copy_loop(src, dst, zfill, perm, 1, 0, dst.extent.empty() ? 1 : dst.extent.back());
    return;
  }
  std::int64_t row = dst.extent.back(), body = row / vec * vec;
  std::int64_t bytes = vec * static_cast<std::int64_t>(dtype_size(dst.buffer->dtype));
  out_.line("// " + std::to_string(bytes) + "-byte vectors of " + std::to_string(vec) + " elements" +
            (body < row ? ", then the last " + std::to_string(row - body) + " of each row one by one" : ""));
  emit_copy_loop(src, dst, zfill, perm, vec, 0, body);
  if (body < row) emit_copy_loop(src, dst, zfill, perm, 1, body, row - body);
}

// The condition for window element `idx` to lie inside its buffer; empty
// when the window never reaches past it.
std::string in_buffer(const View& v, const std::vector<std::string>& idx) {
  std::string ok;
  if (v.exact) return ok;
  for (std::size_t d = 0; d < v.extent.size(); ++d)
    ok += (ok.empty() ? "" : " && ") + add_text(v.origin[d], idx[d]) + " < " + dim_text(*v.buffer, d);
  return ok;
}

// Opens a loop over the row-major index `space` of a copy into `dst` and
// declares one coordinate per dimension (the innermost one scaled by `vec`
// and offset by `inner_begin`); the caller closes it. Into shared or global
// memory at block scope the loop is strided over the block's threads.
std::vector<std::string> Codegen::open_element_loop(const View& dst, const std::vector<std::int64_t>& space,
                                                    std::int64_t vec, std::int64_t inner_begin) {
  const std::int64_t n = *support::checked_product(space);  // at most the copy's elements, checked in copy()
  const std::string type = element_index_type(space, dst.extent);
  bool cooperative = scope_ == Scope::block && dst.buffer->space != Buffer::Space::local;
  std::string e = fresh("e");
  if (cooperative) out_.line("for (" + type + " " + e + " = " + set_.tid + "; " + e + " < " + std::to_string(n) + "; " + e + " += " + set_.count + ") {");
  else out_.line("for (" + type + " " + e + " = 0; " + e + " < " + std::to_string(n) + "; ++" + e + ") {");
  out_.indent();
  std::vector<std::string> idx(space.size());
  std::int64_t inner = 1;
  for (int d = static_cast<int>(space.size()) - 1; d >= 0; --d) {
    idx[d] = fresh("i");
    std::string t = inner == 1 ? e : "(" + e + " / " + std::to_string(inner) + ")";
    if (d > 0) t = "(" + t + " % " + std::to_string(space[d]) + ")";
    if (d == static_cast<int>(space.size()) - 1) t = add_text(std::to_string(inner_begin), mul_text(t, vec));
    out_.line("const " + type + " " + idx[d] + " = " + t + ";");
    inner *= space[d];
  }
  return idx;
}

// One copy loop over the destination with its innermost dimension limited
// to [inner_begin, inner_begin + inner_count), `vec` elements per access.
// Cooperative copies give consecutive threads consecutive accesses, so a
// warp reads and writes contiguous runs (coalesced).
void Codegen::emit_copy_loop(const View& src, const View& dst, bool zfill, const std::vector<std::int64_t>& perm,
                             std::int64_t vec, std::int64_t inner_begin, std::int64_t inner_count) {
  std::vector<std::int64_t> space = dst.extent;
  if (!space.empty()) space.back() = inner_count / vec;
  std::vector<std::string> dst_idx = open_element_loop(dst, space, vec, inner_begin);
  std::vector<std::string> src_idx(src.extent.size());
  for (std::size_t d = 0; d < src.extent.size(); ++d) src_idx[d] = dst_idx[perm.empty() ? d : perm[d]];
  if (vec > 1) {  // exact windows only: no guards
    const char* type = vec * dtype_size(dst.buffer->dtype) == 16 ? "int4" : vec * dtype_size(dst.buffer->dtype) == 8 ? "int2" : "int";
    out_.line(std::string("*reinterpret_cast<") + type + "*>(&" + address(dst, dst_idx) + ") = *reinterpret_cast<const " +
              type + "*>(&" + address(src, src_idx) + ");");
    out_.dedent();
    out_.line("}");
    return;
  }
  // Guards: the source window may reach past its buffer (tails) or be
  // smaller than the destination (zfill); the destination may reach past
  // its buffer (tail stores).
  std::string src_ok = in_buffer(src, src_idx), dst_ok = in_buffer(dst, dst_idx);
  for (std::size_t d = 0; d < src.extent.size(); ++d)
    if (src.extent[d] < dst.extent[perm.empty() ? d : perm[d]])
      src_ok += (src_ok.empty() ? "" : " && ") + src_idx[d] + " < " + std::to_string(src.extent[d]);
  std::string load = address(src, src_idx), store = address(dst, dst_idx);
  std::string value = src_ok.empty() ? load : "(" + src_ok + ") ? " + load + " : " + typed(dst.buffer->dtype, "0");
  std::string statement = store + " = " + value + ";";
  // Nothing valid to write: leave the destination alone unless asked to
  // zero it (fresh shared/local tiles of the source's shape are zero-filled).
  bool smaller_source = false;
  for (std::size_t d = 0; d < src.extent.size(); ++d)
    smaller_source = smaller_source || src.extent[d] < dst.extent[perm.empty() ? d : perm[d]];
  if (!src_ok.empty() && !zfill && (dst.buffer->space == Buffer::Space::global || smaller_source))
    dst_ok += (dst_ok.empty() ? "" : " && ") + src_ok;
  out_.line(dst_ok.empty() ? statement : "if (" + dst_ok + ") " + statement);
  out_.dedent();
  out_.line("}");
}

// dma.pad<low, high, mid, value>: per dimension, `low` elements before the
// source, `high` after it and `mid` between neighbouring source elements,
// all holding `value`; the padded extent is low + high + n + (n - 1) * mid.
Padding Codegen::padding(const Copy& c, const std::vector<std::int64_t>& extent) {
  const std::size_t rank = extent.size();
  if (c.op_args.size() != 4)
    fail_at(program_, c.op_location, "dma.pad takes <low, high, mid, value>, got " + std::to_string(c.op_args.size()) +
                                         " template argument" + (c.op_args.size() == 1 ? "" : "s"));
  static const char* const names[] = {"low", "high", "mid"};
  Padding p;
  std::vector<std::int64_t>* parts[] = {&p.low, &p.high, &p.mid};
  for (int k = 0; k < 3; ++k) {
    const Expr& arg = *c.op_args[k];
    std::vector<const Expr*> elements;
    if (const auto* t = std::get_if<ITuple>(&arg.node)) {
      for (const auto& el : t->elements) elements.push_back(el.get());
    } else {
      elements.push_back(&arg);
    }
    if (elements.size() != rank)
      fail_at(program_, arg.location, std::string("dma.pad on a rank-") + std::to_string(rank) + " tile takes " +
                                          std::to_string(rank) + " `" + names[k] + "` padding" + (rank == 1 ? "" : "s") +
                                          ", got " + std::to_string(elements.size()));
    for (const Expr* el : elements) {
      std::int64_t v = const_int(*el, "a padding");
      if (v < 0) fail_at(program_, el->location, std::string("`") + names[k] + "` padding must not be negative, got " + std::to_string(v));
      if (v > kInt32Max)
        fail_at(program_, el->location, std::string("`") + names[k] + "` padding must be below 2^31, got " + std::to_string(v));
      parts[k]->push_back(v);
    }
  }
  Value value = expr(*c.op_args[3]);
  if (value.kind != Value::Kind::scalar || !value.guard.empty() || (!value.constant && !value.is_float))
    fail_at(program_, c.op_args[3]->location, "the padding value must be a number, got `" +
                                                  source_text(*c.op_args[3]) + "`");
  p.value = value.text;
  return p;
}

void Codegen::emit_pad(const View& src, const View& dst, const Padding& pad) {
  std::vector<std::string> dst_idx = open_element_loop(dst, dst.extent, 1, 0), src_idx(dst.extent.size());
  // Source coordinate of each destination coordinate, and whether it is one.
  std::string inside;
  auto also = [&](const std::string& c) { inside += (inside.empty() ? "" : " && ") + c; };
  for (std::size_t d = 0; d < dst.extent.size(); ++d) {
    std::string shifted = pad.low[d] ? "(" + dst_idx[d] + " - " + std::to_string(pad.low[d]) + ")" : dst_idx[d];
    src_idx[d] = fresh("s");
    std::int64_t pitch = pad.mid[d] + 1;
    out_.line(std::string("const ") + element_index_type(dst.extent, dst.extent) + " " + src_idx[d] + " = " + (pitch == 1 ? shifted : shifted + " / " + std::to_string(pitch)) + ";");
    if (pad.low[d]) also((pitch == 1 ? src_idx[d] : shifted) + " >= 0");
    if (pitch > 1) also(shifted + " % " + std::to_string(pitch) + " == 0");
    if (pad.high[d] || pitch > 1) also(src_idx[d] + " < " + std::to_string(src.extent[d]));
  }
  // Source elements past the end of their tensor (tails) read as zero, as in dma.copy.
  std::string load = address(src, src_idx), src_ok = in_buffer(src, src_idx);
  if (!src_ok.empty()) load = "((" + src_ok + ") ? " + load + " : " + typed(dst.buffer->dtype, "0") + ")";
  std::string fill = typed(dst.buffer->dtype, pad.value);
  std::string value = inside.empty() ? load : "(" + inside + ") ? " + load + " : " + fill;
  std::string dst_ok = in_buffer(dst, dst_idx);
  std::string statement = address(dst, dst_idx) + " = " + value + ";";
  out_.line(dst_ok.empty() ? statement : "if (" + dst_ok + ") " + statement);
  out_.dedent();
  out_.line("}");
}

constexpr const char* redundant_zfill = "`.zfill` is redundant: the source tile always covers the destination";

void Codegen::warn(const Stmt& s, const std::string& message, const std::string& hint) {
  result_.warnings.push_back(Diagnostic{Severity::warning, message, s.location.line, s.location.column,
                                        std::max(1, s.location.length), hint});
}

void Codegen::copy(const Stmt& s, const Copy& c) {
  if (c.engine == Engine::tma) {
    tma_copy(s, c);
    return;
  }
  if (c.op != CopyOp::copy && c.op != CopyOp::transp && c.op != CopyOp::pad)
    fail_at(program_, c.op_location, "dma." + std::string(copy_op_name(c.op)) + " is not supported yet by libcroqjit codegen");
  bool zfill = false, async = false;
  const Modifier* swiz = nullptr;
  for (const Modifier& m : c.modifiers) {
    if (m.name == "zfill") zfill = true;
    else if (m.name == "async") async = true;
    else if (m.name == "swiz") swiz = &m;
    else fail_at(program_, m.location, "`." + m.name + "` on dma.copy is not supported yet by libcroqjit codegen");
  }
  if (!c.after.empty()) fail_at(program_, s.location, "`after` is not supported yet by libcroqjit codegen");
  Value src = expr(*c.source);
  zfill = zfill || src.zfill;
  if (src.kind == Value::Kind::future) src.kind = Value::Kind::view;
  if (src.kind != Value::Kind::view || src.view.pending != View::Pending::none)
    fail_at(program_, c.source->location, "the source of a copy must be a tensor or a placed tile, got `" +
                                              source_text(*c.source) + "`");
  auto require_static = [&](const View& v, const Expr& where) {
    for (std::size_t d = 0; d < v.extent.size(); ++d)
      if (v.extent[d] < 0)
        fail_at(program_, where.location, "the copied tile's extent in dimension " + std::to_string(d) +
                                              " is the dynamic dim `" + v.buffer->dim_names[d] +
                                              "`; a copy's shape must be known at compile time",
                "copy tiles of a constant size, e.g. `subspan(64, ...).at(...)`");
  };
  require_static(src.view, *c.source);
  std::vector<std::int64_t> perm;
  std::vector<std::int64_t> dst_extent = src.view.extent;
  if (c.op == CopyOp::transp) {
    for (const auto& a : c.op_args) perm.push_back(const_int(*a, "a transp<> dimension"));
    std::vector<bool> seen(perm.size());
    if (perm.size() != dst_extent.size())
      fail_at(program_, c.op_location, "dma.transp on a rank-" + std::to_string(dst_extent.size()) + " tile takes " +
                                           std::to_string(dst_extent.size()) + " dimensions, got " + std::to_string(perm.size()));
    for (auto p : perm) {
      if (p < 0 || p >= static_cast<std::int64_t>(perm.size()) || seen[p])
        fail_at(program_, c.op_location, "dma.transp<...> must be a permutation of 0.." + std::to_string(perm.size() - 1));
      seen[p] = true;
    }
    // dst dim d takes src dim perm[d]; src dim perm[d] reads dst index d.
    std::vector<std::int64_t> inverse(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d) {
      dst_extent[d] = src.view.extent[perm[d]];
      inverse[perm[d]] = static_cast<std::int64_t>(d);
    }
    perm = inverse;
  }
  std::optional<Padding> pad;
  if (c.op == CopyOp::pad) {
    pad = padding(c, src.view.extent);
    for (std::size_t d = 0; d < dst_extent.size(); ++d) {
      const std::int64_t n = src.view.extent[d];
      std::optional<std::int64_t> padded = checked_sum({pad->low[d], pad->high[d], n, tile_end(std::max<std::int64_t>(n - 1, 0), pad->mid[d], 0)});
      if (!padded)
        fail_at(program_, c.op_location, "the padded extent of dimension " + std::to_string(d) + " overflows a 64-bit signed integer");
      dst_extent[d] = *padded;
    }
  }
  View dst;
  if (c.destination_storage == Storage::shared || c.destination_storage == Storage::local) {
    if (scope_ == Scope::kernel) fail_at(program_, s.location, "a copy into shared or local memory must be inside a parallel level");
    if (c.destination_storage == Storage::shared && scope_ == Scope::block) emit_barrier();
    auto buf = allocate(c.future ? "future" : "tile", src.view.buffer->dtype, dst_extent,
                        c.destination_storage == Storage::shared ? Buffer::Space::shared : Buffer::Space::local, s.location);
    dst.buffer = buf;
    dst.extent = dst_extent;
    dst.origin.assign(dst_extent.size(), "0");
    if (zfill && src.view.exact) warn(s, redundant_zfill);
    if (!src.view.exact && !zfill)
      warn(s, "the source tile can reach past its tensor; elements past the end are filled with zero",
           "add `.zfill` to say so");
  } else if (c.destination) {
    Value d = expr(*c.destination);
    if (d.kind != Value::Kind::view || d.view.pending != View::Pending::none)
      fail_at(program_, c.destination->location, "the destination of a copy must be a tensor or a placed tile");
    dst = d.view;
    require_static(dst, *c.destination);
    // A destination larger than the source tile (never smaller) takes the
    // tile in its leading corner; `.zfill` zeroes the rest.
    bool larger = false, fits = dst.extent.size() == dst_extent.size();
    for (std::size_t i = 0; fits && i < dst_extent.size(); ++i) {
      fits = dst.extent[i] >= dst_extent[i];
      larger = larger || dst.extent[i] > dst_extent[i];
    }
    if (!fits || (larger && pad))
      fail_at(program_, c.destination->location, "copy destination has shape " + shape_text(dst.buffer->dtype, dst.extent) +
                                                     " but the source tile has " + shape_text(src.view.buffer->dtype, dst_extent));
    if (larger && !zfill)
      warn(s, "the destination " + shape_text(dst.buffer->dtype, dst.extent) + " is larger than the source tile " +
                  shape_text(src.view.buffer->dtype, dst_extent) + "; without `.zfill` the elements it does not cover keep undefined values",
           "add `.zfill` to fill them with zero");
    if (zfill && !larger && src.view.exact) warn(s, redundant_zfill);
    if (dst.buffer->dtype != src.view.buffer->dtype)
      fail_at(program_, c.destination->location, "copy between different element types (" +
                                                     std::string(dtype_name(src.view.buffer->dtype)) + " to " +
                                                     std::string(dtype_name(dst.buffer->dtype)) + ")");
    mark_written(*dst.buffer);
    if (scope_ == Scope::block) emit_barrier();
  } else {
    fail_at(program_, s.location, "a copy needs a destination after `=>`");
  }
  if (swiz) {  // the TMA layout, written by threads
    int span = swizzle_span(program_, *swiz);
    if (dst.buffer->space != Buffer::Space::shared)
      fail_at(program_, swiz->location, "`.swiz<N>` lays out a tile in shared memory; the destination is not shared");
    const std::int64_t row_bytes = dst.buffer->dims.back() * static_cast<std::int64_t>(dtype_size(dst.buffer->dtype));
    if (span > 0 && row_bytes != span)
      fail_at(program_, swiz->location, "dma.copy.swiz<" + std::to_string(span) + "> needs tile rows of exactly " +
                                            std::to_string(span) + " bytes, got " + std::to_string(row_bytes),
              "match the innermost tile extent to the swizzle span");
    if (dst.buffer->swizzle >= 0 && dst.buffer->swizzle != span)
      fail_at(program_, swiz->location, "this copy writes the tile with swizzle " + std::to_string(span) +
                                            " but it was written with swizzle " + std::to_string(dst.buffer->swizzle) + " before");
    dst.buffer->swizzle = span;
    if (!hopper_) fail_at(program_, swiz->location, "internal: swizzled copy outside a Hopper kernel");
  }
  if (!support::checked_product(dst.extent))
    fail_at(program_, s.location, "this copy's destination tile " + shape_list(dst.extent) + " has more elements than fit in 64 bits");
  line_directive(s.location);
  if (pad) emit_pad(src.view, dst, *pad);
  else emit_copy(src.view, dst, zfill, perm);
  if (scope_ == Scope::block && dst.buffer->space == Buffer::Space::shared) emit_barrier();
  if (c.future) {
    const auto* name = std::get_if<Name>(&c.future->node);
    if (!name) fail_at(program_, c.future->location, "a copy's future must be a plain name");
    Value f;
    f.kind = Value::Kind::future;
    f.view = dst;
    f.is_async = async;
    define(name->name, f);
  }
}

// Each expression is capped (kMaxExpressionText), but many statements of
// large ones could still add up to a kernel no compiler gets through.
constexpr std::size_t kMaxKernelText = std::size_t{4} << 20;

void Codegen::stmt(const Stmt& s) {
  if (out_.text().size() > kMaxKernelText)
    fail_at(program_, s.location, "the kernel's CUDA passes " + std::to_string(kMaxKernelText >> 20) +
                                      " MiB before this statement", "split the function, or simplify its expressions");
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block>) {
      out_.line("{");
      out_.indent();
      block(s);
      out_.dedent();
      out_.line("}");
    } else if constexpr (std::is_same_v<T, Declaration>) {
      line_directive(s.location);
      declaration(s, n);
    } else if constexpr (std::is_same_v<T, Assignment>) {
      assignment(s, n);
    } else if constexpr (std::is_same_v<T, ExprStatement>) {
      Value v = expr(*n.expr);
      line_directive(s.location);
      out_.line(v.text + ";");
    } else if constexpr (std::is_same_v<T, Parallel>) {
      parallel(s, n, 0);
    } else if constexpr (std::is_same_v<T, Loop>) {
      loop(s, n);
    } else if constexpr (std::is_same_v<T, While>) {
      Value c = expr(*n.condition);
      line_directive(s.location);
      out_.line("while (" + c.text + ") {");
      out_.indent();
      block(*n.body);
      out_.dedent();
      out_.line("}");
    } else if constexpr (std::is_same_v<T, If>) {
      Value c = expr(*n.condition);
      line_directive(s.location);
      out_.line("if (" + c.text + ") {");
      out_.indent();
      block(*n.then_branch);
      out_.dedent();
      if (n.else_branch) {
        out_.line("} else {");
        out_.indent();
        block(*n.else_branch);
        out_.dedent();
      }
      out_.line("}");
    } else if constexpr (std::is_same_v<T, InThreads>) {
      if (n.is_async) {
        inthreads_async(s, n);
        return;
      }
      Value c = expr(*n.condition);
      out_.line("if (" + c.text + ") {");
      out_.indent();
      block(*n.body);
      out_.dedent();
      out_.line("}");
    } else if constexpr (std::is_same_v<T, Copy>) {
      copy(s, n);
    } else if constexpr (std::is_same_v<T, Wait>) {
      wait_statement(s, n);
    } else if constexpr (std::is_same_v<T, Trigger>) {
      trigger_statement(s, n);
    } else if constexpr (std::is_same_v<T, Mma>) {
      mma_statement(s, n);
    } else if constexpr (std::is_same_v<T, Sync>) {
      if (n.scope != "shared") fail_at(program_, s.location, "sync." + n.scope + " is not supported yet by libcroqjit codegen");
      emit_barrier();
    } else if constexpr (std::is_same_v<T, Return>) {
      if (!n.value) return;
      const auto* name = std::get_if<Name>(&n.value->node);
      if (!name || name->name != output_name_)
        fail_at(program_, n.value->location, "only a tensor declared in the function can be returned");
    } else if constexpr (std::is_same_v<T, Assert>) {
      Value c = expr(*n.condition);
      if (c.constant) {
        if (!*c.constant) fail_at(program_, s.location, "assertion is false for this specialization");
      } else {
        out_.line("if (!(" + c.text + ")) __trap();");
      }
    } else {
      fail_at(program_, s.location, "this statement is not supported yet by libcroqjit codegen");
    }
  }, s.node);
}

// ---- the kernel ----------------------------------------------------------------

std::string returned_name(const Stmt& body) {
  std::string found;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (const auto* r = std::get_if<Return>(&st.node)) {
      if (r->value)
        if (const auto* n = std::get_if<Name>(&r->value->node)) found = n->name;
    } else if (const auto* b = std::get_if<Block>(&st.node)) {
      for (const auto& c : b->statements) walk(*c);
    }
  };
  walk(body);
  return found;
}

// The __global__ function's name: croq_<function>, unless that is a name the
// Hopper prelude defines at namespace scope.
std::string entry_name(const std::string& function) {
  const std::string entry = "croq_" + function;
  return entry == "croq_dev" || entry == "croq_tensor_map" ? entry + "_kernel" : entry;
}

GeneratedKernel Codegen::run() {
  // Names from the source become CUDA names (croq_F, arg_P, dim_D, N_k): the
  // parser only makes identifiers, but an AST from elsewhere must not smuggle
  // other text into the kernel.
  auto require_identifier = [&](const std::string& name, const SourceLocation& where) {
    if (!is_cuda_identifier(name)) fail_at(program_, where, "`" + name + "` is not a valid name");
  };
  require_identifier(fn_.name, fn_.location);
  for (const Parameter& p : fn_.params) require_identifier(p.name, p.location);
  for (const auto& [name, where] : dynamic_) require_identifier(name, fn_.location);
  result_.argument_written.assign(args_.size(), false);
  result_.entry = entry_name(fn_.name);
  push();
  std::vector<std::string> signature;
  for (std::size_t i = 0; i < fn_.params.size(); ++i) {
    const Parameter& p = fn_.params[i];
    const ArgSignature& a = args_[i];
    KernelParam kp;
    kp.argument = static_cast<int>(i);
    kp.name = p.name;
    Value v;
    if (a.is_tensor) {
      kp.kind = KernelParam::Kind::tensor;
      auto buf = std::make_shared<Buffer>();
      buf->name = "arg_" + p.name;
      buf->dtype = a.dtype;
      buf->dims = a.shape;
      buf->dim_names.resize(a.shape.size());
      for (std::size_t d = 0; d < a.shape.size(); ++d)
        if (a.shape[d] < 0) buf->dim_names[d] = std::get<Name>(p.type.shape[d]->node).name;
      buf->argument = static_cast<int>(i);
      buf->align_bytes = a.align_bytes;
      if (a.dtype == DType::f16) needs_half_ = true;
      if (a.dtype == DType::bf16) needs_bf16_ = true;
      if (a.dtype == DType::f8_e4m3 || a.dtype == DType::f8_e5m2) needs_fp8_ = true;
      v.kind = Value::Kind::view;
      v.view.buffer = buf;
      v.view.extent = a.shape;
      v.view.origin.assign(a.shape.size(), "0");
      signature.push_back(std::string(cuda_type(a.dtype)) + "* __restrict__ " + buf->name);
    } else {
      kp.kind = a.is_integer ? KernelParam::Kind::integer : KernelParam::Kind::floating;
      v.text = "arg_" + p.name;
      v.is_float = !a.is_integer;
      signature.push_back(std::string(a.is_integer ? "long long " : "double ") + v.text);
    }
    result_.params.push_back(kp);
    define(p.name, v);
  }
  // Dynamic dims follow the arguments, as `long long dim_NAME`.
  for (const auto& [name, where] : dynamic_) {
    KernelParam kp;
    kp.kind = KernelParam::Kind::dim;
    kp.name = name;
    kp.dim = where.front();
    kp.argument = kp.dim.argument;
    result_.params.push_back(kp);
    signature.push_back("const long long dim_" + name);
  }
  // A shaped return type: the runtime allocates the output and passes it last.
  if (fn_.return_type.kind == TypeKind::element && fn_.return_type.has_shape) {
    if (!parse_dtype(fn_.return_type.name, result_.output_dtype))
      fail_at(program_, fn_.return_type.location, "element type `" + fn_.return_type.name + "` is not supported yet");
    std::vector<std::string> output_dim_names;
    for (const auto& d : fn_.return_type.shape) {
      std::vector<std::string> names;
      auto part = shape_of(*d, &names);
      result_.output_shape.insert(result_.output_shape.end(), part.begin(), part.end());
      output_dim_names.insert(output_dim_names.end(), names.begin(), names.end());
    }
    std::vector<std::int64_t> known;  // the output's static extents; dynamic ones are checked at launch
    for (auto x : result_.output_shape)
      if (x >= 0) known.push_back(x);
    fit_index(element_count(known));
    known.push_back(static_cast<std::int64_t>(dtype_size(result_.output_dtype)));
    if (!stride_product(known))
      fail_at(program_, fn_.return_type.location, "the returned tensor, " + shape_text(result_.output_dtype, result_.output_shape) +
                                                     ", holds more bytes than a 64-bit size can count (2^63 - 1)");
    for (std::size_t d = 0; d < output_dim_names.size(); ++d)
      result_.output_dim_sources.push_back(result_.output_shape[d] < 0 ? dynamic_.at(output_dim_names[d]).front()
                                                                       : DimSource{});
    result_.has_output = true;
    output_name_ = returned_name(*fn_.body);
    if (output_name_.empty())
      fail_at(program_, fn_.return_type.location, "the function returns a tensor but has no `return NAME;`");
    output_ = std::make_shared<Buffer>();
    output_->name = "croq_output";
    output_->dtype = result_.output_dtype;
    output_->dims = result_.output_shape;
    output_->dim_names = output_dim_names;
    output_->argument = -2;
    if (result_.output_dtype == DType::f16) needs_half_ = true;
    if (result_.output_dtype == DType::bf16) needs_bf16_ = true;
    signature.push_back(std::string(cuda_type(result_.output_dtype)) + "* __restrict__ croq_output");
    result_.params.push_back(KernelParam{KernelParam::Kind::output, -1, output_name_, {}, {}, 0});
  }

  out_.indent();
  const auto* body = std::get_if<Block>(&fn_.body->node);
  if (!body) fail_at(program_, fn_.location, "the function has no body");
  hopper_ = uses_hopper(*fn_.body);
  if (hopper_) needs_half_ = needs_bf16_ = true;  // the prelude uses both
  block(*fn_.body);
  out_.dedent();
  pop();
  std::string body_text = hopper_ ? finish_hopper_text(out_.text()) : out_.text();
  signature.insert(signature.end(), extra_signature_.begin(), extra_signature_.end());
  // Hopper kernels align the dynamic shared memory base to 1024 bytes at run
  // time (TMA's 128B swizzle needs it), which may cost up to 1024 bytes.
  if (hopper_ && shared_bytes_ > 0) shared_bytes_ += 1024;

  if (shared_bytes_ > max_shared_)
    fail_at(program_, fn_.location, "`" + fn_.name + "` needs " + std::to_string(shared_bytes_) +
                                        " bytes of shared memory per block for this specialization; the device allows " +
                                        std::to_string(max_shared_),
            "use smaller tiles");

  std::ostringstream src;
  src << "// Generated by libcroqjit from " << cuda_comment_text(program_.source_name) << ": `" << fn_.name << "` for";
  for (const auto& a : args_) {
    src << " " << (a.is_tensor ? shape_text(a.dtype, a.shape) : (a.is_integer ? "int" : "float"));
    if (a.is_tensor && a.align_bytes < 16) src << " (data aligned to " << a.align_bytes << " bytes)";
  }
  if (!dynamic_.empty()) {
    src << "\n// dynamic dims (? above; kernel parameters):";
    for (const auto& [name, where] : dynamic_) src << " " << name;
  }
  src << "\n// grid " << (result_.runtime_grid.dynamic() ? std::string("computed at launch") : std::to_string(grid_))
      << (grid_stride_ ? " (looping over block indices)" : "") << ", block " << block_threads_ << ", shared memory "
      << shared_bytes_ << " bytes";
  if (cluster_blocks_ > 0) src << ", clusters of " << cluster_blocks_ << " blocks";
  src << "\n";
  if (needs_half_) src << "#include <cuda_fp16.h>\n";
  if (needs_bf16_) src << "#include <cuda_bf16.h>\n";
  if (needs_fp8_) src << "#include <cuda_fp8.h>\n";
  if (hopper_) src << hopper_prelude();
  // A #line before pasted __device__ code: NVRTC errors in it are the user's.
  for (const auto& dc : program_.device_code)
    src << (dc.location.line > 0 ? line_directive_text(dc.location) + "\n" : "") << dc.text << "\n";
  // Warp-specialized kernels run one block per SM (setmaxnreg needs the cap).
  src << "\nextern \"C\" __global__ void __launch_bounds__(" << block_threads_ << (hopper_ ? ", 1" : "") << ") "
      << result_.entry << "(";
  for (std::size_t i = 0; i < signature.size(); ++i) src << (i ? ", " : "") << signature[i];
  src << ") {\n";
  if (shared_bytes_ > 0 && hopper_) {
    src << "  extern __shared__ __align__(1024) unsigned char croq_smem_raw[];\n"
        << "  unsigned char* croq_smem = reinterpret_cast<unsigned char*>((reinterpret_cast<unsigned long long>(croq_smem_raw) + 1023) & ~1023ull);\n";
  } else if (shared_bytes_ > 0) {
    src << "  extern __shared__ __align__(128) unsigned char croq_smem[];\n";
  }
  src << body_text << "}\n";

  result_.cuda_source = src.str();
  result_.launch.grid = {static_cast<unsigned>(grid_), 1, 1};
  result_.launch.block = {static_cast<unsigned>(block_threads_), 1, 1};
  result_.launch.shared_bytes = static_cast<unsigned>(shared_bytes_);
  if (cluster_blocks_ > 0) result_.launch.cluster = {static_cast<unsigned>(cluster_blocks_), 1, 1};
  return result_;
}

}  // namespace croq::codegen::detail

namespace croq::codegen {

using namespace detail;

std::map<std::string, std::int64_t> bind_dims(const Program& program, const Function& fn,
                                              const std::vector<ArgSignature>& args) {
  if (args.size() != fn.params.size())
    throw ArgumentError("`" + fn.name + "` takes " + std::to_string(fn.params.size()) + " argument" +
                        (fn.params.size() == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
  std::map<std::string, std::int64_t> dims;
  auto describe = [&](const Parameter& p) {
    std::string s = p.type.name + " [";
    for (std::size_t i = 0; i < p.type.shape.size(); ++i)
      s += (i ? ", " : "") + source_text(program, *p.type.shape[i]);
    return s + "]";
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Parameter& p = fn.params[i];
    const ArgSignature& a = args[i];
    std::string who = "argument " + std::to_string(i + 1) + " '" + p.name + "'";
    bool param_is_tensor = p.type.has_shape;
    if (param_is_tensor != a.is_tensor)
      throw ArgumentError(who + ": expected " + (param_is_tensor ? "a tensor " + describe(p) : "a scalar " + p.type.name) +
                          ", got " + (a.is_tensor ? "a tensor" : "a scalar"));
    if (!a.is_tensor) continue;
    DType expected;
    if (!parse_dtype(p.type.name, expected))
      throw ArgumentError(who + ": element type `" + p.type.name + "` is not supported yet");
    std::string got = shape_text(a.dtype, a.shape);
    if (a.dtype != expected || a.shape.size() != p.type.shape.size())
      throw ArgumentError(who + ": expected " + describe(p) + ", got " + got);
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
      const ParameterDim dim = parameter_dim(program, *p.type.shape[d]);
      if (a.shape[d] < 0) continue;  // a dynamic dim: checked at launch
      if (dim.constant && *dim.constant != a.shape[d])
        throw ArgumentError(who + ": expected " + describe(p) + ", got " + got);
      if (dim.constant) continue;
      if (auto b = dims.find(dim.name); b != dims.end()) {
        if (b->second != a.shape[d])
          throw ArgumentError(who + ": dimension " + std::to_string(d) + " is " + dim.name + ", bound to " +
                              std::to_string(b->second) + " by an earlier argument, but got " + got);
      } else {
        dims[dim.name] = a.shape[d];
      }
    }
  }
  return dims;
}

std::map<std::string, std::vector<DimSource>> dynamic_dim_sources(const Program& program, const Function& fn,
                                                                 const std::vector<std::string>& dynamic_dims) {
  std::map<std::string, std::vector<DimSource>> sources;
  for (const std::string& name : dynamic_dims) {
    std::vector<DimSource>& where = sources[name];
    for (std::size_t i = 0; i < fn.params.size(); ++i) {
      const Parameter& p = fn.params[i];
      if (!p.type.has_shape) continue;
      for (std::size_t d = 0; d < p.type.shape.size(); ++d) {
        const auto* n = std::get_if<Name>(&p.type.shape[d]->node);
        if (n && n->name == name) where.push_back({static_cast<int>(i), static_cast<int>(d)});
      }
    }
    std::string why;
    if (program.defines.count(name)) why = "it is a #define constant";
    else if (where.empty()) why = "no tensor parameter of `" + fn.name + "` has it as a dimension";
    if (!why.empty())
      fail_at(program, fn.location, "CompileOptions::dynamic_dims names `" + name + "`, but " + why,
              "dynamic dims must be symbolic dims of the parameters, such as M in `f32 [M, K] a`");
  }
  return sources;
}

GeneratedKernel generate_cuda(const Program& program, const Function& fn, const std::vector<ArgSignature>& args,
                              int max_shared_bytes, const std::vector<std::string>& dynamic_dims, Target target) {
  auto dims = bind_dims(program, fn, args);
  auto dynamic = dynamic_dim_sources(program, fn, dynamic_dims);
  check_argument_extents(program, fn, args, dynamic_dims);
  // 32-bit index arithmetic unless a tensor may hold 2^31 elements or more;
  // codegen starts over in 64 bits when a count or coordinate turns out to.
  bool wide = !dynamic.empty();
  for (const ArgSignature& a : args)
    if (a.is_tensor) wide = wide || element_count(a.shape) > kInt32Max;
  if (!wide) {
    try {
      return Codegen(program, fn, args, dims, max_shared_bytes, dynamic, target, false).run();
    } catch (const NeedsWideIndices&) {
    }
  }
  return Codegen(program, fn, args, std::move(dims), max_shared_bytes, std::move(dynamic), target, true).run();
}

Target target_of_arch(const std::string& arch) {
  const std::size_t prefix = arch.rfind("sm_", 0) == 0 ? 3 : arch.rfind("compute_", 0) == 0 ? 8 : 0;
  const std::string number = arch.substr(std::min(prefix, arch.size()));
  // Only the arch-specific feature set of 9.0 has wgmma and setmaxnreg.
  return Target(std::atoi(number.c_str()), number == "90a");
}

GeneratedKernel generate_cuda_for_arch(const Program& program, const Function& fn, const std::vector<ArgSignature>& args,
                                       int max_shared_bytes, const std::vector<std::string>& dynamic_dims,
                                       const std::string& arch) {
  jit::validate_arch(arch);  // "sm90a" is malformed, not an arch below 90
  const Target target = target_of_arch(arch);
  GeneratedKernel generated = generate_cuda(program, fn, args, max_shared_bytes, dynamic_dims, target);
  if (generated.needs_sm90 && target.sm < 90) {
    Diagnostic d = *generated.needs_sm90;
    d.message += " (compiling for " + arch + ")";
    throw CompileError({d}, program.source, program.source_name);
  }
  return generated;
}

}  // namespace croq::codegen
