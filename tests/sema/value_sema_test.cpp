// Values computed inside statements pass sema: the kernels the interpret and
// GPU tests run (tests/common/value_kernels.hpp) and each form on its own;
// a name bound again in an inner scope is recorded for lowering.
#include "common/value_kernels.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using sm90a::expect_clean;

TEST(Values, KernelsOfTheInterpretAndGpuTestsPass) {
  expect_clean(croq::test::kValueUpdatesKernel);
  expect_clean(croq::test::kValueSelectKernel);
}

TEST(Values, EachFormPasses) {
  // Updates inside expressions: a declaration, an element index, an event order.
  expect_clean(blk("    mutable int k = 0;\n    int old = k++;\n    a.at(bm, --k) = old;\n"));
  expect_clean(blk("    shared event e[2] = ready;\n    mutable u32 order = 0;\n    wait e.at(order);\n"
                   "    trigger e.at(order++);\n"));
  expect_clean(blk("    if (n > 0) {\n      yield;\n    }\n"));
  expect_clean(fn("  int sum = 0;\n  parallel p by 4 {\n    foreach i in [3] {\n      sum = sum + i;\n"
                  "      a.at(p, i) = sum;\n    }\n  }\n"));
  // select of futures, and a copy into a select after a dma future.
  expect_clean(blk("    f = dma.copy.async a.chunkat(bm, _) => local;\n    g = dma.copy.async a.chunkat(bm, _) => local;\n"
                   "    h = select(bn % 2, f, g);\n    wait f, g;\n"));
  expect_clean(blk("    shared s32 [32, 64] x, y;\n    f = dma.copy.async a.chunkat(bm, _) => shared;\n"
                   "    g = dma.copy.async a.chunkat(bm, _) => select(bn % 2, x, y) after f;\n    wait f, g;\n"));
}

// `sum = sum + i;` in the loop binds a new `sum` there: a fact lowering
// reads, so that the assignment declares a name instead of storing.
TEST(Values, RebindingIsRecorded) {
  CheckedSource c = check_source(fn("  int sum = 0;\n  parallel p by 4 {\n    foreach i in [3] {\n"
                                    "      sum = sum + i;\n      a.at(p, i) = sum;\n    }\n  }\n"));
  ASSERT_EQ(c.checked.functions.size(), 1u);
  EXPECT_EQ(c.checked.functions[0]->rebindings.size(), 1u);
}

}  // namespace
}  // namespace croq::sema::test
