// Warp mma operands read straight from global memory (gathered fragments)
// where the shapes leave partial tiles: the elements past the tensors' edges
// read 0, so C = A * B over the tensors themselves. Shared by
// tests/lower/mma_gather_tail_test.cpp, tests/interp/mma_gather_tail_interp_test.cpp
// and tests/gpu/mma_gather_tail_gpu_test.cpp (the block-of-one-warp form,
// row.row, is tests/common/mma_block_warp_sources.hpp's, run on tail shapes).
#pragma once

namespace croq::test {

// row.col (rhs [K, N]) in a `: group` level, four warps a block, each its
// own 16 x 8 tile of C; M, N and K may have tails.
inline const char* const kGatherTailRowCol = R"croq(__co__ void gather_tail(global f16 [M, K] lhs, global f16 [K, N] rhs, global f32 [M, N] output) {
  parallel {bm, bn} by [cdiv(M, 32), cdiv(N, 16)] : block {
    parallel {g0, g1} by [2, 2] : group {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 16)] {
        ma = mma.load lhs.subspan(16, 16).at(bm * 2 + g0, iv_k);
        mb = mma.load rhs.subspan(16, 8).at(iv_k, bn * 2 + g1);
        mma.row.col mc, ma, mb;
      }
      mma.store mc, output.subspan(16, 8).at(bm * 2 + g0, bn * 2 + g1);
    }
  }
}
)croq";

}  // namespace croq::test
