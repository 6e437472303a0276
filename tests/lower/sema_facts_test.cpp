// Lowering reads sema's facts (sema.hpp's CheckedFunction: each declared
// buffer and event, each copy's protocol, the rings of swapped futures)
// instead of deriving them again: a fact sema did not record is an internal
// error where lowering meets the construct, and in a function sema rejected
// (lowered directly, as tests do) it is sema's own error of that line.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "sema/sema.hpp"

namespace croq::pipeline {
namespace {

using test::tensor;

// A double-buffered block: a tensor, a ring buffer and an event declared,
// two asynchronous copies whose futures a swap exchanges (lines 4 to 13).
const char* const kRing = R"croq(__co__ f32 [64, 64] ring(f32 [64, 64] a) {
  f32 [a.span] out;
  parallel p by 4 : block {
    shared f32 [16, 16] stage[2];
    shared event full[2] = ready;
    cur = dma.copy.async a.subspan(16, 16).at(p, 0) => shared;
    nxt = dma.any;
    foreach k in [3] {
      nxt = dma.copy.async a.subspan(16, 16).at(p, k + 1) => shared;
      wait cur;
      parallel {i, j} by [16, 16] : thread
        out.at(p # i, k # j) = cur.data.at(i, j);
      swap cur, nxt;
    }
  }
  return out;
}
)croq";

struct Lowered {
  std::unique_ptr<frontend::ast::Program> program;
  sema::CheckedProgram checked;
};

Lowered parse_and_check(const std::string& source) {
  Lowered l;
  l.program = frontend::parse_program(source, {});
  sema::Options options;
  options.target = target::parse_target("sm_90a");
  l.checked = sema::check(*l.program, {}, options);
  return l;
}

// Generates `l`'s function with sema's facts (after `forget` dropped some):
// the CompileError's first diagnostic, or a failure.
Diagnostic first_error(Lowered& l, const std::function<void(sema::CheckedFunction&)>& forget) {
  sema::CheckedFunction& facts = *l.checked.functions.at(0);
  forget(facts);
  GenerateOptions options;
  options.semantics = &facts;
  options.verify_ir = true;
  try {
    pipeline::generate(*l.program, l.program->functions.at(0), {tensor(DType::f32, {64, 64})},
                       target::parse_target("sm_90a"), options);
  } catch (const CompileError& e) {
    return e.diagnostics().at(0);
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(LoweringReadsSemaFacts, TheRecordedFactsLowerTheKernel) {
  Lowered l = parse_and_check(kRing);
  GenerateOptions options;
  options.semantics = l.checked.functions.at(0).get();
  options.verify_ir = true;
  const GeneratedKernel k = pipeline::generate(*l.program, l.program->functions.at(0), {tensor(DType::f32, {64, 64})},
                                               target::parse_target("sm_90a"), options);
  // The ring sema found: one shared buffer of two slots for cur and nxt.
  EXPECT_TRUE(test::contains(k.cuda_source, "cur_slot")) << k.cuda_source;
  EXPECT_TRUE(test::contains(k.cuda_source, "nxt_slot")) << k.cuda_source;
}

// Each fact lowering reads, dropped from sema's record: an internal error at
// the first construct that needs it.
TEST(LoweringReadsSemaFacts, AFactSemaDidNotRecordIsAnInternalError) {
  struct Case {
    std::function<void(sema::CheckedFunction&)> forget;
    std::string what;
    int line, column;
  };
  const std::vector<Case> cases = {
      {[](sema::CheckedFunction& f) { f.declared_buffers.clear(); }, "a tensor declaration", 2, 16},
      {[](sema::CheckedFunction& f) { f.declared_events.clear(); }, "an event declaration", 5, 18},
      {[](sema::CheckedFunction& f) { f.copies.clear(); }, "a copy", 6, 15},  // `copy` of dma.copy
      {[](sema::CheckedFunction& f) { f.future_rings.clear(); }, "a placeholder sema found no ring for", 7, 5},
  };
  for (const Case& c : cases) {
    Lowered l = parse_and_check(kRing);
    const Diagnostic d = first_error(l, c.forget);
    EXPECT_EQ(d.message, "internal error: lowering met " + c.what + " that sema did not check");
    EXPECT_EQ(d.hint, "please report this with the source");
    EXPECT_EQ(d.line, c.line) << c.what;
    EXPECT_EQ(d.column, c.column) << c.what;
  }
}

// Lowered without sema's facts (generate_program checks it with keep_going):
// the copy sema rejected has no protocol, and the error is sema's, with its
// rule, where sema reported it.
TEST(LoweringReadsSemaFacts, ACopySemaRejectedIsSemasErrorOnItsLine) {
  const std::string source = R"croq(__co__ f32 [64, 64] ring(f32 [64, 64] a) {
  f32 [a.span] out;
  parallel p by 4 : block {
    t = dma.copy.nope a.subspan(16, 16).at(p, 0) => shared;
    parallel {i, j} by [16, 16] : thread
      out.at(p # i, j) = t.data.at(i, j);
  }
  return out;
}
)croq";
  auto program = frontend::parse_program(source, {});
  try {
    pipeline::generate(*program, program->functions.at(0), {tensor(DType::f32, {64, 64})},
                       target::parse_target("sm_90a"), {});
    FAIL() << "no error";
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    EXPECT_EQ(d.message, "`.nope` on dma.copy is not supported yet by libcroqjit");
    EXPECT_EQ(d.rule, "unsupported-modifier");
    EXPECT_EQ(d.line, 4);
    EXPECT_EQ(d.column, 18);
  }
}

}  // namespace
}  // namespace croq::pipeline
