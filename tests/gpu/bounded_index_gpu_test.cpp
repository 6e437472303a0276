// Bounded indices bound to names and moved by `#+` / `#-` on a real device
// (the interpreter runs the same kernels in tests/interp/bounded_index_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/bounded_index_kernels.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuBoundedIndex, GrownIndexBoundToANameTilesByItsCount) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kGrownIndexTiles);
  auto a = make_spandata<s32>(16, 8);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(16, 8);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::grown_index_mismatch(a.data(), out.data()), "");
}

TEST(GpuBoundedIndex, ShrunkIndexTilesByItsCount) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kShrunkIndexTiles);
  auto a = make_spandata<s32>(12, 8);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(12, 8);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::shrunk_index_mismatch(a.data(), out.data()), "");
}

}  // namespace
}  // namespace croq
