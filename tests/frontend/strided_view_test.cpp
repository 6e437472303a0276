// `.view(e0, e1 : s0, s1)`: the parser reads the colon as a Range argument
// (`e1 : s0`); view_arguments splits the list into extents and strides and
// names the argument that breaks that form.
#include <gtest/gtest.h>

#include "frontend/ast.hpp"

namespace croq::frontend::ast {
namespace {

ExprPtr number(std::uint64_t v) {
  auto e = std::make_unique<Expr>();
  e->node = IntegerLiteral{std::to_string(v), v, ""};
  return e;
}

ExprPtr range(ExprPtr start, ExprPtr end, ExprPtr stride = nullptr) {
  auto e = std::make_unique<Expr>();
  e->node = Range{std::move(start), std::move(end), std::move(stride)};
  return e;
}

std::uint64_t value_of(const Expr* e) { return std::get<IntegerLiteral>(e->node).value; }

TEST(StridedViewArguments, TheColonSeparatesExtentsFromStrides) {
  Member m;
  m.kind = MemberKind::view;
  m.args.push_back(number(16));
  m.args.push_back(range(number(4), number(40)));
  m.args.push_back(number(3));
  ViewArguments v = view_arguments(m);
  ASSERT_EQ(v.extents.size(), 2u);
  ASSERT_EQ(v.strides.size(), 2u);
  EXPECT_EQ(value_of(v.extents[0]), 16u);
  EXPECT_EQ(value_of(v.extents[1]), 4u);
  EXPECT_EQ(value_of(v.strides[0]), 40u);
  EXPECT_EQ(value_of(v.strides[1]), 3u);
  EXPECT_EQ(v.malformed, nullptr);
}

TEST(StridedViewArguments, WithoutAColonThereAreNoStrides) {
  Member m;
  m.args.push_back(number(16));
  m.args.push_back(number(8));
  ViewArguments v = view_arguments(m);
  EXPECT_EQ(v.extents.size(), 2u);
  EXPECT_TRUE(v.strides.empty());
  EXPECT_EQ(v.malformed, nullptr);
}

TEST(StridedViewArguments, ASecondColonOrAMissingPartIsMalformed) {
  Member two;
  two.args.push_back(range(number(4), number(8)));
  two.args.push_back(range(number(2), number(1)));
  EXPECT_EQ(view_arguments(two).malformed, two.args[1].get());
  Member open;
  open.args.push_back(range(number(4), nullptr));
  EXPECT_EQ(view_arguments(open).malformed, open.args[0].get());
  Member stepped;
  stepped.args.push_back(range(number(4), number(8), number(2)));
  EXPECT_EQ(view_arguments(stepped).malformed, stepped.args[0].get());
}

}  // namespace
}  // namespace croq::frontend::ast
