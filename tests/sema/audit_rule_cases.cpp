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
      {"ParallelCountOfArithmeticOnABool", "count-not-integer",
       "__co__ void f(s32 [4] a, int k, bool b) {\n  parallel p by 4, q by k + b {\n  }\n}\n", 2, "b {",
       "a parallel count is an integer, got `k + b` (arithmetic on the bool `b`)", "convert it explicitly: `(b ? 1 : 0)`"},
      {"BoolLoopBound", "count-not-integer", blk("    foreach i in [true] {\n    }\n"), 3, "true",
       "a loop bound is an integer, got `true` (a bool)"},
      {"GroupInsideGroup4", "group-nesting", blk("    parallel g by 2 : group-4 {\n      parallel w by 4 : group;\n    }\n"),
       4, "w by", "a `: group` level inside a `: group-4` level",
       "split the warpgroup's threads with a `: thread` level, or make this level a sibling of the `: group-4` one"},
      {"InferredGroupOfMoreWarpsThanAWarpgroup", "group-nesting",
       blk("    parallel g by 2 : group-4 {\n      parallel w by 8 {\n        parallel t by 32\n          a.at(w, t) = 1;\n"
           "      }\n    }\n"),
       4, "w by",
       "an unannotated level inferred as `: group` inside a `: group-4` level runs the 4 warps of each warpgroup, but "
       "counts 8",
       "give it at most 4 instances, or annotate it `: thread` to split the warpgroup's threads"},
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
      {"CooperativeThreadLevel", "cooperative-level", blk("    parallel t by 32 : thread<cooperative> {\n    }\n"), 3,
       "<cooperative>", "`<cooperative>` applies only to a `: block` level; Croqtile ignores it here",
       "remove it, or write `parallel b by N : block<cooperative>`"},
      {"WhereOfAnOuterName", "where-index", fn("  with {x, y} in [2, 4] where n <-> y {\n  }\n"), 2, "n <->",
       "`n` is not an index of this `with`; `where` pairs indices its bindings name", "", "", true},
      {"NamedShapeOfZeroExtent", "extent-positive", fn("  mdspan s : [4, 0];\n"), 2, "[4, 0]",
       "extent 1 of `s` is 0; a shape's extents are positive", "", "", true},
      {"TensorOfNegativeExtent", "extent-positive", blk("    int k = 2;\n    shared f32 [8, k - 4] s;\n"), 4, "shared",
       "extent 1 of the tensor is -2; extents are positive"},
      {"NamedShapeOfATuple", "shape-expected", fn("  s : {7, 8};\n"), 2, "{7",
       "`{7, 8}` is a tuple; `s` is a shape such as `[7, 8]`", "a shape's extents are written in brackets", "", true},
      {"AsyncCopyNeverWaited", "async-not-waited", blk("    t = dma.copy.async a.chunkat(bm, _) => shared;\n"), 3, "t =",
       "`t` is the future of an asynchronous copy that is never waited for",
       "add `wait t;` before its data is used, or drop `.async`"},
      {"BoolOfAnInteger", "declaration-init", fn("  bool b = 0;\n"), 2, "0;",
       "`b` is a bool; it is initialized with `true`, `false` or a condition, not `0`", "write `false`"},
      {"LoopLocalNameTwice", "redeclaration", blk("    with {i, j} in [2, 4] {\n      foreach c = i, c = j { }\n    }\n"),
       4, "c = j", "the local name `c` is already used in this foreach", "give each index its own name", "", true},
      {"WildcardLocalName", "wildcard-outside-chunkat", blk("    with {i} in [2] {\n      foreach _ = i { }\n    }\n"), 4,
       "_ =", "`_` cannot name a loop index; it only keeps a dimension whole in `chunkat`",
       "give the index a name, e.g. `c = i`", "", true},
      {"WithBindingNamedTwice", "redeclaration", fn("  with {x} in [2], {x} in [4] {\n  }\n"), 2, "x} in [4]",
       "`x` is declared already in this scope, at 2:9",
       "pick another name; a future that several copies fill is declared first with `f = dma.any;`", "", true},
      {"LoopIndexDeclaredInItsBody", "redeclaration", blk("    foreach i in [4] {\n      int i = 2;\n    }\n"), 4, "i =",
       "`i` is declared already in this scope, at 3:13",
       "pick another name; a future that several copies fill is declared first with `f = dma.any;`"},
      {"EventOrderOfOneEvent", "event-at-operand", blk("    shared event e;\n    wait e.at(0);\n"), 4, "at(0)",
       "`e.at(...)` orders the arrivals of an event array; `e` is one event", "trigger or wait on it directly: `wait e;`"},
      {"EventOrderOfAFloat", "event-at-operand", blk("    shared event e[2];\n    wait e.at(1.0f);\n"), 4, "1.0f",
       "the event order is an integer, got `1.0f`"},
      {"EventOrderUpdatedInsideAnExpression", "event-at-operand",
       blk("    shared event e[2];\n    mutable int k = 0;\n    wait e.at(k++ + 1);\n"), 5, "k^++ + 1",
       "an update of the event order is the whole argument of `.at`, not part of `k++ + 1`",
       "write `e.at(order++)`, or update the order in a statement of its own"},
      {"WholeTensorArithmeticOfOtherExtents", "tensor-arithmetic-shape",
       "__co__ void f(f32 [32, 16] a, f32 [8] c) {\n  parallel p by 1 {\n    a *= c;\n  }\n}\n", 3, "c;",
       "`c` [8] does not fit `a` [32, 16]: their trailing extents differ",
       "the shorter shape must end the longer one, as [16] ends [32, 16]"},
      {"WholeTensorArithmeticOfHigherRank", "unsupported-tensor-arithmetic",
       "__co__ void f(f32 [32, 16] a, f32 [4, 32, 16] h) {\n  parallel p by 1 {\n    a += h;\n  }\n}\n", 3, "a +=",
       "element-wise arithmetic of `a` with `h`, of higher rank, is not supported yet by libcroqjit",
       "write the loop: `foreach {i, j} in a.span { a.at(i, j) += ...; }`"},
      {"RefillOfALoadedOperand", "accumulator-expected",
       blk("    parallel g by 4 : group {\n      m = mma.load lhs.chunkat(bm, _);\n      mma.fill m, 0.0f;\n    }\n"), 5,
       "m, 0", "`m` is an mma.load result that no mma accumulates into; mma.fill refills accumulators",
       "fill the accumulator of the mma instead", "", true},
      {"ModspanWiderThanTheTile", "subspan-too-large",
       blk("    t = dma.copy a.subspan(16, 32).at(bm, 0).modspan(8, 33) => shared;\n"), 3, "modspan",
       "`.modspan` takes tiles of extent 33 in dimension 1, which has only 32 elements",
       "a tile fits in the tensor; make it at most 32", "", true},
      {"ImmutableFromACall", "declaration-init", blk("    int v = call g();\n"), 3, "call",
       "`v` is immutable, but `call g()` is known only when the kernel runs", "declare it `mutable int v = ...;`"},
      {"UntypedMutableFromACall", "declaration-type", blk("    mutable v = call g();\n"), 3, "v =",
       "cannot tell the type of `v` from `call g()`", "give it a type: `mutable int v = ...;`"},
      {"CallArgumentOutOfScope", "unknown-name",
       blk("    foreach i in [2] {\n      t = dma.copy a.chunkat(bm, _) => local;\n    }\n    call k(t.data);\n"), 6,
       "t.data", "unknown name `t`", "", "", true},
      {"InthreadsOnAParameter", "inthreads-divergent", blk("    inthreads (n > 0) {\n    }\n"), 3, "n >",
       "`n > 0` is the same for every thread; each comparison of an inthreads condition sets one parallel index against "
       "shared values",
       "compare an index of the enclosing parallel level with a constant or a parameter, e.g. `p < 2`"},
      {"InthreadsComparingTwoIndices", "inthreads-divergent", blk("    inthreads (bm > bn - 1) {\n    }\n"), 3, "bm >",
       "`bm > bn - 1` compares parallel indices with each other; each comparison of an inthreads condition sets one "
       "parallel index against shared values",
       "compare an index of the enclosing parallel level with a constant or a parameter, e.g. `p < 2`"},
      {"InthreadsAsyncInsideInthreads", "inthreads-nested",
       blk("    parallel p by 2 : group-4 {\n      inthreads (p > 0) {\n        inthreads.async (p == 1) { sync.shared; }\n"
           "      }\n    }\n"),
       5, "inthreads.async", "inthreads.async inside an inthreads", "make it a region of its own, next to the other"},
      {"ExtentOfABracketedWithIndex", "extent-needs-index", blk("    with x in [4] {\n      int k = #x;\n    }\n"), 4,
       "#x", "`x` is bound by a bound in brackets, a tuple of one index; `#` gives the extent of one index",
       "bind it without brackets, `with x in N`, or name the index: `with {i} in [N]`", "", true},
      {"TupleOfAMutable", "declaration-init", blk("    mutable int m = 1;\n    t = {m, 2};\n"), 4, "{m",
       "`t` names a tuple, whose values are fixed; `m` is mutable",
       "copy the value into an immutable name first: `int v = m;`"},
      {"ShapeFromAMutable", "shape-expected", blk("    mutable int m = 1;\n    s : [4, 4] / m;\n"), 4, "[4, 4] /",
       "`s` is a shape, whose extents are fixed; `m` in `[4, 4] / m` is mutable", "", "", true},
      {"UnboundedDimOfALocalParameter", "unbounded-dim-scope", "__co__ void f(f32 [??, 8] a) {\n}\n", 1, "??",
       "a parameter with an unbounded dim (`??`) is declared `global`; `a` is not", "write `global f32 [...] a`"},
      {"LoopOverAnUnboundedDim", "unbounded-value",
       "__co__ void f(global f32 [??, 8] a) {\n  parallel p by 1 {\n    foreach i in [a.span(0)] {\n    }\n  }\n}\n",
       3, "a.^span(0)", "a loop bound is not known before the kernel runs: `a.span(0)` comes from an unbounded dim (`??`)",
       "use a constant or a dim the call binds", "", true},
      {"CopyOfAnUnboundedTile", "unbounded-value",
       "__co__ void f(global f32 [??, 8] a) {\n  parallel p by 1 {\n    t = dma.copy a.chunkat(p, _) => local;\n  }\n}\n",
       3, "a.^chunkat", "the tile `a.chunkat(p, _)` spans an unbounded dim (`??`): the new buffer's shape is not known",
       "take a tile of explicit extents, e.g. `.subspan(...).at(...)`", "", true},
      {"ConditionOnAnUnboundedDim", "unbounded-value",
       "__co__ void f(global f32 [??, 8] a) {\n  parallel p by 1 {\n    if (a.span(0) > 4) {\n    }\n  }\n}\n", 3,
       "a.^span(0) >", "the condition of `if` depends on an unbounded dim (`??`), which no one knows",
       "compare with a dim the call binds", "", true},
      {"IndexPastTheSecondDimension", "array-index-range", blk("    shared f32 [8] b[2][3];\n    b[1][3].at(0) = 1.0f;\n"), 4,
       "3]", "index 3 is out of range for 3 elements", "", "", true},
      {"PartOfAnArrayOfArrays", "buffer-array-unselected", blk("    shared f32 [8] b[2][3];\n    b[1].at(0) = 1.0f;\n"), 4,
       "b[1]", "`b[1]` is an array of buffers; say which one, e.g. `b[1][stage]`", "", "", true},
      {"ParallelIndexPastAnArray", "array-index-range", blk("    shared f32 [8] b[2];\n    b[bn].at(0) = 1.0f;\n"), 4,
       "bn]", "`bn` takes the values 0..3, outside the 2 elements of `b`"},
      {"SumOfTwoShapes", "shape-arithmetic-operator", blk("    shared f32 [a.span + lhs.span] s;\n"), 3, "a.^span +",
       "`a.span + lhs.span` combines two shapes with `+`; two shapes combine only by `/` and `%`",
       "add or scale a shape by numbers or a tuple, e.g. `a.span + {1, 1}`", "", true},
      {"ShapeTimesABool", "arithmetic-operand", "__co__ void f(s32 [8, 8] a, bool b) {\n  s : a.span * b;\n}\n", 2, "b;",
       "`b` is a bool; shape arithmetic takes integers", "", "", true},
      {"NamedShapeOfARatioOfShapes", "shape-expected", fn("  s : a.span / a.span;\n"), 2, "a.^span /",
       "`a.span / a.span` is a tuple (two shapes divide into counts); `s` is a shape", "", "", true},
      {"TupleOfAShapeHasItsExtents", "shape-arithmetic-rank", fn("  t = {a.span};\n  u = t + {1, 2, 3};\n"), 3, "t +",
       "`t + {1, 2, 3}` combines 2 values with 3; shape arithmetic takes the same number on both sides or one number", "",
       "", true},
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

