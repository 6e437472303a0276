// The structural facts sema records for lowering (block_facts.cpp): which
// trigger completes each TMA load, and whether a function needs sm_90's
// machinery. Lowering reads them instead of looking ahead in a block.
#include <memory>
#include <string>
#include <vector>

#include "common/block_scale_sources.hpp"
#include "frontend/ast_walk.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using namespace frontend::ast;

using Checked = CheckedSource;

std::vector<const Copy*> copies_of(const Stmt& body) {
  std::vector<const Copy*> out;
  walk_statements(body, [&](const Stmt& s) {
    if (const auto* c = std::get_if<Copy>(&s.node)) out.push_back(c);
  });
  return out;
}

std::string trigger_text(const Checked& c, const Trigger* t) {
  if (!t) return "none";
  return frontend::source_text(*c.program, *t->targets.at(0));
}

// Synchronous loads then `trigger e;`: both complete on e. Two loads
// separated by another statement: only the later run does.
const char* kSyncRun = R"croq(
__co__ void loads(global f16 [M, K] lhs, global f16 [N, K] rhs) {
  parallel b by 1 : block {
    shared event full[2], done;
    shared f16 [64, 64] a_s[2];
    shared f16 [64, 64] b_s[2];
    parallel p by 1 : group-4 {
      tma.copy.swiz<128> lhs.subspan(64, 64).at(0, 0) => a_s[0];
      tma.copy.swiz<128> rhs.subspan(64, 64).at(0, 0) => b_s[0];
      trigger full[0];
      tma.copy.swiz<128> lhs.subspan(64, 64).at(0, 1) => a_s[1];
      wait full[0];
      tma.copy.swiz<128> rhs.subspan(64, 64).at(0, 1) => b_s[1];
    }
  }
}
)croq";

TEST(SemaBlockFacts, ATriggerClosingARunOfSynchronousLoadsCompletesThem) {
  Checked c = check_source(kSyncRun);
  const CheckedFunction& f = *c.checked.functions.at(0);
  const std::vector<const Copy*> copies = copies_of(*c.program->functions.at(0).body);
  ASSERT_EQ(copies.size(), 4u);
  EXPECT_EQ(trigger_text(c, f.completing_trigger(*copies[0])), "full[0]");
  EXPECT_EQ(trigger_text(c, f.completing_trigger(*copies[1])), "full[0]");
  EXPECT_EQ(trigger_text(c, f.completing_trigger(*copies[2])), "none");  // a wait comes first
  EXPECT_EQ(trigger_text(c, f.completing_trigger(*copies[3])), "none");  // nothing follows
  EXPECT_TRUE(f.uses_hopper);
}

TEST(SemaBlockFacts, TriggerAfterCompletesTheAsyncLoadsItNames) {
  Checked c = check_source(croq::test::block_scaled_gemm_source("f32"));
  const CheckedFunction& f = *c.checked.functions.at(0);
  const std::vector<const Copy*> copies = copies_of(*c.program->functions.at(0).body);
  ASSERT_GE(copies.size(), 2u);
  EXPECT_EQ(trigger_text(c, f.completing_trigger(*copies[0])), "full.at(k)");
  EXPECT_EQ(trigger_text(c, f.completing_trigger(*copies[1])), "full.at(k)");
  EXPECT_EQ(f.completing_trigger(*copies[0]), f.completing_trigger(*copies[1]));
}

TEST(SemaBlockFacts, PlainThreadCodeNeedsNoHopperMachinery) {
  Checked c = check_source(R"croq(
__co__ f32 [N] twice(f32 [N] x) {
  f32 [x.span] y;
  parallel b by cdiv(N, 128) : block {
    parallel t by 128 : thread {
      if (b # t < N) { y.at(b # t) = x.at(b # t) * 2.0f; }
    }
  }
  return y;
}
)croq");
  EXPECT_FALSE(c.checked.functions.at(0)->uses_hopper);
  EXPECT_TRUE(c.checked.functions.at(0)->completing_triggers.empty());
}

}  // namespace
}  // namespace croq::sema::test
