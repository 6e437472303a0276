// An fp8 GEMM: the persistent warp-specialized kernel of matmul_persistent
// with f8_e4m3 inputs (fp32 accumulate) and a bf16 output. One block per SM
// walks 128 x 256 output tiles in L2-friendly groups; a producer warpgroup
// streams 128-element (128-byte) K slices of A and B with TMA through 3
// stages, two consumer warpgroups run fp8 WGMMA (m64nNk32, both operands
// K-major: A [M, K], B [N, K], as mma.row.row takes them) and store their
// tiles through shared memory with TMA, overlapped with the next tile.
// Checks C = A * B^T against a double-precision host reference of the
// e4m3-rounded inputs on random data (samples/gemm_check.hpp): relative
// Frobenius error <= 1e-2 and every element within its tolerance, the output
// poisoned first, for square, non-square and tile-tail shapes (K = 208 is
// not a multiple of the 128-wide K step; TMA needs rows of a multiple of 16
// bytes, so K stays a multiple of 16) and one with more tiles than blocks.
#include <croq/croq.hpp>

#include "gemm_check.hpp"

static const char* kSource = R"croq(
#define BM 128
#define BN 256
#define TK 128
#define STAGES 3
#define NUM_SMS 132
#define GROUP 8

__co__ void matmul(global f8_e4m3 [M, K] lhs, global f8_e4m3 [N, K] rhs, global bf16 [M, N] output) {
  parallel block_id by NUM_SMS : block {
    shared event full[STAGES], empty[STAGES] = ready;
    shared f8_e4m3 [BM, TK] lhs_s[STAGES];
    shared f8_e4m3 [BN, TK] rhs_s[STAGES];
    shared bf16 [BM, BN] out_s;
    parallel p by 3 : group-4 {
      inthreads.async (p == 0) {
        foreach {tile_iter} in [cdiv(cdiv(M, BM) * cdiv(N, BN), NUM_SMS)] {
          tile = tile_iter # block_id;
          if (tile < cdiv(M, BM) * cdiv(N, BN)) {
            first_m = tile / (GROUP * cdiv(N, BN)) * GROUP;
            rows = cdiv(M, BM) - first_m < GROUP ? cdiv(M, BM) - first_m : GROUP;
            bm = first_m + tile % (GROUP * cdiv(N, BN)) % rows;
            bn = tile % (GROUP * cdiv(N, BN)) / rows;
            foreach {iv_k} in [cdiv(K, TK)] {
              stage = iv_k % STAGES;
              wait empty[stage];
              tma.copy.swiz<128> lhs.subspan(BM, TK).at(bm, iv_k).zfill => lhs_s[stage];
              tma.copy.swiz<128> rhs.subspan(BN, TK).at(bn, iv_k).zfill => rhs_s[stage];
              trigger full[stage];
            }
          }
        }
      }
      inthreads.async (p >= 1) {
        foreach {tile_iter} in [cdiv(cdiv(M, BM) * cdiv(N, BN), NUM_SMS)] {
          tile = tile_iter # block_id;
          if (tile < cdiv(M, BM) * cdiv(N, BN)) {
            first_m = tile / (GROUP * cdiv(N, BN)) * GROUP;
            rows = cdiv(M, BM) - first_m < GROUP ? cdiv(M, BM) - first_m : GROUP;
            bm = first_m + tile % (GROUP * cdiv(N, BN)) % rows;
            bn = tile % (GROUP * cdiv(N, BN)) / rows;
            mc = mma.fill.f32 0.0f;
            foreach {iv_k} in [cdiv(K, TK)] {
              stage = iv_k % STAGES;
              wait full[stage];
              mma.row.row mc, lhs_s[stage].subspan(64, TK).at(p - 1, 0), rhs_s[stage];
              trigger empty[stage];
            }
            mma.store mc, out_s.subspan(64, BN).at(p - 1, 0);
            tma.copy out_s.subspan(64, BN).at(p - 1, 0) => output.subspan(BM, BN).at(bm, bn).subspan(64, BN).at(p - 1, 0);
          }
        }
      }
    }
  }
}
)croq";

int main() {
  auto matmul = croq::compile(kSource);  // the one added line
  const GemmShape shapes[] = {{512, 512, 512}, {384, 768, 256}, {300, 520, 208}, {2304, 2304, 384}};
  return run_gemm_sample<croq::f8_e4m3, croq::bf16>("matmul_fp8", matmul, shapes);
}
