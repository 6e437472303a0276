// Rule cases found by auditing upstream's rejected test files
// (tests/conformance/rejects.tsv): each error at the construct Croqtile
// rejects, for its reason. Also the statements that report more than one
// error, which a RuleCase (one diagnostic) cannot hold.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> audit_rule_cases() {
  return {
      {"FloatParallelCount", "count-not-integer", fn("  parallel p by 4.0f : block {\n  }\n"), 2, "4.0f",
       "a parallel count is an integer, got `4.0f` (a float)"},
      {"BoolLoopBound", "count-not-integer", blk("    foreach i in [true] {\n    }\n"), 3, "true",
       "a loop bound is an integer, got `true` (a bool)"},
      {"GroupInsideGroup4", "group-nesting", blk("    parallel g by 2 : group-4 {\n      parallel w by 4 : group;\n    }\n"),
       4, "w by", "a `: group` level inside a `: group-4` level",
       "split the warpgroup's threads with a `: thread` level, or make this level a sibling of the `: group-4` one"},
      {"ThreadsOfFourGroupsPastTheLimit", "block-thread-limit",
       blk("    parallel by 4 : group {\n      parallel by 512 : thread {\n      }\n    }\n"), 4, "by 512",
       "this parallel level needs 2048 threads in a block (4 groups of 512); a block has at most 1024"},
      {"RemovedEvictBuiltin", "removed-builtin",
       blk("    shared f16 [64, 64] s;\n    f = tma.copy.async lhs.subspan(64, 64).at(bm, 0) => s;\n"
           "    call croq::cuda::evict_last(f);\n    wait f;\n"),
       5, "call", "`croq::cuda::evict_last` was removed from Croqtile",
       "write the hint on the load: `tma.load.evict_last src => dst;`"},
      {"RankOnlyReturnTypeWithoutReturn", "missing-return", "__co__ s32 mdspan<2> f(s32 [8, 8] a) {\n}\n", 1, "s32",
       "the function returns a tensor but has no `return NAME;`",
       "declare the result, e.g. `s32 [...] output;`, and end with `return output;`"},
      {"ReturnOfAFuture", "return-value",
       "__co__ auto f(s32 [8, 8] a) {\n  t = dma.any;\n  return t;\n}\n", 3, "t;",
       "`t` is a future; a function returns a number or a tensor",
       "return the tile: copy it into a tensor declared at function scope and return that", "", true},
      {"ReturnOfALoopIndex", "return-value",
       "__co__ auto f(s32 [8, 8] a) {\n  foreach i in [4] {\n    return i;\n  }\n}\n", 3, "i;",
       "`i` is an index; a function returns a number or a tensor"},
  };
}

namespace {

std::vector<std::pair<int, std::string>> errors_of(const std::string& source) {
  std::vector<std::pair<int, std::string>> out;
  Options options;
  options.limitations_are_errors = false;
  if (auto e = sema_error(source, options))
    for (const Diagnostic& d : e->diagnostics())
      if (d.severity == Severity::error) out.emplace_back(d.line, d.rule);
  return out;
}

using Errors = std::vector<std::pair<int, std::string>>;

// A copy into a tensor of another rank and element type: both faults.
TEST(AuditedStatements, CopyOfOtherRankAndTypeReportsBoth) {
  EXPECT_EQ(errors_of(fn("  f16 [4, 4, 4] d;\n  dma.copy a => d;\n")),
            (Errors{{3, "copy-rank"}, {3, "copy-element-type"}}));
}

// `_` as a `with` index does not hide a `foreach _` in its body.
TEST(AuditedStatements, WildcardWithIndexStillChecksItsBody) {
  EXPECT_EQ(errors_of(blk("    with {_} in [4] {\n      foreach _ {\n      }\n    }\n")),
            (Errors{{3, "wildcard-outside-chunkat"}, {4, "wildcard-outside-chunkat"}}));
}

// A copy into local memory outside a parallel statement still names its
// future: returning that future is an error of its own.
TEST(AuditedStatements, FutureOfAMisplacedCopyIsStillAFuture) {
  EXPECT_EQ(errors_of("__co__ auto f(s32 [8, 8] a) {\n  t = dma.copy a => local;\n  return t;\n}\n"),
            (Errors{{2, "copy-outside-parallel"}, {3, "return-value"}}));
}

}  // namespace
}  // namespace croq::sema::test
