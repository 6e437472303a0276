// A `: block` level whose body multiplies with no parallel level inside is
// one warp (32 threads) and its mma is the warp form (mma.sync m16n8, operands
// gathered from global memory): C = A * B^T with A [M, K], B [N, K], each
// block one 16 x 8 tile of C. Shared by tests/interp/mma_block_warp_interp_test.cpp
// and tests/gpu/mma_block_warp_gpu_test.cpp.
#pragma once

namespace croq::test {

// f16 into f32; `.frag` on the lhs load says what a warp's operand is anyway.
inline const char* const kBlockWarpGemm = R"croq(__co__ void block_warp(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 8)] : block {
    mc = mma.fill.f32 0.0f;
    foreach {iv_k} in [cdiv(K, 16)] {
      ma = mma.load.frag lhs.subspan(16, 16).at(bm, iv_k);
      mb = mma.load rhs.subspan(8, 16).at(bn, iv_k);
      mma.row.row mc, ma, mb;
    }
    mma.store mc, output.subspan(16, 8).at(bm, bn);
  }
}
)croq";

// s8 into s32 (mma.sync m16n8k32), exact; the block level unannotated (a
// level that multiplies is a block, not a flat level).
inline const char* const kBlockWarpIntegerGemm = R"croq(__co__ void block_warp_s8(global s8 [M, K] lhs, global s8 [N, K] rhs, global s32 [M, N] output) {
  parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 8)] {
    mc = mma.fill.s32 0;
    foreach {iv_k} in [cdiv(K, 32)] {
      ma = mma.load lhs.subspan(16, 32).at(bm, iv_k);
      mb = mma.load rhs.subspan(8, 32).at(bn, iv_k);
      mma.row.row mc, ma, mb;
    }
    mma.store mc, output.subspan(16, 8).at(bm, bn);
  }
}
)croq";

}  // namespace croq::test
