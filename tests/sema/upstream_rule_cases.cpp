// Rule cases: rules of Croqtile that its own compiler enforces on futures
// and their names, attributes, thread counts, storage, builtins and views.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> upstream_rule_cases() {
  const std::string tile = "lhs.subspan(64, 64).at(bm, 0)";
  const std::string two_copies =
      "    t = dma.copy a.chunkat(bm, _) => shared;\n    u = dma.copy a.chunkat(bm, _) => shared;\n";
  return {
      // Builtins
      {"AtomicWithOneOperand", "atomic-arity", blk("    shared s32 [64] s;\n    __atomic_add(s.at(bm));\n"), 4,
       "__atomic_add", "`__atomic_add` takes 2 operands, got 1", "`__atomic_add(x.at(i), value)`"},
      {"AtomicOnAScalar", "atomic-operand", blk("    mutable s32 x = 0;\n    __atomic_add(x, 1);\n"), 4, "x, 1",
       "`__atomic_add` updates an element of a tensor, got `x`", "name the element: `__atomic_add(x.at(i), ...)`"},
      {"SelectByATensor", "select-factor", blk(two_copies + "    v = select(a, t, u);\n"), 5, "a, t",
       "`select` chooses with an integer, got `a` (a global s32 tensor of rank 2)"},
      {"SelectOutOfRange", "select-factor", blk(two_copies + "    v = select(2, t, u);\n"), 5, "2, t",
       "`select` chooses among 2 operands (0..1), got 2"},
      {"SelectOfDifferentMemories", "select-operands",
       blk(two_copies + "    l = dma.copy a.chunkat(bm, _) => local;\n    v = select(bn, t, l);\n"), 6, "l);",
       "`l` (future of local s32 rank-2) differs from `t` (future of shared s32 rank-2)",
       "the operands of `select` have one kind, element type, rank and memory"},
      // Views
      {"SqzAfterChunkat", "sqz-needs-reshape", blk("    t = dma.copy a.chunkat(bm, _).sqz() => shared;\n"), 3, "sqz",
       "`.sqz()` drops the extent-1 dimensions of an explicit shape; `a.chunkat(bm, _)` has none",
       "shape the view first, e.g. `.subspan(1, N).at(i, 0).sqz()`"},
      {"ElementOfAFuture", "future-element",
       blk("    t = dma.copy a.chunkat(bm, _) => local;\n    a.at(0, 0) = t.at(0, 0);\n"), 4, "t.^at",
       "`t` is a future; read the elements of its tile through `.data`", "write `t.data.at(...)`"},
      // Statements and declarations
      {"YieldOutsideParallel", "yield-outside-parallel", fn("  yield;\n"), 2, "yield",
       "`yield` outside a parallel statement",
       "`yield` ends the current iteration of a parallel body; the function body has none"},
      {"ParameterDeclaredAgain", "redeclaration", fn("  int n = 1;\n"), 2, "n =",
       "`n` is declared already in this scope, at 1:123", "it is a parameter of the function; pick another name"},
      {"FutureDeclaredTwice", "redeclaration",
       blk("    t = dma.copy a.chunkat(bm, _) => shared;\n    t = dma.copy a.chunkat(bm, _) => shared;\n"), 4, "t =",
       "`t` is declared already in this scope, at 3:5",
       "pick another name; a future that several copies fill is declared first with `f = dma.any;`"},
      {"SharedTensorOutsideParallel", "storage-scope", fn("  shared f32 [4] s;\n"), 2, "shared",
       "shared tensors are declared inside a parallel statement", "move the declaration into the parallel body that uses it"},
      {"GlobalTensorInsideParallel", "storage-scope", blk("    global s32 [8] scratch;\n"), 3, "global",
       "global tensors are declared outside parallel statements",
       "declare it at function scope, or make it `shared` or `local`"},
      {"StringVariable", "string-or-pointer", blk("    s = \"abc\";\n"), 3, "\"abc\"", "`s` cannot hold a string",
       "strings appear only as the message of `assert` and as arguments of `call`"},
      {"TensorInitializedWithATensor", "tensor-init", blk("    shared s32 [64, 64] s{a};\n"), 3, "a}",
       "`s` is a tensor; it is initialized with a number, got `a`",
       "fill it with a value such as `{0}`, or copy the tensor in: `dma.copy a => s;`"},
      {"ReturnInsideParallel", "return-in-parallel", blk("    return a;\n"), 3, "return",
       "`return` inside a parallel statement",
       "the function returns once, after its parallel statements; move the `return` out of the parallel body"},
      {"ForeachOverAParallelIndex", "foreach-index", blk("    foreach bm {}\n"), 3, "bm {",
       "`foreach bm` without `in` iterates an index that a `with` binds; `bm` is an index of a parallel level",
       "a parallel index takes one value per thread; loop with `foreach i in [N]`, or bind it with `with bm in [N]`", "",
       true},
      {"ForeachOverANumber", "foreach-index", blk("    foreach n {}\n"), 3, "n {",
       "`foreach n` without `in` iterates an index that a `with` binds; `n` is not one",
       "give the loop bounds, `foreach i in [N]`, or name an index of an enclosing `with`", "", true},
      // Attributes
      {"LaunchBoundsOnAThreadLevel", "attribute-placement",
       fn("  [[launch_bounds(128)]]\n  parallel t by 128 : thread {\n  }\n"), 2, "launch_bounds",
       "`[[launch_bounds]]` applies to a block-level parallel statement", "put it right before `parallel ... : block`"},
      {"LaunchBoundsOfARuntimeValue", "attribute-argument", fn("  [[launch_bounds(n)]]\n  parallel by 1 : block {\n  }\n"),
       2, "n)", "`[[launch_bounds]]` takes integer constants; `n` is not known when the kernel is compiled",
       "use a literal or a #define"},
      {"MaxnregOfAFloat", "attribute-argument", fn("  [[maxnreg(1.5)]]\n  parallel by 1 : block {\n  }\n"), 2, "1.5",
       "`[[maxnreg]]` takes integers, got `1.5`"},
      {"MmaScheduleRepeatsATile", "mma-schedule",
       wg("      [[schedule(k_tiles(1, 0, 0, 3))]]\n      mma.row.row mc, ta.data, tb.data;\n"), 7, "0, 3",
       "`k_tiles(...)` must list each of the k tiles 0..3 once; 0 appears twice"},
      // Thread counts
      {"LaunchBoundsBelowTheThreads", "launch-bounds-threads",
       fn("  [[launch_bounds(64)]]\n  parallel by 1 : block {\n    parallel t by 128 : thread {\n    }\n  }\n"), 4, "t by",
       "this level runs 128 threads in the block, but its [[launch_bounds]] at 2:5 allows 64",
       "raise the first [[launch_bounds]] argument, or run fewer threads"},
      {"SiblingLevelsOfOtherSizes", "block-threads-mismatch",
       blk("    parallel by 3 : group-4 {\n    }\n    parallel by 3 : group {\n    }\n"), 5, "by 3 : group {",
       "this statement runs 96 threads per block, but the one at 3:14 runs 384",
       "the thread-level statements of one block share its thread count; give them the same size"},
      {"ThreadLevelOfPartOfAWarp", "thread-level-units",
       blk("    parallel by 1 : group {\n      parallel {x, y} by [8, 3] : thread {\n      }\n    }\n"), 4, "{x, y}",
       "a `: thread` level inside a `: group` level runs a multiple of 32 threads, got 24",
       "a group is one warp of 32 threads", "sm_90a"},
      // Copies
      {"AsyncCopyWithoutAFuture", "async-copy-unnamed",
       blk("    shared f16 [64, 64] s;\n    tma.copy.async " + tile + " => s;\n"), 4, "tma",
       "an asynchronous copy needs a future (`f = tma.copy.async ...;`) to wait for",
       "name its future and `wait` for it, or drop `.async`"},
      {"CopyBetweenGlobals", "global-to-global-copy",
       fn("  global s32 [64] x, y;\n  parallel p by 1 : block {\n    dma.copy x => y;\n  }\n"), 4, "copy",
       "a dma.copy between two `global` tensors is not possible on the GPU", "stage the tile through shared or local memory"},
      {"TmaBoxComputedInTheKernel", "tma-box-runtime",
       blk("    shared f16 [64, 64] s;\n    rows = bm * 2;\n    tma.copy lhs.view(rows, 64).from(0, 0) => s;\n"), 5,
       "rows,", "a tma.copy box extent is encoded on the host before the launch; `rows` is computed in the kernel",
       "use a constant or an expression of the parameters' dims, and mask the tail instead"},
      // Futures: placeholders, swap, trigger after
      {"NameBoundToAPlaceholder", "placeholder-use", blk("    f = dma.any;\n    g = f;\n"), 4, "f;",
       "`g` cannot be bound to `f`, a dma.any placeholder that no copy has filled",
       "bind the name to a copy's future: `g = dma.copy ...;`", "", true},
      {"UnusedPlaceholder", "placeholder-use", blk("    f = dma.any;\n"), 3, "f =",
       "`f` is a dma.any placeholder that no copy fills and nothing uses",
       "remove it, or give it a copy: `f = dma.copy ...;`", "", true},
      {"SwapOfSyncAndAsync", "swap-operands",
       blk("    f = dma.copy a.chunkat(bm, _) => local;\n    g = dma.copy.async a.chunkat(bm, _) => shared;\n"
           "    swap(f, g);\n"),
       5, "g)", "`swap` exchanges futures that are both asynchronous or both not: `f` is synchronous, `g` asynchronous",
       "both copies need `.async`, or neither"},
      {"TriggerAfterAWaitedFuture", "trigger-after-future",
       blk("    shared event full;\n    shared f16 [64, 64] s;\n    f = tma.copy.async " + tile +
           " => s;\n    wait f;\n    trigger full after f;\n"),
       7, "f;", "`f` has been waited for already; the event can no longer complete with it",
       "trigger the event right after the `wait f;`"},
      {"TriggerAfterADmaFuture", "trigger-after-future",
       blk("    shared event full;\n    shared f16 [64, 64] s;\n    f = dma.copy.async " + tile +
           " => s;\n    trigger full after f;\n"),
       6, "f;", "`f` is not an asynchronous tma.copy: only TMA loads complete an event",
       "write `wait f;` and then the `trigger`"},
      {"TriggerAfterTwoWithAnIncrement", "trigger-after-order",
       blk("    shared event full[2];\n    shared f16 [64, 64] s, t;\n    mutable int k = 0;\n    f = tma.copy.async " + tile +
           " => s;\n    g = tma.copy.async " + tile + " => t;\n    trigger full.at(k++) after f, g;\n"),
       8, "k^++", "`k++` changes the event order in a trigger after 2 futures",
       "trigger with the order as it is, then advance it in a statement of its own"},
  };
}

}  // namespace croq::sema::test
