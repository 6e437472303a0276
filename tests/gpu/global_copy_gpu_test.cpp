// A copy into a new global buffer on the GPU, against the host reference of
// interpret mode (tests/interp/global_copy_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/global_copy_source.hpp"
#include "common/host_statement_sources.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GlobalCopyGpu, ACopyIntoANewGlobalBufferHoldsTheTile) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kGlobalCopySource);
  std::vector<float> a = test::seeded_floats(200 * 8, 1), out = test::seeded_floats(200 * 8, 2);
  const std::vector<float> want = test::global_copy_reference(a, out);
  k(TensorView::contiguous(a.data(), DType::f32, Shape{200, 8}),
    TensorView::contiguous(out.data(), DType::f32, Shape{200, 8}));
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want[i]) << "at " << i;
}

}  // namespace
}  // namespace croq
