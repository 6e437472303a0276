// Croqtile kernels with register fragments (`frag`, `mma.load.frag`, RS-mode
// WGMMA), shared by tests/specialize/fragment_test.cpp (NVRTC for sm_90a)
// and tests/gpu/fragment_gpu_test.cpp (run on an H100).
#pragma once

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

}  // namespace croq::test
