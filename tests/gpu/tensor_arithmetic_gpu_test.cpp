// Element-wise arithmetic on whole tensors on the GPU, against the host
// reference of interpret mode (tests/interp/tensor_arithmetic_interp_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "common/host_statement_sources.hpp"
#include "common/tensor_arithmetic_source.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(TensorArithmeticGpu, WholeTensorsAndNumbersElementByElement) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kTensorArithmeticSource);
  const std::size_t m = 40, n = 24;
  std::vector<float> a = test::seeded_floats(m * n, 1), b = test::seeded_floats(n, 2), c = test::seeded_floats(m * n, 3);
  std::vector<float> h = test::seeded_floats(2 * m * n, 4);
  for (float& x : a) x += 4.0f;
  const test::TensorArithmeticData want = test::tensor_arithmetic_reference(a, b, c, h, 1.5f);
  k(TensorView::contiguous(a.data(), DType::f32, Shape{m, n}), TensorView::contiguous(b.data(), DType::f32, Shape{n}),
    TensorView::contiguous(c.data(), DType::f32, Shape{m, n}),
    TensorView::contiguous(h.data(), DType::f32, Shape{2, m, n}), 1.5f);
  // The device may fuse `* d` and `- c` into one rounding.
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], want.a[i], 1e-5f * (1 + std::fabs(want.a[i]))) << i;
  for (std::size_t i = 0; i < h.size(); ++i) ASSERT_NEAR(h[i], want.h[i], 1e-5f * (1 + std::fabs(want.h[i]))) << i;
}

}  // namespace
}  // namespace croq
