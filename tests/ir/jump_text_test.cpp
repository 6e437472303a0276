// `break` and `continue` in the IR: lowering emits them inside their loops,
// the text form reads them back, and the verifier refuses one outside a
// loop (or whose loop is outside the parallel level it is in).
#include <gtest/gtest.h>

#include "common/arg_signature.hpp"
#include "common/loop_control_kernel.hpp"
#include "common/sample_cases.hpp"
#include "ir/builder.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"

namespace croq::ir {
namespace {

TEST(IrJump, LoweredBreakAndContinueRoundTripThroughTheText) {
  test::SampleCase c;
  c.name = "loop_control";
  c.source = croq::test::kLoopControlKernel;
  for (int i = 0; i < 4; ++i) c.args.push_back(croq::test::tensor(DType::s32, {4, 64}));
  for (const std::string& stage : {std::string("lower"), std::string("")}) {
    SCOPED_TRACE("after " + (stage.empty() ? std::string("every pass") : stage));
    const pipeline::GeneratedProgram program = test::generate_case(c, stage, IrDetail::full);
    ASSERT_EQ(program.kernels.size(), 1u);
    const std::string& text = program.kernels[0].ir;
    EXPECT_NE(text.find(" break {pos="), std::string::npos) << text;
    EXPECT_NE(text.find(" continue {pos="), std::string::npos) << text;
    EXPECT_EQ(print_kernel(parse_kernel(text), IrDetail::full), text);
  }
}

// A kernel of one statement list holding `s`.
Kernel kernel_of(StmtPtr s) {
  Kernel k;
  k.entry = "croq_f";
  k.function = "f";
  StmtList body;
  body.push_back(std::move(s));
  k.body = make_stmt(Seq{std::move(body), false});
  return k;
}

bool reports(const std::vector<std::string>& problems, const std::string& what) {
  for (const std::string& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

TEST(IrJump, VerifierRefusesAJumpOutsideItsLoop) {
  EXPECT_TRUE(reports(verify(kernel_of(make_stmt(Jump{})), Decisions::none()), "a break or continue outside a loop"));
  // Inside a region inside a loop: the region (a parallel body) would be left too.
  StmtList region_body;
  region_body.push_back(make_stmt(Jump{true}));
  Region region;
  region.body = make_stmt(Seq{std::move(region_body), true});
  StmtList loop_body;
  loop_body.push_back(make_stmt(std::move(region)));
  While loop{int_const(1), make_stmt(Seq{std::move(loop_body), false})};
  EXPECT_TRUE(reports(verify(kernel_of(make_stmt(std::move(loop))), Decisions::none()),
                      "a break or continue outside a loop"));
  StmtList fine_body;
  fine_body.push_back(make_stmt(Jump{}));
  While fine{int_const(1), make_stmt(Seq{std::move(fine_body), false})};
  EXPECT_FALSE(reports(verify(kernel_of(make_stmt(std::move(fine))), Decisions::none()),
                       "a break or continue outside a loop"));
}

// The passes walk nested bodies as statement lists (ir::nested_bodies): a
// loop whose body is one bare statement is refused where it is made.
TEST(IrJump, VerifierRefusesABodyThatIsNotAStatementList) {
  While bare{int_const(1), make_stmt(Jump{})};
  EXPECT_TRUE(reports(verify(kernel_of(make_stmt(std::move(bare))), Decisions::none()),
                      "a loop, branch or region body is not a statement list"));
  StmtList body;
  body.push_back(make_stmt(Jump{}));
  While listed{int_const(1), make_stmt(Seq{std::move(body), false})};
  EXPECT_FALSE(reports(verify(kernel_of(make_stmt(std::move(listed))), Decisions::none()),
                       "a loop, branch or region body is not a statement list"));
}

}  // namespace
}  // namespace croq::ir
