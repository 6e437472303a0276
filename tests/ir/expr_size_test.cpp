// ir::expression_text_size: the text of an expression measured on the IR,
// which lowering caps (nested guarded reads double an index per level).
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/expr_size.hpp"

namespace croq::ir {
namespace {

TEST(ExpressionTextSize, CountsTheNodesText) {
  Kernel k;
  EXPECT_EQ(expression_text_size(k, nullptr, 100), 0u);
  EXPECT_EQ(expression_text_size(k, int_const(12345), 100), 5u);
  // "(i + 7)"
  EXPECT_EQ(expression_text_size(k, binary("+", var("i"), int_const(7)), 100), 7u);
  Buffer b;
  b.name = "a";
  k.buffers.push_back(b);
  // "a[i, j]"
  EXPECT_EQ(expression_text_size(k, element(0, DType::f32, nullptr, {var("i"), var("j")}), 100), 7u);
}

// A subexpression shared by both sides counts twice, as it prints; the
// measure stops at the cap instead of walking 2^40 copies.
TEST(ExpressionTextSize, CountsSharedNodesAtEachUseAndSaturates) {
  Kernel k;
  ExprRef e = var("i");
  for (int level = 0; level < 40; ++level) e = binary("+", e, e);
  EXPECT_EQ(expression_text_size(k, e, std::size_t{1} << 20), (std::size_t{1} << 20) + 1);
  ExprRef small = var("i");
  small = binary("+", small, small);
  small = binary("+", small, small);  // "((i + i) + (i + i))"
  EXPECT_EQ(expression_text_size(k, small, 1000), 19u);
}

}  // namespace
}  // namespace croq::ir
