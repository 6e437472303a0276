// Rule cases: events, futures, mma, and the target rules.
#include "sema_test_util.hpp"

namespace croq::sema::test {

namespace {

// One warpgroup multiplying fp8 tiles: e4m3 ta [64, 128] and e5m2 tb
// [128, 128], 128B-swizzled (rows of 128 bytes), into the f32 accumulator
// mc; an f16 rhs_h for mixes. dma.copy, so every arch gets this far. `body`
// starts on line 7.
std::string fp8_wg(const std::string& body) {
  return "__co__ void g(global f8_e4m3 [M, K] lhs, global f8_e5m2 [N, K] rhs, global f16 [N, K] rhs_h, "
         "global f32 [M, N] out) {\n"
         "  parallel {bm, bn} by [2, 4] : block {\n"
         "    parallel p by 1 : group-4 {\n"
         "      mc = mma.fill.f32 0.0f;\n"
         "      ta = dma.copy.swiz<128> lhs.subspan(64, 128).at(bm, 0) => shared;\n"
         "      tb = dma.copy.swiz<128> rhs.subspan(128, 128).at(bn, 0) => shared;\n" +
         body + "    }\n  }\n}\n";
}

}  // namespace

std::vector<RuleCase> event_and_mma_cases() {
  const std::string tile = "lhs.subspan(64, 64).at(bm, 0)";
  const std::string mma = "      mma.row.row mc, ta.data, tb.data;\n";
  return {
      // Events
      {"EventWithoutAStorage", "event-not-shared", blk("    event e;\n"), 3, "event",
       "events without a storage (`event e;`) are not supported yet by libcroqjit: events live in shared, global or "
       "local memory",
       "declare it `shared event` (the block's threads), `global event` (every block, at function scope) or "
       "`local event` (each thread's own)"},
      {"LocalEventAtFunctionScope", "event-scope", fn("  local event e;\n  parallel b by 2 : block {\n    wait e;\n  }\n"), 2,
       "local", "`local` events are declared inside a parallel statement",
       "move the declaration into the `: block` level that uses it"},
      {"LocalEventCompletedByACopy", "local-event-use",
       blk("    local event e;\n    shared f16 [64, 64] s;\n    f = tma.copy.async lhs.subspan(64, 64).at(bm, 0) => s;\n"
           "    trigger e after f;\n"),
       6, "f;", "local event `e` is one thread's, set by its triggers; no copy completes it",
       "write `wait f;` and then `trigger e;`"},
      {"LocalEventBoundToACopy", "local-event-use",
       blk("    local event e;\n    shared f16 [64, 64] s;\n    tma.copy.async<e> lhs.subspan(64, 64).at(bm, 0) => s;\n"),
       5, "e>", "local event `e` is one thread's, set by its triggers; no copy completes it",
       "use a `shared event`, or wait for the copy and then `trigger` the local event"},
      {"LocalEventTriggeredForACluster", "local-event-use",
       fn("  parallel c by 2 : cluster {\n    parallel b by 2 : block {\n      local event e;\n      trigger.cluster e;\n"
          "    }\n  }\n"),
       5, "trigger", "`trigger.cluster` of local event `e`: a local event is one thread's", "write `trigger e;`"},
      {"SharedEventAtFunctionScope", "event-scope", fn("  shared event e;\n  parallel b by 2 : block {\n    wait e;\n  }\n"), 2,
       "shared", "`shared` events are declared inside a parallel statement",
       "move the declaration into the `: block` level that uses it"},
      {"EventInsideInthreads", "event-scope",
       blk("    parallel p by 2 : group-4 {\n      inthreads.async (p == 0) {\n        shared event e;\n      }\n    }\n"), 5,
       "shared", "events are not declared inside inthreads",
       "declare the event before the inthreads region, in the parallel level around it"},
      {"EventInsideSynchronousInthreads", "event-scope",
       blk("    parallel t by 64 : thread {\n      inthreads (t < 2) {\n        shared event e;\n      }\n    }\n"), 5,
       "shared", "events are not declared inside inthreads",
       "declare the event before the inthreads region, in the parallel level around it"},
      {"GlobalEventInsideAParallelStatement", "event-scope", blk("    global event g;\n"), 3, "global",
       "`global` events are declared at function scope, outside parallel statements",
       "move the declaration out of the parallel statement, or make the event `shared`"},
      {"GlobalEventCompletedByACopy", "global-event-use",
       fn("  global event g;\n  parallel b by 2 : block {\n    shared f16 [64, 64] s;\n"
          "    f = tma.copy.async lhs.subspan(64, 64).at(b, 0) => s;\n    trigger g after f;\n  }\n"),
       6, "f;", "global event `g` is triggered by threads; no copy completes it", "write `wait f;` and then `trigger g;`"},
      {"GlobalEventBoundToACopy", "global-event-use",
       fn("  global event g;\n  parallel b by 2 : block {\n    shared f16 [64, 64] s;\n"
          "    tma.copy.async<g> lhs.subspan(64, 64).at(b, 0) => s;\n  }\n"),
       5, "g>", "global event `g` is triggered by threads; no copy completes it",
       "use a `shared event`, or wait for the copy and then `trigger` the global event"},
      {"GlobalEventTriggeredForACluster", "global-event-use",
       fn("  global event g;\n  parallel c by 2 : cluster {\n    parallel b by 2 : block {\n      trigger.cluster g;\n"
          "    }\n  }\n"),
       5, "trigger", "`trigger.cluster` of global event `g`: a global event is seen by every block already",
       "write `trigger g;`"},
      {"GlobalEventWaitedOnTheHost", "unsupported-host-event",
       fn("  global event g;\n  parallel b by 2 : block {\n    trigger g;\n  }\n  wait g;\n"), 6, "g;",
       "`wait` of global event `g` outside parallel statements is not supported yet by libcroqjit",
       "move the `wait` into the parallel statement that runs before or after it"},
      {"EventArrayOfNone", "event-count", blk("    shared event full[0];\n"), 3, "0]",
       "an event array holds 1 to 32 events, got 0"},
      {"EventArrayOf33", "event-count", blk("    shared event full[33];\n"), 3, "full",
       "an event array holds 1 to 32 events, got 33"},
      {"EventInitializedToAValue", "event-init", blk("    shared event full[4] = 1;\n"), 3, "full",
       "an event can only be initialized `= ready`", "`= ready` makes the first wait pass; leave it out otherwise"},
      {"TriggerOfATensor", "event-expected", blk("    trigger lhs;\n"), 3, "lhs", "`trigger` takes an event, got `lhs`"},
      {"AsyncBoundToABuffer", "event-expected",
       blk("    shared f16 [64, 64] s;\n    tma.copy.async<s> " + tile + " => s;\n"), 4, "s>",
       "`.async<...>` takes an event, got `s`"},
      {"TriggerOfAWholeEventArrayAfterACopy", "event-array-unselected",
       blk("    shared event full[4];\n    shared f16 [64, 64] s;\n    f = tma.copy.async " + tile +
           " => s;\n    trigger full after f;\n"),
       6, "full after", "`full` is an array of 4 events; say which one, e.g. `full[i]`"},
      {"AsyncBoundToAnEventArray", "event-array-unselected",
       blk("    shared event full[4];\n    shared f16 [64, 64] s;\n    f = tma.copy.async<full> " + tile + " => s;\n"), 5,
       "full>", "`full` is an array of 4 events; say which one, e.g. `full[i]`"},
      {"WaitOnAnIndex", "wait-operand", blk("    wait bm;\n"), 3, "bm",
       "`wait` takes the future of an asynchronous copy or an event, got `bm`"},
      {"WaitOnASynchronousCopy", "wait-on-sync-copy", blk("    t = dma.copy " + tile + " => shared;\n    wait t;\n"), 4, "t;",
       "waiting on a synchronous copy: `t` was not started with `.async`", "remove the `wait`, or add `.async` to the copy"},
      {"WaitOnACopyBoundToAnEvent", "wait-on-bound-future",
       blk("    shared event full[2];\n    shared f16 [64, 64] s;\n    f = tma.copy.async<full[0]> " + tile +
           " => s;\n    wait f;\n"),
       6, "f;",
       "`f` completes on event `full[0]` (it was started with `.async<full[0]>`); wait on the event: `wait full[0];`"},
      {"TriggerSetsDisagree", "trigger-thread-sets",
       blk("    shared event full[2];\n    parallel p by 3 : group-4 {\n      inthreads.async (p == 0) { trigger full[0]; }\n"
           "      inthreads.async (p >= 1) { trigger full[0]; }\n    }\n"),
       6, "full[0]", "event `full` is triggered by a different set of threads here than at 5:42",
       "trigger an event from one kind of thread group (one warpgroup region, or the whole block)"},
      // mma
      {"MmaFillTwoValues", "mma-operand-count", wg("      md = mma.fill.f32 0.0f, 1.0f;\n"), 7, "md",
       "mma.fill takes 1 operand, got 2"},
      {"MmaStoreWithoutADestination", "mma-operand-count", wg(mma + "      mma.store mc;\n"), 8, "mma.store",
       "mma.store takes 2 operands, got 1"},
      {"MmaFillWithoutAName", "mma-result", wg("      mma.fill.f32 0.0f;\n"), 7, "mma",
       "mma.fill makes an accumulator: `acc = mma.fill.f32 0.0f;`"},
      {"MmaLoadWithoutAName", "mma-result", wg("      mma.load.swiz<128> ta.data;\n"), 7, "mma",
       "mma.load names its operand: `a = mma.load tile;`"},
      {"MmaFillBf16", "mma-fill-type", wg("      md = mma.fill.bf16 0.0f;\n"), 7, "bf16",
       "mma.fill takes `.f32` or `.f16` (the accumulator type), got `.bf16`"},
      {"MmaFillWithATensor", "mma-fill-value", wg("      md = mma.fill.f32 lhs;\n"), 7, "lhs",
       "mma.fill takes the initial value, such as 0.0f"},
      // At block scope an accumulator is each warp's own in the `: group`
      // levels below; an s32 one takes s8 or u8 tiles.
      {"WarpMmaOfBf16IntoS32", "mma-element-types",
       blk("    mc = mma.fill.s32 0;\n    parallel g by 4 : group {\n      b = mma.load lhs_b.chunkat(bm, _);\n"
           "      mma.row.col mc, b, b;\n    }\n"),
       6, "mma", "an s32 accumulator takes s8 or u8 tiles, got bf16 and bf16"},
      {"MmaInWarpsAcrossWarpgroups", "mma-warpgroups",
       blk("    parallel w by 8 : group {\n      inthreads.async (w >= 2 && w < 6) {\n        mc = mma.fill.f32 0.0f;\n"
           "      }\n    }\n"),
       5, "mc", "WGMMA runs on whole warpgroups: put the mma.fill inside `parallel p by N : group-4`",
       "an inthreads.async region must select whole warpgroups (multiples of 128 threads)"},
      // Warp-level mma runs on each warp of the `: group` level, not on its threads.
      {"MmaInAThreadLevelInsideAWarp", "mma-warpgroups",
       blk("    parallel w by 4 : group {\n      parallel t by 32 : thread {\n        mc = mma.fill.f32 0.0f;\n"
           "      }\n    }\n"),
       5, "mc", "WGMMA runs on whole warpgroups: put the mma.fill inside `parallel p by N : group-4`"},
      {"WarpMmaOfFp8Tiles", "unsupported-mma-type",
       "__co__ void g(global f8_e4m3 [M, K] lhs, global f8_e4m3 [N, K] rhs) {\n"
       "  parallel {bm, bn} by [2, 4] : block {\n    parallel w by 4 : group {\n      mc = mma.fill.f32 0.0f;\n"
       "      ta = dma.copy lhs.subspan(16, 32).at(bm, 0) => shared;\n"
       "      tb = dma.copy rhs.subspan(8, 32).at(bn, 0) => shared;\n      mma.row.row mc, ta.data, tb.data;\n"
       "    }\n  }\n}\n",
       7, "mma",
       "warp-level mma on fp8 tiles is not supported: a warp's mma is mma.sync, which libcroqjit lowers for f16 and bf16 only",
       "multiply fp8 tiles on whole warpgroups (WGMMA, sm_90a), or convert them to f16 or bf16"},
      {"MmaInAThreadLevel", "mma-warpgroups", wg("      parallel t by 128 : thread {\n  " + mma + "      }\n"), 8, "mma",
       "WGMMA runs on whole warpgroups: put the mma inside `parallel p by N : group-4`"},
      {"MmaIntoATile", "accumulator-expected", wg("      mma.row.row ta, ta.data, tb.data;\n"), 7, "ta,",
       "expected an accumulator from `mma.fill`, got `ta`"},
      {"MmaOperandInGlobal", "mma-operand-kind", wg("      mma.row.row mc, lhs, tb.data;\n"), 7, "lhs",
       "an mma operand is a shared tile or the result of mma.load, got `lhs`"},
      // A warpgroup loads global f16 and bf16 tiles into registers (RS mode), other types not yet.
      {"MmaLoadOfGlobal", "unsupported-mma-form", wg("      ma = mma.load a;\n"), 7, "a;",
       "mma.load from global memory is not supported yet by libcroqjit", "copy the tile to shared memory first"},
      {"MmaLoadOfGlobalWithASwizzle", "unsupported-modifier", wg("      ma = mma.load.swiz<128> " + tile + ";\n"), 7,
       "swiz", "`.swiz` on an mma.load from global memory is not supported yet by libcroqjit"},
      {"MmaRefillWithATile", "mma-fill-value", wg("      mma.fill mc, tb.data;\n"), 7, "data",
       "mma.fill takes the new value, such as 0.0f"},
      {"MmaOperandOfABufferArray", "buffer-array-unselected",
       wg("      shared f16 [64, 64] s[2];\n      mma.row.row mc, s, tb.data;\n"), 8, "s,",
       "`s` is an array of buffers; say which one, e.g. `s[stage]`"},
      {"MmaOperandOfRank3", "mma-operand-rank", wg("      shared f16 [2, 64, 64] cube;\n      mma.row.row mc, cube, tb.data;\n"),
       8, "cube,", "an mma operand is a 2-D tile, got rank 3"},
      {"MmaOfF32Tiles", "unsupported-mma-type",
       wg("      sa = tma.copy.swiz<128> out.subspan(64, 32).at(bm, 0) => shared;\n      mma.row.row mc, sa.data, sa.data;\n"), 8,
       "mma", "mma on f32 tiles is not supported yet by libcroqjit",
       "libcroqjit multiplies f16, bf16 or fp8 (f8_e4m3, f8_e5m2) tiles; a warp's mma (in a `: group` level) also s8, u8 and f32"},
      {"MmaOfBf16AndF16", "mma-element-types",
       wg("      sb = tma.copy.swiz<128> lhs_b.subspan(64, 64).at(bm, 0) => shared;\n      mma.row.row mc, sb.data, tb.data;\n"),
       8, "mma", "WGMMA multiplies f16 or bf16 tiles (both the same) or fp8 tiles (f8_e4m3, f8_e5m2, in any mix), got bf16 and f16"},
      {"MmaF16AccumulatorOfBf16", "mma-element-types",
       wg("      mh = mma.fill.f16 0.0f;\n      sb = tma.copy.swiz<128> lhs_b.subspan(64, 64).at(bm, 0) => shared;\n"
          "      mma.row.row mh, sb.data, sb.data;\n"),
       9, "mma", "an f16 accumulator takes f16 or fp8 inputs; use mma.fill.f32 for bf16"},
      {"MmaLoadSwizzleDiffers", "swizzle-layout", wg("      ma = mma.load.swiz<64> ta.data;\n"), 7, "ma",
       "mma.load.swiz<64> does not match the tile's layout: it was copied with .swiz<128>",
       "use the same .swiz<N> on the copy and on mma.load"},
      {"AllReduceSumOfAFilledFragment", "all-reduce-operand", wg("      frag f32 [64] row {1.0f};\n      all_reduce_sum(row);\n"),
       8, "row)", "all_reduce_sum combines the partial sums of a warpgroup's row fragment, which an `apply` over a 2-D "
       "register tile accumulates into; `row` holds none",
       "accumulate into it first: `apply {i, j} in acc.span row.at(i) = row.at(i) + acc.at(i, j);`"},
      {"MmaLoadIntoAFragmentOfAnotherType", "mma-element-types",
       wg("      frag bf16 [64, 64] af;\n      mma.load ta.data, af;\n"), 8, "mma",
       "mma.load copies elements as they are: `ta.data` holds f16 but `af` holds bf16"},
      {"MmaLoadIntoALocalTile", "mma-operand-kind", wg("      local f16 [64, 64] l;\n      mma.load ta.data, l;\n"), 8, "l;",
       "the second operand of mma.load is the warpgroup's fragment it fills, got `l`",
       "declare it at block level or in the `: group-4` level: `frag f16 [...] l;`"},
      {"MmaStoreOfAnUnwrittenAccumulator", "mma-store-unwritten", wg("      mma.store mc, out.subspan(64, 128).at(bm, bn);\n"),
       7, "mma", "mma.store of an accumulator that no mma has written", "multiply into it first: `mma.row.row mc, a, b;`"},
      {"MmaStoreIntoAnUnplacedTile", "mma-store-destination", wg(mma + "      mma.store mc, out.subspan(64, 128);\n"), 8,
       "subspan", "mma.store writes a 2-D tile of shared or global memory"},
      {"MmaStoreIntoS32", "unsupported-mma-type", wg("      shared s32 [64, 128] os;\n" + mma + "      mma.store mc, os;\n"), 9,
       "os;", "storing an f32 accumulator to s32 tiles is not supported yet by libcroqjit",
       "accumulate s8 or u8 tiles in s32 (mma.fill.s32) at warp level"},
      {"MmaStoreIntoS8", "mma-store-destination", wg("      shared s8 [64, 128] os;\n" + mma + "      mma.store mc, os;\n"), 9,
       "os;", "mma.store writes f32, f16 or bf16 tiles"},
      {"MmaStoreIntoLocal", "mma-store-destination", wg("      local f32 [64, 128] ol;\n" + mma + "      mma.store mc, ol;\n"),
       9, "ol;", "mma.store writes shared or global memory"},
      {"MmaStoreTransposedIntoASwizzledTile", "mma-store-swizzled",
       wg("      shared f16 [64, 64] os;\n      tma.copy.swiz<128> " + tile + " => os;\n" + mma +
          "      mma.store.transp mc, os;\n"),
       10, "os;", "mma.store.transp into a swizzled shared tile is not supported yet by libcroqjit",
       "store into an unswizzled tile"},
      {"MmaStoreSwizzleOtherThanTheTiles", "swizzle-layout",
       wg("      shared f16 [64, 64] os;\n      tma.copy.swiz<128> " + tile + " => os;\n" + mma +
          "      mma.store.swiz<64> mc, os;\n"),
       10, "swiz<64>", "mma.store.swiz<64> does not match the tile's layout: it was written with .swiz<128>",
       "use one layout for the tile: the same .swiz<N> on every copy and store of it"},
      {"MmaStoreSwizzledIntoGlobal", "swizzle-needs-shared",
       wg(mma + "      mma.store.swiz<128> mc, out.subspan(64, 128).at(bm, bn);\n"), 8, "swiz<128>",
       "`.swiz<N>` lays out a tile in shared memory; the destination is not shared"},
      // The target, when the options name it
      {"TmaOnSm80", "needs-sm90", blk("    t = tma.copy " + tile + " => shared;\n"), 3, "copy",
       "tma.copy needs sm_90 (Hopper); use dma.copy (compiling for sm_80)", "", "sm_80"},
      {"ClusterOnSm86", "needs-sm90", fn("  parallel c by 2 : cluster, b by 2 : block\n    a.at(c, b) = 1;\n"), 2, "c by",
       "`: cluster` needs sm_90 (Hopper) (compiling for sm_86)", "", "sm_86"},
      // One event counts either its block's arrivals or the whole cluster's.
      {"ClusterAndBlockTriggersOfOneEvent", "multicast-scope",
       fn("  parallel c by 2 : cluster, b by 2 : block {\n    shared event e;\n    trigger.cluster e;\n"
          "    trigger e;\n  }\n"),
       5, "e;",
       "event `e` is triggered without `.cluster` here but with it at 4:21: its barrier counts either its own "
       "block's arrivals or the whole cluster's",
       "trigger the event the same way everywhere"},
      {"EventsOnSm75", "needs-sm80", blk("    shared event e;\n"), 3, "shared",
       "events are mbarriers, which need sm_80 or newer (compiling for sm_75)", "", "sm_75"},
      {"MmaOnSm75", "needs-sm80", blk("    parallel p by 1 : group-4 {\n      mc = mma.fill.f32 0.0f;\n    }\n"), 4, "mc",
       "mma lowers to WGMMA on sm_90a and to mma.sync m16n8k16 on sm_80 to sm_89; compiling for sm_75 has neither", "",
       "sm_75"},
      // fp8: WGMMA only, K-major only, never mixed with 16-bit tiles
      {"Fp8MmaRowCol", "unsupported-mma-layout", fp8_wg("      mma.row.col mc, ta.data, tb.data;\n"), 7, "mma",
       "mma.row.col on fp8 tiles is not supported: WGMMA reads fp8 operands K-major only; write mma.row.row (lhs [M, "
       "K], rhs [N, K], both K contiguous)"},
      {"Fp8MmaWithAnF16Tile", "mma-element-types",
       fp8_wg("      th = dma.copy.swiz<128> rhs_h.subspan(128, 64).at(bn, 0) => shared;\n"
              "      mma.row.row mc, ta.data, th.data;\n"),
       8, "mma", "WGMMA multiplies f16 or bf16 tiles (both the same) or fp8 tiles (f8_e4m3, f8_e5m2, in any mix), got "
       "f8_e4m3 and f16"},
      {"Fp8MmaOnSm89", "unsupported-mma-type", fp8_wg("      mma.row.row mc, ta.data, tb.data;\n"), 7, "mma",
       "mma on fp8 tiles lowers to WGMMA (sm_90a) only; libcroqjit has no mma.sync form for them (compiling for sm_89)",
       "compile for sm_90a, or convert the tiles to f16 or bf16", "sm_89"},
      {"Fp8MmaOnSm90WithoutA", "unsupported-mma-type", fp8_wg("      mma.row.row mc, ta.data, tb.data;\n"), 7, "mma",
       "mma on fp8 tiles lowers to WGMMA (sm_90a) only; libcroqjit has no mma.sync form for them (compiling for sm_90)",
       "compile for sm_90a, or convert the tiles to f16 or bf16", "sm_90"},
      // Sparse multiplies: the metadata operand (line 7 declares it, 8 loads it).
      {"MmaFourOperandsWithoutSp", "mma-sparse-metadata",
       wg("      shared u8 [64, 8] e;\n      me = mma.load e;\n      mma.row.row mc, ta.data, tb.data, me;\n"), 9, "mma",
       "mma.row.row takes 3 operands; a fourth (sparsity metadata) belongs to the sparse form",
       "write `mma.row.row.sp acc, a, b, meta` for a 2:4 sparse lhs"},
      {"MmaSparseMetadataOfFloats", "mma-sparse-metadata",
       wg("      shared f16 [64, 8] e;\n      me = mma.load e;\n      mma.row.row.sp mc, ta.data, tb.data, me;\n"), 9, "me;",
       "sparsity metadata is a tile of integer codes, got a f16 tile", "load the u8 metadata that the 2:4 encoding produced"},
      {"MmaSparseMetadataNotLoaded", "mma-operand-kind",
       wg("      shared u8 [64, 8] e;\n      mma.row.row.sp mc, ta.data, tb.data, e;\n"), 8, "e;",
       "sparse WGMMA metadata must be loaded with mma.load before use, got `e`", "load it first: `me = mma.load meta_tile;`"},
      {"MmaSparseWithoutMetadata", "mma-sparse-metadata", wg("      mma.row.row.sp mc, ta.data, tb.data;\n"), 7, "sp mc",
       "a sparse mma (`.sp`) takes its sparsity metadata as a fourth operand, got 3 operands",
       "load the metadata and pass it last: `me = mma.load meta_tile; mma.row.row.sp acc, a, b, me;`"},
      // Outside every parallel statement an mma is a limitation, but its
      // operands name only what is in scope there.
      {"MmaOutsideParallelReadsAnIndexPastItsStatement", "unknown-name",
       fn("  parallel bm by 2 : block\n    mc = mma.fill.f32 0.0f;\n  ma = mma.load lhs.subspan(64, 16).at(bm, 0);\n"), 4,
       "bm, 0", "unknown name `bm`"},
      {"MmaSparseMetadataOfU32", "unsupported-mma-form",
       wg("      shared u32 [64, 2] e;\n      me = mma.load e;\n      mma.row.row.sp mc, ta.data, tb.data, me;\n"), 9, "me;",
       "u32 sparsity metadata is not supported yet by libcroqjit",
       "libcroqjit reads WGMMA .sp metadata as u8 [64, K / 8] (two 4-bit codes a byte)"},
  };
}

}  // namespace croq::sema::test
