// The kernel's text: header, parameters, shared memory, statements and
// expressions.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "backend/cuda/cuda_printer.hpp"
#include "backend/cuda/cuda_text.hpp"
#include "backend/cuda/hopper_prelude.hpp"
#include "backend/cuda/scale_type_prelude.hpp"
#include "backend/cuda/subbyte_prelude.hpp"
#include "ir/walk.hpp"
#include "support/checked_int.hpp"

namespace croq::backend::cuda {

const char* cuda_type(DType t) {
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
    // The sub-byte types: the prelude's structs (subbyte_prelude.hpp).
    case DType::f6_e2m3: return "croq_f6_e2m3";
    case DType::f6_e3m2: return "croq_f6_e3m2";
    case DType::f4_e2m1: return "croq_f4_e2m1";
    case DType::u6: return "croq_u6";
    case DType::s6: return "croq_s6";
    case DType::u4: return "croq_u4";
    case DType::s4: return "croq_s4";
    case DType::u2: return "croq_u2";
    case DType::s2: return "croq_s2";
    case DType::u1: return "croq_u1";
    case DType::bin1: return "croq_bin1";
    // tf32 and the scale types: the scale-type prelude's structs.
    case DType::tf32: return "croq_tf32";
    case DType::f8_ue8m0: return "croq_f8_ue8m0";
    case DType::f8_ue4m3: return "croq_f8_ue4m3";
  }
  return "int";
}

const char* cuda_type(const ir::Type& t) {
  switch (t.kind) {
    case ir::Type::Kind::i32: return "int";
    case ir::Type::Kind::i64: return "long long";
    case ir::Type::Kind::u32: return "unsigned";
    case ir::Type::Kind::f32: return "float";
    case ir::Type::Kind::f64: return "double";
    case ir::Type::Kind::boolean: return "bool";
    case ir::Type::Kind::element: return cuda_type(t.dtype);
    case ir::Type::Kind::index: throw Error("internal error: the backend met an index type no pass chose");
  }
  return "int";
}

std::string typed(DType t, const std::string& value) {
  std::string type = cuda_type(t);
  if (type.find(' ') != std::string::npos) return "static_cast<" + type + ">(" + value + ")";
  return type + "(" + value + ")";
}

std::string add_text(const std::string& a, const std::string& b) {
  if (a == "0") return b;
  if (b == "0") return a;
  return "(" + a + " + " + b + ")";
}

