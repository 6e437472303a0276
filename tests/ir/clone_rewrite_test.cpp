// The statement cloner and the expression rewriter (ir/clone.hpp,
// ir/rewrite.hpp) that the pipelining pass issues its loads with: a clone
// is deep for statements and shares expressions; a rewrite replaces what
// it names and shares every subexpression it leaves alone.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/clone.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/rewrite.hpp"

namespace croq::ir {
namespace {

// A kernel with a ring-less shared tile `a_s` (buffer 0) and a loop over k.
const char* kLoopKernel = R"(kernel croq_f: grid 1, block 128, shared 0 bytes {function="f", hopper}
  param croq_tmap_0 {kind=tensor_map}
  buffer a_s: shared f16 [64, 64] at -1 swizzle 128
  buffer b_s: shared f16 [64, 64] at -1 swizzle 128
  event bar_0[1] at -1, arrivals 0, private
  accumulator acc: f32 64 x 64 {fill=0.0f}
  for k in [0, 8) {pos=3:5+7, pipeline=[shift_1, pass_2, slot_3], pipeline_buffers=2}:
    #line 4
    tma.load croq_tmap_0 ((k * 64), 0) -> &a_s[0, 0] completes bar_0[0] 8192 bytes (arrives)
    if (k > 0):
      mma acc += a_s at (0, 0) [64, 64] swiz 128 * b_s at (0, 0) [64, 64] swiz 128 k 64 {a_pitch=128, b_pitch=128}
)";

std::string printed(const Kernel& k) { return print_kernel(k, IrDetail::full); }

Stmt& first_statement(Kernel& k) { return *std::get<Seq>(k.body->node).body.front(); }

TEST(IrClone, CopiesNestedStatementsAndSharesExpressions) {
  Kernel k = parse_kernel(kLoopKernel);
  const std::string before = printed(k);
  Stmt& loop = first_statement(k);
  StmtPtr copy = clone(loop);
  auto& original_for = std::get<For>(loop.node);
  auto& copied_for = std::get<For>(copy->node);
  EXPECT_EQ(copied_for.end, original_for.end);  // expressions shared
  EXPECT_NE(copied_for.body.get(), original_for.body.get());  // statements owned
  ASSERT_TRUE(copied_for.pipeline);
  EXPECT_EQ(copied_for.pipeline->slot, "slot_3");
  EXPECT_EQ(copy->where.line, 3);
  // Changing the copy leaves the original as it was.
  std::get<Seq>(copied_for.body->node).body.clear();
  copied_for.var = "j";
  EXPECT_EQ(printed(k), before);
  // A copy put in place of the original prints the same.
  StmtPtr again = clone(loop);
  std::get<Seq>(k.body->node).body.front() = std::move(again);
  EXPECT_EQ(printed(k), before);
}

TEST(IrClone, CopiesAListAndNullBranches) {
  StmtList list;
  list.push_back(make_stmt(If{var("c", Type::boolean()), make_stmt(Seq{}), nullptr}));
  list.push_back(make_stmt(LineMark{7}));
  StmtList copy = clone(list);
  ASSERT_EQ(copy.size(), 2u);
  EXPECT_EQ(std::get<If>(copy[0]->node).else_branch, nullptr);
  EXPECT_NE(std::get<If>(copy[0]->node).then_branch.get(), std::get<If>(list[0]->node).then_branch.get());
  EXPECT_EQ(std::get<LineMark>(copy[1]->node).line, 7);
}

TEST(IrRewrite, SubstitutesAVariableAndSharesTheRest) {
  const ExprRef k = var("k");
  const ExprRef other = binary("*", var("m"), int_const(64));
  const ExprRef e = binary("+", binary("*", k, int_const(64)), other);
  const ExprRef pass = binary("+", var("k2"), int_const(3));
  const ExprRef out = substitute(e, "k", pass);
  EXPECT_EQ(out->operands[0]->operands[0], pass);
  EXPECT_EQ(out->operands[1], other);  // untouched: shared, not copied
  EXPECT_EQ(e->operands[0]->operands[0], k);  // the original is unchanged
  EXPECT_EQ(substitute(e, "absent", pass), e);
  EXPECT_EQ(substitute(nullptr, "k", pass), nullptr);
}

TEST(IrRewrite, RewriteSeesOperandsBeforeTheirParent) {
  std::vector<std::string> seen;
  rewrite(binary("+", var("a"), var("b")), [&](const Expr& x) -> ExprRef {
    seen.push_back(x.kind == ExprKind::var ? x.text : x.op);
    return nullptr;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "+"}));
}

