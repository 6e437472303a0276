// Tiles named by tuples and shapes bound to names on a real device, against
// the host reference (the interpreter runs the same kernel in
// tests/interp/tuple_binding_interp_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/tuple_binding_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuTupleBinding, TilesNamedByTuplesAndShapesMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kTupleBindingKernel);
  for (int rows : {4, 12, 256}) {
    auto x = make_spandata<f32>(rows, 48);
    x.fill_random(-8, 8, test::next_seed());
    auto out = make_spandata<f32>(rows, 48);
    out.fill(-1);
    k(x.view(), out.view(), -2);  // a power of two: x * k is exact, fused or not
    const std::vector<float> want =
        test::tuple_binding_reference(std::vector<float>(x.data(), x.data() + rows * 48), -2);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << rows << " rows, element " << i;
  }
}

}  // namespace
}  // namespace croq
