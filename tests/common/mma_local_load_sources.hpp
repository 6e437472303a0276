// A warp-level GEMM whose lhs fragments come from local memory (`mma.load`
// of a tile each thread copied to its own local buffer, every lane the same
// values), C = A * B^T with A [M, K], B [N, K] f16 and C f32: each warp of a
// `: group` level its own 16 x 8 tile through mma.sync with gathered
// fragments. Shared by tests/interp/mma_local_load_interp_test.cpp and
// tests/gpu/mma_local_load_gpu_test.cpp. The mma is on line 10.
#pragma once

namespace croq::test {

inline const char* const kLocalLhsGemm = R"croq(__co__ void local_lhs(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 16)] : block {
    parallel {g0, g1} by [4, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 16)] {
        la = dma.copy lhs.subspan(16, 16).at(block_m * 4 + g0, iv_k).zfill => local;
        b = dma.copy rhs.subspan(16, 16).at(block_n, iv_k).zfill => shared;
        ma = mma.load la.data;
        mb = mma.load b.data.subspan(8, 16).at(g1, 0);
        mma.row.row mc, ma, mb;
      }
      mma.store mc, output.subspan(64, 16).at(block_m, block_n).subspan(16, 8).at(g0, g1);
    }
  }
}
)croq";

}  // namespace croq::test
