// Croqtile GEMM kernels for the mma.sync path (mma.* below sm_90), shared by
// tests/lower/mma_sync_test.cpp (NVRTC) and tests/gpu/mma_sync_gpu_test.cpp
// (run through the public API with arch compute_80).
//
// All compute C = A * B^T with A [M, K] and B [N, K] (K-major) in the input
// type and C [M, N] in the output type, like samples/matmul_wgmma but with
// the tiles staged by dma.copy (optionally .swiz<N>) instead of tma.copy.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace croq::test {

struct MmaSyncGemm {
  std::string in = "f16";   // f16 or bf16
  std::string out = "f16";  // f32, f16 or bf16
  std::string acc = "f32";  // mma.fill.f32 / mma.fill.f16 (f16 inputs only)
  int span = 128;           // .swiz<span> on the copies and mma.load; 0: no swizzle
  int tile_k = 0;           // K per step; 0: one swizzle span of the input (64 when unswizzled)
  int tile_n = 128;         // N per block (a multiple of 8)
  int groups = 1;           // consumer warpgroups per block, 64 rows each
  bool direct = false;      // pass the shared tiles to mma directly (no mma.load)

  int k_step() const { return tile_k ? tile_k : span ? span / 2 : 64; }

  std::string name() const {
    return in + "_" + out + "_acc" + acc + "_swiz" + std::to_string(span) + "_k" + std::to_string(k_step()) + "_n" +
           std::to_string(tile_n) + "_g" + std::to_string(groups) + (direct ? "_direct" : "");
  }

  std::string source() const {
    const std::string swiz = span ? ".swiz<" + std::to_string(span) + ">" : "";
    const std::string rows = std::to_string(64 * groups), tn = std::to_string(tile_n), tk = std::to_string(k_step());
    std::string s = "__co__ void matmul(global " + in + " [M, K] lhs, global " + in + " [N, K] rhs, global " + out +
                    " [M, N] output) {\n"
                    "  parallel {block_m, block_n} by [cdiv(M, " + rows + "), cdiv(N, " + tn + ")] : block {\n"
                    "    parallel p by " + std::to_string(groups) + " : group-4 {\n"
                    "      mc = mma.fill." + acc + " 0.0f;\n"
                    "      foreach {iv_k} in [cdiv(K, " + tk + ")] {\n"
                    "        a = dma.copy" + swiz + " lhs.subspan(" + rows + ", " + tk + ").at(block_m, iv_k).zfill => shared;\n"
                    "        b = dma.copy" + swiz + " rhs.subspan(" + tn + ", " + tk + ").at(block_n, iv_k).zfill => shared;\n";
    const std::string lhs = groups == 1 ? "a.data" : "a.data.subspan(64, " + tk + ").at(p, 0)";
    if (direct) {
      s += "        mma.row.row mc, " + lhs + ", b.data;\n";
    } else {
      s += "        ma = mma.load" + swiz + " " + lhs + ";\n"
           "        mb = mma.load" + swiz + " b.data;\n"
           "        mma.row.row mc, ma, mb;\n";
    }
    s += "        mma.commit;\n"
         "      }\n"
         "      mma.store mc, output.subspan(" + rows + ", " + tn + ").at(block_m, block_n)" +
         (groups == 1 ? "" : ".subspan(64, " + tn + ").at(p, 0)") + ";\n"
         "    }\n"
         "  }\n"
         "}\n";
    return s;
  }
};

inline MmaSyncGemm mma_sync_gemm(std::string in, std::string out, std::string acc, int span, int tile_k = 0,
                                 int tile_n = 128, int groups = 1, bool direct = false) {
  MmaSyncGemm g;
  g.in = std::move(in);
  g.out = std::move(out);
  g.acc = std::move(acc);
  g.span = span;
  g.tile_k = tile_k;
  g.tile_n = tile_n;
  g.groups = groups;
  g.direct = direct;
  return g;
}

// f16 and bf16 inputs, f32 and f16 accumulators, 128/64/32-byte swizzles and
// unswizzled tiles (one 48 wide with an odd count of n8 blocks), two
// consumer warpgroups, shared tiles passed to mma directly.
inline std::vector<MmaSyncGemm> mma_sync_gemm_cases() {
  return {mma_sync_gemm("f16", "f16", "f32", 128),
          mma_sync_gemm("bf16", "bf16", "f32", 128),
          mma_sync_gemm("f16", "f32", "f16", 128),
          mma_sync_gemm("f16", "f16", "f32", 64),
          mma_sync_gemm("bf16", "f32", "f32", 32),
          mma_sync_gemm("f16", "f16", "f32", 0),
          mma_sync_gemm("bf16", "bf16", "f32", 0, 48, 40),
          mma_sync_gemm("f16", "f16", "f16", 128, 0, 128, 2),
          mma_sync_gemm("bf16", "bf16", "f32", 64, 0, 72, 2, true)};
}

