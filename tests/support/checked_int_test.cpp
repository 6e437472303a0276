#include "support/checked_int.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace {

using croq::support::ArithmeticFault;
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(CheckedInt, OverflowAndDivisionFaults) {
  using namespace croq::support;
  EXPECT_EQ(checked_add(kMax, 1).fault, ArithmeticFault::overflow);
  EXPECT_EQ(checked_sub(kMin, 1).fault, ArithmeticFault::overflow);
  EXPECT_EQ(checked_mul(std::int64_t{1} << 62, 2).fault, ArithmeticFault::overflow);
  EXPECT_EQ(checked_div(kMin, -1).fault, ArithmeticFault::overflow);
  EXPECT_EQ(checked_div(5, 0).fault, ArithmeticFault::divide_by_zero);
  EXPECT_EQ(checked_mod(5, 0).fault, ArithmeticFault::divide_by_zero);
  EXPECT_EQ(checked_neg(kMin).fault, ArithmeticFault::overflow);
  EXPECT_EQ(checked_shl(1, 64).fault, ArithmeticFault::bad_shift);
  EXPECT_EQ(checked_shl(1, -1).fault, ArithmeticFault::bad_shift);
  EXPECT_EQ(checked_shl(1, 63).fault, ArithmeticFault::overflow);
  EXPECT_EQ(checked_shl(-1, 1).fault, ArithmeticFault::overflow);
  EXPECT_EQ(checked_shr(8, 64).fault, ArithmeticFault::bad_shift);
}

TEST(CheckedInt, ValuesWhereDefined) {
  using namespace croq::support;
  EXPECT_EQ(checked_mod(kMin, -1).value, 0);
  EXPECT_TRUE(checked_mod(kMin, -1).ok());
  EXPECT_EQ(checked_div(-7, 2).value, -3);  // truncating, as C++
  EXPECT_EQ(checked_mod(-7, 2).value, -1);
  EXPECT_EQ(checked_shl(1, 62).value, std::int64_t{1} << 62);
  EXPECT_EQ(checked_cdiv(7, 2).value, 4);
  EXPECT_EQ(checked_cdiv(8, 2).value, 4);
  EXPECT_EQ(checked_cdiv(-7, -2).value, 4);
  EXPECT_EQ(checked_cdiv(7, -2).value, -3);
  EXPECT_EQ(checked_cdiv(kMax, 1).value, kMax);
  EXPECT_EQ(checked_add(kMax - 1, 1).value, kMax);
}

TEST(CheckedInt, ProductOfExtents) {
  using croq::support::checked_product;
  EXPECT_EQ(checked_product(std::vector<std::int64_t>{2, 3, 4}), 24);
  EXPECT_EQ(checked_product(std::vector<std::int64_t>{}), 1);
  EXPECT_FALSE(checked_product(std::vector<std::int64_t>{std::int64_t{1} << 62, 8}).has_value());
  EXPECT_FALSE(checked_product(std::vector<std::int64_t>{std::int64_t{1} << 32, std::int64_t{1} << 32}).has_value());
}

}  // namespace
