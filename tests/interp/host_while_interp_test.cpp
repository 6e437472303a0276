// A host `while` loop around a kernel in interpret mode, against the host
// reference (tests/common/host_while_source.hpp; the GPU runs the same
// program in tests/gpu/host_while_gpu_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/host_statement_sources.hpp"
#include "common/host_while_source.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(HostWhileInterp, KernelLaunchesOncePerRoundWithTheRoundsScalar) {
  Kernel k = test::interpreted(test::kHostWhileSource);
  for (std::int64_t start : {std::int64_t{10}, std::int64_t{1}, std::int64_t{37}}) {
    std::vector<float> a = test::seeded_floats(70, 5);
    const std::vector<float> want = test::host_while_reference(a, start);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(a.data(), DType::f32, Shape{70}), start);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_while_output(start));
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "start " << start << " at " << i;
  }
}

}  // namespace
}  // namespace croq
