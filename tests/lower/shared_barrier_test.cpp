// Barriers before shared reads: lowering asks for one before each
// block-scope read of shared memory and before each loop or thread level
// (ir::Barrier::if_written), and the pass place_shared_barriers keeps
// those that follow an element store (its own cases are in
// tests/passes/place_shared_barriers/).
#include <gtest/gtest.h>

#include <string>

#include "common/ir_test_util.hpp"

namespace croq::ir::test {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string ir_after(const std::string& source, const std::string& stage) {
  return lower_for(source, {tensor(DType::s32, {128})}, "sm_90a", 227 * 1024, stage).ir;
}

constexpr const char* kWriteThenRead =
    "__co__ s32 [128] f(s32 [128] a) {\n"
    "  s32 [128] out;\n"
    "  parallel p by 1 : block {\n"
    "    shared s32 [128] t;\n"
    "    parallel l by 128\n"
    "      t.at(l) = a.at(l);\n"
    "    parallel l by 128\n"
    "      out.at(l) = t.at(127 - l);\n"
    "  }\n"
    "  return out;\n"
    "}\n";

TEST(SharedBarriers, LoweringAsksBeforeEachThreadLevelAndThePassKeepsTheOneAfterTheStores) {
  const std::string lowered = ir_after(kWriteThenRead, "lower");
  EXPECT_EQ(count(lowered, "barrier block if written shared"), 2u) << lowered;
  const std::string placed = ir_after(kWriteThenRead, "place_shared_barriers");
  EXPECT_EQ(count(placed, "if written"), 0u) << placed;
  EXPECT_EQ(count(placed, "barrier block"), 1u) << placed;
  // The one kept stands between the level that stores and the one that reads.
  const std::size_t store = placed.find("] = arg_a[");
  const std::size_t barrier = placed.find("barrier block");
  const std::size_t read = placed.find("? t_");
  ASSERT_NE(store, std::string::npos) << placed;
  EXPECT_LT(store, barrier) << placed;
  EXPECT_LT(barrier, read) << placed;
}

}  // namespace
}  // namespace croq::ir::test
