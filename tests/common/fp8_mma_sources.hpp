// Croqtile fp8 GEMM kernels for the WGMMA fp8 path (m64nNk32, e4m3 / e5m2),
// shared by tests/lower/fp8_mma_test.cpp (generated CUDA, NVRTC for
// sm_90a), tests/gpu/fp8_mma_gpu_test.cpp (run against a host reference)
// and tests/sema/valid_programs_test.cpp (no false positives).
//
// All compute C = A * B^T with A [M, K] and B [N, K] (K-major, as fp8 WGMMA
// reads both operands) and C [M, N] in the output type. Each K step stages a
// [64 * groups, span] tile of A and a [tile_n, span] tile of B: fp8 rows of
// `span` elements are `span` bytes, one swizzle span.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace croq::test {

struct Fp8Gemm {
  std::string lhs = "f8_e4m3", rhs = "f8_e4m3";  // f8_e4m3 or f8_e5m2
  std::string out = "f32";                       // f32, f16 or bf16
  std::string acc = "f32";                       // mma.fill.f32 / mma.fill.f16
  int span = 128;                                // .swiz<span>; also K per step
  int tile_n = 128;                              // N per block (a multiple of 8)
  int groups = 1;                                // consumer warpgroups, 64 rows each
  std::string copy = "tma";                      // tma or dma
  enum class Operands { direct, loaded, k_slices } operands = Operands::direct;
  bool shared_output = false;  // mma.store into a shared tile, then dma.copy it out (groups == 1)

  std::string name() const {
    static const char* const forms[] = {"direct", "loaded", "kslices"};
    auto short_type = [](const std::string& t) { return t.substr(3); };  // e4m3, e5m2
    return short_type(lhs) + "_" + short_type(rhs) + "_" + out + "_acc" + acc + "_swiz" + std::to_string(span) + "_n" +
           std::to_string(tile_n) + "_g" + std::to_string(groups) + "_" + copy + "_" +
           forms[static_cast<int>(operands)] + (shared_output ? "_smem_out" : "");
  }

  std::string source() const {
    const std::string swiz = ".swiz<" + std::to_string(span) + ">";
    const std::string rows = std::to_string(64 * groups), tn = std::to_string(tile_n), tk = std::to_string(span);
    std::string s = "__co__ void matmul(global " + lhs + " [M, K] lhs, global " + rhs + " [N, K] rhs, global " + out +
                    " [M, N] output) {\n"
                    "  parallel {block_m, block_n} by [cdiv(M, " + rows + "), cdiv(N, " + tn + ")] : block {\n";
    if (shared_output) s += "    shared " + out + " [64, " + tn + "] out_s;\n";
    s += "    parallel p by " + std::to_string(groups) + " : group-4 {\n"
         "      mc = mma.fill." + acc + " 0.0f;\n"
         "      foreach {iv_k} in [cdiv(K, " + tk + ")] {\n"
         "        a = " + copy + ".copy" + swiz + " lhs.subspan(" + rows + ", " + tk + ").at(block_m, iv_k).zfill => shared;\n"
         "        b = " + copy + ".copy" + swiz + " rhs.subspan(" + tn + ", " + tk + ").at(block_n, iv_k).zfill => shared;\n";
    const std::string a = groups == 1 ? "a.data" : "a.data.subspan(64, " + tk + ").at(p, 0)";
    switch (operands) {
      case Operands::direct:
        s += "        mma.row.row mc, " + a + ", b.data;\n";
        break;
      case Operands::loaded:
        s += "        ma = mma.load" + swiz + " " + a + ";\n"
             "        mb = mma.load" + swiz + " b.data;\n"
             "        mma.row.row mc, ma, mb;\n";
        break;
      case Operands::k_slices:  // one k32 slice of the swizzled rows per mma
        s += "        foreach {kk} in [" + std::to_string(span / 32) + "] {\n"
             "          mma.row.row mc, " + a + ".chunkat(_, kk), b.data.chunkat(_, kk);\n"
             "        }\n";
        break;
    }
    s += "        mma.commit;\n"
         "      }\n";
    const std::string tile = "output.subspan(" + rows + ", " + tn + ").at(block_m, block_n)" +
                             (groups == 1 ? "" : ".subspan(64, " + tn + ").at(p, 0)");
    if (shared_output)
      s += "      mma.store mc, out_s;\n"
           "      dma.copy out_s => " + tile + ";\n";
    else
      s += "      mma.store mc, " + tile + ";\n";
    s += "    }\n"
         "  }\n"
         "}\n";
    return s;
  }
};

// e4m3 and e5m2 on either side, f32 and f16 accumulators, f32 / f16 / bf16
// outputs (global and through shared memory), 128/64/32-byte swizzles,
// TMA- and dma-staged tiles, operands direct, through mma.load and as k32
// slices of wider rows, one and two consumer warpgroups.
inline std::vector<Fp8Gemm> fp8_gemm_cases() {
  using O = Fp8Gemm::Operands;
  auto g = [](std::string lhs, std::string rhs, std::string out, std::string acc, int span, int tile_n, int groups,
              std::string copy, O operands, bool shared_output = false) {
    Fp8Gemm c;
    c.lhs = std::move(lhs);
    c.rhs = std::move(rhs);
    c.out = std::move(out);
    c.acc = std::move(acc);
    c.span = span;
    c.tile_n = tile_n;
    c.groups = groups;
    c.copy = std::move(copy);
    c.operands = operands;
    c.shared_output = shared_output;
    return c;
  };
  return {g("f8_e4m3", "f8_e4m3", "f32", "f32", 128, 128, 1, "tma", O::direct),
          g("f8_e4m3", "f8_e4m3", "bf16", "f32", 128, 256, 2, "tma", O::direct),
          g("f8_e5m2", "f8_e5m2", "f32", "f32", 64, 64, 1, "tma", O::loaded),
          g("f8_e4m3", "f8_e5m2", "f16", "f32", 32, 128, 1, "dma", O::loaded),
          g("f8_e5m2", "f8_e4m3", "bf16", "f32", 128, 120, 1, "dma", O::k_slices),
          g("f8_e4m3", "f8_e4m3", "f16", "f16", 128, 128, 1, "tma", O::k_slices, true),
          g("f8_e4m3", "f8_e4m3", "f32", "f32", 64, 128, 2, "dma", O::direct),
          g("f8_e4m3", "f8_e4m3", "bf16", "f32", 128, 64, 1, "tma", O::direct, true)};
}

// gtest prints parameters with this instead of their bytes.
inline void PrintTo(const Fp8Gemm& g, std::ostream* os) { *os << g.name(); }

}  // namespace croq::test
