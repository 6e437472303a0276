// Lowering marks a k loop of the README GEMM form as a pipelining candidate
// and translates it plainly (each load waits for its own event); the pass
// pipeline_k_loops builds the pipeline (tests/passes/pipeline_k_loops/).
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "common/block_gemm_sources.hpp"
#include "common/sample_cases.hpp"

namespace croq::ir {
namespace {

test::SampleCase persistent_gemm() {
  test::SampleCase c;
  c.name = "whole_tiles";
  c.source = croq::test::kWholeTiles;
  c.args = {croq::test::tensor(DType::f16, {512, 512}), croq::test::tensor(DType::f16, {512, 512}),
            croq::test::tensor(DType::f16, {512, 512}), croq::test::tensor(DType::s32, {32}),
            croq::test::tensor(DType::s32, {32})};
  return c;
}

TEST(PipelineMark, LoweringMarksTheLoopAndLoadsPlainly) {
  const std::string lowered = test::generate_case(persistent_gemm(), "lower", IrDetail::full).kernels[0].ir;
  // The mark names the variables the pass declares, reserved around the loop's own.
  EXPECT_TRUE(std::regex_search(
      lowered, std::regex(R"(for kk_14 in \[0, 8\) \{pos=\d+:\d+\+\d+, type=index, pipeline=\[pipe_shift_12, pipe_pass_13, pipe_slot_15\], pipeline_buffers=8\}:)")))
      << lowered;
  // Plain loads: each waits for its private event, no rings yet.
  EXPECT_EQ(lowered.find(" ring "), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("event tma_pipe_bar_10[1] at -1"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("wait tma_pipe_bar_10[0]"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("wait tma_pipe_bar_11[0]"), std::string::npos) << lowered;
}

TEST(PipelineMark, ThePassPipelinesItAndClearsTheMark) {
  const std::string after = test::generate_case(persistent_gemm(), "pipeline_k_loops", IrDetail::full).kernels[0].ir;
  EXPECT_EQ(after.find("pipeline="), std::string::npos) << after;
  EXPECT_NE(after.find("event tma_pipe_bar_10[4] at -1"), std::string::npos) << after;
  EXPECT_NE(after.find("for pipe_pass_13 in [0, 3)"), std::string::npos) << after;
  EXPECT_NE(after.find("let index pipe_slot_15 = ((kk_14 + pipe_shift_12) % 4)"), std::string::npos) << after;
  EXPECT_TRUE(std::regex_search(after, std::regex(R"(buffer a_s_2: shared f16 \[64, 64\] at -1 swizzle 128 ring 4)"))) << after;
}

// A loop of one pass has nothing to load ahead: lowering does not mark it
// (the pass would leave it too: tests/passes/pipeline_k_loops/one_pass_not_pipelined.ir).
TEST(PipelineMark, OnePassLoopsAreNoCandidates) {
  test::SampleCase c = persistent_gemm();
  c.args[0] = croq::test::tensor(DType::f16, {512, 64});
  c.args[1] = croq::test::tensor(DType::f16, {512, 64});
  const std::string lowered = test::generate_case(c, "lower", IrDetail::full).kernels[0].ir;
  EXPECT_EQ(lowered.find("pipeline="), std::string::npos) << lowered;
  const std::string last = test::generate_case(c, "", IrDetail::full).kernels[0].ir;
  EXPECT_EQ(last.find(" ring "), std::string::npos) << last;
  EXPECT_EQ(last.find("tma_pipe_bar"), std::string::npos) << last;
  EXPECT_NE(last.find("event tma_bar_11[1] at "), std::string::npos) << last;
}

}  // namespace
}  // namespace croq::ir