namespace {

// The value of CUDA text that is a plain decimal integer ("42", "-7").
std::optional<std::int64_t> integer_text(const std::string& s) {
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

// Each expression is capped in lowering, but many statements of large ones
// could still add up to a kernel no compiler gets through.
constexpr std::size_t kMaxKernelText = std::size_t{4} << 20;

}  // namespace

// Constant products are folded (a literal above 2^31 is a 64-bit literal in
// C++), so a product of constants never overflows `int` in the generated code.
std::string mul_text(const std::string& a, std::int64_t k) {
  if (k == 0 || a == "0") return "0";
  if (k == 1) return a;
  if (std::optional<std::int64_t> v = integer_text(a))
    if (support::CheckedInt product = support::checked_mul(*v, k); product.ok()) return std::to_string(product.value);
  return "(" + a + " * " + std::to_string(k) + ")";
}

// `a * k` for an index term: in 64 bits when the kernel's indices are.
std::string Printer::scaled_text(const std::string& a, std::int64_t k) const {
  if (kernel_.index.kind != ir::Type::Kind::i64 || k == 1 || a == "0" || integer_text(a)) return mul_text(a, k);
  return "((long long)(" + a + ") * " + std::to_string(k) + ")";
}

std::string line_directive(int line, const std::string& source_name) {
  return "#line " + std::to_string(line) + " " + cuda_string_literal(source_name);
}

namespace {

// A #define's number as a C++ literal of the same value: integers as they
// are (LL past 32 bits), floats round-trip (`f` where written so), negative
// ones in parentheses so the macro stays one operand.
std::string define_literal(const ir::Kernel::DeviceDefine& d) {
  std::string text;
  bool negative = false;
  if (const auto* i = std::get_if<std::int64_t>(&d.value)) {
    negative = *i < 0;
    if (*i == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
    const bool wide = *i < std::numeric_limits<std::int32_t>::min() || *i > std::numeric_limits<std::int32_t>::max();
    text = std::to_string(*i) + (wide ? "LL" : "");
  } else {
    const double v = std::get<double>(d.value);
    negative = std::signbit(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    text = buf;
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    if (d.float_suffix) text += "f";
  }
  return negative ? "(" + text + ")" : text;
}

}  // namespace

// The pasted __device__ code, each piece after a #line (NVRTC errors in it
// are the user's) and after the #defines the source has made by then; the
// defines are undone after the last piece, so generated code never sees them.
std::string device_code_text(const ir::Kernel& kernel) {
  std::string out;
  std::vector<bool> defined(kernel.device_defines.size(), false);
  for (const auto& dc : kernel.device_code) {
    for (std::size_t i = 0; i < kernel.device_defines.size(); ++i) {
      const ir::Kernel::DeviceDefine& d = kernel.device_defines[i];
      if (defined[i] || (d.line > 0 && dc.line > 0 && d.line > dc.line)) continue;
      out += "#define " + d.name + " " + define_literal(d) + "\n";
      defined[i] = true;
    }
    out += (dc.line > 0 ? line_directive(dc.line, kernel.source_name) + "\n" : "") + dc.text + "\n";
  }
  for (std::size_t i = 0; i < kernel.device_defines.size(); ++i)
    if (defined[i]) out += "#undef " + kernel.device_defines[i].name + "\n";
  return out;
}


// ---- expressions -------------------------------------------------------------

std::string Printer::dim_text(int buffer, std::size_t d) const {
  const ir::Extent& x = kernel_.buffers[static_cast<std::size_t>(buffer)].dims[d];
  return x.is_dynamic() ? "dim_" + x.dim : std::to_string(x.value);
}

std::string Printer::element(int buffer, const std::string& slot, const std::vector<std::string>& coords) const {
  const ir::Buffer& b = kernel_.buffers[static_cast<std::size_t>(buffer)];
  std::string linear = "0";
  if (!b.strides.empty()) {  // a strided view: its own strides, no swizzle, no ring (the verifier)
    for (std::size_t d = 0; d < coords.size(); ++d) linear = add_text(linear, scaled_text(coords[d], b.strides[d]));
    return b.name + "[" + linear + "]";
  }
  std::int64_t stride = 1;
  std::string dynamic_stride;  // product of the dynamic extents inside dimension d
  for (std::size_t d = coords.size(); d-- > 0;) {
    std::string term = scaled_text(coords[d], stride);
    if (!dynamic_stride.empty() && term != "0") term = "(" + term + " * " + dynamic_stride + ")";
    linear = add_text(linear, term);
    if (!b.dims[d].is_dynamic()) stride *= b.dims[d].value;
    else dynamic_stride += (dynamic_stride.empty() ? "" : " * ") + dim_text(buffer, d);
  }
  if (b.swizzle > 0) {  // the TMA layout: 16-byte chunks permuted within each 8-row atom
    const std::string elem = std::to_string(dtype_size(b.dtype));
    linear = "(croq_dev::swizzle_offset((unsigned)(" + linear + ") * " + elem + "u, " + std::to_string(b.swizzle) +
             "u) / " + elem + "u)";
  }
  if (b.slots > 0) linear = add_text(mul_text(slot.empty() ? "0" : slot, b.slot_elems), linear);
  return b.name + "[" + linear + "]";
}

std::string Printer::expr(const ir::ExprRef& e) const {
  switch (e->kind) {
    case ir::ExprKind::int_const:
      // INT64_MIN has no literal (9223372036854775808 is not a signed value).
      return e->value == std::numeric_limits<std::int64_t>::min() ? "(-9223372036854775807LL - 1)" : std::to_string(e->value);
    // C++ has no literal for infinity, and NVCC computes 1.0f / 0.0f at run time.
    case ir::ExprKind::float_literal: return e->text == "inf" ? "__int_as_float(0x7f800000)" : e->text;
    case ir::ExprKind::var: case ir::ExprKind::special: return e->text;
    case ir::ExprKind::by_index_width: throw Error("internal error: the backend met an index width no pass chose");
    case ir::ExprKind::unary: return "(" + e->op + expr(e->operands[0]) + ")";
    case ir::ExprKind::binary: return "(" + expr(e->operands[0]) + " " + e->op + " " + expr(e->operands[1]) + ")";
    case ir::ExprKind::select:
      return "(" + expr(e->operands[0]) + " ? " + expr(e->operands[1]) + " : " + expr(e->operands[2]) + ")";
    case ir::ExprKind::element: {
      std::vector<std::string> coords;
      for (std::size_t i = 1; i < e->operands.size(); ++i) coords.push_back(expr(e->operands[i]));
      return element(e->buffer, e->operands[0] ? expr(e->operands[0]) : "", coords);
    }
    case ir::ExprKind::address_of: return "(&" + expr(e->operands[0]) + ")";
    case ir::ExprKind::typed_zero: return typed(e->type.dtype, e->text);
    case ir::ExprKind::zero_like: return "decltype(" + expr(e->operands[0]) + ")(0)";
    case ir::ExprKind::convert: return std::string("(") + cuda_type(e->type) + ")(" + expr(e->operands[0]) + ")";
    case ir::ExprKind::math: case ir::ExprKind::atomic: {
      std::vector<std::string> args;
      for (const auto& o : e->operands) args.push_back(expr(o));
      return e->kind == ir::ExprKind::math ? math_call(*e, args) : atomic_call(*e, args);
    }
    case ir::ExprKind::device_call: return device_call(*e);
  }
  return "0";
}

namespace {

std::string call_text(const std::string& function, const std::vector<std::string>& args) {
  std::string s = function + "(";
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s + ")";
}

}  // namespace

// CUDA's math functions: float ones end in `f`; the operands are all of one
// type (f32 or f64, or integers for max and min), which lowering made so.
std::string Printer::math_call(const ir::Expr& e, const std::vector<std::string>& args) const {
  const ir::Type& t = e.operands[0]->type;
  const bool is_double = t.kind == ir::Type::Kind::f64 || (t.kind == ir::Type::Kind::element && t.dtype == DType::f64);
  if (!t.is_float()) return call_text(e.op, args);  // max and min of integers
  const std::string f = is_double ? "" : "f";
  if (e.op == "quad_max" || e.op == "quad_sum") return call_text("croq_dev::" + e.op, args);  // the fragment prelude
  if (e.op == "rcp") return call_text(is_double ? "__drcp_rn" : "__frcp_rn", args);
  if (e.op == "isfinite") return call_text("isfinite", args);
  if (e.op == "max" || e.op == "min") return call_text("f" + e.op + f, args);
  if (e.op == "exp2" && !is_double) return uses_exp2_approx_ = true, call_text("croq_exp2_approx", args);
  return call_text(e.op + f, args);
}

// atomicAdd(&element, value) and its kin. CUDA's bitwise atomics have no
// signed 64-bit form: those go through the unsigned one (same bits).
std::string Printer::atomic_call(const ir::Expr& e, const std::vector<std::string>& args) const {
  std::string function = e.op == "exch" ? "atomicExch" : e.op == "cas" ? "atomicCAS" : "atomic";
  if (function == "atomic") {
    function += e.op;
    function[6] = static_cast<char>(function[6] - 'a' + 'A');
  }
  std::vector<std::string> operands = args;
  operands[0] = "&" + operands[0];
  const bool bitwise = e.op == "and" || e.op == "or" || e.op == "xor";
  if (bitwise && e.type.kind == ir::Type::Kind::element && e.type.dtype == DType::s64) {
    operands[0] = "(unsigned long long*)" + operands[0];
    for (std::size_t i = 1; i < operands.size(); ++i) operands[i] = "(unsigned long long)" + operands[i];
    return "((long long)" + call_text(function, operands) + ")";
  }
  return call_text(function, operands);
}

// ---- statements ----------------------------------------------------------------

void Printer::line(const std::string& text) {
  out_.append(static_cast<std::size_t>(depth_) * 2, ' ');
  out_ += text;
  out_ += '\n';
}

void Printer::raw(const std::string& text) {  // preprocessor lines stay in column 0
  out_ += text;
  out_ += '\n';
}

void Printer::list(const ir::StmtList& body) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    fp8_pack_ = fp8_pack_sharing(body, i);
    stmt(*body[i]);
  }
}

void Printer::braced_body(const ir::StmtPtr& body) {
  indent();
  if (body) stmt(*body);
  dedent();
}

std::string Printer::body_text(const ir::Stmt& body) {
  indent();
  stmt(body);
  dedent();
  return out_;
}

void Printer::stmt(const ir::Stmt& s) {
  if (s.where.line > 0 && out_.size() > kMaxKernelText)
    ir::fail(s.where, "the kernel's CUDA passes " + std::to_string(kMaxKernelText >> 20) + " MiB before this statement",
             "split the function, or simplify its expressions");
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, ir::Seq>) {
      if (n.braces) {
        line("{");
        indent();
      }
      list(n.body);
      if (n.braces) {
        dedent();
        line("}");
      }
    } else if constexpr (std::is_same_v<T, ir::Let>) {
      line(std::string(n.is_const ? "const " : "") + cuda_type(n.type) + " " + n.name + " = " + (n.init ? expr(n.init) : "0") + ";");
    } else if constexpr (std::is_same_v<T, ir::Assign>) {
      std::string code = expr(n.target) + " " + n.op + " " + expr(n.value) + ";";
      line(n.guard ? "if (" + expr(n.guard) + ") " + code : code);
    } else if constexpr (std::is_same_v<T, ir::Eval>) {
      line(expr(n.value) + ";");
    } else if constexpr (std::is_same_v<T, ir::For>) {
      if (n.unroll) line("#pragma unroll");
      line(std::string("for (") + cuda_type(n.type) + " " + n.var + " = " + expr(n.begin) + "; " + n.var + " < " +
           expr(n.end) + "; " + (n.step ? n.var + " += " + expr(n.step) : "++" + n.var) + ") {");
      braced_body(n.body);
      line("}");
    } else if constexpr (std::is_same_v<T, ir::If>) {
      line("if (" + expr(n.condition) + ") {");
      braced_body(n.then_branch);
      if (n.else_branch) {
        line("} else {");
        braced_body(n.else_branch);
      }
      line("}");
    } else if constexpr (std::is_same_v<T, ir::While>) {
      line("while (" + expr(n.condition) + ") {");
      braced_body(n.body);
      line("}");
    } else if constexpr (std::is_same_v<T, ir::Jump>) {
      line(n.exit_kernel ? "return;" : n.next_iteration ? "continue;" : "break;");
    } else if constexpr (std::is_same_v<T, ir::LineMark>) {
      raw(line_directive(n.line, kernel_.source_name));
    } else if constexpr (std::is_same_v<T, ir::Comment>) {
      line("// " + cuda_comment_text(n.text));
    } else if constexpr (std::is_same_v<T, ir::Trap>) {
      line("if (!(" + expr(n.condition) + ")) __trap();");
    } else if constexpr (std::is_same_v<T, ir::Region>) {
      stmt(*n.body);
    } else if constexpr (std::is_same_v<T, ir::Barrier>) {
      if (n.scope == ir::Barrier::Scope::grid)
        line("croq_grid_sync(" + kernel_.buffers[static_cast<std::size_t>(n.counter)].name + ");");
      else if (n.scope == ir::Barrier::Scope::warp) line("__syncwarp();");
      else if (n.scope == ir::Barrier::Scope::lanes) line("__syncwarp(__activemask());");
      else if (n.scope == ir::Barrier::Scope::warpgroup)
        line("croq_dev::named_barrier_sync(" + std::to_string(n.set.barrier_id) + " + threadIdx.x / 128, 128);");
      else if (n.scope == ir::Barrier::Scope::cluster) line("croq_dev::cluster_sync();");
      else if (n.set.threads == 0) line("__syncthreads();");
      else line("croq_dev::named_barrier_sync(" + std::to_string(n.set.barrier_id) + ", " + std::to_string(n.set.threads) + ");");
    } else if constexpr (std::is_same_v<T, ir::InlineAsm>) {
      inline_asm(n);
    } else if constexpr (std::is_same_v<T, ir::Print>) {
      print(n);
    } else if constexpr (std::is_same_v<T, ir::Fence>) {
      line(n.device ? "__threadfence();" : "__threadfence_block();");
    } else if constexpr (std::is_same_v<T, ir::CopyTiles>) {
      copy(n);
    } else if constexpr (std::is_same_v<T, ir::AllocShared>) {
      const ir::Buffer& b = kernel_.buffers[static_cast<std::size_t>(n.buffer)];
      line(std::string(cuda_type(b.dtype)) + "* " + b.name + " = reinterpret_cast<" + cuda_type(b.dtype) +
           "*>(croq_smem + " + std::to_string(b.smem_offset) + ");");
    } else if constexpr (std::is_same_v<T, ir::DeclarePointer>) {
      const ir::Buffer& b = kernel_.buffers[static_cast<std::size_t>(n.buffer)];
      line(std::string(cuda_type(b.dtype)) + "* " + b.name + " = " + expr(n.address) + ";");
    } else if constexpr (std::is_same_v<T, ir::DeclareLocal>) {
      const ir::Buffer& b = kernel_.buffers[static_cast<std::size_t>(n.buffer)];
      std::int64_t count = 1;  // at most the local limit: checked in lowering
      for (const auto& d : b.dims) count *= d.value;
      if (b.slots > 0) count *= b.slots;  // an array of local buffers, a slot each
      // An empty tile still declares one element: C++ has no zero-length arrays.
      // Wider than its element: accessed as whole vectors (element-wise vectorization).
      const bool wide = b.align_bytes > static_cast<int>(dtype_size(b.dtype));
      line((wide ? "__align__(" + std::to_string(b.align_bytes) + ") " : std::string()) + cuda_type(b.dtype) + " " +
           b.name + "[" + std::to_string(std::max<std::int64_t>(count, 1)) + "];");
    } else if constexpr (std::is_same_v<T, ir::DeclareEvent>) {
      const ir::Event& e = kernel_.events[static_cast<std::size_t>(n.event)];
      line("unsigned long long* " + e.name + " = reinterpret_cast<unsigned long long*>(croq_smem + " +
           std::to_string(e.smem_offset) + ");");
      // `ready`: expect the phase before the first, which a fresh barrier reports complete.
      line("unsigned " + e.phase + " = " + (e.ready ? "0xffffffffu" : "0u") + ";");
    } else if constexpr (std::is_same_v<T, ir::BarrierPrologue>) {
      barrier_prologue(n);
    } else if constexpr (std::is_same_v<T, ir::Arrive>) {
      arrive(n);
    } else if constexpr (std::is_same_v<T, ir::WaitEvent>) {
      wait_event(n);
    } else if constexpr (std::is_same_v<T, ir::WaitCounter>) {
      // A volatile read sees other blocks' increments; the fence after it
      // orders this thread's later reads after theirs (their writes before
      // the increment, which a fence preceded).
      line("while (*static_cast<volatile int*>(&" + expr(n.counter) + ") <= " + expr(n.above) + ") {}  // wait " +
           n.event);
      line("__threadfence();");
    } else if constexpr (std::is_same_v<T, ir::TmaLoad>) {
      tma_load(n);
    } else if constexpr (std::is_same_v<T, ir::TmaStore>) {
      tma_store(n);
    } else if constexpr (std::is_same_v<T, ir::BulkStoreWait>) {
      line(n.read_only ? "croq_dev::bulk_wait_group_read<0>();  // the tile's TMA stores have read it"
                       : "croq_dev::bulk_wait_group<0>();  // every TMA store has completed");
    } else if constexpr (std::is_same_v<T, ir::FenceProxyAsync>) {
      line("croq_dev::fence_proxy_async_shared();  // make the tile's generic-proxy writes visible to the async proxy (TMA, WGMMA)");
    } else if constexpr (std::is_same_v<T, ir::MmaFill>) {
      mma_fill(n);
    } else if constexpr (std::is_same_v<T, ir::Mma>) {
      mma(n);
    } else if constexpr (std::is_same_v<T, ir::MmaWait>) {
      if (n.pinned) line("croq_dev::schedule_boundary();  // keep the wait after the work above (pin_overlapped_waits)");
      line("croq_dev::wgmma_wait_group<" + std::to_string(n.pending) + ">();" + (n.note.empty() ? "" : "  // " + n.note));
      for (int b : n.fence) line("croq_dev::fence_accum(" + kernel_.buffers[static_cast<std::size_t>(b)].name + ");");
    } else if constexpr (std::is_same_v<T, ir::MmaStore>) {
      mma_store(n);
    } else if constexpr (std::is_same_v<T, ir::MmaLoad>) {
      mma_load(n);
    } else if constexpr (std::is_same_v<T, ir::MmaScale>) {
      mma_scale(n);
    } else if constexpr (std::is_same_v<T, ir::MmaCommit>) {
      // Completed by the WGMMA-completion pass: nothing left to print.
    } else if constexpr (std::is_same_v<T, ir::SetMaxNReg>) {
      line(n.increase ? "croq_dev::setmaxnreg_inc<" + std::to_string(n.registers) + ">();  // consumer: take the producers' registers"
                      : "croq_dev::setmaxnreg_dec<" + std::to_string(n.registers) + ">();  // producer: give registers to the consumers");
    } else if constexpr (std::is_same_v<T, ir::WarpgroupRegion>) {
      line("if (" + expr(n.condition) + ") {");
      braced_body(n.body);
      line("}");
    }
  }, s.node);
}

