// Host programs in interpret mode: host statements run on the CPU around
// the interpreted kernels, with the output a GPU run prints
// (tests/common/host_statement_sources.hpp).
#include <gtest/gtest.h>

#include "common/host_statement_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(HostStatementsInterp, KernelInAHostLoopLaunchesPerIterationWithItsIndex) {
  Kernel k = test::interpreted(test::kHostLoopSource);
  std::vector<float> a = test::seeded_floats(300, 7);
  const std::vector<float> want = test::host_loop_reference(a, 5);
  testing::internal::CaptureStdout();
  k(TensorView::contiguous(a.data(), DType::f32, Shape{300}), std::int64_t{5});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), test::kHostLoopOutput);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "at " << i;
}

TEST(HostStatementsInterp, ZeroIterationsLaunchNothing) {
  Kernel k = test::interpreted(test::kHostLoopSource);
  std::vector<float> a = test::seeded_floats(64, 3);
  const std::vector<float> before = a;
  testing::internal::CaptureStdout();
  k(TensorView::contiguous(a.data(), DType::f32, Shape{64}), std::int64_t{0});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "start 0\ndone 3 0\n");
  EXPECT_EQ(a, before);
}

TEST(HostStatementsInterp, FloatingHostScalarAndBranchPickTheKernels) {
  Kernel k = test::interpreted(test::kHostScaleSource);
  for (std::size_t n : {std::size_t{4}, std::size_t{37}}) {
    std::vector<float> x = test::seeded_floats(n, 11);
    testing::internal::CaptureStdout();
    Tensor out = k(TensorView::contiguous(x.data(), DType::f32, Shape{n}), 0.5);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "scale 1.000000\n");
    const std::vector<float> want = test::host_scale_reference(x, 0.5f);
    const float* got = static_cast<const float*>(out.data());
    for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], want[i], 1e-6f) << "n " << n << " at " << i;
  }
}

TEST(HostStatementsInterp, FunctionWithoutParallelStatementRunsItsHostStatements) {
  Kernel k = test::interpreted(test::kHostOnlySource);
  testing::internal::CaptureStdout();
  Tensor out = k(std::int64_t{10});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), test::kHostOnlyOutput);
  EXPECT_FALSE(out.defined());
}

TEST(HostStatementsInterp, DivisionByZeroInHostCodeNamesTheLine) {
  Kernel k = test::interpreted("__co__ void f(int n) {\n  int q = 10 / n;\n  println(q);\n}\n");
  try {
    k(std::int64_t{0});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "`f`: host code at line 2: 10 / 0 divides by zero");
  }
}

}  // namespace
}  // namespace croq
