// The sparse WGMMA section of the device prelude (see hopper_prelude.hpp;
// the text is prelude/hopper_sparse.cuh and hopper_sparse_fp8.cuh):
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
#include "backend/cuda/prelude_files.hpp"

namespace croq::backend::cuda {
namespace {

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
  std::string specializations;
  bool fp8 = false;
  for (const SparseWgmmaForm& f : forms) {
    fp8 = fp8 || f.a_type >= 2;
    emit_sparse_wgmma(specializations, f);
  }
  std::string text = prelude_with("hopper_sparse.cuh", "wgmma_sp_ss", specializations);
  if (fp8) text += prelude_file("hopper_sparse_fp8.cuh");  // needs <cuda_fp8.h>, which only fp8 kernels include
  return text;
}

}  // namespace croq::backend::cuda
