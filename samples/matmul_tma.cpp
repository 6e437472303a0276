// The tutorial's pipelined TMA matmul (advanced chapter): a producer warpgroup
// streams swizzled tiles with tma.copy into a ring of stages, a consumer
// warpgroup multiplies them with WGMMA (f16 accumulate, as in the chapter).
// Checks C = A * B^T (A [M, K], B [N, K], f16) against a host reference on
// random data: relative Frobenius error <= 1e-2, for square, non-square and
// tile-tail shapes.
#include <cmath>
#include <iostream>

#include <croq/croq.hpp>

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
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "matmul_tma: compiled `" << matmul.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  const int shapes[][3] = {
      {256, 256, 256},
      {128, 384, 192}};
  for (const auto& s : shapes) {
    const int m = s[0], n = s[1], k = s[2];
    auto lhs = croq::make_spandata<croq::f16>(m, k);
    auto rhs = croq::make_spandata<croq::f16>(n, k);
    auto out = croq::make_spandata<croq::f16>(m, n);
    lhs.fill_random(-1, 1);
    rhs.fill_random(-1, 1);
    out.fill_random(1e4, 2e4);  // poison: every element must be written

    matmul(lhs.view(), rhs.view(), out.view());

    auto at = [](auto& t, int i, int j) { return double(float(static_cast<croq::f16&>(t[i][j]))); };
    double err = 0, norm = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double ref = 0;
        for (int x = 0; x < k; ++x) ref += at(lhs, i, x) * at(rhs, j, x);
        double d = at(out, i, j) - ref;
        err += d * d;
        norm += ref * ref;
      }
    double rel = std::sqrt(err / norm);
    std::cout << "matmul_tma: [" << m << ", " << k << "] x [" << n << ", " << k << "]^T: relative Frobenius error "
              << rel << "\n";
    croq::croq_assert(rel <= 1e-2, "relative Frobenius error above 1e-2");
  }
  std::cout << "Test Passed\n";
}
