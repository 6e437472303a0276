// The tutorial's pipelined TMA matmul (advanced chapter): a producer warpgroup
// streams swizzled tiles with tma.copy into a ring of stages, a consumer
// warpgroup multiplies them with WGMMA (f16 accumulate, as in the chapter).
// Checks C = A * B^T (A [M, K], B [N, K], f16) against a host reference on
// random data (samples/gemm_check.hpp): relative Frobenius error <= 1e-2, for
// square, non-square and tile-tail shapes (TMA fills out-of-bounds tile
// elements with zeros; the final copy to global memory masks the tail).
#include <croq/croq.hpp>

#include "gemm_check.hpp"

static const char* kSource = R"croq(
#define WARP_M 64
#define WARP_N 128
#define TILE_K 64
#define WARP_K 16
#define STAGES 4

__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, WARP_M), cdiv(N, WARP_N)] : block {
    shared event full[STAGES], empty[STAGES];
    shared f16 [WARP_M, TILE_K] lhs_load_s[STAGES];
    shared f16 [WARP_N, TILE_K] rhs_load_s[STAGES];
    shared f16 [WARP_M, WARP_N] output_s;
    parallel p1 by 2 : group-4 {
      inthreads.async (p1 == 0) {
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          stage = iv_k % STAGES;
          wait empty[stage];
          tma.copy.swiz<3> lhs.subspan(WARP_M, TILE_K).at(block_m, iv_k) => lhs_load_s[stage];
          tma.copy.swiz<3> rhs.subspan(WARP_N, TILE_K).at(block_n, iv_k) => rhs_load_s[stage];
          trigger full[stage];
        }
      }
      inthreads.async (p1 == 1) {
        mc = mma.fill.f16 0.0f;
        foreach {s} in [STAGES] { trigger empty[s]; }
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          stage = iv_k % STAGES;
          wait full[stage];
          foreach {iv_warp} in [cdiv(TILE_K, WARP_K)] {
            ma = mma.load.swiz<3> lhs_load_s[stage].chunkat(_, iv_warp);
            mb = mma.load.swiz<3> rhs_load_s[stage].chunkat(_, iv_warp);
            mma.row.row mc, ma, mb;
          }
          mma.commit;
          trigger empty[stage];
        }
        mma.store mc, output_s;
        dma.copy output_s => output.subspan(WARP_M, WARP_N).at(block_m, block_n);
      }
    }
  }
}
)croq";

int main() {
  auto matmul = croq::compile(kSource);  // the one added line
  const GemmShape shapes[] = {{256, 256, 256}, {128, 384, 192}, {300, 200, 136}};
  return run_gemm_sample("matmul_tma", matmul, shapes);
}
