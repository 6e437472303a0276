// Croqtile 2:4 sparse GEMM kernels for the WGMMA .sp path, shared by
// tests/lower/sparse_mma_test.cpp (generated CUDA, NVRTC for sm_90a)
// and tests/gpu/sparse_mma_gpu_test.cpp (run against a host reference).
//
// C [M, N] (f32) = A * B^T where A [M, K] is 2:4 sparse, given as its packed
// values P [M, K / 2] and metadata bytes E u8 [M, K / 8]
// (choreo::utils::SparsePolicyWGMMA), and B is [N, K]. Each K step stages
// P [64, tile_k / 2], B [tile_n, tile_k] and E [64, tile_k / 8] and runs
// tile_k / step sparse mmas (step = 32 for 16-bit types, 64 for fp8), one
// per chunk of each tile.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace croq::test {

struct SparseGemm {
  std::string type = "f16";  // f16, bf16, f8_e4m3 (both operands)
  std::string acc = "f32";   // mma.fill.f32 / mma.fill.f16 (f16 for f16 / fp8 only)
  int tile_k = 64;           // dense K per stage
  int tile_n = 32;
  bool fp8() const { return type.rfind("f8_", 0) == 0; }
  int element_bytes() const { return fp8() ? 1 : 2; }
  int step() const { return fp8() ? 64 : 32; }
  int packed_span() const { return tile_k / 2 * element_bytes(); }  // bytes of a packed row: its swizzle
  int rhs_span() const { return tile_k * element_bytes(); }

  std::string name() const {
    return type + "_acc" + acc + "_k" + std::to_string(tile_k) + "_n" + std::to_string(tile_n);
  }

  std::string source() const {
    const std::string tk = std::to_string(tile_k), tn = std::to_string(tile_n);
    const std::string chunks = std::to_string(tile_k / step());
    return "__co__ void sparse_matmul(global " + type + " [M, KP] packed, global u8 [M, KE] meta, global " + type +
           " [N, K] rhs, global f32 [M, N] output) {\n"
           "  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, " + tn + ")] : block {\n"
           "    mc = mma.fill." + acc + " 0.0f;\n"
           "    foreach {iv_k} in [cdiv(K, " + tk + ")] {\n"
           "      a = tma.copy.swiz<" + std::to_string(packed_span()) + "> packed.subspan(64, " +
           std::to_string(tile_k / 2) + ").at(block_m, iv_k) => shared;\n"
           "      b = tma.copy.swiz<" + std::to_string(rhs_span()) + "> rhs.subspan(" + tn + ", " + tk +
           ").at(block_n, iv_k) => shared;\n"
           "      e = dma.copy meta.subspan(64, " + std::to_string(tile_k / 8) + ").at(block_m, iv_k) => shared;\n"
           "      foreach {iv_s} in [" + chunks + "] {\n"
           "        parallel p by 1 : group-4 {\n"
           "          me = mma.load e.chunkat(_, iv_s);\n"
           "          mma.row.row.sp mc, a.chunkat(_, iv_s), b.chunkat(_, iv_s), me;\n"
           "        }\n"
           "      }\n"
           "    }\n"
           "    mma.store mc, output.subspan(64, " + tn + ").at(block_m, block_n);\n"
           "  }\n"
           "}\n";
  }
};

// f16, bf16 and e4m3; one and two .sp chunks per stage; N from 8 to 128;
// f16 accumulators for f16 and fp8.
inline std::vector<SparseGemm> sparse_gemm_cases() {
  auto g = [](std::string type, std::string acc, int tile_k, int tile_n) {
    SparseGemm c;
    c.type = std::move(type);
    c.acc = std::move(acc);
    c.tile_k = tile_k;
    c.tile_n = tile_n;
    return c;
  };
  return {g("f16", "f32", 64, 32),  g("f16", "f32", 32, 8),     g("bf16", "f32", 64, 16),
          g("f16", "f16", 64, 128), g("f8_e4m3", "f32", 64, 64), g("f8_e4m3", "f32", 128, 8),
          g("f8_e4m3", "f16", 64, 32)};
}

inline void PrintTo(const SparseGemm& g, std::ostream* os) { *os << g.name(); }

}  // namespace croq::test
