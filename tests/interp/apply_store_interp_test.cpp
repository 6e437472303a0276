// Interpret mode: element stores and atomics inside `apply` over an
// accumulator are each thread's own (every thread holds its own elements),
// not narrowed to one thread of the warpgroup as at block scope.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "interp/interp_test_util.hpp"
#include "croq/croq.hpp"

namespace {

std::string kernel(const std::string& update) {
  return "__co__ void f(global f16 [64, 64] a, global f32 [64, 64] out) {\n"
         "  parallel {b} by [2] : block {\n"
         "    shared event full;\n"
         "    shared f16 [64, 64] a_s;\n"
         "    parallel p by 2 : group-4 {\n"
         "      inthreads.async (p == 0) {\n"
         "        tma.copy.swiz<128> a.subspan(64, 64).at(0, 0) => a_s;\n"
         "        trigger full;\n"
         "      }\n"
         "      inthreads.async (p == 1) {\n"
         "        wait full;\n"
         "        acc = mma.fill.f32 0.0f;\n"
         "        mma.row.row acc, a_s, a_s;\n"
         "        apply {i, j} in acc.span {\n"
         "          " + update + "\n"
         "        }\n"
         "      }\n"
         "    }\n"
         "  }\n"
         "}\n";
}

// out against `times` A A^T (every element, so a store of one thread's
// registers only leaves most of them at their poison).
void expect_product(const std::string& update, float times, float poison) {
  croq::Kernel k = croq::test::interpreted(kernel(update));
  auto a = croq::make_spandata<croq::f16>(64, 64);
  auto out = croq::make_spandata<float>(64, 64);
  a.fill_random(-1, 1, 31);
  for (std::size_t i = 0; i < 64 * 64; ++i) out.data()[i] = poison;
  k(a.view(), out.view());
  double worst = 0;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double want = 0;
      for (int c = 0; c < 64; ++c) want += double(float(a.data()[i * 64 + c])) * double(float(a.data()[j * 64 + c]));
      worst = std::max(worst, std::fabs(out.data()[i * 64 + j] - times * want));
    }
  EXPECT_LT(worst, 1e-3) << update;
}

TEST(InterpretApply, EveryThreadStoresItsOwnElements) { expect_product("out.at(i, j) = acc.at(i, j);", 1, 1e4f); }

TEST(InterpretApply, EveryThreadAddsItsOwnElementsAtomically) {
  expect_product("__atomic_add(out.at(i, j), acc.at(i, j));", 2, 0);  // two blocks add the product
}

}  // namespace