// `<cooperative>` on a thread level is ignored (a warning): the barrier of
// another function without a cooperative block is the error.
TEST(AuditedStatements, IgnoredCooperativeLevelLeavesTheBarrierRule) {
  EXPECT_EQ(errors_of("__co__ void f() {\n  parallel t by 32 : thread<cooperative> {\n  }\n}\n"
                      "__co__ void g() {\n  parallel b by 1 : block {\n    sync.barrier : device;\n  }\n}\n"),
            (Errors{{7, "barrier-needs-cooperative"}}));
}

// An array of global buffers declared in the function (a limitation) is
// still an array: indexing it, one size per dimension, is no error.
TEST(AuditedStatements, GlobalArrayOfArraysIsStillAnArray) {
  EXPECT_EQ(errors_of("__co__ void f(s32 [128, 256] input) {\n  u8 [input.span] b[3][2];\n  parallel p by 1 {\n"
                      "    shared u8 [1, 256] s[2];\n    dma.copy b[1][1].chunkat(p, _) => s[1];\n  }\n}\n"),
            Errors{});
}

// A statement between the kernels of a program is host code, checked by
// its own rules.
TEST(AuditedStatements, HostStatementOfAProgramIsChecked) {
  EXPECT_EQ(errors_of(fn("  int c = 3;\n  parallel p by 2 : block {\n  }\n  c = 4;\n  parallel q by 2 : block {\n  }\n")),
            (Errors{{5, "assign-target"}}));
}

