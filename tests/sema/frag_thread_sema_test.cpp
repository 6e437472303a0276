// Register fragments inside thread levels, `apply` over them, `copy`,
// `reduce_*` and `all_reduce_sum`; `mma.load src, frag`; `.async` on mma and
// mma.store with their futures: the kernels the interpret and GPU tests run
// pass sema with no limitation, and so do the forms one by one.
#include "common/frag_thread_sources.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

void expect_clean(const std::string& source, const std::string& arch = "sm_90a") {
  Options options;
  options.target = target::parse_target(arch);
  options.limitations_are_errors = true;
  auto e = sema_error(source, options);
  EXPECT_FALSE(e.has_value()) << (e ? e->what() : "") << "\n" << source;
}

TEST(FragThread, KernelsOfTheInterpretAndGpuTestsPass) {
  expect_clean(croq::test::thread_row_softmax(32));
  expect_clean(croq::test::kThreadFragmentFma);
  expect_clean(croq::test::kRowNormalizedProduct);
}

// A thread level's fragments are registers of each thread: any arch.
TEST(FragThread, ThreadLevelFragmentsPassOnSm80) {
  expect_clean(croq::test::thread_row_softmax(128), "sm_80");
  expect_clean(croq::test::kThreadFragmentFma, "sm_80");
}

TEST(FragThread, EachFormPasses) {
  const std::string thread = "  parallel t by 128 : thread {\n    frag f32 [64, 64] s;\n    frag f32 [64] r {0.0f};\n";
  expect_clean(fn(thread + "    apply {i, j} in s.span\n      s.at(i, j) = r.at(i) + __to<f32>(j);\n  }\n"));
  expect_clean(fn(thread + "    reduce_max(r, s, 1);\n    reduce_sum(r, s, 1);\n    all_reduce_sum(r);\n  }\n"));
  expect_clean(fn(thread + "    frag f32 [64, 64] c;\n    copy(c, s);\n  }\n"));
  expect_clean(wg("      f = mma.row.row.async mc, ta.data, tb.data;\n      wait f;\n"
                  "      shared f32 [64, 64] o;\n      mma.store.async mc, o;\n"));
  expect_clean(wg("      frag f16 [64, 64] af;\n      mma.load ta.data, af;\n      mma.row.row mc, af, tb.data;\n"));
}

TEST(FragThread, AnMmaFutureIsWaitedNotTriggeredAfter) {
  auto e = sema_error(blk("    shared event done;\n    parallel p by 1 : group-4 {\n      mc = mma.fill.f32 0.0f;\n"
                          "      ta = tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => shared;\n"
                          "      f = mma.row.row.async mc, ta.data, ta.data;\n      trigger done after f;\n    }\n"));
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->diagnostics().size(), 1u) << e->what();
  EXPECT_EQ(e->diagnostics()[0].rule, "trigger-after-future");
  EXPECT_EQ(e->diagnostics()[0].message, "`f` is the future of an mma, which completes no event by itself");
  EXPECT_EQ(e->diagnostics()[0].hint, "write `wait f;` and then the `trigger`");
}

}  // namespace
}  // namespace croq::sema::test
