// A k loop of synchronous TMA loads followed by the multiplies that read
// them (Croqtile's README GEMM form) is lowered as a pipeline: the loaded
// buffers become rings of slots, loads run ahead of the multiplies, one
// WGMMA group stays in flight. Loops of other forms keep the plain lowering.
// The GPU side is tests/gpu/block_accumulator_gpu_test.cpp.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "common/block_gemm_sources.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::count;

using test::generate;
using test::tensor;

GeneratedKernel persistent(const char* source, std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::int64_t tiles = (m + 63) / 64 * ((n + 127) / 128);
  return generate(source, {tensor(DType::f16, {m, k}), tensor(DType::f16, {n, k}), tensor(DType::f16, {m, n}),
                           tensor(DType::s32, {tiles}), tensor(DType::s32, {tiles})});
}

TEST(PipelinedLoop, ReadmeFormLoadsAheadIntoRingsOfFourSlots) {
  for (const char* source : {croq::test::kWholeTiles, croq::test::kKSlices}) {
    GeneratedKernel k = persistent(source, 1024, 1024, 1024);
    const std::string& cu = k.cuda_source;
    // Two barrier arrays of 4 (one per loaded buffer), each slot awaited per pass.
    EXPECT_EQ(count(cu, "for (int i = 0; i < 4; ++i) croq_dev::mbar_init("), 2u) << cu;
    EXPECT_TRUE(std::regex_search(cu, std::regex(R"(mbar_wait\(&tma_pipe_bar_\d+\[pipe_slot_\d+\])"))) << cu;
    // Prologue of 3 passes, then per pass: multiply, keep one group in
    // flight, refill the freed slot 3 passes ahead.
    EXPECT_TRUE(std::regex_search(cu, std::regex(R"(for \(int pipe_pass_\d+ = 0; pipe_pass_\d+ < 3;)"))) << cu;
    const std::size_t wait_one = cu.find("croq_dev::wgmma_wait_group<1>();");
    ASSERT_NE(wait_one, std::string::npos) << cu;
    const std::size_t refill = cu.find("+ 3) < ", wait_one);
    ASSERT_NE(refill, std::string::npos) << cu;
    EXPECT_LT(cu.find("croq_dev::tma_load_2d(", refill), cu.find("croq_dev::wgmma_wait_group<0>();", refill)) << cu;
    // No pass waits for its own loads right after issuing them.
    EXPECT_EQ(count(cu, "croq_dev::mbar_wait("), 2u) << cu;
    jit::NvrtcOutput out = jit::nvrtc_compile(cu, "pipelined.cu", k.entry, {"sm_90a", false, {}});
    ASSERT_FALSE(out.cubin.empty());
  }
}

TEST(PipelinedLoop, LoadedBuffersAreRingsInTheIr) {
  GeneratedKernel k = persistent(croq::test::kWholeTiles, 512, 512, 512);
  EXPECT_TRUE(std::regex_search(k.ir, std::regex(R"(buffer a_s_\d+: shared f16 \[64, 64\] at \d+ swizzle 128 ring 4)"))) << k.ir;
  EXPECT_TRUE(std::regex_search(k.ir, std::regex(R"(buffer b_s_\d+: shared f16 \[128, 64\] at \d+ swizzle 128 ring 4)"))) << k.ir;
}

// A loop whose body also writes a loaded buffer (or reads it other than by
// mma) is not of the form: its loads stay synchronous, one buffer each.
TEST(PipelinedLoop, OtherLoopsKeepTheirLoadsSynchronous) {
  GeneratedKernel k = generate(R"(__co__ void f(global f16 [M, K] a, global f16 [N, K] b, global f32 [M, N] c) {
  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 128)] : block {
    shared f16 [64, 64] a_s;
    shared f16 [128, 64] b_s;
    acc = mma.fill.f32 0.0f;
    foreach {kk} in [cdiv(K, 64)] {
      tma.copy.swiz<128> a.subspan(64, 64).at(bm, kk) => a_s;
      tma.copy.swiz<128> b.subspan(128, 64).at(bn, kk) => b_s;
      a_s.at(0, 0) = 0.0;
      parallel w by 1 : group-4 {
        mma.row.row acc, a_s, b_s;
      }
    }
    mma.store acc, c.subspan(64, 128).at(bm, bn);
  }
}
)",
                               {tensor(DType::f16, {256, 256}), tensor(DType::f16, {256, 256}), tensor(DType::f32, {256, 256})});
  EXPECT_EQ(k.cuda_source.find("tma_pipe_bar"), std::string::npos) << k.cuda_source;
  EXPECT_EQ(k.ir.find(" ring "), std::string::npos) << k.ir;
}

}  // namespace
}  // namespace croq::pipeline