// A copy into a select of mismatched operands still names its future: a
// later select of that future is checked against its tile.
TEST(AuditedStatements, FutureOfACopyIntoABadSelectIsStillAFuture) {
  EXPECT_EQ(errors_of(blk("    local s32 [4, 2] x;\n    shared s32 [4, 2] y;\n    local s32 [1, 2] z;\n"
                          "    f = dma.copy a.chunkat(bm, _) => select(bn % 2, x, y);\n"
                          "    g = dma.copy a.chunkat(bm, _) => z;\n    h = select(bn % 2, f, g);\n")),
            (Errors{{6, "select-operands"}, {8, "select-operands"}}));
}

// `while` over events (a limitation) is no condition error; an event in
// arithmetic with a number is.
TEST(AuditedStatements, WhileOverEventsIsALimitation) {
  EXPECT_EQ(errors_of(blk("    shared event e, f[2];\n    while (e && f) {\n    }\n    while (e && n > 0) {\n    }\n")),
            (Errors{{6, "arithmetic-operand"}}));
}

// A tuple name bound again in an inner scope is a new binding (a
// limitation); in its own scope it is an assignment, an error.
TEST(AuditedStatements, TupleBoundAgainInAnInnerScope) {
  EXPECT_EQ(errors_of(fn("  t = {1, 2};\n  parallel p by 2 {\n    t = {3, 4, 5};\n  }\n  t = {5, 6};\n")),
            (Errors{{6, "assign-target"}}));
}

// `=> global` makes a new global buffer: a limitation, not an error.
TEST(AuditedStatements, CopyIntoANewGlobalBufferIsALimitation) {
  EXPECT_EQ(errors_of(blk("    t = dma.copy a.chunkat(bm, _) => global;\n")), Errors{});
}

}  // namespace
}  // namespace croq::sema::test
