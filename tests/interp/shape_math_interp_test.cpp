// Interpret mode: a shared tile sized by arithmetic on a whole shape,
// against the host reference (tests/common/shape_math_kernel.hpp; the GPU
// runs the same kernel in tests/gpu/shape_math_gpu_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/shape_math_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretShapeMath, ATileSizedByShapeArithmeticMatchesTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kShapeMathKernel);
  auto x = croq::make_spandata<croq::f32>(3, 64);
  x.fill_random(-8, 8, 21);
  auto out = croq::make_spandata<croq::f32>(3, 64);
  out.fill(-1);
  k(x.view(), out.view());
  const std::vector<float> want = croq::test::shape_math_reference(std::vector<float>(x.data(), x.data() + 3 * 64), 3);
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << "element " << i;
}

}  // namespace
