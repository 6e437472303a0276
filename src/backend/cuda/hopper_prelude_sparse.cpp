// The sparse WGMMA section of the device prelude (see hopper_prelude.hpp):
// wgmma.mma_async.sp with a 2:4 sparse A (m64nNk32 for f16 / bf16,
// m64nNk64 for e4m3 / e5m2) and the gather of each thread's metadata
// register from a u8 [64, K / 8] shared tile. A kernel with sparse
// multiplies pastes it after the prelude, with the forms it uses only.
//
// PTX ISA (wgmma .sp, sparse matrix storage and metadata layout): A is read
// K-major from a descriptor holding the packed values (32 bytes of each row
// per instruction, as a dense k16 / fp8 k32 A), B K-major over the dense K
// (64 bytes of each row). Thread t of the warpgroup (warp w = t / 32, lane
// l) holds 32 bits of 4-bit codes:
//   16-bit inputs: row 16w + l / 4 in bits 0-15 and the row 8 below in bits
//     16-31, dense K 16 * (l % 2) .. +15 of each (metadata bytes 2 * (l % 2)
//     and +1); lanes with l % 4 in {2, 3} hold what lanes {0, 1} hold, so
//     sparsity selector 0 (lanes 0 and 1 of each quad) reads the right ones.
//   fp8 inputs: row 16w + l / 4 + 8 * (l % 2), dense K 32 * ((l / 2) % 2) ..
//     +31 (bytes 4 * ((l / 2) % 2) .. +3); the selector must be 0.
// Codes are little-endian: byte j's low nibble is the group before its high
// nibble (choreo::utils::SparsePolicyWGMMA writes them so).
#include <string>

#include "backend/cuda/hopper_prelude.hpp"

