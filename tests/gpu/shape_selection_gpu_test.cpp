// Shared tiles of shapes selected from another on a real device, against
// the host reference (the interpreter runs the same kernel in
// tests/interp/shape_selection_interp_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/shape_selection_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuShapeSelection, TilesOfSelectedShapesMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kShapeSelectionKernel);
  for (int rows : {1, 5, 64}) {
    auto x = make_spandata<f32>(rows, 2, 32);
    x.fill_random(-8, 8, test::next_seed());
    auto out = make_spandata<f32>(rows, 32);
    out.fill(-12345);
    k(x.view(), out.view());
    const std::vector<float> want =
        test::shape_selection_reference(std::vector<float>(x.data(), x.data() + rows * 2 * 32), rows);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << rows << " rows, element " << i;
  }
}

TEST(GpuShapeSelection, PicksInsideArithmeticMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kPickArithmeticKernel);
  for (int rows : {1, 5, 64}) {
    auto x = make_spandata<f32>(rows, 8);
    x.fill_random(-8, 8, test::next_seed());
    auto out = make_spandata<f32>(rows, 4);
    out.fill(-12345);
    k(x.view(), out.view());
    const std::vector<float> want =
        test::pick_arithmetic_reference(std::vector<float>(x.data(), x.data() + rows * 8), rows);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << rows << " rows, element " << i;
  }
}

}  // namespace
}  // namespace croq
