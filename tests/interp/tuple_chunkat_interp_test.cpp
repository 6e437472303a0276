// Interpret mode: `chunkat` given a tuple of indices (the GPU runs the same
// kernel in tests/gpu/tuple_chunkat_gpu_test.cpp).
#include <gtest/gtest.h>

#include "common/tuple_chunkat_kernel.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretTupleChunkat, ATupleOfIndicesStandsForItsIndices) {
  croq::Kernel k = croq::test::interpreted(croq::test::kTupleChunkatKernel);
  auto a = croq::make_spandata<croq::s32>(4, 6, 8);
  a.fill_random(-1000, 1000, 9);
  auto out = croq::make_spandata<croq::s32>(4, 6, 8);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::tuple_chunkat_mismatch(a.data(), out.data()), "");
}

}  // namespace
