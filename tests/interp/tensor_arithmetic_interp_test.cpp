// Element-wise arithmetic on whole tensors in interpret mode, against a host
// reference (tests/common/tensor_arithmetic_source.hpp).
#include <gtest/gtest.h>

#include "common/host_statement_sources.hpp"
#include "common/tensor_arithmetic_source.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(TensorArithmeticInterp, WholeTensorsAndNumbersElementByElement) {
  Kernel k = test::interpreted(test::kTensorArithmeticSource);
  const std::size_t m = 3, n = 5;
  std::vector<float> a = test::seeded_floats(m * n, 1), b = test::seeded_floats(n, 2), c = test::seeded_floats(m * n, 3);
  std::vector<float> h = test::seeded_floats(2 * m * n, 4);
  for (float& x : a) x += 4.0f;  // away from 0: h is divided by the result
  const test::TensorArithmeticData want = test::tensor_arithmetic_reference(a, b, c, h, 1.5f);
  k(TensorView::contiguous(a.data(), DType::f32, Shape{m, n}), TensorView::contiguous(b.data(), DType::f32, Shape{n}),
    TensorView::contiguous(c.data(), DType::f32, Shape{m, n}),
    TensorView::contiguous(h.data(), DType::f32, Shape{2, m, n}), 1.5f);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], want.a[i]) << "a at " << i;
  for (std::size_t i = 0; i < h.size(); ++i) ASSERT_EQ(h[i], want.h[i]) << "h at " << i;
}

}  // namespace
}  // namespace croq
