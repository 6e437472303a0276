// A non-pipelined WGMMA matmul: one warpgroup per 64 x 128 tile loads A and B
// tiles with synchronous tma.copy and multiplies them (fp32 accumulate).
// Checks C = A * B^T (A [M, K], B [N, K], f16) against a host reference on
// random data (samples/gemm_check.hpp): relative Frobenius error <= 1e-2, for
// square, non-square and tile-tail shapes.
#include <croq/croq.hpp>

#include "gemm_check.hpp"

static const char* kSource = R"croq(
#define WM 64
#define WN 128
#define TK 64

__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, WM), cdiv(N, WN)] : block {
    parallel p by 1 : group-4 {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, TK)] {
        a = tma.copy.swiz<128> lhs.subspan(WM, TK).at(block_m, iv_k).zfill => shared;
        b = tma.copy.swiz<128> rhs.subspan(WN, TK).at(block_n, iv_k).zfill => shared;
        ma = mma.load.swiz<128> a.data;
        mb = mma.load.swiz<128> b.data;
        mma.row.row mc, ma, mb;
        mma.commit;
      }
      mma.store mc, output.subspan(WM, WN).at(block_m, block_n);
    }
  }
}
)croq";

int main() {
  auto matmul = croq::compile(kSource);  // the one added line
  const GemmShape shapes[] = {{256, 256, 256}, {192, 384, 128}, {300, 200, 136}};
  return run_gemm_sample("matmul_wgmma", matmul, shapes);
}
