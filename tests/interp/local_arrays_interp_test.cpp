// Interpret mode: arrays of local buffers, against the host reference
// (tests/common/local_arrays_kernel.hpp; the GPU runs the same kernel in
// tests/gpu/local_arrays_gpu_test.cpp).
#include <gtest/gtest.h>

#include "common/local_arrays_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretLocalArrays, SlotsOfLocalArraysMatchTheHost) {
  croq::Kernel k = croq::test::interpreted(croq::test::kLocalArraysKernel);
  auto a = croq::make_spandata<croq::s32>(4, 512);
  a.fill_random(-1000, 1000, 5);
  auto out = croq::make_spandata<croq::s32>(4, 64);
  out.fill(-7);
  k(a.view(), out.view());
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 64; ++t)
      ASSERT_EQ(out.data()[b * 64 + t], croq::test::local_arrays_reference(a.data(), b, t)) << "b " << b << ", t " << t;
}

// A slot past the array is reported at its line, as on the device it
// would read another slot's elements.
TEST(InterpretLocalArrays, ASlotPastTheArrayIsReported) {
  croq::Kernel k = croq::test::interpreted(R"(__co__ void f(s32 [64] out, int n) {
  parallel t by 64 {
    local s32 [4] acc[2];
    acc[n].at(0) = t;
    out.at(t) = acc[0].at(0);
  }
}
)");
  auto out = croq::make_spandata<croq::s32>(64);
  try {
    k(out.view(), 2);
    FAIL() << "no fault for slot 2 of 2";
  } catch (const croq::InterpretError& e) {
    EXPECT_NE(std::string(e.what()).find("slot 2 of a ring of 2"), std::string::npos) << e.what();
  }
}

}  // namespace
