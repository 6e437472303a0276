// Strided views on a real device (the interpreter runs the same kernel in
// tests/interp/strided_view_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/strided_view_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuStridedView, WindowsReadTheirStrides) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kStridedViewKernel);
  auto a = make_spandata<f32>(64, 32);
  a.fill_random(-1.0f, 1.0f);
  auto out = make_spandata<f32>(64, 4);
  out.fill(-7.0f);
  auto twice = make_spandata<f32>(16, 6);
  twice.fill(-7.0f);
  k(a.view(), out.view(), twice.view());
  EXPECT_EQ(test::strided_view_mismatch(a.data(), out.data(), twice.data()), "");
}

}  // namespace
}  // namespace croq
