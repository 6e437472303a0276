// The register-fragment section of the device prelude (see
// hopper_prelude.hpp; the text is prelude/hopper_frag.cuh): RS-mode WGMMA, A from registers and B from a shared
// memory descriptor, for the forms a kernel uses, and the reductions of a
// warpgroup's accumulator rows across the lanes that hold them.
//
// PTX: `wgmma.mma_async ... d, {a0, a1, a2, a3}, b-desc, scale-d,
// imm-scale-a, imm-scale-b, imm-trans-b` for 16-bit inputs. Thread t of the
// warpgroup holds, in a0..a3 of k16 slice s, two elements each of rows
// 16(t/32) + (t%32)/4 (+8) and columns 16s + 2(t%4) (+8): the pairs that
// the f32 accumulator layout of a [64, K] tile keeps in registers 8s..8s+7,
// in that order. So a fragment is stored exactly like an accumulator, and an
// accumulator converted element by element is an A operand.
#include "backend/cuda/hopper_prelude.hpp"
#include "backend/cuda/prelude_files.hpp"

namespace croq::backend::cuda {
namespace {

// template <> struct wgmma_rs<N, Kind> { static void run(d, a0..a3, b, scale_d) { asm(...); } };
void emit_wgmma_rs(std::string& out, const RsWgmmaForm& f) {
  const int regs = f.n / 2;
  const int kind = 2 * (f.b_n_major ? 1 : 0) + (f.bf16 ? 1 : 0);
  const std::string ns = std::to_string(f.n);
  const auto op = [](int i) { return "%" + std::to_string(i); };
  out += "template <>\nstruct wgmma_rs<" + ns + ", " + std::to_string(kind) + "> {\n  static __device__ __forceinline__ void run(float (&d)[" +
         std::to_string(regs) + "], u32 a0, u32 a1, u32 a2, u32 a3, u64 b, int scale_d) {\n    asm volatile(\n"
         "        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, " + op(regs + 5) + ", 0;\\n\"\n"
         "        \"wgmma.mma_async.sync.aligned.m64n" + ns + "k16.f32" + (f.bf16 ? ".bf16.bf16" : ".f16.f16") + " {\"\n        \"";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    out += op(i);
  }
  out += "},\"\n        \" {" + op(regs) + ", " + op(regs + 1) + ", " + op(regs + 2) + ", " + op(regs + 3) + "}, " +
         op(regs + 4) + ", p, 1, 1, " + (f.b_n_major ? "1" : "0") + ";\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += "\"+f\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

// SS mode with a transposed operand, both in shared memory:
// template <> struct wgmma_ss_tb<N, Bf16> { static void run(d, a, b, scale_d) { asm(...); } }
// (B N-major, imm-trans-b), or wgmma_ss_ta<N, 2 * (B N-major) + Bf16> (A
// M-major, imm-trans-a).
void emit_wgmma_ss_transposed(std::string& out, const RsWgmmaForm& f) {
  const int regs = f.n / 2;
  const std::string ns = std::to_string(f.n);
  const auto op = [](int i) { return "%" + std::to_string(i); };
  const std::string name = f.a_m_major ? "wgmma_ss_ta" : "wgmma_ss_tb";
  const int kind = (f.a_m_major && f.b_n_major ? 2 : 0) + (f.bf16 ? 1 : 0);
  const std::string transposes = f.a_m_major ? (f.b_n_major ? "1, 1" : "1, 0") : "0, 1";
  out += "template <>\nstruct " + name + "<" + ns + ", " + std::to_string(kind) +
         "> {\n  static __device__ __forceinline__ void run(float (&d)[" + std::to_string(regs) +
         "], u64 a, u64 b, int scale_d) {\n    asm volatile(\n"
         "        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, " + op(regs + 2) + ", 0;\\n\"\n"
         "        \"wgmma.mma_async.sync.aligned.m64n" + ns + "k16.f32" + (f.bf16 ? ".bf16.bf16" : ".f16.f16") + " {\"\n        \"";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    out += op(i);
  }
  out += "},\"\n        \" " + op(regs) + ", " + op(regs + 1) + ", p, 1, 1, " + transposes + ";\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += "\"+f\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"l\"(a), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

}  // namespace

std::string hopper_prelude_frag(const std::vector<RsWgmmaForm>& forms) {
  std::string specializations;
  for (const RsWgmmaForm& f : forms)
    f.a_in_shared ? emit_wgmma_ss_transposed(specializations, f) : emit_wgmma_rs(specializations, f);
  return prelude_with("hopper_frag.cuh", "wgmma_rs", specializations);
}

}  // namespace croq::backend::cuda
