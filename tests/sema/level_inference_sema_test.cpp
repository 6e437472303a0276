// The space sema infers for each unannotated parallel level (sema.hpp's
// level_spaces, sema/level_inference.hpp): nested levels nest block,
// group-4, group, thread from the outside in, the innermost unannotated one
// running threads and the outermost blocks, then groups, then group-4s.
#include <string>
#include <vector>

#include "frontend/ast_walk.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using namespace frontend::ast;

void levels_of(const Stmt& s, std::vector<const ParallelLevel*>& out) {
  walk_statements(s, [&](const Stmt& st) {
    if (const auto* p = std::get_if<Parallel>(&st.node))
      for (const ParallelLevel& lv : p->levels) out.push_back(&lv);
  });
}

// The space of each level of the first function, in source order.
std::vector<std::string> spaces(const std::string& body) {
  CheckedSource c = check_source("__co__ void f(s32 [2, 4, 32] a) {\n" + body + "}\n");
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<const ParallelLevel*> levels;
  levels_of(*c.program->functions.at(0).body, levels);
  std::vector<std::string> out;
  for (const ParallelLevel* lv : levels) {
    const SpaceSpecifier s = f.level_space(*lv);
    out.push_back(s == SpaceSpecifier::none ? "none" : space_name(s));
  }
  return out;
}

using Spaces = std::vector<std::string>;

TEST(SemaLevelInference, TwoUnannotatedLevelsAreBlocksAndThreads) {
  EXPECT_EQ(spaces("  parallel b by 2 parallel t by 32 { a.at(b, 0, t) = 1; }\n"), (Spaces{"block", "thread"}));
  EXPECT_EQ(spaces("  parallel b by 2 { parallel t by 32 { a.at(b, 0, t) = 1; } }\n"), (Spaces{"block", "thread"}));
}

TEST(SemaLevelInference, ThreeUnannotatedLevelsPutGroupsBetween) {
  EXPECT_EQ(spaces("  parallel b by 2 parallel w by 4 parallel t by 32 { a.at(b, w, t) = 1; }\n"),
            (Spaces{"block", "group", "thread"}));
}

TEST(SemaLevelInference, UnannotatedLevelsFillWhatTheAnnotatedOnesLeave) {
  // Between a block and a thread level: a group.
  EXPECT_EQ(spaces("  parallel b by 2 : block parallel w by 4 parallel t by 32 : thread { a.at(b, w, t) = 1; }\n"),
            (Spaces{"block", "group", "thread"}));
  // Above a group: a block.
  EXPECT_EQ(spaces("  parallel b by 2 parallel w by 4 : group { a.at(b, w, 0) = 1; }\n"), (Spaces{"block", "group"}));
  // Inside a group-4 or a group: threads.
  EXPECT_EQ(spaces("  parallel g by 2 : group-4 parallel t by 128 { a.at(0, g, t % 32) = 1; }\n"),
            (Spaces{"group-4", "thread"}));
  // Around a warpgroup's statement and inside it.
  EXPECT_EQ(spaces("  parallel b by 2 parallel g by 1 : group-4 parallel t by 128 { a.at(b, g, t % 32) = 1; }\n"),
            (Spaces{"block", "group-4", "thread"}));
}

TEST(SemaLevelInference, FourUnannotatedLevelsFillTheNest) {
  EXPECT_EQ(spaces("  parallel b by 2 parallel g by 1 parallel w by 4 parallel t by 32 { a.at(b, w, t) = g; }\n"),
            (Spaces{"block", "group-4", "group", "thread"}));
  // Inside a warpgroup, an unannotated level over the innermost is its warps.
  EXPECT_EQ(spaces("  parallel b by 2 : block parallel g by 1 : group-4 parallel w by 4 parallel t by 32 {\n"
                   "    a.at(b, w, t) = g;\n  }\n"),
            (Spaces{"block", "group-4", "group", "thread"}));
}

TEST(SemaLevelInference, TheOutermostChoiceOfTheStatementsNestedWins) {
  // One branch leads to a group (the level is a block); the other to the
  // innermost statements: the block is the outermost choice of both.
  EXPECT_EQ(spaces("  parallel b by 2 {\n    parallel w by 4 : group { a.at(b, w, 0) = 1; }\n"
                   "    parallel t by 128 { a.at(b, 0, t % 32) = 2; }\n  }\n"),
            (Spaces{"block", "group", "thread"}));
}

TEST(SemaLevelInference, ALoneTopLevelMapsByWhatItHolds) {
  CheckedSource c = check_source("__co__ void f(s32 [64] a) {\n  parallel i by 64 { a.at(i) = 1; }\n}\n");
  const CheckedFunction& f = *c.checked.functions.at(0);
  const auto& p = std::get<Parallel>(std::get<Block>(c.program->functions.at(0).body->node).statements.at(0)->node);
  EXPECT_EQ(f.level_space(p.levels[0]), SpaceSpecifier::none);
  EXPECT_EQ(f.mapping(p.levels[0]), Mapping::flat);
}

TEST(SemaLevelInference, InferredLevelsMapAsAnnotatedOnes) {
  CheckedSource c = check_source(
      "__co__ void f(s32 [2, 4, 32] a) {\n  parallel b by 2 parallel w by 4 parallel t by 32 { a.at(b, w, t) = 1; }\n}\n");
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<const ParallelLevel*> levels;
  levels_of(*c.program->functions.at(0).body, levels);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(f.mapping(*levels[0]), Mapping::grid);
  EXPECT_EQ(f.mapping(*levels[1]), Mapping::threads);
  EXPECT_EQ(f.mapping(*levels[2]), Mapping::threads);
}

}  // namespace
}  // namespace croq::sema::test
