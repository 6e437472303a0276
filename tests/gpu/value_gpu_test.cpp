// Rebinding, `++`/`--` inside expressions, `yield` and `select` on a real
// device, against the host references (the interpreter runs the same
// kernels in tests/interp/value_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/value_kernels.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuValues, RebindingUpdatesAndYieldMatchTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kValueUpdatesKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto input = make_spandata<s32>(4, 64);
    input.fill_random(-200, 1000, test::next_seed());
    auto sums = make_spandata<s32>(4, 64);
    auto steps = make_spandata<s32>(4, 64);
    sums.fill(-9);
    steps.fill(-9);
    k(input.view(), sums.view(), steps.view());
    for (std::size_t i = 0; i < 4 * 64; ++i) {
      const std::int32_t x = input.data()[i];
      if (x < 0) {  // the thread yielded: the poison stays
        ASSERT_EQ(sums.data()[i], -9) << "element " << i;
        ASSERT_EQ(steps.data()[i], -9) << "element " << i;
        continue;
      }
      const test::ValueUpdatesResult want = test::value_updates_reference(x);
      ASSERT_EQ(sums.data()[i], want.sum) << "element " << i << ", input " << x;
      ASSERT_EQ(steps.data()[i], want.steps) << "element " << i << ", input " << x;
    }
  }
}

TEST(GpuValues, SelectAmongTilesAndFuturesMatchesTheHost) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kValueSelectKernel);
  for (int trial = 0; trial < 3; ++trial) {
    auto a = make_spandata<f32>(8, 64);
    auto b = make_spandata<f32>(8, 64);
    a.fill_random(-4, 4, test::next_seed());
    b.fill_random(-4, 4, test::next_seed());
    auto picked = make_spandata<f32>(8, 64);
    auto again = make_spandata<f32>(8, 64);
    auto locals = make_spandata<f32>(8, 64);
    picked.fill(-99.0f);
    again.fill(-99.0f);
    locals.fill(-99.0f);
    k(a.view(), b.view(), picked.view(), again.view(), locals.view());
    test::check_value_select(a.data(), b.data(), picked.data(), again.data(), locals.data(),
                             [](float got, float want, const char* what, std::size_t p, std::size_t t) {
                               ASSERT_EQ(got, want) << what << ", block " << p << ", thread " << t;
                             });
  }
}

}  // namespace
}  // namespace croq
