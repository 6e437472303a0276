// The statement forms with several spellings: what the parser records for
// launch annotations, empty bodies, loop bindings and hints, barriers,
// swap/rotate, trigger scopes, mma.scale, sparse copies and calls as values.
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

// The statements of the body of the only function.
const ast::StmtList& statements(const ast::Program& program) {
  return std::get<ast::Block>(program.functions.at(0).body->node).statements;
}

TEST(StatementForms, ParallelLaunchAnnotations) {
  auto program = parse_ok(
      "__co__ void f(stream s) {\n"
      "  parallel.async<s> p by 2 : block<cooperative>, q by 4 : thread {}\n"
      "  parallel by 1 : device(cpu) parallel t by 2 : term;\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const auto& first = std::get<ast::Parallel>(statements(*program).at(0)->node);
  EXPECT_TRUE(first.is_async);
  ASSERT_NE(first.stream, nullptr);
  EXPECT_EQ(std::get<ast::Name>(first.stream->node).name, "s");
  ASSERT_EQ(first.levels.size(), 2u);
  EXPECT_EQ(first.levels[0].space, ast::SpaceSpecifier::block);
  EXPECT_TRUE(first.levels[0].cooperative);
  EXPECT_EQ(first.levels[0].space_location.column, 30);
  EXPECT_FALSE(first.levels[1].cooperative);

  const auto& second = std::get<ast::Parallel>(statements(*program).at(1)->node);
  EXPECT_FALSE(second.is_async);
  EXPECT_EQ(second.stream, nullptr);
  EXPECT_EQ(second.levels[0].space, ast::SpaceSpecifier::device);
  EXPECT_EQ(second.levels[0].device, "cpu");
  // The body is the inner parallel statement, whose body is empty.
  const auto& inner = std::get<ast::Parallel>(second.body->node);
  EXPECT_EQ(inner.levels[0].space, ast::SpaceSpecifier::term);
  EXPECT_TRUE(std::get<ast::Block>(inner.body->node).statements.empty());
}

TEST(StatementForms, EmptyBodiesAreEmptyBlocks) {
  auto program = parse_ok(
      "__co__ void f(int n) {\n"
      "  parallel p by 3 ;\n"
      "  with a in [2] ;\n"
      "  if (n > 0) ; else ;\n"
      "  while (n < 0) ;\n"
      "  parallel q by 2 { inthreads (q < 1); }\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const auto& body = statements(*program);
  ASSERT_EQ(body.size(), 5u);
  auto empty = [](const ast::StmtPtr& s) {
    return s && std::holds_alternative<ast::Block>(s->node) && std::get<ast::Block>(s->node).statements.empty();
  };
  EXPECT_TRUE(empty(std::get<ast::Parallel>(body[0]->node).body));
  EXPECT_EQ(std::get<ast::Parallel>(body[0]->node).body->location.column, 19);
  EXPECT_TRUE(empty(std::get<ast::Loop>(body[1]->node).body));
  EXPECT_TRUE(empty(std::get<ast::If>(body[2]->node).then_branch));
  EXPECT_TRUE(empty(std::get<ast::If>(body[2]->node).else_branch));
  EXPECT_TRUE(empty(std::get<ast::While>(body[3]->node).body));
  const auto& block = std::get<ast::Block>(std::get<ast::Parallel>(body[4]->node).body->node);
  EXPECT_TRUE(empty(std::get<ast::InThreads>(block.statements.at(0)->node).body));
}

TEST(StatementForms, LoopBindingsLocalNamesWhereAndHints) {
  auto program = parse_ok(
      "__co__ void f(f32 [8, 8] a) {\n"
      "  with i in [4], idx = {x, y} in a.span where i <-> x, y <-> i {\n"
      "    foreach c = i(1:), y : unroll(2), vectorize(y, 4) {}\n"
      "  }\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const auto& with = std::get<ast::Loop>(statements(*program).at(0)->node);
  EXPECT_EQ(with.kind, ast::LoopKind::with);
  ASSERT_EQ(with.indices.size(), 1u);
  ASSERT_EQ(with.more_bindings.size(), 1u);
  EXPECT_EQ(with.more_bindings[0].tuple_name->name, "idx");
  ASSERT_EQ(with.more_bindings[0].indices.size(), 2u);
  EXPECT_TRUE(with.more_bindings[0].braced);
  ASSERT_EQ(with.where.size(), 2u);
  EXPECT_EQ(with.where[1].first.name, "y");
  EXPECT_EQ(with.where[1].second.name, "i");

  const auto& foreach = std::get<ast::Loop>(std::get<ast::Block>(with.body->node).statements.at(0)->node);
  ASSERT_EQ(foreach.indices.size(), 2u);
  EXPECT_EQ(foreach.indices[0].name.name, "i");
  ASSERT_TRUE(foreach.indices[0].local_name.has_value());
  EXPECT_EQ(foreach.indices[0].local_name->name, "c");
  EXPECT_NE(foreach.indices[0].range, nullptr);
  EXPECT_FALSE(foreach.indices[1].local_name.has_value());
  ASSERT_EQ(foreach.hints.size(), 2u);
  EXPECT_EQ(foreach.hints[0].name, "unroll");
  EXPECT_EQ(foreach.hints[0].args.size(), 1u);
  EXPECT_EQ(foreach.hints[1].name, "vectorize");
  EXPECT_EQ(foreach.hints[1].args.size(), 2u);
}

TEST(StatementForms, SynchronizationSwapAndTrigger) {
  auto program = parse_ok(
      "__co__ void f() {\n"
      "  sync.barrier : group-4;\n"
      "  sync.fence : block<global>;\n"
      "  swap a, b;\n"
      "  rotate(a, b, c, d);\n"
      "  trigger.cluster e[0];\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const auto& body = statements(*program);
  const auto& barrier = std::get<ast::Sync>(body[0]->node);
  EXPECT_EQ(barrier.scope, "barrier");
  EXPECT_EQ(barrier.level, ast::SpaceSpecifier::group4);
  EXPECT_EQ(barrier.level_location.column, 18);
  const auto& fence = std::get<ast::Sync>(body[1]->node);
  EXPECT_EQ(fence.scope, "fence");
  EXPECT_EQ(fence.level, ast::SpaceSpecifier::block);
  EXPECT_EQ(fence.storage, "global");
  const auto& swap = std::get<ast::Swap>(body[2]->node);
  EXPECT_FALSE(swap.rotate);
  EXPECT_TRUE(swap.more.empty());
  const auto& rotate = std::get<ast::Swap>(body[3]->node);
  EXPECT_TRUE(rotate.rotate);
  EXPECT_EQ(rotate.more.size(), 2u);
  EXPECT_EQ(std::get<ast::Trigger>(body[4]->node).scope, "cluster");
}

TEST(StatementForms, ScaleSparsityCallsAndPrints) {
  auto program = parse_ok(
      "__co__ void f(f16 [16, 16] m, int a) {\n"
      "  mma.scale mc, sa, sb;\n"
      "  g = dma.copy.sp<2:4> m => local;\n"
      "  mutable int x = call bar<4>(a, 1);\n"
      "  println!(\"x: \", x);\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const auto& body = statements(*program);
  const auto& scale = std::get<ast::Mma>(body[0]->node);
  EXPECT_EQ(scale.op, ast::MmaOp::scale);
  EXPECT_EQ(scale.operands.size(), 3u);
  const auto& copy = std::get<ast::Copy>(body[1]->node);
  ASSERT_EQ(copy.modifiers.size(), 1u);
  EXPECT_EQ(copy.modifiers[0].name, "sp");
  ASSERT_EQ(copy.modifiers[0].template_args.size(), 2u);
  EXPECT_EQ(std::get<ast::IntegerLiteral>(copy.modifiers[0].template_args[1]->node).value, 4u);
  const auto& decl = std::get<ast::Declaration>(body[2]->node);
  const auto& call = std::get<ast::Call>(decl.declarators.at(0).init_values.at(0)->node);
  EXPECT_TRUE(call.with_call_keyword);
  EXPECT_EQ(std::get<ast::Name>(call.callee->node).name, "bar");
  EXPECT_EQ(call.template_args.size(), 1u);
  EXPECT_EQ(call.args.size(), 2u);
  const auto& print = std::get<ast::Call>(std::get<ast::ExprStatement>(body[3]->node).expr->node);
  EXPECT_EQ(std::get<ast::Name>(print.callee->node).name, "println!");
  EXPECT_EQ(print.args.size(), 2u);
}

}  // namespace
}  // namespace croq::frontend::testing
