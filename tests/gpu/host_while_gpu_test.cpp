// A host `while` loop around a kernel on a real device, against the host
// reference (the interpreter runs the same program in
// tests/interp/host_while_interp_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/host_statement_sources.hpp"
#include "common/host_while_source.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuHostWhile, KernelLaunchesOncePerRoundWithTheRoundsScalar) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostWhileSource);
  for (std::int64_t start : {std::int64_t{10}, std::int64_t{1}, std::int64_t{1000}}) {
    std::vector<float> a = test::seeded_floats(4099, static_cast<unsigned>(test::next_seed()));
    const std::vector<float> want = test::host_while_reference(a, start);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(a.data(), DType::f32, Shape{4099}), start);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_while_output(start));
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want[i]) << "start " << start << " at " << i;
  }
}

}  // namespace
}  // namespace croq
