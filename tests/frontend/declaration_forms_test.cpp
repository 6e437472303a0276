// The declaration, type, parameter and literal forms parsed into the AST:
// what each node holds (the printer goldens show the same trees as text).
#include <cmath>

#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

using namespace ast;

const Declaration& declaration(const Function& f, std::size_t i) {
  return std::get<Declaration>(std::get<Block>(f.body->node).statements.at(i)->node);
}

TEST(DeclarationForms, ParametersByReferenceUnnamedAndRankOnly) {
  auto program = parse_ok("__co__ void f(f32 [N] &out, int, f32 mdspan<3> d, f32 mdspan[8, 16] e, f32 [?, 4] q) { }");
  ASSERT_NE(program, nullptr);
  const auto& params = program->functions.at(0).params;
  ASSERT_EQ(params.size(), 5u);
  EXPECT_TRUE(params[0].by_reference);
  EXPECT_EQ(params[0].name, "out");
  EXPECT_FALSE(params[1].by_reference);
  EXPECT_EQ(params[1].name, "");
  EXPECT_EQ(params[1].type.kind, TypeKind::int_);
  ASSERT_NE(params[2].type.rank, nullptr);  // f32 mdspan<3>: a rank, given three dims without a name
  EXPECT_TRUE(params[2].type.has_shape);
  ASSERT_EQ(params[2].type.shape.size(), 3u);
  for (const auto& dim : params[2].type.shape) EXPECT_EQ(std::get<Name>(dim->node).name, "?");
  EXPECT_EQ(params[3].type.shape.size(), 2u);  // f32 mdspan[8, 16] is f32 [8, 16]
  EXPECT_EQ(params[3].type.rank, nullptr);
  ASSERT_EQ(params[4].type.shape.size(), 2u);
  EXPECT_EQ(std::get<Name>(params[4].type.shape[0]->node).name, "?");
}

TEST(DeclarationForms, FragmentsArraysOfArraysAndEventCounts) {
  auto program = parse_ok(
      "__co__ void f() {\n  frag f32 [64] acc {0.0f};\n  shared f32 [32] s[4][2];\n  shared event<256> e[2];\n}\n");
  ASSERT_NE(program, nullptr);
  const Function& f = program->functions.at(0);
  EXPECT_EQ(declaration(f, 0).type.storage, Storage::frag);
  EXPECT_EQ(declaration(f, 0).declarators.at(0).init, Declarator::Init::braces);
  const Declarator& s = declaration(f, 1).declarators.at(0);
  ASSERT_NE(s.array_size, nullptr);
  EXPECT_EQ(std::get<IntegerLiteral>(s.array_size->node).value, 4u);
  ASSERT_EQ(s.more_array_dims.size(), 1u);
  EXPECT_EQ(std::get<IntegerLiteral>(s.more_array_dims[0]->node).value, 2u);
  const TypeRef& e = declaration(f, 2).type;
  EXPECT_EQ(e.kind, TypeKind::event);
  ASSERT_NE(e.arrivals, nullptr);
  EXPECT_EQ(std::get<IntegerLiteral>(e.arrivals->node).value, 256u);
}

TEST(DeclarationForms, ShapesTuplesPicksAndMutableWithoutAType) {
  auto program = parse_ok(
      "__co__ void f(f32 [M, N] x) {\n  sp : x.span / 2;\n  t = {1, 2};\n  u = t {(1), (0)};\n  mutable a = 3;\n}\n");
  ASSERT_NE(program, nullptr);
  const Function& f = program->functions.at(0);
  const Declaration& sp = declaration(f, 0);
  EXPECT_EQ(sp.type.kind, TypeKind::mdspan);
  EXPECT_EQ(sp.declarators.at(0).init, Declarator::Init::colon);
  EXPECT_TRUE(std::holds_alternative<Binary>(sp.declarators.at(0).init_values.at(0)->node));
  const auto& pick = std::get<Assignment>(std::get<Block>(f.body->node).statements.at(2)->node);
  const auto& sub = std::get<Subscript>(pick.value->node);
  EXPECT_TRUE(sub.braces);
  EXPECT_EQ(sub.indices.size(), 2u);
  const Declaration& a = declaration(f, 3);
  EXPECT_EQ(a.type.kind, TypeKind::auto_);
  EXPECT_TRUE(a.type.is_mutable);
}

TEST(DeclarationForms, OtherSpellingsOfElementTypesAndLiterals) {
  auto program = parse_ok(
      "__co__ void f() {\n  half h = 1.0f;\n  bfp16 b = 2;\n  f8 c = 0;\n  x = 18446744073709551615ull;\n"
      "  y = -inf;\n}\n");
  ASSERT_NE(program, nullptr);
  const Function& f = program->functions.at(0);
  EXPECT_EQ(declaration(f, 0).type.name, "f16");
  EXPECT_EQ(declaration(f, 1).type.name, "bf16");
  EXPECT_EQ(declaration(f, 2).type.name, "f8_e4m3");
  const auto& body = std::get<Block>(f.body->node).statements;
  EXPECT_EQ(std::get<IntegerLiteral>(std::get<Assignment>(body.at(3)->node).value->node).value, UINT64_MAX);
  const auto& negated = std::get<Unary>(std::get<Assignment>(body.at(4)->node).value->node);
  EXPECT_TRUE(std::isinf(std::get<FloatLiteral>(negated.operand->node).value));
}

TEST(DeclarationForms, BracesAfterALoopBoundAreItsBody) {
  // Only `name {(` starts a pick: a body after a bound stays a body.
  auto program = parse_ok("__co__ void f(f32 [M] x) {\n  foreach i in [4] { x.at(i) = 1; }\n}\n");
  ASSERT_NE(program, nullptr);
  const auto& loop = std::get<Loop>(std::get<Block>(program->functions.at(0).body->node).statements.at(0)->node);
  EXPECT_TRUE(std::holds_alternative<Block>(loop.body->node));
}

}  // namespace
}  // namespace croq::frontend::testing
