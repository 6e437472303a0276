// Croqtile kernels with register fragments (`frag`, `mma.load.frag`, RS-mode
// WGMMA), shared by tests/specialize/fragment_test.cpp (NVRTC for sm_90a)
// and tests/gpu/fragment_gpu_test.cpp (run on an H100).
#pragma once

#include <string>

namespace croq::test {

// C = A * B^T, A [M, K] loaded into a register fragment per k-step (RS
// mode), B [N, K] read from shared memory; tiles 64 x 128, K in steps of 64.
inline constexpr const char* kRsGemmFromLoadedFragment = R"croq(
__co__ void rs_gemm(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block {
    parallel p by 1 : group-4 {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 64)] {
        a = dma.copy.swiz<128> lhs.subspan(64, 64).at(block_m, iv_k).zfill => shared;
        b = dma.copy.swiz<128> rhs.subspan(128, 64).at(block_n, iv_k).zfill => shared;
        ma = mma.load.frag a.data;
        mma.row.row mc, ma, b.data;
        mma.commit;
      }
      mma.store mc, output.subspan(64, 128).at(block_m, block_n);
    }
  }
}
)croq";

// C[m][n] = 0.5 * sum_k B[n][k]: a constant fragment as A (RS mode).
inline constexpr const char* kRsGemmConstantFragment = R"croq(
__co__ void rs_const(global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block {
    parallel p by 1 : group-4 {
      frag f16 [64, 32] halves {0.5f};
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 32)] {
        b = dma.copy.swiz<64> rhs.subspan(64, 32).at(block_n, iv_k).zfill => shared;
        mma.row.row mc, halves, b.data;
        mma.commit;
      }
      mma.store mc, output.subspan(64, 64).at(block_m, block_n);
    }
  }
}
)croq";

// One 64 x 64 tile of attention, O = softmax(Q K^T * scale) V with the
// softmax in base 2 (exp2 of scaled scores less the row maximum), the
// probabilities rounded to f16 as the lhs of the second mma (RS mode, V as
// [K, N]: mma.row.col). `causal`: scores above the diagonal are -inf.
inline std::string attention_source(bool causal) {
  std::string s = R"croq(
__co__ void attention(global f16 [64, 64] q, global f16 [64, 64] k, global f16 [64, 64] v, global f32 [64, 64] o) {
  parallel b by 1 : block {
    q_s = dma.copy.swiz<128> q.subspan(64, 64).at(0, 0) => shared;
    k_s = dma.copy.swiz<128> k.subspan(64, 64).at(0, 0) => shared;
    v_s = dma.copy.swiz<128> v.subspan(64, 64).at(0, 0) => shared;
    parallel p by 1 : group-4 {
      frag f16 [64, 64] probs;
      frag f32 [64] row_max {-inf};
      frag f32 [64] row_sum;
      float scale = 0.18033688f;
      s = mma.fill.f32 0.0f;
      mma.row.row s, q_s.data, k_s.data;
)croq";
  if (causal)
    s += R"croq(
      apply {i, j} in s.span {
        if (j > i) s.at(i, j) = -inf;
      }
)croq";
  s += R"croq(
      reduce_max(row_max, s, 1);
      apply {i, j} in s.span
        s.at(i, j) = __exp2f(s.at(i, j) * scale - row_max.at(i) * scale);
      reduce_sum(row_sum, s, 1);
      apply {i, j} in s.span
        probs.at(i, j) = __to<f16>(s.at(i, j));
      acc = mma.fill.f32 0.0f;
      mma.row.col acc, probs, v_s.data;
      apply {i, j} in acc.span
        acc.at(i, j) /= row_sum.at(i);
      mma.store acc, o.subspan(64, 64).at(0, 0);
    }
  }
}
)croq";
  return s;
}

}  // namespace croq::test
