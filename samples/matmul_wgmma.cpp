// A non-pipelined WGMMA matmul: one warpgroup per 64 x 128 tile loads A and B
// tiles with synchronous tma.copy and multiplies them (fp32 accumulate).
// Checks C = A * B^T (A [M, K], B [N, K], f16) against a host reference on
// random data: relative Frobenius error <= 1e-2, for square, non-square and
// tile-tail shapes.
#include <cmath>
#include <iostream>

#include <croq/croq.hpp>

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
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "matmul_wgmma: compiled `" << matmul.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  const int shapes[][3] = {
      {256, 256, 256},
      {192, 384, 128},
      {300, 200, 136}};
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
    std::cout << "matmul_wgmma: [" << m << ", " << k << "] x [" << n << ", " << k << "]^T: relative Frobenius error "
              << rel << "\n";
    croq::croq_assert(rel <= 1e-2, "relative Frobenius error above 1e-2");
  }
  std::cout << "Test Passed\n";
}
