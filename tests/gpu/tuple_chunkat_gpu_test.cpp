// `chunkat` given a tuple of indices on a real device (the interpreter runs
// the same kernel in tests/interp/tuple_chunkat_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/tuple_chunkat_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuTupleChunkat, ATupleOfIndicesStandsForItsIndices) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kTupleChunkatKernel);
  auto a = make_spandata<s32>(4, 6, 8);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(4, 6, 8);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::tuple_chunkat_mismatch(a.data(), out.data()), "");
}

}  // namespace
}  // namespace croq
