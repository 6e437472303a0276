// A host `with` around kernels in interpret mode: the `foreach` loops over
// its names launch the kernels with each index, the names are 0 outside
// them (tests/common/host_with_source.hpp; the GPU: tests/gpu/host_with_gpu_test.cpp).
#include <gtest/gtest.h>

#include "common/host_statement_sources.hpp"
#include "common/host_with_source.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(HostWithInterp, ForeachOfAWithsNamesLaunchesPerIteration) {
  Kernel k = test::interpreted(test::kHostWithSource);
  for (std::int64_t reps : {0, 1, 4}) {
    std::vector<float> a = test::seeded_floats(2 * 9, 5);
    const std::vector<float> want = test::host_with_reference(a, reps);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(a.data(), DType::f32, Shape{9, 2}), reps);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::kHostWithOutput);
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "reps " << reps << " at " << i;
  }
}

TEST(HostWithInterp, AWithOfHostCodeBetweenKernelsRunsOnce) {
  Kernel k = test::interpreted(test::kHostWithBetweenSource);
  for (std::int64_t n : {0, 3}) {
    std::vector<std::int32_t> out(6, -1);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(out.data(), DType::s32, Shape{6}), n);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_with_between_output(n));
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<std::int32_t>(i + n)) << "at " << i;
  }
}

TEST(HostWithInterp, ForeachOfAnUnnamedTupleLoopsOverItsElements) {
  Kernel k = test::interpreted(test::kHostWithUnnamedSource);
  for (std::int64_t reps : {0, 1, 3}) {
    std::vector<float> a = test::seeded_floats(11, 8);
    const std::vector<float> want = test::host_with_unnamed_reference(a, reps);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(a.data(), DType::f32, Shape{11}), reps);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_with_unnamed_output(reps));
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "reps " << reps << " at " << i;
  }
}

TEST(HostWithInterp, ANameNotBoundByAWithIsAnErrorAtTheForeach) {
  try {
    test::interpreted("__co__ void f(f32 [4] a) {\n"
                      "  with x in 3 {\n"
                      "    foreach y\n"
                      "      parallel p by 4 : block\n"
                      "        a.at(p) = a.at(p) + x;\n"
                      "  }\n"
                      "}\n");
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(":3:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace croq
