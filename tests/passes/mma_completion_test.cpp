// WGMMA completion points (passes/mma_passes.cpp, complete_mma_groups)
// that the sample kernels do not show: a trigger at the head of a loop body
// releases a stage that the previous iteration's multiply, still in
// flight, reads; a trigger that releases nothing (a turn between
// consumers) does not wait.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/turn_sources.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate_cuda;
using test::tensor;

// The consumer releases the stage of step k - 1 at the top of step k.
constexpr const char* kReleaseAtTheLoopHead = R"croq(
__co__ void head_release(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel bm by cdiv(M, 64) : block {
    shared event full[2], empty[2] = ready;
    shared f16 [64, 64] a_s[2];
    shared f16 [64, 64] b_s[2];
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {k} in [cdiv(K, 64)] {
          wait empty[k % 2];
          tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, k) => a_s[k % 2];
          tma.copy.swiz<128> rhs.subspan(64, 64).at(0, k) => b_s[k % 2];
          trigger full[k % 2];
        }
      }
      inthreads.async (p == 1) {
        mc = mma.fill.f32 0.0f;
        foreach {k} in [cdiv(K, 64)] {
          if (k > 0) {
            trigger empty[(k + 1) % 2];
          }
          wait full[k % 2];
          mma.row.row mc, a_s[k % 2], b_s[k % 2];
        }
        mma.store mc, output.subspan(64, 64).at(bm, 0);
      }
    }
  }
}
)croq";

// A GEMM kernel `source` (A [M, K], B [N, K], C [M, N] in f32) for sm_90a.
GeneratedKernel generate_gemm(const char* source, const std::string& name, std::int64_t m, std::int64_t n,
                              std::int64_t k) {
  CompileOptions options;
  options.source_name = name;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, {tensor(DType::f16, {m, k}), tensor(DType::f16, {n, k}), tensor(DType::f32, {m, n})},
                       227 * 1024, {}, "sm_90a");
}

TEST(MmaCompletion, TriggerAtTheLoopHeadWaitsForThePreviousIterationsGroup) {
  GeneratedKernel k = generate_gemm(kReleaseAtTheLoopHead, "head_release.co", 128, 64, 256);
  const std::string& cuda = k.cuda_source;
  const std::size_t release = cuda.find("croq_dev::mbar_arrive(&empty_");
  ASSERT_NE(release, std::string::npos) << cuda;
  const std::size_t loop = cuda.rfind("for (int k_", release);
  const std::size_t wait = cuda.find("croq_dev::wgmma_wait_group<0>();", loop);
  EXPECT_LT(wait, release) << "the stage is released only after the group that reads it completes\n" << cuda;
  EXPECT_LT(wait, cuda.find("wgmma_m64nNk16<", loop));
  EXPECT_NO_THROW(jit::nvrtc_compile(cuda, "head_release.cu", k.entry, {"sm_90a", false, {}}));
}

// Turns between the consumers: each turn event counts one warpgroup's warps
// (the trigger sits in `inthreads (p == ...)`), and triggering it waits for
// no multiply (its waiters overwrite no tile a multiply reads), while the
// stage's release still does.
TEST(MmaCompletion, TurnTriggersLeaveTheMultiplyInFlight) {
  GeneratedKernel k = generate_gemm(croq::test::kTurnTakingGemm, "turns.co", 256, 64, 256);
  const std::string& cuda = k.cuda_source;
  // Events in declaration order: full, empty (both consumers: 8 warps), turn1, turn2.
  const std::size_t init = cuda.find("croq_dev::mbar_init(");
  ASSERT_NE(init, std::string::npos) << cuda;
  const std::string inits = cuda.substr(init, cuda.find("fence_barrier_init", init) - init);
  EXPECT_NE(inits.find("croq_smem + 16) + i, 8);"), std::string::npos) << inits;
  EXPECT_NE(inits.find("croq_smem + 32) + i, 4);"), std::string::npos) << inits;
  EXPECT_NE(inits.find("croq_smem + 40) + i, 4);"), std::string::npos) << inits;
  const std::size_t issue = cuda.find("croq_dev::wgmma_commit_group();");
  const std::size_t turn = cuda.find("croq_dev::mbar_arrive(&turn2_", issue);
  const std::size_t other_turn = cuda.find("croq_dev::mbar_arrive(&turn1_", issue);
  const std::size_t release = cuda.find("croq_dev::mbar_arrive(&empty_", issue);
  ASSERT_NE(turn, std::string::npos) << cuda;
  ASSERT_NE(other_turn, std::string::npos) << cuda;
  ASSERT_NE(release, std::string::npos) << cuda;
  const std::size_t wait = cuda.find("croq_dev::wgmma_wait_group<", issue);
  EXPECT_GT(wait, std::max(turn, other_turn)) << "a turn waits for no multiply\n" << cuda;
  EXPECT_LT(wait, release) << "the stage is released after the multiply that reads it\n" << cuda;
  EXPECT_NO_THROW(jit::nvrtc_compile(cuda, "turns.cu", k.entry, {"sm_90a", false, {}}));
}

}  // namespace
}  // namespace croq::pipeline
