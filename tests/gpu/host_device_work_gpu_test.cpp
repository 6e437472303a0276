// Element stores and copies in host code on a real device, against the
// host reference (the interpreter runs the same program in
// tests/interp/host_device_work_interp_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/host_device_work_source.hpp"
#include "common/host_statement_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuHostDeviceWork, StoresAndCopiesRunInOrderWithTheKernels) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kHostDeviceWorkSource);
  for (std::int64_t rows : {std::int64_t{0}, std::int64_t{5}, std::int64_t{300}}) {
    std::vector<float> a = test::seeded_floats(300 * 64, static_cast<unsigned>(test::next_seed()));
    std::vector<float> b(a.size(), -12345.0f);  // poisoned: every element is written
    std::vector<float> want_a = a, want_b = b;
    test::host_device_work_reference(want_a, want_b, rows);
    testing::internal::CaptureStdout();
    k(TensorView::contiguous(a.data(), DType::f32, Shape{300, 64}),
      TensorView::contiguous(b.data(), DType::f32, Shape{300, 64}), rows);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), test::host_device_work_output(rows));
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i], want_a[i]) << rows << " rows, a at " << i;
      ASSERT_EQ(b[i], want_b[i]) << rows << " rows, b at " << i;
    }
  }
}

}  // namespace
}  // namespace croq
