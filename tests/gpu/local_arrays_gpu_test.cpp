// Arrays of local buffers on a real device, against the host reference (the
// interpreter runs the same kernel in tests/interp/local_arrays_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/local_arrays_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuLocalArrays, SlotsOfLocalArraysMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kLocalArraysKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto a = make_spandata<s32>(4, 512);
    a.fill_random(-1000, 1000, test::next_seed());
    auto out = make_spandata<s32>(4, 64);
    out.fill(-7);
    k(a.view(), out.view());
    for (int b = 0; b < 4; ++b)
      for (int t = 0; t < 64; ++t)
        ASSERT_EQ(out.data()[b * 64 + t], test::local_arrays_reference(a.data(), b, t)) << "b " << b << ", t " << t;
  }
}

}  // namespace
}  // namespace croq
