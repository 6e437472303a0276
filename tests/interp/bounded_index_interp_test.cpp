// Interpret mode: bounded indices bound to names and moved by `#+` / `#-`
// (tests/common/bounded_index_kernels.hpp), against their host references.
#include <gtest/gtest.h>

#include "common/bounded_index_kernels.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::s32;

TEST(InterpretBoundedIndex, GrownIndexBoundToANameTilesByItsCount) {
  croq::Kernel k = croq::test::interpreted(croq::test::kGrownIndexTiles);
  auto a = croq::make_spandata<s32>(16, 8);
  a.fill_random(-1000, 1000, 61);
  auto out = croq::make_spandata<s32>(16, 8);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::grown_index_mismatch(a.data(), out.data()), "");
}

TEST(InterpretBoundedIndex, ShrunkIndexTilesByItsCount) {
  croq::Kernel k = croq::test::interpreted(croq::test::kShrunkIndexTiles);
  auto a = croq::make_spandata<s32>(12, 8);
  a.fill_random(-1000, 1000, 67);
  auto out = croq::make_spandata<s32>(12, 8);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::shrunk_index_mismatch(a.data(), out.data()), "");
}

}  // namespace
