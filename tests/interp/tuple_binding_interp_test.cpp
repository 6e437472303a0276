// Interpret mode: tiles named by tuples and shapes bound to names, against
// the host reference (tests/common/tuple_binding_kernel.hpp; the GPU runs
// the same kernel in tests/gpu/tuple_binding_gpu_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "common/tuple_binding_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretTupleBinding, TilesNamedByTuplesAndShapesMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kTupleBindingKernel);
  for (int rows : {4, 12}) {
    auto x = croq::make_spandata<croq::f32>(rows, 48);
    x.fill_random(-8, 8, 31 + rows);
    auto out = croq::make_spandata<croq::f32>(rows, 48);
    out.fill(-1);
    k(x.view(), out.view(), 4);  // a power of two: x * k is exact, fused or not
    const std::vector<float> want =
        croq::test::tuple_binding_reference(std::vector<float>(x.data(), x.data() + rows * 48), 4);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(out.data()[i], want[i]) << rows << " rows, element " << i;
  }
}

}  // namespace
