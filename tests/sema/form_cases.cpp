// Rule cases: launch forms of parallel statements (async, streams, device
// and cooperative levels), barriers, and the statement forms libcroqjit
// checks but cannot run yet.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> form_cases() {
  return {
      {"InnerAsyncParallel", "parallel-async-inner", fn("  parallel by 4\n    parallel.async by 3 : thread;\n"), 3,
       "parallel.async", "an inner parallel statement cannot be `parallel.async`",
       "only the outermost parallel statement (a kernel launch) runs asynchronously to the host"},
      {"StreamThatIsNotAStream", "parallel-stream", fn("  parallel<n> p by 4 : block { }\n"), 2, "n>",
       "`n` is not a stream; `parallel<...>` takes a `stream` parameter", "add a parameter `stream n` to the function"},
      {"InnerStream", "parallel-stream",
       "__co__ void f(stream s) {\n  parallel p by 4 : block {\n    parallel<s> by 2 : thread { }\n  }\n}\n", 3, "s>",
       "only the outermost parallel statement is launched on a stream (`parallel<s>`)", "", "", true},
      {"InnerDeviceLevel", "device-outermost", blk("    parallel by 1 : device(gpu) { }\n"), 3, "by 1",
       "a `: device` level must be the outermost parallel level", "put the `: block` and `: thread` levels inside it"},
      {"DeviceBarrierWithoutCooperativeBlocks", "barrier-needs-cooperative", blk("    sync.barrier : device;\n"), 3,
       "sync",
       "`sync.barrier : device` waits for every block of the grid: it needs an enclosing `: block<cooperative>` level",
       "launch the blocks together: `parallel b by N : block<cooperative> { ... }`"},
      {"UnrollBeyondTheExtent", "unroll-factor", fn("  foreach i in [4] : unroll(8) { }\n"), 2, "8)",
       "the unroll factor (8) exceeds the loop extent (4)", "unroll by at most 4"},
      {"BoundedValueOutOfRange", "pick-index",
       blk("    foreach y in [4] {\n      t = dma.copy a.chunkat(bm, y(4)) => shared;\n    }\n"), 4, "4)) =>",
       "`y` takes 4 values; `(4)` is not one of them", "values count from 0, and from -1 backwards from the last"},
      {"LoopRangeOfZeroStride", "loop-range", fn("  foreach y(1:-1:0) in [4] { }\n"), 2, "0)",
       "the stride of a loop range must be positive, got 0"},
      {"LoopRangeOfAFloat", "loop-range", fn("  foreach y(1.5:) in [4] { }\n"), 2, "1.5",
       "the bounds of a loop range are integers, got `1.5`"},
      {"SwapAcrossScopes", "swap-operands",
       blk("    f = dma.copy lhs.subspan(16, 16).at(bm, 0) => shared;\n    foreach i in [2] {\n"
           "      g = dma.copy lhs.subspan(16, 16).at(bm, i) => shared;\n      swap g, f;\n    }\n"),
       6, "f;", "`g` (5:7) and `f` (3:5) are declared in different scopes; `swap` exchanges futures of one scope",
       "declare both in the same block"},
      {"RotateOfDifferentTiles", "swap-operands",
       blk("    f = dma.copy lhs.subspan(16, 16).at(bm, 0) => shared;\n"
           "    g = dma.copy lhs.subspan(16, 16).at(bm, 1) => shared;\n"
           "    h = dma.copy a.subspan(16, 16).at(bm, 0) => shared;\n    rotate f, g, h;\n"),
       6, "h;", "`f` and `h` hold different tiles (f16 of rank 2, s32 of rank 2)",
       "`rotate` exchanges futures of the same tile type"},
      {"DeviceLevelOfSeveralInstances", "unsupported-launch", fn("  parallel by 2 : device(cpu) { }\n"), 2, "2 :",
       "a `: device(cpu)` level of more than one instance is not supported yet by libcroqjit",
       "write `by 1`; the levels inside it say how the work is spread"},
      {"TermLevel", "unsupported-launch", fn("  parallel by 1 : term { }\n"), 2, "term",
       "`: term` levels are not supported yet by libcroqjit", "drop the level; the blocks run on the GPU"},
      {"GridBarrierInAThreadLevel", "unsupported-statement",
       fn("  parallel b by 2 : block<cooperative> {\n    parallel t by 4 : thread\n      sync.barrier : block;\n  }\n"),
       4, "sync", "a grid barrier inside a thread level is not supported yet by libcroqjit",
       "put the `sync.barrier` at the scope of the `: block<cooperative>` level, where every thread reaches it"},
      {"WarpgroupBarrier", "unsupported-statement", blk("    sync.barrier : group-4;\n"), 3, "sync",
       "`sync.barrier : group-4` is not supported yet by libcroqjit",
       "libcroqjit lowers `sync.shared`, `sync.barrier : block|group|thread` and `sync.fence`"},
      {"ClusterTriggerWithoutACluster", "multicast-scope", blk("    shared event full;\n    trigger.cluster full;\n"), 4,
       "trigger", "`trigger.cluster` signals the blocks of a cluster, but this kernel has no `: cluster` level",
       "write `trigger`, or put the block level in a cluster"},
      {"MmaScaleOfF16Scales", "mma-scale-operands",
       wg("      mma.row.row mc, ta.data, tb.data;\n      mma.scale mc, ta, tb;\n"), 8, "ta,",
       "the lhs scales of mma.scale are a tile of f32 (one per accumulator row), got `ta`, a tile of f16",
       "DeepSeek-style block scales: `scale_lhs.subspan(64, 1).at(block_m, k)`"},
      {"MmaScaleBeforeAnyMma", "mma-scale-operands", wg("      mma.scale mc, out.subspan(64, 1).at(bm, 0), 1.0f;\n"), 7,
       "mma", "mma.scale of an accumulator that no mma has written",
       "scale after the mmas of the block they scale: `mma.row.row mc, a, b;` then `mma.scale mc, sa, sb;`"},
  };
}

}  // namespace croq::sema::test
