// A warp-specialized GEMM whose two consumer warpgroups take turns issuing
// their multiplies (the ping-pong of samples/attention_source.hpp), shared
// by tests/passes/mma_completion_test.cpp and
// tests/gpu/fragment_gpu_test.cpp.
#pragma once

namespace croq::test {

// C = A * B^T, A [M, K], B [64, K] (N = 64): each block takes 128 rows, each
// consumer 64 of them. `turn1` / `turn2` are triggered inside
// `inthreads (p == ...)`: one warpgroup arrives on each, and the trigger
// hands no tile over for overwriting, so the multiply stays in flight.
inline constexpr const char* kTurnTakingGemm = R"croq(
__co__ void turns(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel bm by cdiv(M, 128) : block {
    shared event full[2], empty[2] = ready, turn1 = ready, turn2;
    shared f16 [128, 64] a_s[2];
    shared f16 [64, 64] b_s[2];
    parallel p by 3 : group-4 {
      inthreads.async (p == 0) {
        foreach {k} in [cdiv(K, 64)] {
          wait empty[k % 2];
          tma.copy.swiz<128> lhs.subspan(128, 64).at(bm, k) => a_s[k % 2];
          tma.copy.swiz<128> rhs.subspan(64, 64).at(0, k) => b_s[k % 2];
          trigger full[k % 2];
        }
      }
      inthreads.async (p >= 1) {
        mc = mma.fill.f32 0.0f;
        foreach {k} in [cdiv(K, 64)] {
          wait full[k % 2];
          inthreads (p == 1) { wait turn1; }
          inthreads (p == 2) { wait turn2; }
          mma.row.row mc, a_s[k % 2].subspan(64, 64).at(p - 1, 0), b_s[k % 2];
          inthreads (p == 1) { trigger turn2; }
          inthreads (p == 2) { trigger turn1; }
          trigger empty[k % 2];
        }
        mma.store mc, output.subspan(64, 64).at(bm * 2 + p - 1, 0);
      }
    }
  }
}
)croq";

}  // namespace croq::test
