// Rule cases: the function's result, declarations, assignments, loops,
// assertions, parallel levels and inthreads.async.
#include "sema_test_util.hpp"

namespace croq::sema::test {

namespace {

// A block split into `regions` inthreads.async regions of one warpgroup each.
std::string inthreads_regions(int regions, bool named_barriers = false) {
  std::string body = "    parallel p by 2 : group-4 {\n";
  if (named_barriers) body += "      __bar_sync(1, 256);\n";
  for (int i = 0; i < regions; ++i) body += "      inthreads.async (p == 0) { sync.shared; }\n";
  return blk(body + "    }\n");
}

}  // namespace

std::vector<RuleCase> statement_cases() {
  return {
      // Inline assembly
      {"AsmUnknownEscape", "asm-string", blk("    __asm__(\"mov.u32 %0, 1;\\q\" : \"=r\"(a.at(0, 0)));\n"), 3, "__asm__",
       "the template of `__asm__` is the unknown escape `\\q`", "write a plain string literal, e.g. \"mov.u32 %0, %1;\""},
      {"AsmInputWritten", "asm-operand", blk("    __asm__(\"mov.u32 %0, %1;\" : \"=r\"(a.at(0, 0)) : \"=r\"(n));\n"), 3,
       "\"=r\"(n", "the input constraint \"=r\" begins with `=`", "inputs are read only: write \"r\""},
      {"AsmOutputNotMarked", "asm-operand", blk("    __asm__(\"mov.u32 %0, 1;\" : \"r\"(a.at(0, 0)));\n"), 3, "\"r\"",
       "the output constraint \"r\" does not begin with `=` or `+`",
       "write \"=r\" (written) or \"+r\" (read and written)"},
      {"AsmFloatInIntegerRegister", "asm-operand",
       blk("    __asm__(\"mov.u32 %0, %1;\" : \"=r\"(a.at(0, 0)) : \"r\"(out.at(0, 0)));\n"), 3, "out.^at",
       "\"r\" binds an integer register; `out.at(0, 0)` is a float", "use \"f\" (f32) or \"d\" (f64) for floats"},
      {"AsmWritesAParallelIndex", "asm-operand", blk("    __asm__(\"mov.u32 %0, 1;\" : \"=r\"(bm));\n"), 3, "bm))",
       "the assembly writes `bm`, which cannot be assigned", "write into an element (`x.at(i)`) or a `mutable` scalar"},
      {"AsmImmediateAtRunTime", "asm-operand",
       blk("    __asm__(\"add.u32 %0, %0, %1;\" : \"+r\"(a.at(0, 0)) : \"n\"(a.at(1, 1)));\n"), 3, "a.^at(1",
       "\"n\" takes a constant; `a.at(1, 1)` is known only when the kernel runs"},
      {"AsmOperandOutOfRange", "asm-operand", blk("    __asm__(\"mov.u32 %0, %2;\" : \"=r\"(a.at(0, 0)) : \"r\"(n));\n"), 3,
       "__asm__", "the template refers to `%2` but the statement has 2 operands",
       "operands count from %0: the outputs, then the inputs"},
      {"AsmUnknownOperandName", "asm-operand",
       blk("    __asm__(\"mov.u32 %[d], %[s];\" : [d] \"=r\"(a.at(0, 0)) : [v] \"r\"(n));\n"), 3, "__asm__",
       "the template refers to `%[s]`, which names no operand", "name an operand `[s] \"r\"(...)`"},
      {"TensorFunctionWithoutReturn", "missing-return",
       "__co__ s32 [64, 64] f(s32 [64, 64] a) {\n  parallel i by 64\n    a.at(i, 0) = 1;\n}\n", 1, "s32 [64, 64] f",
       "the function returns a tensor but has no `return NAME;`",
       "declare the result, e.g. `s32 [...] output;`, and end with `return output;`"},
      {"ReturnFromAVoidFunction", "return-value", "__co__ void f(s32 [64, 64] a) {\n  return a;\n}\n", 2, "a;",
       "only a tensor declared in the function can be returned",
       "give the function a tensor return type, e.g. `__co__ s32 [M, N] f(...)`"},
      {"AutoReturnOfADeviceValue", "unsupported-return", "__co__ auto f(s32 [64, 64] a) {\n  return a.at(0, 0);\n}\n", 2,
       "at(0, 0)",
       "returning `a.at(0, 0)` is not supported yet by libcroqjit: the host computes a returned number from numbers, "
       "scalars, arguments and dims, and this value is read on the device",
       "store the value into a tensor declared at function scope and return that"},
      {"AutoReturnOfANumberBesideDeviceWork", "unsupported-return",
       "__co__ auto f(s32 [4] a) {\n  with i in [4] {\n    a.at(i) = 1;\n  }\n  int x = 3;\n  return x;\n}\n", 6, "x;",
       "returning `x` is not supported yet by libcroqjit: the host computes a returned number, and `f` has statements "
       "outside its parallel statements that only a kernel runs",
       "move the device work into a `parallel` statement"},
      {"ReturnOfANumberAndATensor", "return-value",
       "__co__ auto f(s32 [4] a) {\n  s32 [4] out;\n  parallel p by 4\n    out.at(p) = a.at(p);\n"
       "  if (a.span(0) > 8) { return 1; }\n  return out;\n}\n",
       5, "1;", "`f` returns the tensor `out` and the number `1`; a function returns one or the other",
       "return the number in a tensor: store it with `out.at(...) = 1;`"},
      {"AutoReturnOfAShape", "return-value", "__co__ auto f(s32 [64, 64] a) {\n  return [4, 4];\n}\n", 2, "[4", "`[4, 4]` is a shape; a function returns a number or a tensor"},
      {"ReturnOfAParameter", "return-value", "__co__ s32 [64, 64] f(s32 [64, 64] a) {\n  return a;\n}\n", 2, "a;",
       "only a tensor declared in the function can be returned", "declare it in the function body, e.g. `s32 [...] a;`"},
      {"ReturnOfAnotherName", "return-value",
       "__co__ s32 [M, N] f(s32 [M, N] a) {\n  s32 [a.span] out;\n  if (M > 4) { return a; }\n  return out;\n}\n", 3,
       "a;", "only a tensor declared in the function can be returned"},
      {"ReturnedTensorOfAnotherType", "returned-declaration",
       "__co__ s32 [M, N] f(s32 [M, N] a) {\n  f32 [a.span] out;\n  parallel {i, j} by [M, N]\n    out.at(i, j) = 1;\n"
       "  return out;\n}\n",
       2, "out;", "`out` is declared f32 of rank 2 but the function returns s32 of rank 2",
       "declare the returned tensor with the function's return type"},
      {"TensorWithoutStorageInsideAParallelLevel", "unsupported-global-tensor", blk("    s32 [8] scratch;\n"), 3, "scratch",
       "global tensors other than the returned one are not supported yet",
       "declare it `global` at function scope, `shared` or `local`, or return it"},
      {"HostStatementBetweenKernels", "program-host-statement",
       fn("  parallel i by 2 : block\n    a.at(i, 0) = 1;\n  println(a.at(0, 1));\n  parallel j by 2 : block\n    a.at(j, 0) = 1;\n"),
       4, "println(a.at(0, 1));", "printing this value (only strings and scalars) is not supported in host code yet",
       "host code between kernels prints, computes scalars, loops, branches, stores elements (`t.at(i) = v;`) and "
       "copies (`dma.copy a => b;`); put other device work inside a `parallel` statement"},
      {"ReturnedBufferArray", "buffer-array-not-shared",
       "__co__ f32 [4] f(f32 [4] a) {\n  f32 [4] out[2];\n  parallel i by 4\n    out.at(i) = a.at(i);\n  return out;\n}\n",
       2, "out", "the returned tensor `out` is one buffer, not an array of them",
       "declare the array under another name and copy its result into the returned tensor"},
      {"EmptyBufferArray", "buffer-array-empty", blk("    shared f32 [4] acc[0];\n"), 3, "0]",
       "an array of buffers needs at least one"},
      {"BreakOutsideALoop", "break-outside-loop", fn("  if (n > 3) break;\n"), 2, "break",
       "`break` outside a loop", "it leaves the innermost `foreach` or `while` of the same parallel body"},
      {"ContinueInAParallelInsideALoop", "break-outside-loop",
       fn("  foreach i in [4] {\n    parallel p by 2 { continue; }\n  }\n"), 3, "continue",
       "`continue` outside a loop", "it leaves the innermost `foreach` or `while` of the same parallel body"},
      {"BufferArrayOfRuntimeSize", "constant-required", blk("    shared f32 [4] acc[n];\n"), 3, "n]",
       "the number of buffers must be a constant, got `n`"},
      {"ScalarInitializedWithATensor", "declaration-init", fn("  int x = lhs;\n"), 2, "lhs;",
       "`lhs` is a tensor; `x` is a scalar and takes a number"},
      {"AssignToAnIndex", "assign-target", fn("  parallel i by 8\n    i = 1;\n"), 3, "i = 1", "cannot assign to `i`",
       "assign to an element (`x.at(i, j) = ...`) or a `mutable` scalar"},
      {"AssignToASymbolicDim", "assign-target", fn("  M = 3;\n"), 2, "M", "cannot assign to `M`",
       "assign to an element (`x.at(i, j) = ...`) or a `mutable` scalar"},
      {"AssignToATensor", "assign-target", fn("  a = 1;\n"), 2, "a", "cannot assign to `a`",
       "assign to an element (`x.at(i, j) = ...`) or a `mutable` scalar"},
      {"AssignToAnImmutableScalar", "assign-target", fn("  int x = n;\n  x = 2;\n"), 3, "x = 2",
       "cannot assign to `x`: it is immutable", "declare it `mutable`, e.g. `mutable int x = ...;`"},
      {"AssignToABoundName", "assign-target",
       fn("  parallel i by 8 {\n    s = i % 2;\n    s += 1;\n    a.at(i, s) = 1;\n  }\n"), 4, "s +=",
       "cannot assign to `s`: it is immutable", "declare it `mutable`, e.g. `mutable int s = ...;`"},
      {"AssignATensor", "assign-value", fn("  parallel i by 8\n    a.at(i, 0) = lhs;\n"), 3, "lhs;",
       "`lhs` is a tensor; only numbers can be assigned",
       "index it with `.at(...)`, or copy tiles with `dma.copy src => dst;`"},
      {"LoopWithMoreIndicesThanBounds", "loop-index-count", fn("  foreach {i, j} in [4]\n    a.at(i, j) = 1;\n"), 2, "[4]",
       "2 loop indices but the bound has 1 dimensions"},
      {"AssertionAlwaysFalse", "assertion-false", fn("  assert(1 == 2, \"never\");\n"), 2, "assert",
       "this assertion is always false"},
      {"StaticAssertionOfATensor", "condition-not-a-number", fn("  static_assert(lhs, \"x\");\n"), 2, "lhs",
       "`lhs` is a tensor; the condition of `static_assert` is a number or a comparison"},
  };
}

std::vector<RuleCase> parallel_cases() {
  return {
      {"TwoIndicesOneCount", "parallel-index-count", fn("  parallel {i, j} by 8\n    a.at(i, j) = 1;\n"), 2, "{i, j}",
       "2 indices but 1 counts after `by`"},
      {"IndicesAgainstAShape", "parallel-index-count", fn("  parallel i by a.span\n    a.at(i, 0) = 1;\n"), 2, "i by",
       "1 indices but 2 counts after `by`"},
      {"ZeroCount", "parallel-count", fn("  parallel i by 0\n    a.at(i, 0) = 1;\n"), 2, "0", "a parallel count must be positive, got 0"},
      {"NegativeCount", "parallel-count", fn("  parallel {i, j} by [4, 2 - 3]\n    a.at(i, j) = 1;\n"), 2, "[4",
       "a parallel count must be positive, got -1"},
      {"TooManyThreads", "block-thread-limit",
       fn("  parallel i by 2 : block\n    parallel j by 2048 : thread\n      a.at(0, 0) = j;\n"), 3, "j by",
       "this parallel level needs 2048 threads in a block; a block has at most 1024"},
      {"TooManyWarpgroups", "block-thread-limit", fn("  parallel i by 2 : block\n    parallel g by 9 : group-4 { }\n"), 3,
       "g by", "this parallel level needs 1152 threads in a block; a block has at most 1024"},
      {"BlockInsideBlock", "block-outermost", fn("  parallel i by 2 : block\n    parallel j by 2 : block\n      a.at(i, j) = 1;\n"),
       3, "j by", "a `: block` level must be the outermost parallel level",
       "an unannotated level inside a block level runs on its threads; say `: thread` or `: group-4`"},
      {"ClusterInsideBlock", "cluster-outermost",
       fn("  parallel i by 2 : block\n    parallel c by 2 : cluster\n      parallel b by 2 : block\n        a.at(0, 0) = 1;\n"), 3,
       "c by", "a `: cluster` level must be the outermost parallel level"},
      {"ClusterWithoutABlockLevel", "cluster-needs-block",
       fn("  parallel c by 2 : cluster\n    parallel t by 32 : thread\n      a.at(c, t) = 1;\n"), 2, "c by",
       "a `: cluster` level must be directly followed by a `: block` level",
       "write `parallel c by C : cluster, b by B : block { ... }`, or a `: block` level as the only statement of the "
       "cluster level"},
      {"ClusterOf16Blocks", "cluster-size", fn("  parallel c by 16 : cluster, b by 32 : block\n    a.at(c, b) = 1;\n"), 2,
       "16", "a cluster holds at most 8 blocks, got 16", "8 is the portable cluster size"},
      {"ClusterOfZeroBlocks", "parallel-count", fn("  parallel c by 2 : cluster, b by 0 : block\n    a.at(c, b) = 1;\n"), 2,
       "0 :", "a parallel count must be positive, got 0"},
      {"WarpsInsideAThreadLevel", "thread-level-nesting",
       fn("  parallel i by 2 : block\n    parallel t by 32 : thread\n      parallel w by 2 : group\n        a.at(t, w) = 1;\n"),
       4, "w by", "a `: group` level inside a thread level", "levels nest block, group-4, group, thread from the outside in"},
      {"UnannotatedLevelInsideAThreadLevel", "thread-level-nesting",
       fn("  parallel i by 2 : block\n    parallel t by 32 : thread\n      parallel w by 2\n        a.at(t, w) = 1;\n"), 4,
       "w by",
       "cannot infer where this parallel level runs: 1 unannotated level, this one, stands between the `: thread` level "
       "around it and the innermost statements, which leave room for none (levels nest block, group-4, group, thread "
       "from the outside in)",
       "annotate the levels (`: block`, `: group-4`, `: group`, `: thread`), or nest fewer"},
      {"TwoUnannotatedLevelsInsideAWarp", "thread-level-nesting",
       blk("    parallel g by 2 : group {\n      parallel u by 2 {\n        parallel v by 16\n          a.at(u, v) = 1;\n"
           "      }\n    }\n"),
       4, "u by",
       "cannot infer where this parallel level runs: 2 unannotated levels, this one first, stand between the `: group` "
       "level around them and the innermost statements, which leave room for 1 (levels nest block, group-4, group, "
       "thread from the outside in)",
       "annotate the levels (`: block`, `: group-4`, `: group`, `: thread`), or nest fewer"},
      {"TwoGridsInOneKernel", "one-grid",
       fn("  {\n    parallel i by 2 : block\n      a.at(i, 0) = 1;\n    parallel j by 2 : block\n      a.at(j, 0) = 1;\n  }\n"),
       5, "j by",
       "only one block-level parallel statement per kernel is supported yet",
       "put every block-level statement in one `parallel ... : block`"},
      {"InthreadsAsyncWithoutAGroupLevel", "inthreads-needs-group", blk("    inthreads.async (bm == 0) { sync.shared; }\n"), 3,
       "inthreads",
       "inthreads.async outside a `: group` or `: group-4` level, or a thread level directly in the block, is not "
       "supported yet by libcroqjit",
       "libcroqjit selects warps or warpgroups: put it inside `parallel p by N : group-4` (or `: group`, or "
       "`: thread`) and test `p`"},
      {"InthreadsAsyncOnPartOfAWarpOfAThreadLevel", "inthreads-needs-group",
       blk("    parallel t by 64 : thread {\n      inthreads.async (t < 16) { a.at(bm, t) = 1; }\n    }\n"), 4, "t < 16",
       "this inthreads.async selects `t` 0..15; in a thread level libcroqjit runs regions of whole warps (32 threads "
       "from a multiple of 32)",
       "select a multiple of 32 threads, or split the level into `: group` warps"},
      {"InthreadsOutsideAParallelStatement", "inthreads-outside-parallel", fn("  inthreads (n > 0) { }\n"), 2, "inthreads",
       "`inthreads` outside a parallel statement",
       "inthreads selects threads of the parallel levels around it; put it inside `parallel p by N { ... }`"},
      {"InthreadsAsyncOutsideAParallelStatement", "inthreads-outside-parallel", fn("  inthreads.async (n > 0) { }\n"), 2,
       "inthreads", "`inthreads.async` outside a parallel statement",
       "inthreads selects threads of the parallel levels around it; put it inside `parallel p by N { ... }`"},
      {"InthreadsAsyncNested", "inthreads-nested",
       blk("    parallel p by 2 : group-4 {\n      inthreads.async (p == 0) {\n        inthreads.async (p == 0) { sync.shared; }\n"
           "      }\n    }\n"),
       5, "inthreads", "inthreads.async inside another inthreads.async region",
       "make it a region of its own, next to the other"},
      {"InthreadsConditionOnAnotherIndex", "inthreads-condition",
       blk("    parallel p by 4 : group-4 {\n      inthreads.async (p == bn) { sync.shared; }\n    }\n"), 4, "p == bn",
       "the inthreads.async condition must depend only on `p` (it selects whole thread groups)"},
      {"InthreadsConditionOnAScalar", "inthreads-condition",
       blk("    parallel p by K : group-4 {\n      inthreads.async (p < n) { sync.shared; }\n    }\n"), 4, "p < n",
       "the inthreads.async condition must depend only on `p` (it selects whole thread groups)"},
      {"InthreadsConditionOnANameBoundFromAScalar", "inthreads-condition",
       blk("    parallel t by 64 : thread {\n      low = t < n;\n      inthreads.async (low) { a.at(bm, t) = 1; }\n    }\n"),
       5, "low)", "the inthreads.async condition must depend only on `t` (it selects whole thread groups)"},
      {"InthreadsSelectsNothing", "inthreads-selection",
       blk("    parallel p by 2 : group-4 {\n      inthreads.async (p == 5) { sync.shared; }\n    }\n"), 4, "p == 5",
       "the inthreads.async condition selects no `p` in 0..1"},
      {"InthreadsSelectsAGap", "inthreads-selection",
       blk("    parallel p by 4 : group-4 {\n      inthreads.async (p == 0 || p == 2) { sync.shared; }\n    }\n"), 4,
       "p == 0", "the inthreads.async condition must select a contiguous range of `p`"},
      {"InthreadsSelectsThreadsOfGroupsWithAGap", "inthreads-selection",
       blk("    parallel g by 2 : group-4, t by 128 : thread {\n      inthreads.async (t < 64) { sync.shared; }\n"
           "    }\n"),
       4, "t < 64", "the inthreads.async condition must select a contiguous range of `g * 128 + t`"},
      {"InthreadsSelectsPartOfAWarpOfAGroup", "inthreads-needs-group",
       blk("    parallel g by 2 : group-4, t by 128 : thread {\n      inthreads.async (g == 0 && t == 0) { sync.shared; }\n"
           "    }\n"),
       4, "g == 0",
       "this inthreads.async selects `g * 128 + t` 0..0; in a thread level libcroqjit runs regions of whole warps (32 "
       "threads from a multiple of 32)",
       "select a multiple of 32 threads, or split the level into `: group` warps"},
      {"SixteenInthreadsRegions", "inthreads-limit", inthreads_regions(16), 19, "inthreads",
       "at most 15 inthreads.async regions in a block (named barriers 1..15; barrier 0 is the block barrier)"},
      {"NineInthreadsRegionsBesideNamedBarriers", "inthreads-limit", inthreads_regions(9, true), 13, "inthreads",
       "at most 8 inthreads.async regions in a block (named barriers 8..15; 0..7 are the source's, for __bar_arrive "
       "and __bar_sync)"},
  };
}

}  // namespace croq::sema::test
