// The core statements and expressions of the language (spec/language.md):
// what the parser records for each, one test per area. The goldens print
// the same trees; these tests name the fields later stages read.
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

using namespace ast;

// The statements of the body of the only function of `source`.
const StmtList& body_of(const std::unique_ptr<Program>& program) {
  return std::get<Block>(program->functions.at(0).body->node).statements;
}

// The statements of a block statement.
const StmtList& block_of(const StmtPtr& s) { return std::get<Block>(s->node).statements; }

TEST(CoreForms, ParallelLevelsAndSpaces) {
  auto program = parse_ok(
      "__co__ void f() {\n"
      "  parallel {a, b} by [2, 3] : block, t by 32 : thread { }\n"
      "  parallel c by 2 : cluster, k by 2 : block {\n"
      "    parallel g by 2 : group-4 { parallel w by 4 : group { } }\n"
      "  }\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const auto& first = std::get<Parallel>(body_of(program).at(0)->node);
  ASSERT_EQ(first.levels.size(), 2u);
  EXPECT_TRUE(first.levels[0].braced);
  ASSERT_EQ(first.levels[0].indices.size(), 2u);
  EXPECT_EQ(first.levels[0].indices[1].name, "b");
  EXPECT_EQ(print_expression(*first.levels[0].count), "[2 3]");
  EXPECT_EQ(first.levels[0].space, SpaceSpecifier::block);
  EXPECT_EQ(first.levels[1].space, SpaceSpecifier::thread);
  const auto& second = std::get<Parallel>(body_of(program).at(1)->node);
  EXPECT_EQ(second.levels[0].space, SpaceSpecifier::cluster);
  const auto& group4 = std::get<Parallel>(block_of(second.body).at(0)->node);
  EXPECT_EQ(group4.levels[0].space, SpaceSpecifier::group4);
  EXPECT_EQ(std::get<Parallel>(block_of(group4.body).at(0)->node).levels[0].space, SpaceSpecifier::group);
}

TEST(CoreForms, ForeachWithApplyAndRanges) {
  auto program = parse_ok(
      "__co__ void f(f32 [8, 8] x) {\n"
      "  foreach i in [4] { }\n"
      "  with w in 16 { }\n"
      "  apply {i, j} in x.span { }\n"
      "  foreach y(1:-1:2) { }\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& foreach = std::get<Loop>(body.at(0)->node);
  EXPECT_EQ(foreach.kind, LoopKind::foreach_);
  EXPECT_EQ(print_expression(*foreach.bound), "[4]");
  EXPECT_EQ(std::get<Loop>(body.at(1)->node).kind, LoopKind::with);
  const auto& apply = std::get<Loop>(body.at(2)->node);
  EXPECT_EQ(apply.kind, LoopKind::apply);
  EXPECT_EQ(apply.indices.size(), 2u);
  EXPECT_EQ(print_expression(*apply.bound), "(.span x)");
  const auto& ranged = std::get<Loop>(body.at(3)->node);
  EXPECT_EQ(ranged.bound, nullptr);
  ASSERT_NE(ranged.indices.at(0).range, nullptr);
  EXPECT_EQ(print_expression(*ranged.indices[0].range), "(range 1 (- 1) 2)");
}

TEST(CoreForms, IfElseWhileAndInthreads) {
  auto program = parse_ok(
      "__co__ void f(int n) {\n"
      "  if constexpr (n == 0) { } else { n = 1; }\n"
      "  while (n > 0) { n -= 1; }\n"
      "  parallel p by 4 { inthreads (p < 2) { } inthreads.async (p == 3) { } }\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& branch = std::get<If>(body.at(0)->node);
  EXPECT_TRUE(branch.is_constexpr);
  EXPECT_EQ(print_expression(*branch.condition), "(== n 0)");
  ASSERT_NE(branch.else_branch, nullptr);
  const auto& loop = std::get<While>(body.at(1)->node);
  EXPECT_EQ(print_expression(*loop.condition), "(> n 0)");
  const StmtList& inner = block_of(std::get<Parallel>(body.at(2)->node).body);
  EXPECT_FALSE(std::get<InThreads>(inner.at(0)->node).is_async);
  EXPECT_TRUE(std::get<InThreads>(inner.at(1)->node).is_async);
  EXPECT_EQ(print_expression(*std::get<InThreads>(inner.at(1)->node).condition), "(== p 3)");
}

TEST(CoreForms, DmaCopyForms) {
  auto program = parse_ok(
      "__co__ void f(f16 [64, 64] x) {\n"
      "  shared f16 [64, 64] buf;\n"
      "  f = dma.copy.async x.chunkat(0, _) => shared;\n"
      "  g = dma.copy.zfill.swiz<128> x.view(10, 64).from(0, 0) => buf after f;\n"
      "  t = dma.transp<1, 0> buf => local;\n"
      "  p = dma.pad<{1, 1}, {1, 1}, {0, 0}, 0> buf => shared;\n"
      "  a = dma.any;\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& async = std::get<Copy>(body.at(1)->node);
  EXPECT_EQ(async.engine, Engine::dma);
  EXPECT_EQ(async.op, CopyOp::copy);
  EXPECT_EQ(print_expression(*async.future), "f");
  EXPECT_EQ(async.modifiers.at(0).name, "async");
  EXPECT_EQ(async.destination_storage, Storage::shared);
  const auto& placed = std::get<Copy>(body.at(2)->node);
  ASSERT_EQ(placed.modifiers.size(), 2u);
  EXPECT_EQ(placed.modifiers[1].name, "swiz");
  EXPECT_EQ(print_expression(*placed.modifiers[1].template_args.at(0)), "128");
  EXPECT_EQ(print_expression(*placed.destination), "buf");
  ASSERT_EQ(placed.after.size(), 1u);
  const auto& transp = std::get<Copy>(body.at(3)->node);
  EXPECT_EQ(transp.op, CopyOp::transp);
  EXPECT_EQ(transp.op_args.size(), 2u);
  EXPECT_EQ(transp.destination_storage, Storage::local);
  const auto& pad = std::get<Copy>(body.at(4)->node);
  EXPECT_EQ(pad.op, CopyOp::pad);
  EXPECT_EQ(pad.op_args.size(), 4u);
  const auto& any = std::get<Copy>(body.at(5)->node);
  EXPECT_EQ(any.op, CopyOp::any);
  EXPECT_EQ(any.source, nullptr);
}

TEST(CoreForms, TmaCopyForms) {
  auto program = parse_ok(
      "__co__ void f(f16 [128, 64] x, f16 [128, 64] y) {\n"
      "  shared f16 [64, 64] s;\n"
      "  tma.copy.multicast x.subspan(64, 64).at(1, 0) => s;\n"
      "  tma.copy s => y.subspan(64, 64).at(0, 0);\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const auto& load = std::get<Copy>(body_of(program).at(1)->node);
  EXPECT_EQ(load.engine, Engine::tma);
  EXPECT_EQ(load.modifiers.at(0).name, "multicast");
  EXPECT_EQ(print_expression(*load.source), "(.at() (.subspan() x 64 64) 1 0)");
  const auto& store = std::get<Copy>(body_of(program).at(2)->node);
  EXPECT_EQ(print_expression(*store.source), "s");
  EXPECT_EQ(print_expression(*store.destination), "(.at() (.subspan() y 64 64) 0 0)");
}

TEST(CoreForms, ViewChainsComposeAndExtent) {
  auto program = parse_ok(
      "__co__ void f(f32 [64, 64] x) {\n"
      "  parallel p by 4 {\n"
      "    a = x.chunkat(p, _);\n"
      "    b = x.subspan(16, 16).step(32, 32).at(p, 0);\n"
      "    c = x.view(8, 8).from(p # 1, 0);\n"
      "    d = x.span_as([4096]);\n"
      "    e = |x.span| + x.span(1) + #p;\n"
      "  }\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = block_of(std::get<Parallel>(body_of(program).at(0)->node).body);
  auto value = [&](std::size_t i) { return print_expression(*std::get<Assignment>(body.at(i)->node).value); };
  EXPECT_EQ(value(0), "(.chunkat() x p _)");
  EXPECT_EQ(value(1), "(.at() (.step() (.subspan() x 16 16) 32 32) p 0)");
  EXPECT_EQ(value(2), "(.from() (.view() x 8 8) (# p 1) 0)");
  EXPECT_EQ(value(3), "(.span_as() x [4096])");
  EXPECT_EQ(value(4), "(+ (+ |(.span x)| (.span() x 1)) (# p))");
  const auto& chunk = std::get<Member>(std::get<Assignment>(body.at(0)->node).value->node);
  EXPECT_EQ(chunk.kind, MemberKind::chunkat);
}

TEST(CoreForms, EventsWaitAndTrigger) {
  auto program = parse_ok(
      "__co__ void f(f16 [64] x) {\n"
      "  shared event full[2], empty[2] = ready;\n"
      "  mutable int order = 0;\n"
      "  l = tma.load.async x => shared;\n"
      "  wait empty.at(order), full[1];\n"
      "  trigger full.at(order++) after l;\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& events = std::get<Declaration>(body.at(0)->node);
  EXPECT_EQ(events.type.kind, TypeKind::event);
  EXPECT_EQ(events.type.storage, Storage::shared);
  EXPECT_EQ(events.declarators.at(1).init, Declarator::Init::equals);
  const auto& wait = std::get<Wait>(body.at(3)->node);
  ASSERT_EQ(wait.targets.size(), 2u);
  EXPECT_EQ(print_expression(*wait.targets[1]), "(index full 1)");
  const auto& trigger = std::get<Trigger>(body.at(4)->node);
  EXPECT_EQ(print_expression(*trigger.targets.at(0)), "(.at() full (post++ order))");
  ASSERT_EQ(trigger.after.size(), 1u);
  EXPECT_TRUE(trigger.scope.empty());
}

TEST(CoreForms, MmaForms) {
  auto program = parse_ok(
      "__co__ void f(f16 [64, 64] a_s, f32 [64, 64] o_s) {\n"
      "  mc = mma.fill.f16 0.0f;\n"
      "  ma = mma.load.swiz<128> a_s;\n"
      "  k = mma.row.col.async mc, ma, a_s;\n"
      "  mma.commit;\n"
      "  mma.store mc, o_s;\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& fill = std::get<Mma>(body.at(0)->node);
  EXPECT_EQ(fill.op, MmaOp::fill);
  EXPECT_EQ(fill.modifiers.at(0).name, "f16");
  EXPECT_FALSE(fill.frag_declaration);
  EXPECT_EQ(std::get<Mma>(body.at(1)->node).op, MmaOp::load);
  const auto& multiply = std::get<Mma>(body.at(2)->node);
  EXPECT_EQ(multiply.op, MmaOp::multiply);
  EXPECT_EQ(multiply.layout, "row.col");
  EXPECT_EQ(multiply.modifiers.at(0).name, "async");
  EXPECT_EQ(print_expression(*multiply.result), "k");
  EXPECT_EQ(multiply.operands.size(), 3u);
  EXPECT_EQ(std::get<Mma>(body.at(3)->node).op, MmaOp::commit);
  EXPECT_EQ(std::get<Mma>(body.at(4)->node).op, MmaOp::store);
}

TEST(CoreForms, SelectConvertCdivAndReductions) {
  auto program = parse_ok(
      "__co__ void f(f32 [64] x, int n) {\n"
      "  v = select(n, f0, f1);\n"
      "  w = __to<f16>(n) + cdiv(n, 64);\n"
      "  reduce_sum(out, x, 0);\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  EXPECT_EQ(print_expression(*std::get<Assignment>(body.at(0)->node).value), "(call select n f0 f1)");
  EXPECT_EQ(print_expression(*std::get<Assignment>(body.at(1)->node).value), "(+ (__to f16 n) (call cdiv n 64))");
  EXPECT_EQ(print_expression(*std::get<ExprStatement>(body.at(2)->node).expr), "(call reduce_sum out x 0)");
}

TEST(CoreForms, AssertBreakContinueYieldAndReturn) {
  auto program = parse_ok(
      "__co__ s32 [M] f(s32 [M] x, int n) {\n"
      "  s32 [x.span] out;\n"
      "  assert(n > 0, \"positive\");\n"
      "  static_assert(M > 0);\n"
      "  foreach i in [4] { if (i == 1) continue; break; }\n"
      "  parallel p by 2 { yield; }\n"
      "  return out;\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& check = std::get<Assert>(body.at(1)->node);
  EXPECT_FALSE(check.is_static);
  EXPECT_NE(check.message, nullptr);
  const auto& static_check = std::get<Assert>(body.at(2)->node);
  EXPECT_TRUE(static_check.is_static);
  EXPECT_EQ(static_check.message, nullptr);
  const StmtList& loop = block_of(std::get<Loop>(body.at(3)->node).body);
  EXPECT_TRUE(std::holds_alternative<Continue>(std::get<If>(loop.at(0)->node).then_branch->node));
  EXPECT_TRUE(std::holds_alternative<Break>(loop.at(1)->node));
  EXPECT_TRUE(std::holds_alternative<Yield>(block_of(std::get<Parallel>(body.at(4)->node).body).at(0)->node));
  EXPECT_EQ(print_expression(*std::get<Return>(body.at(5)->node).value), "out");
}

TEST(CoreForms, AttributesBeforeStatements) {
  auto program = parse_ok(
      "__co__ void f() {\n"
      "  [[launch_bounds(128, 1)]]\n"
      "  parallel b by 2 : block { }\n"
      "  [[schedule(k_tiles(1, 0))]]\n"
      "  mma.commit;\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  ASSERT_EQ(body.at(0)->attributes.size(), 1u);
  EXPECT_EQ(body[0]->attributes[0].name, "launch_bounds");
  EXPECT_EQ(body[0]->attributes[0].args.size(), 2u);
  ASSERT_EQ(body.at(1)->attributes.size(), 1u);
  EXPECT_EQ(body[1]->attributes[0].name, "schedule");
  EXPECT_EQ(print_expression(*body[1]->attributes[0].args.at(0)), "(call k_tiles 1 0)");
}

TEST(CoreForms, BuffersScalarsAndStorage) {
  auto program = parse_ok(
      "__co__ void f(f16 [M, K] lhs) {\n"
      "  global u8 [lhs.span(0), 64] scratch;\n"
      "  int count = 0;\n"
      "  parallel p by 2 {\n    shared f16 [64, 64] tile, ring[2];\n    local f32 [4] acc {0};\n  }\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& scratch = std::get<Declaration>(body.at(0)->node);
  EXPECT_EQ(scratch.type.storage, Storage::global);
  EXPECT_EQ(print_expression(*scratch.type.shape.at(0)), "(.span() lhs 0)");
  const auto& count = std::get<Declaration>(body.at(1)->node);
  EXPECT_EQ(count.type.kind, TypeKind::int_);
  EXPECT_EQ(count.declarators.at(0).init, Declarator::Init::equals);
  const StmtList& inner = block_of(std::get<Parallel>(body.at(2)->node).body);
  const auto& tiles = std::get<Declaration>(inner.at(0)->node);
  EXPECT_EQ(tiles.type.storage, Storage::shared);
  ASSERT_EQ(tiles.declarators.size(), 2u);
  EXPECT_EQ(print_expression(*tiles.declarators[1].array_size), "2");
  const auto& acc = std::get<Declaration>(inner.at(1)->node);
  EXPECT_EQ(acc.type.storage, Storage::local);
  EXPECT_EQ(acc.declarators.at(0).init, Declarator::Init::braces);
}

TEST(CoreForms, AssignmentsAndBarriers) {
  auto program = parse_ok(
      "__co__ void f(s32 [8] x, int n) {\n"
      "  mutable int k = 0;\n"
      "  x.at(0) += 2;\n"
      "  k <<= 1;\n"
      "  parallel p by 8 { sync.shared; sync.global; }\n"
      "  d = f.data.at(0);\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = body_of(program);
  const auto& add = std::get<Assignment>(body.at(1)->node);
  EXPECT_EQ(add.op, AssignOp::add);
  EXPECT_EQ(print_expression(*add.target), "(.at() x 0)");
  EXPECT_EQ(std::get<Assignment>(body.at(2)->node).op, AssignOp::shl);
  const StmtList& inner = block_of(std::get<Parallel>(body.at(3)->node).body);
  EXPECT_EQ(std::get<Sync>(inner.at(0)->node).scope, "shared");
  EXPECT_EQ(std::get<Sync>(inner.at(1)->node).scope, "global");
  EXPECT_EQ(print_expression(*std::get<Assignment>(body.at(4)->node).value), "(.at() (.data f) 0)");
}

}  // namespace
}  // namespace croq::frontend::testing
