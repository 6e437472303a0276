// Interpret mode: warp accumulators whose initial value is an mma.load of a
// tile (tests/common/mma_accumulator_load_sources.hpp) against the host's
// C + A * B^T: f16 into f32 and s8 into s32 (exact), with tails, and
// a product accumulated into its own output one K tile at a time (f32 and
// f16 outputs; integer-valued inputs keep every partial sum exact).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "common/mma_accumulator_load_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::test::accumulated_product;

TEST(InterpretAccumulatorLoad, WarpAccumulatorsStartFromTheOutputTile) {
  croq::Kernel k = croq::test::interpreted(croq::test::kAccumulateIntoOutput);
  const std::size_t m = 40, n = 20, kk = 40;  // tails in every dim
  auto lhs = croq::make_spandata<croq::f16>(m, kk);
  auto rhs = croq::make_spandata<croq::f16>(n, kk);
  auto out = croq::make_spandata<float>(m, n);
  lhs.fill_random(-1, 1, 11);
  rhs.fill_random(-1, 1, 12);
  out.fill_random(-100, 100, 13);
  const std::vector<float> before(out.data(), out.data() + m * n);
  k(lhs.view(), rhs.view(), out.view());
  const std::vector<double> want = accumulated_product(lhs.data(), rhs.data(), before.data(), m, n, kk);
  for (std::size_t i = 0; i < m * n; ++i)
    ASSERT_NEAR(out.data()[i], want[i], 1e-3 * (1 + std::fabs(want[i]))) << i / n << ", " << i % n;
}

TEST(InterpretAccumulatorLoad, IntegerAccumulatorsStartFromAnS32TileExactly) {
  croq::Kernel k = croq::test::interpreted(croq::test::kAccumulateIntegers);
  const std::size_t m = 40, n = 20, kk = 80;
  auto lhs = croq::make_spandata<croq::s8>(m, kk);
  auto rhs = croq::make_spandata<croq::s8>(n, kk);
  auto out = croq::make_spandata<croq::s32>(m, n);
  lhs.fill_random(-128, 127, 21);
  rhs.fill_random(-128, 127, 22);
  out.fill_random(-1000000000, 1000000000, 23);  // past f32's exact integers: s32 registers
  const std::vector<croq::s32> before(out.data(), out.data() + m * n);
  k(lhs.view(), rhs.view(), out.view());
  const std::vector<double> want = accumulated_product(lhs.data(), rhs.data(), before.data(), m, n, kk);
  for (std::size_t i = 0; i < m * n; ++i)
    ASSERT_EQ(out.data()[i], static_cast<croq::s32>(want[i])) << i / n << ", " << i % n;
}

// The stepwise product with `type` as the output's (and so the accumulator's) type.
void expect_stepwise_product(const std::string& type) {
  std::string source = croq::test::kAccumulateStepwise;
  source.replace(source.find("T [M, N]"), 1, type);
  croq::Kernel k = croq::test::interpreted(source);
  const std::size_t m = 64, n = 96, kk = 48;
  auto lhs = croq::make_spandata<croq::f16>(m, kk);
  auto rhs = croq::make_spandata<croq::f16>(kk, n);
  std::mt19937 gen(31);
  std::uniform_int_distribution<int> small(-3, 3);
  for (std::size_t i = 0; i < m * kk; ++i) lhs.data()[i] = croq::f16(static_cast<float>(small(gen)));
  for (std::size_t i = 0; i < kk * n; ++i) rhs.data()[i] = croq::f16(static_cast<float>(small(gen)));
  croq::Tensor out = k(lhs.view(), rhs.view());
  const std::vector<double> want =
      accumulated_product(lhs.data(), rhs.data(), static_cast<const float*>(nullptr), m, n, kk, true);
  for (std::size_t i = 0; i < m * n; ++i) {
    const double got = type == "f32" ? static_cast<const float*>(out.data())[i]
                                     : static_cast<float>(static_cast<const croq::f16*>(out.data())[i]);
    ASSERT_EQ(got, want[i]) << type << " " << i / n << ", " << i % n;
  }
}

TEST(InterpretAccumulatorLoad, StepwiseProductIntoAnF32Output) { expect_stepwise_product("f32"); }

TEST(InterpretAccumulatorLoad, StepwiseProductIntoAnF16Output) { expect_stepwise_product("f16"); }

}  // namespace
