// Codegen's internal state and helpers, shared by the files that implement
// it: kernel_codegen.cpp (T1/T2: parallel, loops, dma) and
// hopper_codegen.cpp (T3/T4: events, TMA, warp specialization, WGMMA).
// Not a public interface.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/cuda_emitter.hpp"
#include "codegen/kernel_codegen.hpp"
#include "frontend/frontend.hpp"

namespace croq::codegen::detail {

using namespace frontend::ast;

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

inline std::string shape_text(DType t, const std::vector<std::int64_t>& dims) {
  std::string s = std::string(dtype_name(t)) + " [";
  // A dynamic dim (-1) prints as `?`.
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] < 0 ? "?" : std::to_string(dims[i]));
  return s + "]";
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
};

// A runtime integer derived from a dynamic dim: dim, cdiv(dim, divisor) or
// dim / divisor. Enough to size a grid or bound a loop at launch.
struct DynamicCount {
  std::string dim;
  std::int64_t divisor = 1;
  bool ceil = false;
};

struct Value {
  enum class Kind { scalar, index, view, shape, future, tuple } kind = Kind::scalar;
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
};

inline Value scalar_const(std::int64_t v) {
  Value r;
  r.text = std::to_string(v);
  r.constant = v;
  r.multiple = v < 0 ? -v : v;
  return r;
}

inline bool is_zero(const std::string& s) { return s == "0"; }

inline std::string add_text(const std::string& a, const std::string& b) {
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  return "(" + a + " + " + b + ")";
}

inline std::string mul_text(const std::string& a, std::int64_t k) {
  if (k == 0 || is_zero(a)) return "0";
  if (k == 1) return a;
  return "(" + a + " * " + std::to_string(k) + ")";
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

class Codegen {
 public:
  Codegen(const Program& program, const Function& fn, const std::vector<ArgSignature>& args,
          std::map<std::string, std::int64_t> dims, int max_shared,
          std::map<std::string, std::vector<DimSource>> dynamic)
      : program_(program), fn_(fn), args_(args), dims_(std::move(dims)), max_shared_(max_shared),
        dynamic_(std::move(dynamic)) {}

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
  std::string fresh(const std::string& base) { return base + "_" + std::to_string(counter_++); }

  // --- expressions
  Value expr(const Expr& e);
  Value name_value(const Expr& e, const Name& n);
  Value member(const Expr& e, const Member& m);
  Value binary(const Expr& e, const Binary& b);
  Value span_as(const Expr& e, const Member& m, const Value& obj);
  Value element_ref(const Expr& e, const Value& target, const ExprList& args);
  std::int64_t const_int(const Expr& e, const char* what);
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
  void loop(const Stmt& s, const Loop& l);
  void copy(const Stmt& s, const Copy& c);
  void emit_copy(const View& src, const View& dst, bool zfill, const std::vector<std::int64_t>& perm);
  Padding padding(const Copy& c, const std::vector<std::int64_t>& extent);
  void emit_pad(const View& src, const View& dst, const Padding& pad);
  std::vector<std::string> open_element_loop(const View& dst, const std::vector<std::int64_t>& space, std::int64_t vec,
                                             std::int64_t inner_begin);
  std::int64_t vector_width(const View& src, const View& dst, const std::vector<std::int64_t>& perm) const;
  void emit_copy_loop(const View& src, const View& dst, bool zfill, const std::vector<std::int64_t>& perm,
                      std::int64_t vec, std::int64_t inner_begin, std::int64_t inner_count);
  void line_directive(const SourceLocation& loc);
  void warn(const Stmt& s, const std::string& message, const std::string& hint = "");

  // --- helpers
  bool contains_parallel(const Stmt& s) const;
  bool uses_shared(const Stmt& s) const;
  std::shared_ptr<Buffer> allocate(const std::string& base, DType t, std::vector<std::int64_t> dims,
                                   Buffer::Space space);
  std::string address(const View& v, const std::vector<std::string>& idx) const;
  void mark_written(const Buffer& b);

  const Program& program_;
  const Function& fn_;
  const std::vector<ArgSignature>& args_;
  std::map<std::string, std::int64_t> dims_;
  int max_shared_;
  std::map<std::string, std::vector<DimSource>> dynamic_;

  Emitter out_;
  std::vector<std::map<std::string, Value>> symbols_;
  int counter_ = 0;
  Scope scope_ = Scope::kernel;
  std::string thread_id_ = "threadIdx.x";  // what the next thread-space level splits

  GeneratedKernel result_;
  std::int64_t grid_ = 1;
  bool grid_set_ = false;
  std::int64_t block_threads_ = 1;
  std::int64_t shared_bytes_ = 0;
  bool needs_half_ = false, needs_bf16_ = false, needs_fp8_ = false;
  std::string output_name_;
  std::shared_ptr<Buffer> output_;
};

}  // namespace croq::codegen::detail