// asm volatile("text" : "=r"(out) : "r"(in) : "memory"); every string
// through cuda_string_literal, so the user's text stays inside its literal.
void Printer::inline_asm(const ir::InlineAsm& a) {
  std::string code = std::string("asm") + (a.is_volatile ? " volatile" : "") + "(" + cuda_string_literal(a.text);
  // The sections up to the last one that has something.
  const int sections = a.memory ? 3 : !a.inputs.empty() ? 2 : !a.outputs.empty() ? 1 : 0;
  int section = 0;
  for (const auto* list : {&a.outputs, &a.inputs}) {
    if (++section > sections) break;
    code += " :";
    for (std::size_t i = 0; i < list->size(); ++i)
      code += (i ? ", " : " ") + cuda_string_literal((*list)[i].constraint) + "(" + expr((*list)[i].value) + ")";
  }
  if (a.memory) code += " : \"memory\"";
  line(code + ");");
}

// printf("format", values...): the user's text with `%` doubled, escaped
// into the literal; integers as %lld, floats as %f, truth values as words.
void Printer::print(const ir::Print& p) {
  std::string format, args;
  for (const ir::Print::Part& part : p.parts) {
    if (!part.value) {
      for (char c : part.text) format += c == '%' ? std::string("%%") : std::string(1, c);
      continue;
    }
    const ir::Type& t = part.value->type;
    const std::string v = expr(part.value);
    if (t.kind == ir::Type::Kind::boolean) {
      format += "%s";
      args += ", (" + v + ") ? \"true\" : \"false\"";
    } else if (t.is_float()) {
      format += "%f";
      args += ", (double)(" + v + ")";
    } else {
      format += "%lld";
      args += ", (long long)(" + v + ")";
    }
  }
  const std::string call = "printf(" + cuda_string_literal(format) + args + ");";
  line(p.guard ? "if (" + expr(p.guard) + ") " + call : call);
}

