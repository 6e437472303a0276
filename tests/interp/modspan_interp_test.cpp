// Interpret mode: `.modspan(...)` tiles (tests/common/modspan_kernels.hpp)
// against their host references, on random data.
#include <gtest/gtest.h>

#include "common/modspan_kernels.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::s32;

TEST(InterpretModspan, TilesOfTheRemainderEveryMElements) {
  croq::Kernel k = croq::test::interpreted(croq::test::kModspanTiles);
  auto a = croq::make_spandata<s32>(10, 29);
  a.fill_random(-1000, 1000, 53);
  auto out = croq::make_spandata<s32>(6, 20);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::modspan_tiles_mismatch(a.data(), out.data()), "");
}

TEST(InterpretModspan, RemainderTilesOfTilesWholeDimsAndDividedExtents) {
  croq::Kernel k = croq::test::interpreted(croq::test::kModspanForms);
  auto a = croq::make_spandata<s32>(20, 40);
  a.fill_random(-1000, 1000, 59);
  auto rem = croq::make_spandata<s32>(2, 5);
  auto tiled = croq::make_spandata<s32>(6, 4);
  auto first = croq::make_spandata<s32>(2, 2);
  auto whole = croq::make_spandata<s32>(6, 40);
  auto ones = croq::make_spandata<s32>(4, 1);
  for (auto* t : {&rem, &tiled, &first, &whole, &ones}) t->fill(-7);
  k(a.view(), rem.view(), tiled.view(), first.view(), whole.view(), ones.view());
  EXPECT_EQ(croq::test::modspan_forms_mismatch(
                a.data(), {rem.data(), tiled.data(), first.data(), whole.data(), ones.data()}),
            "");
}

TEST(InterpretModspan, ViewOfAShapeListTakesItsExtents) {
  croq::Kernel k = croq::test::interpreted(croq::test::kViewOfAShapeList);
  auto a = croq::make_spandata<s32>(6, 8, 4);
  a.fill_random(-1000, 1000, 71);
  auto out = croq::make_spandata<s32>(2, 3, 4);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(croq::test::view_of_a_shape_list_mismatch(a.data(), out.data()), "");
}

}  // namespace
