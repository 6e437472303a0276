// A copy into a new global buffer in interpret mode, against a host
// reference (tests/common/global_copy_source.hpp).
#include <gtest/gtest.h>

#include "common/global_copy_source.hpp"
#include "common/host_statement_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(GlobalCopyInterp, ACopyIntoANewGlobalBufferHoldsTheTile) {
  Kernel k = test::interpreted(test::kGlobalCopySource);
  std::vector<float> a = test::seeded_floats(6 * 8, 1), out = test::seeded_floats(6 * 8, 2);
  const std::vector<float> want = test::global_copy_reference(a, out);
  k(TensorView::contiguous(a.data(), DType::f32, Shape{6, 8}), TensorView::contiguous(out.data(), DType::f32, Shape{6, 8}));
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want[i]) << "at " << i;
}

}  // namespace
}  // namespace croq