// Warp-specialized, through events on two stages: warpgroup 0 stages
// 128 x 64 tiles of lhs and rhs with dma.copy.swiz<128>, warpgroups 1 and 2
// multiply 64 rows each (f16 in and out, f32 accumulate).
inline const char* const kMmaSyncPipelined = R"croq(
__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 128), cdiv(N, 128)] : block {
    shared event full[2], empty[2] = ready;
    shared f16 [128, 64] lhs_s[2];
    shared f16 [128, 64] rhs_s[2];
    parallel p by 3 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv_k} in [cdiv(K, 64)] {
          stage = iv_k % 2;
          wait empty[stage];
          dma.copy.swiz<128> lhs.subspan(128, 64).at(block_m, iv_k).zfill => lhs_s[stage];
          dma.copy.swiz<128> rhs.subspan(128, 64).at(block_n, iv_k).zfill => rhs_s[stage];
          trigger full[stage];
        }
      }
      inthreads.async (p >= 1) {
        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          stage = iv_k % 2;
          wait full[stage];
          mma.row.row mc, lhs_s[stage].subspan(64, 64).at(p - 1, 0), rhs_s[stage];
          trigger empty[stage];
        }
        mma.store mc, output.subspan(128, 128).at(block_m, block_n).subspan(64, 128).at(p - 1, 0);
      }
    }
  }
}
)croq";

// gtest prints parameters with this instead of their bytes.
inline void PrintTo(const MmaSyncGemm& g, std::ostream* os) { *os << g.name(); }

// Warp-level mma: each warp of a `parallel {g0, g1} by [4, 2] : group`
// level owns one 16 x 8 tile of the block's 64 x 16 output and runs its own
// mma.sync m16n8k16. row_col: rhs is [K, N] (C = A * B, the rhs read with
// ldmatrix.trans); otherwise rhs is [N, K] (row.row, C = A * B^T). K goes in
// steps of tile_k (a multiple of 16) through shared tiles every warp reads.
struct WarpMmaGemm {
  std::string in = "f16";   // f16 or bf16
  std::string out = "f32";  // f32, f16 or bf16
  std::string acc = "f32";  // f32, or f16 (f16 inputs only)
  bool row_col = false;
  int tile_k = 16;

  std::string name() const {
    return std::string(row_col ? "rowcol_" : "rowrow_") + in + "_" + out + "_acc" + acc + "_k" + std::to_string(tile_k);
  }

  std::string source() const {
    const std::string tk = std::to_string(tile_k);
    const std::string rhs_shape = row_col ? "[K, N]" : "[N, K]";
    const std::string rhs_tile = row_col ? "rhs.subspan(" + tk + ", 16).at(iv_k, block_n)" : "rhs.subspan(16, " + tk + ").at(block_n, iv_k)";
    const std::string rhs_part = row_col ? "b.data.subspan(" + tk + ", 8).at(0, g1)" : "b.data.subspan(8, " + tk + ").at(g1, 0)";
    return "__co__ void matmul(global " + in + " [M, K] lhs, global " + in + " " + rhs_shape + " rhs, global " + out +
           " [M, N] output) {\n"
           "  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 16)] : block {\n"
           "    parallel {g0, g1} by [4, 2] : group {\n"
           "      mc = mma.fill." + acc + " 0.0f;\n"
           "      foreach {iv_k} in [cdiv(K, " + tk + ")] {\n"
           "        a = dma.copy lhs.subspan(64, " + tk + ").at(block_m, iv_k).zfill => shared;\n"
           "        b = dma.copy " + rhs_tile + ".zfill => shared;\n"
           "        ma = mma.load a.data.subspan(16, " + tk + ").at(g0, 0);\n"
           "        mb = mma.load " + rhs_part + ";\n"
           "        mma." + std::string(row_col ? "row.col" : "row.row") + " mc, ma, mb;\n"
           "      }\n"
           "      mma.store mc, output.subspan(64, 16).at(block_m, block_n).subspan(16, 8).at(g0, g1);\n"
           "    }\n"
           "  }\n"
           "}\n";
  }
};

inline WarpMmaGemm warp_mma_gemm(std::string in, std::string out, std::string acc, bool row_col, int tile_k = 16) {
  WarpMmaGemm g;
  g.in = std::move(in);
  g.out = std::move(out);
  g.acc = std::move(acc);
  g.row_col = row_col;
  g.tile_k = tile_k;
  return g;
}

