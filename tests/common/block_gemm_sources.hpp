// Persistent GEMMs in the form of Croqtile's README (synchronous TMA loads
// of whole shared tiles, then the multiplies that read them), shared by the
// GPU tests and the specialize tests of the pipelined k loop.
#pragma once

namespace croq::test {

// Whole K tiles per multiply, operands loaded with mma.load.
inline const char* kWholeTiles = R"croq(
#define TM 64
#define TN 128
#define TK 64
#define BLOCKS 132
__co__ void gemm(global f16 [M, K] a, global f16 [N, K] b, global f16 [M, N] c,
                 global s32 [T] order_m, global s32 [T] order_n) {
  int tiles = cdiv(M, TM) * cdiv(N, TN);
  parallel blk by BLOCKS : block {
    shared f16 [TM, TK] a_s;
    shared f16 [TN, TK] b_s;
    shared f16 [TM, TN] c_s;
    foreach {round} in [cdiv(tiles, BLOCKS)] {
      t = round # blk;
      if (t < tiles) {
        int tm = order_m.at(t);
        int tn = order_n.at(t);
        acc = mma.fill.f32 0.0f;
        foreach {kk} in [cdiv(K, TK)] {
          tma.copy.swiz<128> a.subspan(TM, TK).at(tm, kk) => a_s;
          tma.copy.swiz<128> b.subspan(TN, TK).at(tn, kk) => b_s;
          parallel w by 1 : group-4 {
            fa = mma.load.swiz<128> a_s;
            fb = mma.load.swiz<128> b_s;
            mma.row.row acc, fa, fb;
          }
        }
        mma.store acc, c_s;
        tma.copy c_s => c.subspan(TM, TN).at(tm, tn);
      }
    }
  }
}
)croq";

// 16-wide K slices of each tile (chunkat), an f16 accumulator, fewer blocks.
inline const char* kKSlices = R"croq(
__co__ void gemm(global f16 [M, K] a, global f16 [N, K] b, global f16 [M, N] c,
                 global s32 [T] order_m, global s32 [T] order_n) {
  int tiles = cdiv(M, 64) * cdiv(N, 128);
  parallel blk by 100 : block {
    shared f16 [64, 64] a_s;
    shared f16 [128, 64] b_s;
    shared f16 [64, 128] c_s;
    foreach {round} in [cdiv(tiles, 100)] {
      t = round # blk;
      if (t < tiles) {
        int tm = order_m.at(t);
        int tn = order_n.at(t);
        acc = mma.fill.f16 0.0f;
        foreach {kk} in [cdiv(K, 64)] {
          tma.copy.swiz<128> a.subspan(64, 64).step(64, 64).at(tm, kk) => a_s;
          tma.copy.swiz<128> b.subspan(128, 64).step(128, 64).at(tn, kk) => b_s;
          foreach {q} in [cdiv(64, 16)] {
            parallel by 1 : group-4 {
              mma.row.row acc, a_s.chunkat(_, q), b_s.chunkat(_, q);
            }
          }
        }
        mma.store acc, c_s;
        tma.copy c_s => c.subspan(64, 128).at(tm, tn);
      }
    }
  }
}
)croq";

}  // namespace croq::test
