// Interpret mode: parameters whose dims the call gives (a rank only,
// `f32 mdspan<2>`, and dims without a name, `f32 [?]`), against the host
// reference (tests/common/param_forms_kernel.hpp; the GPU runs the same
// kernel in tests/gpu/param_forms_gpu_test.cpp).
#include <gtest/gtest.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "common/param_forms_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

// The first n elements of a host tensor.
template <typename T>
std::vector<float> values(const T& t, std::size_t n) {
  return std::vector<float>(t.data(), t.data() + n);
}

TEST(InterpretParamForms, RankOnlyAndUnnamedDimsTakeTheCallsExtents) {
  croq::Kernel k = croq::test::interpreted(croq::test::kParamFormsKernel);
  // Two calls of other shapes: each specializes the kernel on its extents.
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{3, 5}, {6, 2}}) {
    auto x = croq::make_spandata<croq::f32>(rows, cols);
    auto factor = croq::make_spandata<croq::f32>(rows);
    auto bias = croq::make_spandata<croq::f32>(rows, cols);
    auto out = croq::make_spandata<croq::f32>(rows, cols);
    x.fill_random(-4, 4, 31);
    factor.fill_random(-2, 2, 32);
    bias.fill_random(-1, 1, 33);
    out.fill(-7);
    k(x.view(), factor.view(), bias.view(), out.view());
    const std::vector<float> want = croq::test::param_forms_reference(
        values(x, rows * cols), values(factor, rows), values(bias, rows * cols), rows, cols);
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(out.data()[i], want[i]) << rows << " x " << cols << ", element " << i;
  }
}

TEST(InterpretParamForms, AReturnedTensorTakesTheShapeOfAnUnnamedDim) {
  croq::Kernel k = croq::test::interpreted(R"(__co__ auto twice(s32 [?, 4] x) {
  s32 [x.span] out;
  parallel r by x.span(0) {
    foreach c in [4]
      out.at(r, c) = x.at(r, c) * 2;
  }
  return out;
}
)");
  auto x = croq::make_spandata<croq::s32>(7, 4);
  x.fill_random(-100, 100, 34);
  croq::Tensor out = k(x.view());
  ASSERT_EQ(out.shape().rank(), 2);
  ASSERT_EQ(out.shape()[0], 7u);
  for (std::size_t i = 0; i < 7; ++i)
    for (std::size_t j = 0; j < 4; ++j) ASSERT_EQ(out[i][j].as_int(), 2 * x[i][j]) << i << ", " << j;
}

}  // namespace
