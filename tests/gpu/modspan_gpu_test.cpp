// `.modspan(...)` tiles on a real device (the interpreter runs the same
// kernels in tests/interp/modspan_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/modspan_kernels.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuModspan, TilesOfTheRemainderEveryMElements) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kModspanTiles);
  auto a = make_spandata<s32>(10, 29);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(6, 20);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::modspan_tiles_mismatch(a.data(), out.data()), "");
}

TEST(GpuModspan, RemainderTilesOfTilesWholeDimsAndDividedExtents) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kModspanForms);
  auto a = make_spandata<s32>(20, 40);
  a.fill_random(-1000, 1000, test::next_seed());
  auto rem = make_spandata<s32>(2, 5);
  auto tiled = make_spandata<s32>(6, 4);
  auto first = make_spandata<s32>(2, 2);
  auto whole = make_spandata<s32>(6, 40);
  auto ones = make_spandata<s32>(4, 1);
  for (auto* t : {&rem, &tiled, &first, &whole, &ones}) t->fill(-7);
  k(a.view(), rem.view(), tiled.view(), first.view(), whole.view(), ones.view());
  EXPECT_EQ(test::modspan_forms_mismatch(a.data(), {rem.data(), tiled.data(), first.data(), whole.data(), ones.data()}),
            "");
}

TEST(GpuModspan, ViewOfAShapeListTakesItsExtents) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kViewOfAShapeList);
  auto a = make_spandata<s32>(6, 8, 4);
  a.fill_random(-1000, 1000, test::next_seed());
  auto out = make_spandata<s32>(2, 3, 4);
  out.fill(-7);
  k(a.view(), out.view());
  EXPECT_EQ(test::view_of_a_shape_list_mismatch(a.data(), out.data()), "");
}

}  // namespace
}  // namespace croq
