// `break`, `continue`, `x++;` and `--x;` in kernels pass sema (the kernels
// the interpret and GPU tests run, and the forms one by one); what stays
// refused keeps its rule.
#include "common/loop_control_kernel.hpp"
#include "common/thread_copy_kernel.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using sm90a::expect_clean;

TEST(LoopControl, KernelsOfTheInterpretAndGpuTestsPass) {
  expect_clean(croq::test::kLoopControlKernel);
  expect_clean(croq::test::kThreadCopyKernel);
}

TEST(LoopControl, EachFormPasses) {
  expect_clean(blk("    foreach i in [4] { if (i == 2) break; }\n"));
  expect_clean(blk("    foreach {i, j} in [4, 4] { if (i == j) continue; }\n"));
  expect_clean(blk("    mutable int k = 0;\n    while (k < 8) { k++; if (k == 3) continue; --k; break; }\n"));
  expect_clean(fn("  parallel i by 8 : block {\n    a.at(i, 0)++;\n    --a.at(i, 1);\n  }\n"));
}

TEST(LoopControl, IncrementOfAnImmutableNameIsAnAssignmentError) {
  auto e = sema_error(blk("    int k = 0;\n    k++;\n"));
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(std::string(e->what()).find("k"), std::string::npos) << e->what();
}

}  // namespace
}  // namespace croq::sema::test
