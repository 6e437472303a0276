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

}  // namespace

std::string hopper_prelude_fp8(const std::vector<Fp8WgmmaForm>& forms) {
  std::string specializations;
  for (const Fp8WgmmaForm& f : forms) emit_wgmma(specializations, f.n, fp8_kind(f));
  return prelude_with("hopper_fp8.cuh", "wgmma_fp8_ss", specializations);
}

}  // namespace croq::backend::cuda