// Both layouts; f16 and bf16 inputs; f32 and f16 accumulators; one and two
// k16 steps per shared tile.
inline std::vector<WarpMmaGemm> warp_mma_gemm_cases() {
  return {warp_mma_gemm("f16", "f32", "f32", false),     warp_mma_gemm("f16", "f32", "f32", true),
          warp_mma_gemm("bf16", "bf16", "f32", true, 32), warp_mma_gemm("bf16", "f32", "f32", false, 32),
          warp_mma_gemm("f16", "f16", "f16", true, 32),   warp_mma_gemm("f16", "f16", "f16", false)};
}

inline void PrintTo(const WarpMmaGemm& g, std::ostream* os) { *os << g.name(); }

// A warp-level GEMM through gathered fragments: the accumulator filled at
// block scope (each warp its own), refilled with 0 in the `: group` level,
// operands loaded straight from global memory as TM x TK and TK x TN (row.col,
// rhs [K, N]) or TN x TK (row.row, rhs [N, K]) chunks, plus 1 added to every
// element before the store: C = A * B (+ 1). M = 4 TM, N = 4 TN, K a multiple
// of TK make the chunks exact.
struct WarpGatherGemm {
  std::string in = "f16";   // f16, bf16, s8, u8, f32 (as tf32)
  std::string acc = "f32";  // f32, f16 or s32
  std::string out = "f32";
  int tm = 16, tn = 16, tk = 16;
  bool row_col = true;
  bool transpose = false;  // mma.store.transp into an [N, M] output
  bool array = false;      // the accumulator is mc[1][1] of `frag mc[2][2]`
  bool at_top = false;     // with array: the frag before the parallel statement (the kernel's top)

  std::string name() const {
    return in + "_" + acc + "_" + out + "_" + std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(tk) +
           (row_col ? "_rowcol" : "_rowrow") + (transpose ? "_transp" : "") + (array ? "_array" : "") + (at_top ? "_top" : "");
  }
  std::string source() const {
    const std::string out_shape = transpose ? "[N, M]" : "[M, N]";
    const std::string rhs_chunk = row_col ? "rhs.chunkat(k, n#g1)" : "rhs.chunkat(n#g1, k)";
    const std::string dst = transpose ? "output.chunkat(n#g1, m#g0)" : "output.chunkat(m#g0, n#g1)";
    const std::string mc = array ? "mc[1][1]" : "mc";
    const std::string fill = array ? "frag." + acc + " mc[2][2] {7};\n" : "mc = mma.fill." + acc + " 7;\n";
    return "__co__ void matmul(global " + in + " [M, K] lhs, global " + in + (row_col ? " [K, N]" : " [N, K]") +
           " rhs, global " + out + " " + out_shape + " output) {\n" + (at_top ? "  " + fill : "") +
           "  parallel {m, n} by [M / " + std::to_string(2 * tm) + ", N / " + std::to_string(2 * tn) + "] : block {\n" +
           (at_top ? "" : "    " + fill) +
           "    parallel {g0, g1} by [2, 2] : group {\n"
           "      mma.fill " + mc + ", 0;\n"
           "      foreach k in K / " + std::to_string(tk) + " {\n"
           "        ma = mma.load lhs.chunkat(m#g0, k);\n"
           "        mb = mma.load " + rhs_chunk + ";\n"
           "        mma." + (row_col ? "row.col" : "row.row") + " " + mc + ", ma, mb;\n"
           "      }\n"
           "      " + mc + " += 1;\n"
           "      mma.store" + (transpose ? ".transp" : "") + " " + mc + ", " + dst + ";\n"
           "    }\n"
           "  }\n"
           "}\n";
  }
};

inline std::vector<WarpGatherGemm> warp_gather_gemm_cases() {
  return {
      {"f16", "f32", "f16", 16, 16, 16, true, false},   // MMA_N 16 from global, row.col
      {"f16", "f16", "f16", 16, 16, 16, false, false},  // f16 accumulator, row.row
      {"bf16", "f32", "f32", 16, 16, 16, true, false},
      {"f16", "f32", "f32", 8, 8, 4, true, false},      // a tile smaller than m16n8k16
      {"f16", "f32", "f32", 16, 8, 8, true, false},     // K of 8 per step
      {"s8", "s32", "s32", 8, 8, 16, true, false},      // integer mma
      {"u8", "s32", "s32", 16, 16, 16, true, false},
      {"f32", "f32", "f32", 16, 16, 8, true, false},    // tf32
      {"f16", "f32", "f16", 32, 24, 16, false, true},   // two row blocks, three n8 blocks, stored transposed
      {"s8", "s32", "s32", 16, 8, 32, false, false, true},  // one of an array of accumulators (frag.s32 mc[2][2])
      {"f16", "f32", "f32", 16, 16, 16, true, false, true, true},  // the array declared at the kernel's top
  };
}

}  // namespace croq::test
