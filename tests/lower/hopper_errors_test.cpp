// Every user-facing error of the Hopper path (docs/guide/targets.md): events,
// tma.copy, .swiz<N>, inthreads.async and mma.* misuses each have a minimal
// kernel here, and the test asserts the exact message, hint, line and column
// of the first diagnostic. The kernels are specialized with
// pipeline::generate for sm_90a (no GPU needed); the sm_80 refusal of
// tma.copy goes through croq::compile, as a user meets it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"
#include "croq/croq.hpp"
#include "frontend/frontend.hpp"

namespace croq::pipeline {
namespace {

using test::generate_cuda;
using test::tensor;

// Most kernels are a body inside this shell; the body starts on line 3.
const char* const kShellHead =
    "__co__ void f(global f16 [128, 64] lhs, global f16 [512, 64] rhs, global bf16 [128, 64] lhs_b, "
    "global bf16 [512, 64] rhs_b, global f32 [128, 512] out) {\n"
    "  parallel {bm, bn} by [2, 4] : block {\n";

std::string shell(const std::string& body) { return kShellHead + body + "  }\n}\n"; }

std::vector<ArgSignature> shell_args() {
  return {tensor(DType::f16, {128, 64}), tensor(DType::f16, {512, 64}), tensor(DType::bf16, {128, 64}),
          tensor(DType::bf16, {512, 64}), tensor(DType::f32, {128, 512})};
}

// One warpgroup with an accumulator and two 128B-swizzled tiles, a [64, 64]
// and b [128, 64], ready to multiply; `tail` starts on line 7.
std::string warpgroup(const std::string& tail) {
  return shell("    parallel p by 1 : group-4 {\n"
               "      mc = mma.fill.f32 0.0f;\n"
               "      a = tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => shared;\n"
               "      b = tma.copy.swiz<128> rhs.subspan(128, 64).at(bn, 0) => shared;\n" +
               tail + "    }\n");
}

// A block with `regions` producer regions of one warpgroup each (after a
// named barrier of the source's: __bar_sync, where `named` is set).
std::string inthreads_regions(int regions, bool named = false) {
  std::string body = "    parallel p by 2 : group-4 {\n";
  if (named) body += "      __bar_sync(1, 256);\n";
  for (int i = 0; i < regions; ++i) body += "      inthreads.async (p == 0) { sync.shared; }\n";
  return shell(body + "    }\n");
}

struct ErrorCase {
  std::string name;
  std::string source;
  int line, column;
  std::string message;
  std::string hint = "";
  std::vector<ArgSignature> args = shell_args();
  std::vector<std::string> dynamic_dims = {};
};

// Test names in failure output instead of the case's bytes.
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

CompileOptions options() {
  CompileOptions o;
  o.source_name = "hopper.co";
  return o;
}

// Parses and specializes the case's kernel; the CompileError it must raise.
CompileError error_of(const ErrorCase& c) {
  try {
    auto program = frontend::parse_program(c.source, options());
    const auto& fn = frontend::select_entry(*program, options(), program->source);
    generate_cuda(*program, fn, c.args, 227 * 1024, c.dynamic_dims);
  } catch (const CompileError& e) {
    return e;
  }
  ADD_FAILURE() << "compiled without an error:\n" << c.source;
  return CompileError({}, c.source);
}

class HopperErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(HopperErrors, ExactMessageHintAndLocation) {
  const ErrorCase& c = GetParam();
  test::expect_single_error(error_of(c), c);
}

std::vector<ErrorCase> swizzle_and_event_cases() {
  return {
      // .swiz<N>
      {"SwizzleValueIsNotAMode", shell("    t = tma.copy.swiz<5> lhs.subspan(64, 64).at(bm, 0) => shared;\n"), 3, 23,
       "bad template argument of `.swiz`: 5 is not a swizzle; expected 0, 1, 2, 3, 32, 64 or 128"},
      {"SwizzleNameIsNotAMode", shell("    t = tma.copy.swiz<S> lhs.subspan(64, 64).at(bm, 0) => shared;\n"), 3, 18,
       "`.swiz<S>` is not a swizzle mode", "use swiz<0..3> (none, 32B, 64B, 128B) or the byte span swiz<32|64|128>"},
      {"SwizzleTakesOneArgument", shell("    t = tma.copy.swiz<1, 2> lhs.subspan(64, 64).at(bm, 0) => shared;\n"), 3, 18,
       "`.swiz` expects one template argument, found 2", "write `.swiz<128>` (bytes) or `.swiz<3>` (mode)"},
      // Declaring events
      {"EventNotShared", shell("    event e;\n"), 3, 5,
       "events without a storage (`event e;`) are not supported yet by libcroqjit: events live in shared, global or local "
       "memory",
       "declare it `shared event` (the block's threads), `global event` (every block, at function scope) or `local event` "
       "(each thread's own)"},
      {"EventOutsideTheBlockLevel",
       "__co__ void f(global f16 [128, 64] lhs) {\n  shared event e;\n  parallel b by 2 : block {\n    wait e;\n  }\n}\n",
       2, 3, "`shared` events are declared inside a parallel statement",
       "move the declaration into the `: block` level that uses it", {tensor(DType::f16, {128, 64})}},
      {"EventInsideInthreads",
       shell("    parallel p by 2 : group-4 {\n      inthreads.async (p == 0) {\n        shared event e;\n      }\n    }\n"), 5,
       9, "events are not declared inside inthreads",
       "declare the event before the inthreads region, in the parallel level around it"},
      {"EventArrayOfNone", shell("    shared event full[0];\n"), 3, 23, "an event array holds 1 to 32 events, got 0"},
      {"EventArrayTooLarge", shell("    shared event full[33];\n"), 3, 18, "an event array holds 1 to 32 events, got 33"},
      {"EventInitializedToAValue", shell("    shared event full[4] = 1;\n"), 3, 18, "an event can only be initialized `= ready`", "`= ready` makes the first wait pass; leave it out otherwise"},
      // Using events
      {"TriggerOfAWholeEventArrayAfterACopy",
       shell("    shared event full[4];\n    shared f16 [64, 64] lhs_s;\n"
             "    f = tma.copy.async lhs.subspan(64, 64).at(bm, 0) => lhs_s;\n    trigger full after f;\n"),
       6, 13, "`full` is an array of 4 events; say which one, e.g. `full[i]`"},
      {"AsyncBoundToAnEventArray",
       shell("    shared event full[4];\n    shared f16 [64, 64] lhs_s;\n"
             "    tma.copy.async<full> lhs.subspan(64, 64).at(bm, 0) => lhs_s;\n"),
       5, 20, "`full` is an array of 4 events; say which one, e.g. `full[i]`"},
      {"TriggerOfABuffer", shell("    shared f16 [64, 64] lhs_s;\n    trigger lhs_s;\n"), 4, 13,
       "`trigger` takes an event, got `lhs_s`"},
      // Messages quote expressions as written.
      {"TriggerOfABufferOfAnArray", shell("    shared f16 [64, 64] lhs_s[2];\n    trigger lhs_s[0];\n"), 4, 13,
       "`trigger` takes an event, got `lhs_s[0]`"},
      {"WaitOnAnExpressionSpanningDefines",
       "#define STAGE 16\n" + shell("    wait (bm + 2) * STAGE;\n"), 4, 11,
       "`wait` takes the future of an asynchronous copy or an event, got `(bm + 2) * STAGE`"},
      {"WaitOnAnIndex", shell("    wait bm;\n"), 3, 10,
       "`wait` takes the future of an asynchronous copy or an event, got `bm`"},
      {"AsyncBoundToABuffer",
       shell("    shared f16 [64, 64] lhs_s;\n    tma.copy.async<lhs_s> lhs.subspan(64, 64).at(bm, 0) => lhs_s;\n"), 4, 20,
       "`.async<...>` takes an event, got `lhs_s`"},
      {"AsyncBoundToTwoEvents",
       shell("    shared event full[4];\n    shared f16 [64, 64] lhs_s;\n"
             "    tma.copy.async<full[0], full[1]> lhs.subspan(64, 64).at(bm, 0) => lhs_s;\n"),
       5, 14, "`.async<e>` names one event"},
      {"EventIndexWithTwoSubscripts", shell("    shared event full[4];\n    trigger full[0, 1];\n"), 4, 13,
       "`[...]` selects one element of an array of buffers or events"},
      {"EventIndexOutOfRange", shell("    shared event full[4];\n    trigger full[4];\n"), 4, 18,
       "index 4 is out of range for 4 elements"},
      {"EventIndexIsAnEvent", shell("    shared event full[4], empty[4];\n    trigger full[empty[0]];\n"), 4, 18,
       "an array index must be an integer"},
      {"EventIndexIsAFloat", shell("    shared event full[4];\n    trigger full[1.5];\n"), 4, 18,
       "an array index must be an integer, got 1.5"},
      {"BufferIndexIsAFloat",
       shell("    shared f16 [64, 64] s[2];\n    tma.copy lhs.subspan(64, 64).at(bm, 0) => s[1.5];\n"), 4, 49,
       "an array index must be an integer, got 1.5"},
      {"SubscriptOfATensor", shell("    trigger lhs[0];\n"), 3, 13,
       "`lhs` is not an array of buffers or events; use `.at(...)` for elements"},
      {"TriggerAfterAnEvent", shell("    shared event full[4], empty[4];\n    trigger full[0] after empty[0];\n"), 4, 27, "`trigger ... after` takes the future of an asynchronous copy, got `empty[0]`"},
      {"TriggerSetsDisagree",
       shell("    shared event full[2];\n    parallel p by 3 : group-4 {\n"
             "      inthreads.async (p == 0) { trigger full[0]; }\n"
             "      inthreads.async (p >= 1) { trigger full[0]; }\n    }\n"),
       6, 42, "event `full` is triggered by a different set of threads here than at 5:42",
       "trigger an event from one kind of thread group (one warpgroup region, or the whole block)"},
      {"WaitOnACopyBoundToAnEvent",
       shell("    shared event full[2];\n    shared f16 [64, 64] lhs_s;\n"
             "    f = tma.copy.async<full[0]> lhs.subspan(64, 64).at(bm, 0) => lhs_s;\n    wait f;\n"),
       6, 10,
       "`f` completes on event `full[0]` (it was started with `.async<full[0]>`); wait on the event: `wait full[0];`"},
      {"WaitOnASynchronousTmaCopy", shell("    t = tma.copy lhs.subspan(64, 64).at(bm, 0) => shared;\n    wait t;\n"), 4,
       10, "waiting on a synchronous copy: `t` was not started with `.async`",
       "remove the `wait`, or add `.async` to the copy"},
  };
}

std::vector<ErrorCase> inthreads_cases() {
  return {
      {"InthreadsAsyncWithoutAGroupLevel", shell("    inthreads.async (bm == 0) { sync.shared; }\n"), 3, 5,
       "inthreads.async outside a `: group` or `: group-4` level, or a thread level directly in the block, is not "
       "supported yet by libcroqjit",
       "libcroqjit selects warps or warpgroups: put it inside `parallel p by N : group-4` (or `: group`, or "
       "`: thread`) and test `p`"},
      {"InthreadsAsyncConditionUsesAnotherIndex",
       shell("    parallel p by 4 : group-4 {\n      inthreads.async (p == bn) { sync.shared; }\n    }\n"), 4, 24,
       "the inthreads.async condition must depend only on `p` (it selects whole thread groups)"},
      {"InthreadsAsyncConditionNotContiguous",
       shell("    parallel p by 4 : group-4 {\n      inthreads.async (p == 0 || p == 2) { sync.shared; }\n    }\n"), 4, 24,
       "the inthreads.async condition must select a contiguous range of `p`"},
      {"InthreadsAsyncRegionsOverNamedBarriers", inthreads_regions(16), 19, 7,
       "at most 15 inthreads.async regions in a block (named barriers 1..15; barrier 0 is the block barrier)"},
      // The source's named barriers take 0..7: the regions have the other eight.
      {"InthreadsAsyncRegionsBesideTheSourcesNamedBarriers", inthreads_regions(9, true), 13, 7,
       "at most 8 inthreads.async regions in a block (named barriers 8..15; 0..7 are the source's, for __bar_arrive "
       "and __bar_sync)"},
      {"InthreadsAsyncNested",
       shell("    parallel p by 2 : group-4 {\n      inthreads.async (p == 0) {\n"
             "        inthreads.async (p == 0) { sync.shared; }\n      }\n    }\n"),
       5, 9, "inthreads.async inside another inthreads.async region", "make it a region of its own, next to the other"},
      {"InthreadsAsyncConditionSelectsNothing",
       shell("    parallel p by 2 : group-4 {\n      inthreads.async (p == 5) { sync.shared; }\n    }\n"), 4, 24,
       "the inthreads.async condition selects no `p` in 0..1"},
  };
}

std::vector<ErrorCase> tma_cases() {
  const std::string lhs_tile = "lhs.subspan(64, 64).at(bm, 0)";
  return {
      {"TmaTranspose", shell("    t = tma.transp<1, 0> " + lhs_tile + " => shared;\n"), 3, 13,
       "tma.transp is not supported yet by libcroqjit"},
      {"TmaUnknownModifier", shell("    t = tma.copy.swiz<128>.evict " + lhs_tile + " => shared;\n"), 3, 28,
       "`.evict` on tma.copy is not supported yet by libcroqjit"},
      {"TmaAfter",
       shell("    shared f16 [64, 64] lhs_s;\n    f = dma.copy.async " + lhs_tile + " => shared;\n"
             "    tma.copy lhs.subspan(64, 64).at(bm, 0) => lhs_s after f;\n"),
       5, 5, "`after` is not supported yet by libcroqjit", "wait for the future first: `wait f;`, then copy"},
      {"TmaInAThreadLevel",
       shell("    shared f16 [64, 64] lhs_s;\n    parallel t by 64 : thread {\n      tma.copy " + lhs_tile +
             " => lhs_s;\n    }\n"),
       5, 7, "tma.copy runs at block or warpgroup scope, or in a thread-level parallel of one thread; this one runs in many "
       "threads"},
      {"TmaSourceViewNotPlaced", shell("    t = tma.copy lhs.view(64, 64) => shared;\n"), 3, 22, "the source of a copy must be a tensor or a placed tile", "place it with `.at(...)` (after subspan) or `.from(...)` (after view)"},
      {"TmaStoreWithoutAGlobalDestination", shell("    shared f16 [64, 64] lhs_s;\n    tma.copy lhs_s => shared;\n"), 4, 5,
       "a tma.copy from shared memory needs a global destination"},
      {"TmaStoreIntoShared",
       shell("    shared f16 [64, 64] lhs_s, rhs_s;\n    tma.copy lhs_s => rhs_s;\n"), 4, 23,
       "a tma.copy from shared memory writes a tile of a global tensor"},
      {"TmaFromLocal", shell("    local f16 [8, 8] l;\n    t = tma.copy l => shared;\n"), 4, 18,
       "tma.copy moves tiles between global and shared memory"},
      {"TmaBoxWithADynamicDim",
       "__co__ void f(global f16 [M, 64] lhs) {\n  parallel b by 2 : block {\n    t = tma.copy lhs => shared;\n  }\n}\n",
       3, 18, "a TMA box must be known on the host; dimension 0 is the dynamic dim `M`",
       "copy a constant tile, e.g. subspan(64, ...).at(...), or use dma.copy", {tensor(DType::f16, {-1, 64})}, {"M"}},
      {"TmaStoreShapeMismatch",
       shell("    shared f16 [64, 64] lhs_s;\n    tma.copy lhs_s => lhs.subspan(32, 64).at(bm, 0);\n"), 4, 43,
       "tma.copy destination has shape f16 [32, 64] but the source tile has f16 [64, 64]"},
      {"TmaIntoLocal", shell("    t = tma.copy " + lhs_tile + " => local;\n"), 3, 51,
       "tma.copy loads into shared memory; use `=> shared` or a shared buffer"},
      {"TmaIntoAnotherElementType", shell("    shared f32 [64, 64] lhs_s;\n    tma.copy " + lhs_tile + " => lhs_s;\n"), 4, 47,
       "copy between different element types (f16 to f32)"},
      {"TmaStoreIntoAnotherElementType",
       shell("    shared f32 [64, 64] out_s;\n    tma.copy out_s => lhs.subspan(64, 64).at(bm, 0);\n"), 4, 43,
       "copy between different element types (f32 to f16)"},
      {"TmaStoreOfAColumnSliceOfASharedTile",
       shell("    shared f16 [64, 128] out_s;\n    tma.copy out_s.subspan(64, 64).at(0, 1) => lhs.subspan(64, 64).at(bm, 0);\n"),
       4, 36,
       "tma.copy stores a dense block of shared memory, but `out_s.subspan(64, 64).at(0, 1)` (f16 [64, 64]) is a "
       "strided part of a f16 [64, 128] tile",
       "store whole rows of the shared tile (split it by rows), or give each part a shared tile of its own"},
      {"TmaBoxExtentOf0", shell("    t = tma.copy rhs.view(0, 64).from(0, 0) => shared;\n"), 3, 34,
       "a TMA box extent must be 1..256; dimension 0 is 0"},
      {"TmaBoxOfRank6",
       "__co__ void f(global f16 [2, 2, 2, 2, 2, 64] x) {\n  parallel b by 2 : block {\n    t = tma.copy x => shared;\n  }\n}\n",
       3, 18, "a TMA box has 1 to 5 dimensions, got 6", "", {tensor(DType::f16, {2, 2, 2, 2, 2, 64})}},
      {"TmaBoxExtentOver256", shell("    t = tma.copy rhs.subspan(512, 64).at(0, 0) => shared;\n"), 3, 39,
       "a TMA box extent must be 1..256; dimension 0 is 512", "split the tile into several copies"},
      {"TmaInnerBoxNotAMultipleOf16Bytes", shell("    t = tma.copy lhs.subspan(64, 4).at(bm, 0) => shared;\n"), 3, 37,
       "the innermost TMA box extent must be a multiple of 16 bytes; it is 4 x 2 = 8 bytes"},
      {"TmaSwizzleSpanNotTheRowSize", shell("    t = tma.copy.swiz<64> " + lhs_tile + " => shared;\n"), 3, 47,
       "tma.copy.swiz<64> needs tile rows of exactly 64 bytes (32 f16), got 128",
       "match the innermost tile extent to the swizzle span"},
      {"TmaSwizzleOf32BitRows", shell("    t = tma.copy.swiz<128> out.subspan(64, 8).at(bm, 0) => shared;\n"), 3, 47,
       "tma.copy.swiz<128> needs tile rows of exactly 128 bytes (32 f32), got 32",
       "match the innermost tile extent to the swizzle span"},
      {"TmaFutureNotAName", shell("    t.x = tma.copy " + lhs_tile + " => shared;\n"), 3, 7,
       "a copy's future must be a plain name"},
      {"TmaLoadIntoGlobal", shell("    tma.copy " + lhs_tile + " => rhs.subspan(64, 64).at(bn, 0);\n"), 3, 67,
       "tma.copy loads into shared memory"},
      {"TmaIntoABufferArray", shell("    shared f16 [64, 64] lhs_s[2];\n    tma.copy " + lhs_tile + " => lhs_s;\n"), 4, 47,
       "`lhs_s` is an array of buffers; say which one, e.g. `lhs_s[stage]`"},
      {"TmaIntoALargerBuffer",
       shell("    shared f16 [64, 64] lhs_s;\n    tma.copy lhs.subspan(32, 64).at(bm, 0) => lhs_s;\n"), 4, 47,
       "tma.copy fills a whole shared buffer of the box's shape f16 [32, 64]; the destination is f16 [64, 64]"},
      {"TmaIntoPartOfABuffer",
       shell("    shared f16 [64, 64] lhs_s;\n    tma.copy " + lhs_tile + " => lhs_s.subspan(32, 64).at(0, 0);\n"), 4, 69,
       "tma.copy fills a whole shared buffer of the box's shape f16 [64, 64]; the destination is f16 [32, 64]"},
      {"TmaSwizzleChangesBetweenCopies",
       shell("    shared f16 [64, 64] lhs_s;\n    tma.copy.swiz<128> " + lhs_tile + " => lhs_s;\n"
             "    tma.copy lhs.subspan(64, 64).at(bm, 0) => lhs_s;\n"),
       5, 9, "this copy writes the tile with swizzle 0 but it was written with swizzle 128 before"},
      {"TmaStoreOfASwizzledTileWithAnotherSwizzle",
       shell("    shared f16 [64, 64] lhs_s;\n    tma.copy.swiz<128> " + lhs_tile + " => lhs_s;\n"
             "    tma.copy.swiz<0> lhs_s => lhs.subspan(64, 64).at(bm, 0);\n"),
       5, 9, "the tile is laid out with swizzle 128; the store must say `.swiz<128>`", "a store reads the tile with the layout it was written with"},
      // dma.copy.swiz<N> writes the TMA layout with threads.
      {"DmaSwizzleIntoGlobal", shell("    dma.copy.swiz<128> " + lhs_tile + " => rhs.subspan(64, 64).at(bn, 0);\n"), 3, 14, "a dma.copy between two `global` tensors is not possible on the GPU", "stage the tile through shared or local memory"},
      {"DmaSwizzleSpanNotTheRowSize", shell("    t = dma.copy.swiz<128> out.subspan(64, 64).at(bm, 0) => shared;\n"), 3, 18,
       "dma.copy.swiz<128> needs tile rows of exactly 128 bytes, got 256",
       "match the innermost tile extent to the swizzle span"},
  };
}

std::vector<ErrorCase> mma_cases() {
  const std::string mma = "      mma.row.row mc, a.data, b.data;\n";
  return {
      // mma.fill
      {"MmaFillTwoValues", warpgroup("      md = mma.fill.f32 0.0f, 1.0f;\n"), 7, 7, "mma.fill takes 1 operand, got 2"},
      {"MmaFillWithoutAName", warpgroup("      mma.fill.f32 0.0f;\n"), 7, 7,
       "mma.fill makes an accumulator: `acc = mma.fill.f32 0.0f;`"},
      {"MmaFillBf16Accumulator", warpgroup("      md = mma.fill.bf16 0.0f;\n"), 7, 21,
       "mma.fill takes `.f32` or `.f16` (the accumulator type), got `.bf16`"},
      {"MmaFillWithATensor", warpgroup("      md = mma.fill.f32 lhs;\n"), 7, 25,
       "mma.fill takes the initial value, such as 0.0f"},
      // mma.load
      {"MmaLoadWithoutAName", warpgroup("      mma.load.swiz<128> a.data;\n"), 7, 7,
       "mma.load names its operand: `a = mma.load tile;`"},
      {"MmaLoadOfGlobalWithASwizzle", warpgroup("      ma = mma.load.swiz<128> lhs.subspan(64, 64).at(bm, 0);\n"), 7, 21,
       "`.swiz` on an mma.load from global memory is not supported yet by libcroqjit"},
      {"MmaLoadUnknownModifier", warpgroup("      ma = mma.load.swiz<128>.trans a.data;\n"), 7, 31,
       "`.trans` on mma.load is not supported yet by libcroqjit"},
      {"MmaLoadSwizzleDiffersFromTheCopy", warpgroup("      ma = mma.load.swiz<64> a.data;\n"), 7, 7,
       "mma.load.swiz<64> does not match the tile's layout: it was copied with .swiz<128>",
       "use the same .swiz<N> on the copy and on mma.load"},
      {"MmaLoadWithoutTheCopysSwizzle", warpgroup("      ma = mma.load a.data;\n"), 7, 7,
       "mma.load does not match the tile's layout: it was copied with .swiz<128>",
       "use the same .swiz<N> on the copy and on mma.load"},
      {"MmaLoadSwizzleOfAnUnswizzledTile",
       warpgroup("      c = tma.copy lhs.subspan(64, 64).at(bm, 0) => shared;\n      mc2 = mma.load.swiz<128> c.data;\n"), 8,
       7, "mma.load.swiz<128> does not match the tile's layout: it was copied with no swizzle",
       "use the same .swiz<N> on the copy and on mma.load"},
      // mma.row.row: the form
      // mma.col.row: lhs [K, M] (b's [128, 64]: K = 128), rhs [N, K].
      {"MmaColRowOfMismatchedK", warpgroup("      mma.col.row mc, b.data, a.data;\n"), 7, 7,
       "lhs has K = 128 but rhs has K = 64 (mma.col.row takes rhs as [N, K])"},
      {"MmaSparseWithoutMetadata", warpgroup("      mma.row.row.sp mc, a.data, b.data;\n"), 7, 19,
       "a sparse mma (`.sp`) takes its sparsity metadata as a fourth operand, got 3 operands",
       "load the metadata and pass it last: `me = mma.load meta_tile; mma.row.row.sp acc, a, b, me;`"},
      {"MmaInAWarp",
       shell("    parallel w by 4 : group {\n      inthreads.async (w == 0) {\n        mc = mma.fill.f32 0.0f;\n"
             "        a = tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => shared;\n"
             "        b = tma.copy.swiz<128> rhs.subspan(128, 64).at(bn, 0) => shared;\n"
             "        mma.row.row mc, a.data, b.data;\n      }\n    }\n"),
       5, 9, "WGMMA runs on whole warpgroups: put the mma.fill inside `parallel p by N : group-4`", "an inthreads.async region must select whole warpgroups (multiples of 128 threads)"},
      {"MmaFillInWarpsAcrossTwoWarpgroups",
       shell("    parallel w by 8 : group {\n      inthreads.async (w >= 2 && w < 6) {\n        mc = mma.fill.f32 0.0f;\n"
             "      }\n    }\n"),
       5, 9, "WGMMA runs on whole warpgroups: put the mma.fill inside `parallel p by N : group-4`", "an inthreads.async region must select whole warpgroups (multiples of 128 threads)"},
      {"MmaInAThreadLevel", warpgroup("      parallel t by 64 : thread {\n        mma.row.row mc, a.data, b.data;\n      }\n"),
       8, 9, "WGMMA runs on whole warpgroups: put the mma inside `parallel p by N : group-4`"},
      {"MmaIntoATile", warpgroup("      mma.row.row a, a.data, b.data;\n"), 7, 19,
       "expected an accumulator from `mma.fill`, got `a`"},
      // mma.row.row: the operands
      {"MmaOperandInGlobal", warpgroup("      mma.row.row mc, lhs, b.data;\n"), 7, 23,
       "an mma operand is a shared tile or the result of mma.load, got `lhs`"},
      {"MmaOperandIsAGlobalTile", warpgroup("      mma.row.row mc, lhs.subspan(64,\n         64).at(bm, 0), b.data;\n"), 8, 14,
       "an mma operand is a shared tile or the result of mma.load, got `lhs.subspan(64, 64).at(bm, 0)`"},
      {"MmaOperandIsABufferArray",
       warpgroup("      shared f16 [64, 64] lhs_s[2];\n      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => lhs_s[0];\n"
                 "      mma.row.row mc, lhs_s, b.data;\n"),
       9, 23, "`lhs_s` is an array of buffers; say which one, e.g. `lhs_s[stage]`"},
      {"MmaLoadOfABufferArray",
       warpgroup("      shared f16 [64, 64] lhs_s[2];\n      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => lhs_s[0];\n"
                 "      ma = mma.load.swiz<128> lhs_s;\n"),
       9, 31, "`lhs_s` is an array of buffers; say which one, e.g. `lhs_s[stage]`"},
      {"MmaOperandOfRank3", warpgroup("      shared f16 [2, 64, 64] cube_s;\n      mma.row.row mc, cube_s, b.data;\n"), 8, 23,
       "an mma operand is a 2-D tile, got rank 3"},
      {"MmaOperandNotSwizzled",
       warpgroup("      c = tma.copy lhs.subspan(64, 64).at(bm, 0) => shared;\n      mma.row.row mc, c.data, b.data;\n"), 8,
       25,
       "WGMMA reads K-major tiles whose rows are one swizzle span: copy the tile with .swiz<128> (rows of 128 bytes "
       "here) and load it with the same swizzle"},
      {"MmaOperandOffByFourRows",
       warpgroup("      c = tma.copy.swiz<128> lhs.subspan(128, 64).at(0, 0) => shared;\n"
                 "      mma.row.row mc, c.data.view(64, 64).from(4, 0), b.data;\n"),
       8, 43, "an mma operand must start on a multiple of 8 rows of its tile"},
      {"MmaOperandKOfEight",
       warpgroup("      foreach {k} in [8] {\n        mma.row.row mc, a.data.chunkat(_, k), b.data.chunkat(_, k);\n      }\n"),
       8, 32, "an mma operand's K range must start and end on multiples of 16 elements"},
      {"MmaOfF32Tiles",
       warpgroup("      c = tma.copy.swiz<128> out.subspan(64, 32).at(bm, 0) => shared;\n"
                 "      d = tma.copy.swiz<128> out.subspan(128, 32).at(bn, 0) => shared;\n"
                 "      mma.row.row mc, c.data, d.data;\n"),
       9, 7, "mma on f32 tiles is not supported yet by libcroqjit", "libcroqjit multiplies f16, bf16 or fp8 (f8_e4m3, f8_e5m2) tiles; a warp's mma (in a `: group` level) also s8, u8 and f32"},
      {"MmaOfBf16AndF16",
       warpgroup("      c = tma.copy.swiz<128> lhs_b.subspan(64, 64).at(bm, 0) => shared;\n"
                 "      mma.row.row mc, c.data, b.data;\n"),
       8, 7, "WGMMA multiplies f16 or bf16 tiles (both the same) or fp8 tiles (f8_e4m3, f8_e5m2, in any mix), got bf16 and f16"},
      {"MmaF16AccumulatorOfBf16",
       warpgroup("      mh = mma.fill.f16 0.0f;\n      c = tma.copy.swiz<128> lhs_b.subspan(64, 64).at(bm, 0) => shared;\n"
                 "      d = tma.copy.swiz<128> rhs_b.subspan(128, 64).at(bn, 0) => shared;\n"
                 "      mma.row.row mh, c.data, d.data;\n"),
       10, 7, "an f16 accumulator takes f16 or fp8 inputs; use mma.fill.f32 for bf16"},
      {"MmaLhsOf128Rows",
       warpgroup("      c = tma.copy.swiz<128> lhs.subspan(128, 64).at(0, 0) => shared;\n"
                 "      mma.row.row mc, c.data, b.data;\n"),
       8, 25, "one warpgroup's mma takes 64 rows of lhs (WGMMA m64), got 128",
       "give each consumer warpgroup its own 64 rows, e.g. lhs_s.subspan(64, K).at(p - 1, 0)"},
      {"MmaKDiffers",
       warpgroup("      d = tma.copy.swiz<64> rhs.subspan(128, 32).at(bn, 0) => shared;\n      mma.row.row mc, a.data, d.data;\n"),
       8, 7, "lhs has K = 64 but rhs has K = 32 (mma.row.row takes rhs as [N, K])"},
      {"MmaNOf12", warpgroup("      d = tma.copy.swiz<128> rhs.subspan(12, 64).at(0, 0) => shared;\n      mma.row.row mc, a.data, d.data;\n"),
       8, 33, "WGMMA's N (rhs rows) must be a multiple of 8 up to 256, got 12"},
      {"MmaNOf512", warpgroup("      d = dma.copy.swiz<128> rhs => shared;\n      mma.row.row mc, a.data, d.data;\n"), 8, 33,
       "WGMMA's N (rhs rows) must be a multiple of 8 up to 256, got 512"},
      {"MmaAccumulatorReusedWithAnotherN", warpgroup(mma + "      mma.row.row mc, a.data, b.data.subspan(64, 64).at(0, 0);\n"),
       8, 7, "the accumulator is 64 x 128 but this mma makes 64 x 64"},
      // mma.store
      {"MmaStoreOfAnUnwrittenAccumulator", warpgroup("      mma.store mc, out.subspan(64, 128).at(bm, bn);\n"), 7, 7, "mma.store of an accumulator that no mma has written", "multiply into it first: `mma.row.row mc, a, b;`"},
      {"MmaStoreInAThreadLevel",
       warpgroup(mma + "      parallel t by 128 : thread {\n        mma.store mc, out.subspan(64, 128).at(bm, bn);\n      }\n"),
       9, 9, "WGMMA runs on whole warpgroups: put the mma.store inside `parallel p by N : group-4`"},
      {"MmaStoreWithoutADestination", warpgroup(mma + "      mma.store mc;\n"), 8, 7, "mma.store takes 2 operands, got 1"},
      {"MmaStoreOfATile", warpgroup(mma + "      mma.store b, out.subspan(64, 128).at(bm, bn);\n"), 8, 17,
       "expected an accumulator from `mma.fill`, got `b`"},
      {"MmaStoreIntoAnUnplacedTile", warpgroup(mma + "      mma.store mc, out.subspan(64, 128);\n"), 8, 25,
       "mma.store writes a 2-D tile of shared or global memory"},
      {"MmaStoreIntoABufferArray", warpgroup("      shared f32 [64, 128] out_s[2];\n" + mma + "      mma.store mc, out_s;\n"),
       9, 21, "`out_s` is an array of buffers; say which one, e.g. `out_s[stage]`"},
      {"MmaStoreShapeMismatch", warpgroup(mma + "      mma.store mc, out.subspan(64, 64).at(bm, bn);\n"), 8, 41,
       "the accumulator is 64 x 128 but the destination tile is f32 [64, 64]"},
      {"MmaStoreIntoS32", warpgroup("      shared s32 [64, 128] out_s;\n" + mma + "      mma.store mc, out_s;\n"), 9, 21, "storing an f32 accumulator to s32 tiles is not supported yet by libcroqjit", "accumulate s8 or u8 tiles in s32 (mma.fill.s32) at warp level"},
      {"MmaStoreIntoLocal", warpgroup("      local f32 [64, 128] out_l;\n" + mma + "      mma.store mc, out_l;\n"), 9, 21,
       "mma.store writes shared or global memory"},
      {"MmaStoreSwizzleOtherThanTheTiles",
       warpgroup("      shared f16 [64, 64] out_s;\n      d = tma.copy.swiz<128> rhs.subspan(64, 64).at(bn, 0) => shared;\n"
                 "      mh = mma.fill.f32 0.0f;\n      mma.row.row mh, a.data, d.data;\n"
                 "      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => out_s;\n      mma.store.swiz<64> mh, out_s;\n"),
       12, 17, "mma.store.swiz<64> does not match the tile's layout: it was written with .swiz<128>",
       "use one layout for the tile: the same .swiz<N> on every copy and store of it"},
  };
}

std::string case_name(const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(SwizzleAndEvents, HopperErrors, ::testing::ValuesIn(swizzle_and_event_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Inthreads, HopperErrors, ::testing::ValuesIn(inthreads_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Tma, HopperErrors, ::testing::ValuesIn(tma_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Mma, HopperErrors, ::testing::ValuesIn(mma_cases()), case_name);

// The rendered error shows the line and a caret under the operand, then the hint.
TEST(HopperErrorsRendered, CaretUnderTheLhsOperand) {
  ErrorCase c{"", warpgroup("      c = tma.copy.swiz<128> lhs.subspan(128, 64).at(0, 0) => shared;\n"
                            "      mma.row.row mc, c.data, b.data;\n"),
              8, 25, ""};
  EXPECT_EQ(std::string(error_of(c).what()),
            "hopper.co:8:25: error: one warpgroup's mma takes 64 rows of lhs (WGMMA m64), got 128\n"
            "          mma.row.row mc, c.data, b.data;\n"
            "                            ^~~~\n"
            "  hint: give each consumer warpgroup its own 64 rows, e.g. lhs_s.subspan(64, K).at(p - 1, 0)\n");
}

// A redundant `.zfill` on a TMA load is a warning, not an error.
TEST(HopperErrorsRendered, RedundantZfillOnTmaIsAWarning) {
  const std::string source = shell("    t = tma.copy lhs.subspan(64, 64).at(bm, 0).zfill => shared;\n");
  auto program = frontend::parse_program(source, options());
  GeneratedKernel k = generate_cuda(*program, frontend::select_entry(*program, options(), program->source),
                                    shell_args(), 227 * 1024);
  ASSERT_EQ(k.warnings.size(), 1u);
  EXPECT_EQ(k.warnings[0].severity, Severity::warning);
  EXPECT_EQ(k.warnings[0].message, "`.zfill` is redundant: the source tile always covers the destination");
  EXPECT_EQ(k.warnings[0].line, 3);
  EXPECT_EQ(k.warnings[0].column, 5);
}

// tma.copy compiled for sm_80 through croq::compile: the options name the
// arch, so compile itself refuses it (sema), pointing at the copy.
struct Sm80Case {
  std::string source;
  int line, column;
};

class TmaBeforeSm90 : public ::testing::TestWithParam<Sm80Case> {};

TEST_P(TmaBeforeSm90, SaysUseDmaCopy) {
  CompileOptions o = options();
  o.arch = "sm_80";
  try {
    croq::compile(GetParam().source, o);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].message, "tma.copy needs sm_90 (Hopper); use dma.copy (compiling for sm_80)");
    EXPECT_EQ(e.diagnostics()[0].line, GetParam().line);
    EXPECT_EQ(e.diagnostics()[0].column, GetParam().column);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Api, TmaBeforeSm90,
    ::testing::Values(
        // A load into shared memory (line 3).
        Sm80Case{"__co__ void f(global f16 [128, 64] lhs, global f16 [128, 64] out) {\n"
                 "  parallel b by 2 : block {\n"
                 "    t = tma.copy.swiz<128> lhs.subspan(64, 64).at(b, 0) => shared;\n"
                 "    dma.copy t.data => out.subspan(64, 64).at(b, 0);\n  }\n}\n",
                 3, 13},
        // A store from shared memory (line 4), after a dma load.
        Sm80Case{"__co__ void f(global f16 [128, 64] lhs, global f16 [128, 64] out) {\n"
                 "  parallel b by 2 : block {\n"
                 "    t = dma.copy lhs.subspan(64, 64).at(b, 0) => shared;\n"
                 "    tma.copy t.data => out.subspan(64, 64).at(b, 0);\n  }\n}\n",
                 4, 9}));

}  // namespace
}  // namespace croq::pipeline