namespace croq::backend::cuda {
namespace {

constexpr std::string_view kSparseHead = R"CUDA(
// ===== croq hopper prelude: sparse WGMMA (2:4 A, .sp) =====
namespace croq_dev {
#if CROQ_DEV_SM90A
// This thread's metadata register for one WGMMA .sp step; `tile` is the
// step's first metadata byte (row 0), `pitch` bytes per metadata row.
template <bool Fp8>
__device__ __forceinline__ u32 sparse_metadata(const void* tile, unsigned pitch) {
  const unsigned t = threadIdx.x % 128u, w = t / 32u, l = t % 32u;
  const unsigned char* base = static_cast<const unsigned char*>(tile);
  if (Fp8) {
    const unsigned char* p = base + (16u * w + l / 4u + 8u * (l % 2u)) * pitch + 4u * ((l / 2u) % 2u);
    return u32(p[0]) | (u32(p[1]) << 8) | (u32(p[2]) << 16) | (u32(p[3]) << 24);
  }
  const unsigned char* p = base + (16u * w + l / 4u) * pitch + 2u * (l % 2u);
  const unsigned char* q = p + 8u * pitch;
  return u32(p[0]) | (u32(p[1]) << 8) | (u32(q[0]) << 16) | (u32(q[1]) << 24);
}
namespace detail {
// Kind = 16 * (f16 accumulator) + 4 * code(A) + code(B).
template <int N, int Kind>
struct wgmma_sp_ss;
template <typename T>
struct sparse_code;
template <>
struct sparse_code<__half> {
  static constexpr int value = 0;
};
template <>
struct sparse_code<__nv_bfloat16> {
  static constexpr int value = 1;
};
)CUDA";

constexpr std::string_view kSparseFp8Codes = R"CUDA(template <>
struct sparse_code<__nv_fp8_e4m3> {
  static constexpr int value = 2;
};
template <>
struct sparse_code<__nv_fp8_e5m2> {
  static constexpr int value = 3;
};
)CUDA";

constexpr std::string_view kSparseTail = R"CUDA(}  // namespace detail

// D[64 x N] (+)= A[64 x K] * B[K x N] for one WGMMA .sp step (K = 32 for
// __half / __nv_bfloat16, 64 for fp8): desc_a over the packed A (K / 2
// values a row), desc_b over B as [N][K], meta from sparse_metadata. d is
// the accumulator of the dense forms (same registers and fragment layout).
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_sp_m64nNkK(float (&d)[N / 2], u64 desc_a, u64 desc_b, u32 meta, int scale_d = 1) {
  detail::wgmma_sp_ss<N, 4 * detail::sparse_code<TA>::value + detail::sparse_code<TB>::value>::run(d, desc_a, desc_b,
                                                                                                   meta, scale_d);
}
template <int N, typename TA, typename TB>
__device__ __forceinline__ void wgmma_sp_m64nNkK(u32 (&d)[N / 4], u64 desc_a, u64 desc_b, u32 meta, int scale_d = 1) {
  detail::wgmma_sp_ss<N, 16 + 4 * detail::sparse_code<TA>::value + detail::sparse_code<TB>::value>::run(
      d, desc_a, desc_b, meta, scale_d);
}
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
// ===== end of croq hopper prelude: sparse WGMMA =====
)CUDA";

const char* const kTypeNames[] = {"f16", "bf16", "e4m3", "e5m2"};

// template <> struct wgmma_sp_ss<N, Kind> { static void run(d, a, b, meta, scale_d) { asm(...); } };
void emit_sparse_wgmma(std::string& out, const SparseWgmmaForm& f) {
  const bool fp8 = f.a_type >= 2;
  const int values_per_reg = f.f16_accumulator ? 2 : 1;
  const int regs = f.n / 2 / values_per_reg;
  const int kind = 16 * (f.f16_accumulator ? 1 : 0) + 4 * f.a_type + f.b_type;
  const std::string ptx = std::string("wgmma.mma_async.sp.sync.aligned.m64n") + std::to_string(f.n) +
                          (fp8 ? "k64" : "k32") + (f.f16_accumulator ? ".f16." : ".f32.") + kTypeNames[f.a_type] + "." +
                          kTypeNames[f.b_type];
  std::string d_list;
  for (int i = 0; i < regs; ++i) {
    if (i > 0) d_list += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    d_list += "%" + std::to_string(i);
  }
  const std::string r = std::to_string(regs);
  // Operands: d, desc-a, desc-b, metadata, selector 0, scale-d, scale-a 1,
  // scale-b 1, and for 16-bit inputs trans-a 0, trans-b 0 (K-major).
  out += "template <>\nstruct wgmma_sp_ss<" + std::to_string(f.n) + ", " + std::to_string(kind) +
         "> {\n  static __device__ __forceinline__ void run(" + (f.f16_accumulator ? "u32" : "float") + " (&d)[" + r +
         "], u64 a, u64 b, u32 e, int scale_d) {\n    asm volatile(\n        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" +
         std::to_string(regs + 3) + ", 0;\\n\"\n        \"" + ptx + " {\"\n        \"" + d_list + "},\"\n        \" %" + r +
         ", %" + std::to_string(regs + 1) + ", %" + std::to_string(regs + 2) + ", 0, p, 1, 1" + (fp8 ? "" : ", 0, 0") +
         ";\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += std::string(f.f16_accumulator ? "\"+r\"" : "\"+f\"") + "(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"l\"(a), \"l\"(b), \"r\"(e), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

}  // namespace

std::string hopper_prelude_sparse(const std::vector<SparseWgmmaForm>& forms) {
  std::string text(kSparseHead);
  bool fp8 = false;
  for (const SparseWgmmaForm& f : forms) fp8 = fp8 || f.a_type >= 2;
  if (fp8) text += kSparseFp8Codes;
  for (const SparseWgmmaForm& f : forms) emit_sparse_wgmma(text, f);
  text += kSparseTail;
  return text;
}

}  // namespace croq::backend::cuda
