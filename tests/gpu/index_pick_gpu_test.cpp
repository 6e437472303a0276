// A value of an index picked from a tuple of indices (`index(1)(-1)`) on a
// real device, against the host reference (the interpreter runs the same
// kernel in tests/interp/index_pick_interp_test.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/index_pick_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuIndexPick, ValueOfAnIndexPickedFromATuple) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kIndexPickKernel);
  for (std::int32_t rows : {3, 37}) {
    std::vector<std::int32_t> out(static_cast<std::size_t>(rows) * 8, -1);
    k(TensorView::contiguous(out.data(), DType::s32, Shape{static_cast<std::size_t>(rows), 8}));
    EXPECT_EQ(out, test::index_pick_reference(rows)) << rows;
  }
}

}  // namespace
}  // namespace croq
