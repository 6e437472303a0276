// Element stores and copies in host code in interpret mode, against the
// host reference (tests/common/host_device_work_source.hpp; the GPU runs
// the same program in tests/gpu/host_device_work_gpu_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/host_device_work_source.hpp"
#include "common/host_statement_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(HostDeviceWorkInterp, StoresAndCopiesRunInOrderWithTheKernels) {
  Kernel k = test::interpreted(test::kHostDeviceWorkSource);
  for (std::int64_t rows : {std::int64_t{0}, std::int64_t{2}, std::int64_t{3}}) {
    std::vector<float> a = test::seeded_floats(3 * 64, 17);
    std::vector<float> b(a.size(), -12345.0f);  // poisoned: every element is written
    std::vector<float> want_a = a, want_b = b;
    test::host_device_work_reference(want_a, want_b, rows);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(a.data(), DType::f32, Shape{3, 64}),
      TensorView::contiguous(b.data(), DType::f32, Shape{3, 64}), rows);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_device_work_output(rows));
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i], want_a[i]) << rows << " rows, a at " << i;
      ASSERT_EQ(b[i], want_b[i]) << rows << " rows, b at " << i;
    }
  }
}

}  // namespace
}  // namespace croq
