// Arrays of arrays of events on a real GPU (tests/common/event_grid_kernel.hpp):
// fresh random input, a poisoned output, compared with the host reference.
#include <gtest/gtest.h>

#include "common/event_grid_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(EventGridGpu, ElementsRowsAndWholeArraysOfAnArrayOfArrays) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kEventGridKernel);
  auto a = make_spandata<s32>(5, 64);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(5, 64);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::event_grid_mismatch(a.data(), out.data(), 5 * 64), "");
}

}  // namespace
}  // namespace croq