// ---- the kernel ----------------------------------------------------------------

// The grid barrier of a cooperative launch, whose blocks are all resident.
// The first thread of each block adds to a zeroed counter so that the adds
// of the whole grid sum to 2^31: the top bit flips once every block has
// arrived, and the low bits are back to zero for the next barrier.
// f32 exp2 (Croqtile's __exp2f, the softmax's exponential) is the hardware
// approximation, as Croqtile's compiler gives it under its default fast
// math: one MUFU.EX2, where exp2f also scales subnormal inputs and results
// (three more instructions per call, a third of flash attention's loop).
// Normal results are exp2f's (the same instruction); subnormal ones flush to zero.
// A tile passed to a __device__ function (Printer::device_call): its element
// pointer, which also converts to a pointer of another element type of the
// same size, as a reinterpret_cast would (Croqtile's documentation passes
// s32 tiles to `float*` parameters), and to void*.
constexpr const char* kDeviceArg = R"CUDA(
template <class E> struct croq_device_ptr {
  E* p;
  __device__ operator E*() const { return p; }
  __device__ operator void*() const { return p; }
  template <class T, class = decltype(sizeof(T))> __device__ operator T*() const {
    static_assert(sizeof(T) == sizeof(E), "a tile passes to a pointer of elements of its own size");
    return reinterpret_cast<T*>(p);
  }
};
template <class E> __device__ __forceinline__ croq_device_ptr<E> croq_device_arg(E* p) { return {p}; }
)CUDA";

