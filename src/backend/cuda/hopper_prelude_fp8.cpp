// The fp8 WGMMA section of the device prelude (see hopper_prelude.hpp):
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

namespace croq::backend::cuda {
namespace {

constexpr std::string_view kFp8Head = R"CUDA(
// ===== croq hopper prelude: fp8 WGMMA (m64nNk32, e4m3 / e5m2) =====
namespace croq_dev {
#if CROQ_DEV_SM90A
namespace detail {
// Kind = 4 * (f16 accumulator) + 2 * (A is e5m2) + (B is e5m2).
template <int N, int Kind>
struct wgmma_fp8_ss;
template <typename T>
struct fp8_code;
template <>
struct fp8_code<__nv_fp8_e4m3> {
  static constexpr int value = 0;
};
template <>
struct fp8_code<__nv_fp8_e5m2> {
  static constexpr int value = 1;
};
)CUDA";

constexpr std::string_view kFp8Tail = R"CUDA(}  // namespace detail

// D[64 x N] (+)= A[64 x 32] * B[32 x N], A of type TA and B of type TB
// (__nv_fp8_e4m3 or __nv_fp8_e5m2), K-major in shared memory (A as [M][K],
// B as [N][K]). d is the accumulator of wgmma_m64nNk16 (same registers and
// fragment layout): N/2 floats, or N/4 registers of two halves.
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_m64nNk32(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_fp8_ss<N, 2 * detail::fp8_code<TA>::value + detail::fp8_code<TB>::value>::run(d, desc_a, desc_b,
                                                                                               scale_d);
}
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_m64nNk32(u32 (&d)[N / 4], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_fp8_ss<N, 4 + 2 * detail::fp8_code<TA>::value + detail::fp8_code<TB>::value>::run(d, desc_a, desc_b,
                                                                                                   scale_d);
}
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
// ===== end of croq hopper prelude: fp8 WGMMA =====
)CUDA";

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
  std::string text(kFp8Head);
  for (const Fp8WgmmaForm& f : forms) emit_wgmma(text, f.n, fp8_kind(f));
  text += kFp8Tail;
  return text;
}

}  // namespace croq::backend::cuda
