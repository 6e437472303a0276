// Host programs on the GPU: the host statements run around the launches,
// which take the host scalars per launch; the output and results are those
// of interpret mode (tests/interp/host_statements_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/host_statement_sources.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(HostStatementsGpu, KernelInAHostLoopLaunchesPerIterationWithItsIndex) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostLoopSource);
  std::vector<float> a = test::seeded_floats(3000, 7);
  const std::vector<float> want = test::host_loop_reference(a, 5);
  testing::internal::CaptureStdout();
  k(TensorView::contiguous(a.data(), DType::f32, Shape{3000}), std::int64_t{5});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), test::kHostLoopOutput);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "at " << i;
}

TEST(HostStatementsGpu, FloatingHostScalarAndBranchPickTheKernels) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostScaleSource);
  for (std::size_t n : {std::size_t{4}, std::size_t{1037}}) {
    std::vector<float> x = test::seeded_floats(n, 11);
    testing::internal::CaptureStdout();
    Tensor out = k(TensorView::contiguous(x.data(), DType::f32, Shape{n}), 0.5);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "scale 1.000000\n");
    const std::vector<float> want = test::host_scale_reference(x, 0.5f);
    const float* got = static_cast<const float*>(out.data());
    for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], want[i], 1e-6f) << "n " << n << " at " << i;
  }
}

TEST(HostStatementsGpu, FunctionWithoutParallelStatementPrints) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostOnlySource);
  testing::internal::CaptureStdout();
  k(std::int64_t{10});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), test::kHostOnlyOutput);
  EXPECT_EQ(k.stats().specializations.at(0).images, 0);
}

}  // namespace
}  // namespace croq