constexpr const char* kExp2Approx = R"CUDA(
__device__ __forceinline__ float croq_exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
)CUDA";

constexpr const char* kGridSync = R"CUDA(
__device__ __forceinline__ void croq_grid_sync(unsigned int* counter) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
    __threadfence();
    const unsigned int before = atomicAdd(counter, add);
    while (((before ^ *static_cast<volatile unsigned int*>(counter)) & 0x80000000u) == 0u) {
    }
    __threadfence();
  }
  __syncthreads();
}
)CUDA";

// Programmatic dependent launch (sm_90's griddepcontrol): the next kernel
// of the stream may launch once every block has let it, and a kernel reads
// nothing before the previous one has finished with its writes seen. Empty
// where the code is compiled for the host (the index emulation tests).
constexpr const char* kGridDependencies = R"CUDA(
__device__ __forceinline__ void croq_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void croq_wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
)CUDA";

namespace {

// The fp8 WGMMA forms the kernel's multiplies use, each once (the prelude's
// fp8 section has only these), or nothing when it has none.
std::string fp8_section(const ir::Kernel& kernel) {
  std::set<Fp8WgmmaForm> forms;
  ir::for_each<ir::Mma>(*kernel.body, [&](const ir::Mma& m, const ir::Stmt&) {
    if (m.instruction != ir::MmaInstruction::wgmma || !is_fp8(m.input) || m.metadata) return;
    const ir::Accumulator& acc = kernel.accumulators[static_cast<std::size_t>(m.accumulator)];
    forms.insert({static_cast<int>(acc.n), m.input == DType::f8_e5m2, m.input_b == DType::f8_e5m2, acc.dtype == DType::f16,
                  m.a_fragment >= 0});
  });
  return forms.empty() ? std::string() : hopper_prelude_fp8({forms.begin(), forms.end()});
}

// The sparse WGMMA forms the kernel's multiplies use (mma.row.row.sp).
std::string sparse_section(const ir::Kernel& kernel) {
  std::set<SparseWgmmaForm> forms;
  auto code = [](DType t) { return t == DType::f16 ? 0 : t == DType::bf16 ? 1 : t == DType::f8_e4m3 ? 2 : 3; };
  ir::for_each<ir::Mma>(*kernel.body, [&](const ir::Mma& m, const ir::Stmt&) {
    if (m.instruction != ir::MmaInstruction::wgmma || !m.metadata) return;
    const ir::Accumulator& acc = kernel.accumulators[static_cast<std::size_t>(m.accumulator)];
    forms.insert({static_cast<int>(acc.n), code(m.input), code(m.input_b), acc.dtype == DType::f16});
  });
  return forms.empty() ? std::string() : hopper_prelude_sparse({forms.begin(), forms.end()});
}

// The RS-mode WGMMA forms (A from a register fragment) the kernel uses, with
// the fragment helpers; nothing when it has no fragments.
std::string frag_section(const ir::Kernel& kernel) {
  bool fragments = false;
  for (const ir::Buffer& b : kernel.buffers) fragments = fragments || !b.fragment.empty();
  std::set<RsWgmmaForm> forms;
  ir::for_each<ir::Mma>(*kernel.body, [&](const ir::Mma& m, const ir::Stmt&) {
    // An fp8 register lhs is the fp8 section's (fp8_section).
    if (m.instruction != ir::MmaInstruction::wgmma || (m.a_fragment < 0 && !m.b_n_major && !m.a_m_major) || is_fp8(m.input))
      return;
    const ir::Accumulator& acc = kernel.accumulators[static_cast<std::size_t>(m.accumulator)];
    forms.insert({static_cast<int>(acc.n), m.input == DType::bf16, m.b_n_major, m.a_fragment < 0, m.a_m_major});
  });
  return fragments || !forms.empty() ? hopper_prelude_frag({forms.begin(), forms.end()}) : std::string();
}

}  // namespace

