// Interpret mode: a value of an index picked from a tuple of indices
// (`index(1)(-1)`), against the host reference
// (tests/common/index_pick_kernel.hpp; the GPU runs the same kernel in
// tests/gpu/index_pick_gpu_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/index_pick_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(InterpretIndexPick, ValueOfAnIndexPickedFromATuple) {
  Kernel k = test::interpreted(test::kIndexPickKernel);
  for (std::int32_t rows : {3, 5}) {
    std::vector<std::int32_t> out(static_cast<std::size_t>(rows) * 8, -1);
    k(TensorView::contiguous(out.data(), DType::s32, Shape{static_cast<std::size_t>(rows), 8}));
    EXPECT_EQ(out, test::index_pick_reference(rows)) << rows;
  }
}

}  // namespace
}  // namespace croq
