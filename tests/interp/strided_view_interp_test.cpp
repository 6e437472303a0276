// Interpret mode: strided views (the GPU runs the same kernel in
// tests/gpu/strided_view_gpu_test.cpp), and a window that reaches past its
// tensor at run time, which stops the kernel at the view's line.
#include <gtest/gtest.h>

#include "common/strided_view_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretStridedView, WindowsReadTheirStrides) {
  croq::Kernel k = croq::test::interpreted(croq::test::kStridedViewKernel);
  auto a = croq::make_spandata<croq::f32>(64, 32);
  a.fill_random(-1.0f, 1.0f);
  auto out = croq::make_spandata<croq::f32>(64, 4);
  out.fill(-7.0f);
  auto twice = croq::make_spandata<croq::f32>(16, 6);
  twice.fill(-7.0f);
  k(a.view(), out.view(), twice.view());
  EXPECT_EQ(croq::test::strided_view_mismatch(a.data(), out.data(), twice.data()), "");
}

TEST(InterpretStridedView, AWindowPastTheTensorStopsTheKernel) {
  croq::Kernel k = croq::test::interpreted(R"(__co__ void past(f32 [8, 8] a, f32 [4, 4] out) {
  parallel p by 2 : block {
    s = dma.copy a.view(4, 4 : 16, 1).from(p, 0) => shared;
    dma.copy s.data => out;
  }
}
)");
  auto a = croq::make_spandata<croq::f32>(8, 8);
  a.fill(1.0f);
  auto out = croq::make_spandata<croq::f32>(4, 4);
  try {
    k(a.view(), out.view());
    FAIL() << "block 1's window ends at element 67 of 64";
  } catch (const croq::Error& e) {
    EXPECT_NE(std::string(e.what()).find("<source>:3:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("assertion failed"), std::string::npos) << e.what();
  }
}

}  // namespace