std::string emit_kernel(const ir::Kernel& kernel) {
  Printer printer(kernel);
  const std::string body = printer.body_text(*kernel.body);

  std::vector<std::string> signature;
  for (const ir::Param& p : kernel.params) {
    using Kind = abi::KernelParam::Kind;
    switch (p.kind) {
      case Kind::tensor: case Kind::output: case Kind::scratch:
        signature.push_back(std::string(cuda_type(p.type)) + "* __restrict__ " + p.name);
        break;
      case Kind::integer: signature.push_back("long long " + p.name); break;
      case Kind::floating: signature.push_back("double " + p.name); break;
      case Kind::dim: signature.push_back("const long long " + p.name); break;
      case Kind::tensor_map: signature.push_back("const __grid_constant__ croq_tensor_map " + p.name); break;
    }
  }
  std::ostringstream src;
  src << "// Generated by libcroqjit from " << cuda_comment_text(kernel.source_name) << ": `" << kernel.function
      << "` for" << cuda_comment_text(kernel.description) << "\n";
  std::string dynamic_dims;
  for (const ir::Param& p : kernel.params)
    if (p.kind == abi::KernelParam::Kind::dim) dynamic_dims += " " + p.name.substr(4);  // dim_NAME
  if (!dynamic_dims.empty()) src << "// dynamic dims (? above; kernel parameters):" << dynamic_dims << "\n";
  src << "// grid " << (kernel.abi.runtime_grid.dynamic() ? std::string("computed at launch") : std::to_string(kernel.grid))
      << (kernel.grid_stride ? " (looping over block indices)" : "") << ", block " << kernel.block_threads
      << ", shared memory " << kernel.shared_bytes << " bytes";
  if (kernel.cluster_blocks > 0) src << ", clusters of " << kernel.cluster_blocks << " blocks";
  src << "\n";
  if (kernel.needs_half) src << "#include <cuda_fp16.h>\n";
  if (kernel.needs_bf16) src << "#include <cuda_bf16.h>\n";
  if (kernel.needs_fp8) src << "#include <cuda_fp8.h>\n";
  if (kernel.needs_subbyte) src << subbyte_prelude();
  if (kernel.needs_scale_types) src << scale_type_prelude();
  if (kernel.hopper) src << hopper_prelude() << fp8_section(kernel) << sparse_section(kernel) << frag_section(kernel);
  bool scales = false;
  ir::for_each<ir::MmaScale>(*kernel.body, [&](const ir::MmaScale&, const ir::Stmt&) { scales = true; });
  if (kernel.hopper && scales) src << hopper_prelude_scale();
  if (kernel.cooperative) src << kGridSync;
  if (kernel.abi.launch.programmatic) src << kGridDependencies;
  if (printer.uses_exp2_approx()) src << kExp2Approx;
  if (printer.uses_device_args()) src << kDeviceArg;
  src << device_code_text(kernel);
  // Warp-specialized kernels run one block per SM (setmaxnreg needs the cap).
  src << "\nextern \"C\" __global__ void __launch_bounds__(" << kernel.block_threads << (kernel.hopper ? ", 1" : "")
      << ") " << kernel.entry << "(";
  for (std::size_t i = 0; i < signature.size(); ++i) src << (i ? ", " : "") << signature[i];
  src << ") {\n";
  if (kernel.shared_bytes > 0 && kernel.hopper) {
    src << "  extern __shared__ __align__(1024) unsigned char croq_smem_raw[];\n"
        << "  unsigned char* croq_smem = reinterpret_cast<unsigned char*>((reinterpret_cast<unsigned long long>(croq_smem_raw) + 1023) & ~1023ull);\n";
  } else if (kernel.shared_bytes > 0) {
    src << "  extern __shared__ __align__(128) unsigned char croq_smem[];\n";
  }
  // Programmatic dependent launch (abi::LaunchConfig::programmatic): the
  // next kernel of the stream may start launching now, and this one reads
  // nothing before the previous kernel has finished and its writes are seen.
  if (kernel.abi.launch.programmatic) src << "  croq_launch_dependents();\n  croq_wait_for_previous_grid();\n";
  src << body << "}\n";
  return src.str();
}

}  // namespace croq::backend::cuda
