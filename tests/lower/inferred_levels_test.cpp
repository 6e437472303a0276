// Unannotated nested parallel levels lower as the levels sema inferred
// (sema/level_inference.hpp): the outermost is the grid, a middle one a
// level of warps (unit 32) or of warpgroups (unit 128), the innermost the
// lanes of each warp.
#include <gtest/gtest.h>

#include <string>

#include "common/inferred_levels_kernel.hpp"
#include "common/ir_test_util.hpp"

namespace croq::ir::test {
namespace {

TEST(InferredLevels, MiddleLevelRunsWarpsAndTheInnermostTheirLanes) {
  const pipeline::GeneratedKernel k =
      lower_for(croq::test::kInferredLevelsKernel, {tensor(DType::s32, {3, 4, 32}), tensor(DType::s32, {3, 4, 32})});
  EXPECT_EQ(k.launch.grid[0], 3u);
  EXPECT_EQ(k.launch.block[0], 128u);  // four warps
  EXPECT_TRUE(contains(k.ir, "region grid")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "region threads unit 32")) << k.ir;
}

TEST(InferredLevels, FourLevelsRunWarpgroupsTheirWarpsAndLanes) {
  const pipeline::GeneratedKernel k = lower_for(croq::test::kFourInferredLevelsKernel,
                                                {tensor(DType::s32, {2, 2, 4, 32}), tensor(DType::s32, {2, 2, 4, 32})});
  EXPECT_EQ(k.launch.grid[0], 2u);
  EXPECT_EQ(k.launch.block[0], 256u);  // two warpgroups
  EXPECT_TRUE(contains(k.ir, "region threads unit 128")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "region threads unit 32")) << k.ir;
}

TEST(InferredLevels, ABlockAndAThreadLevelAroundAnUnannotatedOneMakeItWarps) {
  const pipeline::GeneratedKernel k = lower_for(
      "__co__ void f(s32 [2, 4, 32] a) {\n"
      "  parallel b by 2 : block parallel w by 4 parallel t by 32 : thread { a.at(b, w, t) = w; }\n"
      "}\n",
      {tensor(DType::s32, {2, 4, 32})});
  EXPECT_EQ(k.launch.grid[0], 2u);
  EXPECT_EQ(k.launch.block[0], 128u);
  EXPECT_TRUE(contains(k.ir, "region threads unit 32")) << k.ir;
}

}  // namespace
}  // namespace croq::ir::test
