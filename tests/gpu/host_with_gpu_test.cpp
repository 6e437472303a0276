// A host `with` around kernels on the GPU: the output and the results are
// those of interpret mode (tests/interp/host_with_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/host_statement_sources.hpp"
#include "common/host_with_source.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(HostWithGpu, ForeachOfAWithsNamesLaunchesPerIteration) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostWithSource);
  for (std::int64_t reps : {0, 3, 7}) {
    std::vector<float> a = test::seeded_floats(2 * 1000, 9);
    const std::vector<float> want = test::host_with_reference(a, reps);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(a.data(), DType::f32, Shape{1000, 2}), reps);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::kHostWithOutput);
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "reps " << reps << " at " << i;
  }
}

TEST(HostWithGpu, AWithOfHostCodeBetweenKernelsRunsOnce) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostWithBetweenSource);
  std::vector<std::int32_t> out(1000, -1);
  testing::internal::CaptureStdout();
  k(TensorView::contiguous(out.data(), DType::s32, Shape{1000}), std::int64_t{5});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_with_between_output(5));
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<std::int32_t>(i + 5)) << "at " << i;
}

TEST(HostWithGpu, ForeachOfAnUnnamedTupleLoopsOverItsElements) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostWithUnnamedSource);
  std::vector<float> a = test::seeded_floats(1000, 12);
  const std::vector<float> want = test::host_with_unnamed_reference(a, 4);
  testing::internal::CaptureStdout();
  k(TensorView::contiguous(a.data(), DType::f32, Shape{1000}), std::int64_t{4});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_with_unnamed_output(4));
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "at " << i;
}

}  // namespace
}  // namespace croq
