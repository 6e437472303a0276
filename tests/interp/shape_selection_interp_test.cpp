// Interpret mode: shared tiles of shapes selected from another
// (tests/common/shape_selection_kernel.hpp; the GPU runs the same kernel in
// tests/gpu/shape_selection_gpu_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/shape_selection_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretShapeSelection, TilesOfSelectedShapesMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kShapeSelectionKernel);
  for (int rows : {1, 3}) {
    auto x = croq::make_spandata<croq::f32>(rows, 2, 32);
    x.fill_random(-8, 8, 31 + rows);
    auto out = croq::make_spandata<croq::f32>(rows, 32);
    out.fill(-12345);
    k(x.view(), out.view());
    const std::vector<float> want = croq::test::shape_selection_reference(
        std::vector<float>(x.data(), x.data() + rows * 2 * 32), rows);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << rows << " rows, element " << i;
  }
}

TEST(InterpretShapeSelection, PicksInsideArithmeticMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kPickArithmeticKernel);
  for (int rows : {1, 3}) {
    auto x = croq::make_spandata<croq::f32>(rows, 8);
    x.fill_random(-8, 8, 41 + rows);
    auto out = croq::make_spandata<croq::f32>(rows, 4);
    out.fill(-12345);
    k(x.view(), out.view());
    const std::vector<float> want =
        croq::test::pick_arithmetic_reference(std::vector<float>(x.data(), x.data() + rows * 8), rows);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << rows << " rows, element " << i;
  }
}

}  // namespace
