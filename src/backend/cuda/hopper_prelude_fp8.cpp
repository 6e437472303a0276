// The fp8 WGMMA section of the device prelude (see hopper_prelude.hpp;
// the text is prelude/hopper_fp8.cuh):
// wgmma.mma_async m64nNk32 with e4m3 / e5m2 operands (either on each side)
// and f32 or f16 accumulators. A kernel that multiplies fp8 tiles pastes it
// after the prelude and <cuda_fp8.h>, with the specializations of the forms
// it uses only (each is an inline-asm block of up to 128 output registers).
//
// PTX: fp8 wgmma reads both operands K-major from shared-memory descriptors
// and has no imm-trans-a / imm-trans-b operands; one instruction's K slice
// is 32 elements = 32 bytes, the same bytes as k16 of f16, so the
// descriptors and their per-step advance are those of the 16-bit forms.
#include "backend/cuda/hopper_prelude.hpp"
#include "backend/cuda/hopper_prelude_parts.hpp"
#include "backend/cuda/prelude_files.hpp"

namespace croq::backend::cuda {
namespace {

// The enumerator (Kind) of a form, and its PTX types.
WgmmaKind fp8_kind(const Fp8WgmmaForm& f) {
  static const char* const enumerators[] = {"0", "1", "2", "3", "4", "5", "6", "7"};
  static const char* const types[] = {".f32.e4m3.e4m3", ".f32.e4m3.e5m2", ".f32.e5m2.e4m3", ".f32.e5m2.e5m2",
                                      ".f16.e4m3.e4m3", ".f16.e4m3.e5m2", ".f16.e5m2.e4m3", ".f16.e5m2.e5m2"};
  const int kind = 4 * (f.f16_accumulator ? 1 : 0) + 2 * (f.a_e5m2 ? 1 : 0) + (f.b_e5m2 ? 1 : 0);
  return f.f16_accumulator ? WgmmaKind{"wgmma_fp8_ss", enumerators[kind], "k32", types[kind], "u32", "+r", 2, false}
                           : WgmmaKind{"wgmma_fp8_ss", enumerators[kind], "k32", types[kind], "float", "+f", 1, false};
}

// template <> struct wgmma_fp8_rs<N, Kind> { static void run(d, a0..a3, b, scale_d) { asm(...); } }:
// A from four registers (pack_fragment_fp8's k32 slice), f32 accumulators.
void emit_wgmma_fp8_rs(std::string& out, const Fp8WgmmaForm& f) {
  const int regs = f.n / 2;
  const int kind = 2 * (f.a_e5m2 ? 1 : 0) + (f.b_e5m2 ? 1 : 0);
  const std::string ns = std::to_string(f.n);
  const auto op = [](int i) { return "%" + std::to_string(i); };
  out += "template <>\nstruct wgmma_fp8_rs<" + ns + ", " + std::to_string(kind) +
         "> {\n  static __device__ __forceinline__ void run(float (&d)[" + std::to_string(regs) +
         "], u32 a0, u32 a1, u32 a2, u32 a3, u64 b, int scale_d) {\n    asm volatile(\n"
         "        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, " + op(regs + 5) + ", 0;\\n\"\n"
         "        \"wgmma.mma_async.sync.aligned.m64n" + ns + "k32" + fp8_kind(f).ptx_types + " {\"\n        \"";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    out += op(i);
  }
  out += "},\"\n        \" {" + op(regs) + ", " + op(regs + 1) + ", " + op(regs + 2) + ", " + op(regs + 3) + "}, " +
         op(regs + 4) + ", p, 1, 1;\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += "\"+f\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

}  // namespace

std::string hopper_prelude_fp8(const std::vector<Fp8WgmmaForm>& forms) {
  std::string specializations;
  for (const Fp8WgmmaForm& f : forms)
    f.a_in_registers ? emit_wgmma_fp8_rs(specializations, f) : emit_wgmma(specializations, f.n, fp8_kind(f));
  return prelude_with("hopper_fp8.cuh", "wgmma_fp8_ss", specializations);
}

}  // namespace croq::backend::cuda
