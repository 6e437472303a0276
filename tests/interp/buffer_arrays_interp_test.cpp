// Interpret mode: arrays of local and of global buffers, against the host
// references (tests/common/buffer_arrays_kernel.hpp; the GPU runs the same
// kernels in tests/gpu/buffer_arrays_gpu_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "common/buffer_arrays_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

// `source` on a random [4, columns] input; what its output misses of `reference`.
template <typename Reference>
std::string run_interpreted(const char* source, int columns, Reference reference) {
  croq::Kernel k = croq::test::interpreted(source);
  auto a = croq::make_spandata<croq::s32>(4, columns);
  a.fill_random(-1000, 1000, 5);
  auto out = croq::make_spandata<croq::s32>(4, 64);
  out.fill(-7);
  k(a.view(), out.view());
  return croq::test::buffer_arrays_mismatch(a.data(), out.data(), reference);
}

TEST(InterpretLocalArrays, SlotsOfLocalArraysMatchTheHost) {
  EXPECT_EQ(run_interpreted(croq::test::kLocalArraysKernel, 512, croq::test::local_arrays_reference), "");
}

TEST(InterpretGlobalArrays, BuffersOfAGlobalArrayMatchTheHostAcrossKernels) {
  EXPECT_EQ(run_interpreted(croq::test::kGlobalArraysKernel, 64, croq::test::global_arrays_reference), "");
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
