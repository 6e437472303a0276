// inthreads.async in a thread level directly in the block, or testing the
// thread index of a group level (`g == 0 && t < 64`): each region is
// the threads its condition selects (whole warps), with a named barrier of
// its own (a condition naming scalars bound from the index selects by
// their values); a selection of part of a warp is refused, by lowering too when
// the level's count is known only once the dims are bound.
#include <gtest/gtest.h>

#include <string>

#include "common/ir_test_util.hpp"
#include "croq/error.hpp"

namespace croq::ir::test {
namespace {

constexpr const char* kTwoRegions =
    "__co__ void f(s32 [N] a) {\n"
    "  parallel t by N : thread {\n"
    "    shared event stored;\n"
    "    upper = t >= 64;\n"
    "    inthreads.async (!upper) { a.at(t) = 1; trigger stored; }\n"
    "    inthreads.async (upper) { wait stored; a.at(t) = 2; }\n"
    "  }\n"
    "}\n";

TEST(ThreadLevelRegions, EachRegionIsTheWarpsItsConditionSelects) {
  const std::string ir = lower_for(kTwoRegions, {tensor(DType::s32, {128})}, "sm_90a", 227 * 1024, "lower").ir;
  EXPECT_TRUE(contains(ir, "warpgroups threads 0..63 barrier 1 when")) << ir;
  EXPECT_TRUE(contains(ir, "warpgroups threads 64..127 barrier 2 when")) << ir;
  EXPECT_TRUE(contains(ir, "by threads 0..63 barrier 1 per warp")) << ir;
}

TEST(ThreadLevelRegions, PartOfAWarpIsRefusedOnceTheCountIsBound) {
  // `N` is 48 here: `t >= 16` selects threads 16..47, which start inside a warp.
  const std::string source =
      "__co__ void f(s32 [N] a) {\n"
      "  parallel t by N : thread {\n"
      "    inthreads.async (t >= 16) { a.at(t) = 2; }\n"
      "  }\n"
      "}\n";
  try {
    lower_for(source, {tensor(DType::s32, {48})}, "sm_90a", 227 * 1024, "lower");
    FAIL() << "lowered a region of part of a warp";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.message,
              "this inthreads.async selects `t` 16..47; in a thread level libcroqjit runs regions of whole warps (32 "
              "threads from a multiple of 32)")
        << e.what();
    EXPECT_EQ(d.hint, "select a multiple of 32 threads, or split the level into `: group` warps");
    EXPECT_EQ(d.line, 3);
    EXPECT_EQ(d.column, 22);
  }
}

TEST(ThreadLevelRegions, AConditionOnTheGroupAndThreadIndicesSelectsThoseThreads) {
  const std::string source =
      "__co__ void f(s32 [256] a) {\n"
      "  parallel g by 2 : group-4, t by 128 : thread {\n"
      "    inthreads.async (g == 0 && t >= 32 && t < 96) { a.at(t) = 1; }\n"
      "    inthreads.async (g == 1) { a.at(128 + t) = 2; }\n"
      "  }\n"
      "}\n";
  const std::string ir = lower_for(source, {tensor(DType::s32, {256})}, "sm_90a", 227 * 1024, "lower").ir;
  EXPECT_TRUE(contains(ir, "warpgroups threads 32..95 barrier 1 when")) << ir;
  EXPECT_TRUE(contains(ir, "warpgroups threads 128..255 barrier 2 when")) << ir;
}

}  // namespace
}  // namespace croq::ir::test
