// Named barriers (__bar_arrive / __bar_sync) on a real device, against the
// host reference (the interpreter runs the same kernel in
// tests/interp/named_barrier_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/named_barrier_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuNamedBarrier, TwoWarpsHandATileBackAndForth) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kNamedBarrierKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto input = make_spandata<f32>(4, 32);
    input.fill_random(-8, 8, test::next_seed());
    auto output = make_spandata<f32>(4, 32);
    output.fill(-7);
    k(input.view(), output.view());
    test::expect_relayed(input.data(), output.data());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace croq
