// WGMMA completion points (passes/mma_passes.cpp, complete_mma_groups)
// that the sample kernels do not show: a trigger at the head of a loop body
// releases a stage that the previous iteration's multiply, still in
// flight, reads.
#include <gtest/gtest.h>

#include <string>

#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "specialize/specialize_test_util.hpp"

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

TEST(MmaCompletion, TriggerAtTheLoopHeadWaitsForThePreviousIterationsGroup) {
  CompileOptions options;
  options.source_name = "head_release.co";
  auto program = frontend::parse_program(kReleaseAtTheLoopHead, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  GeneratedKernel k = generate_cuda(*program, fn,
                                    {tensor(DType::f16, {128, 256}), tensor(DType::f16, {64, 256}), tensor(DType::f32, {128, 64})},
                                    227 * 1024, {}, "sm_90a");
  const std::string& cuda = k.cuda_source;
  const std::size_t release = cuda.find("croq_dev::mbar_arrive(&empty_");
  ASSERT_NE(release, std::string::npos) << cuda;
  const std::size_t loop = cuda.rfind("for (int k_", release);
  const std::size_t wait = cuda.find("croq_dev::wgmma_wait_group<0>();", loop);
  EXPECT_LT(wait, release) << "the stage is released only after the group that reads it completes\n" << cuda;
  EXPECT_LT(wait, cuda.find("wgmma_m64nNk16<", loop));
  EXPECT_NO_THROW(jit::nvrtc_compile(cuda, "head_release.cu", k.entry, {"sm_90a", false, {}}));
}

}  // namespace
}  // namespace croq::pipeline