TEST(IrRewrite, AddsASlotToOneBuffersElementsOnly) {
  const ExprRef slot = var("s");
  const ExprRef a = address_of(element(0, DType::f16, nullptr, {int_const(0), int_const(0)}));
  const ExprRef b = element(1, DType::f16, nullptr, {int_const(0)});
  const ExprRef held = element(0, DType::f16, int_const(2), {int_const(0)});
  const ExprRef e = select(var("c", Type::boolean()), binary("+", a, b), held);
  const ExprRef out = add_slot(e, 0, slot);
  EXPECT_EQ(out->operands[1]->operands[0]->operands[0]->operands[0], slot);  // a's element: in slot s
  EXPECT_EQ(out->operands[1]->operands[1], b);                               // another buffer's: as it was
  EXPECT_EQ(out->operands[2], held);                                         // already in a slot: as it was
}

TEST(IrRewrite, StatementRewritesReachNestedStatementsAndTiles) {
  Kernel k = parse_kernel(kLoopKernel);
  Stmt& loop = first_statement(k);
  substitute(loop, "k", var("p"));
  add_slot(loop, 0, var("s"));
  const std::string text = printed(k);
  EXPECT_NE(text.find("tma.load croq_tmap_0 ((p * 64), 0) -> &a_s{s}[0, 0]"), std::string::npos) << text;
  EXPECT_NE(text.find("if (p > 0):"), std::string::npos) << text;
  EXPECT_NE(text.find("mma acc += a_s{s} at (0, 0)"), std::string::npos) << text;
  EXPECT_NE(text.find("* b_s at (0, 0)"), std::string::npos) << text;  // buffer 1 keeps no slot
  EXPECT_NE(text.find("for k in [0, 8)"), std::string::npos) << text;  // the loop's own variable name stays
}

TEST(IrRewrite, NotNestedRewritesTheStatementAlone) {
  Kernel k = parse_kernel(kLoopKernel);
  Stmt& loop = first_statement(k);
  add_slot(loop, 0, int_const(0), false);
  EXPECT_EQ(printed(k).find("a_s{"), std::string::npos);
}

TEST(IrText, PipelineMarkRoundTrips) {
  const Kernel k = parse_kernel(kLoopKernel);
  const auto& loop = std::get<For>(std::get<Seq>(k.body->node).body.front()->node);
  ASSERT_TRUE(loop.pipeline);
  EXPECT_EQ(loop.pipeline->shift, "shift_1");
  EXPECT_EQ(loop.pipeline->pass, "pass_2");
  EXPECT_EQ(loop.pipeline->slot, "slot_3");
  EXPECT_EQ(loop.pipeline->buffers_before, 2);
  EXPECT_EQ(printed(k), print_kernel(parse_kernel(printed(k)), IrDetail::full));
  EXPECT_NE(printed(k).find("{pos=3:5+7, pipeline=[shift_1, pass_2, slot_3], pipeline_buffers=2}"), std::string::npos)
      << printed(k);
}

TEST(IrText, PipelineMarkNamesThreeVariables) {
  std::string text = kLoopKernel;
  text.replace(text.find("[shift_1, pass_2, slot_3]"), 25, "[shift_1, pass_2]");
  try {
    parse_kernel(text);
    FAIL() << "parsed a mark of two names";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("a pipeline mark names the shift, the pass and the slot: [shift, pass, slot]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace croq::ir
