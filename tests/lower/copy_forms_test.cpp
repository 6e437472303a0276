// Copy and loop forms of Croqtile's end-to-end programs, through lowering:
// a `.subspan` copied without `.at` (its first tile), destinations larger
// than the source (zero-filled), one loop index over several dimensions,
// thread and group levels outside any block level, TMA copies in a one-thread
// level and into the returned tensor, placeholders and swapped futures,
// values of bounded indices (`y(-1)`). Each kernel's CUDA compiles with NVRTC.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::contains;

using test::generate;
using test::tensor;

void expect_compiles(const GeneratedKernel& k, const std::string& arch = "sm_90a") {
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "copy_forms.cu", k.entry, {arch, false, {}});
  EXPECT_FALSE(out.cubin.empty()) << k.cuda_source;
}

// `x.subspan(8, 32)` without `.at` is the tile at (0, 0); inside the tensor
// it needs no tail guard.
TEST(SubspanWithoutAt, CopiesTheFirstTile) {
  GeneratedKernel k = generate(
      "__co__ f32 [8, 32] f(f32 [20, 64] a) {\n"
      "  f32 [8, 32] out;\n"
      "  parallel p by 1 : block {\n"
      "    t = dma.copy a.subspan(8, 32) => shared;\n"
      "    dma.copy t.data => out;\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::f32, {20, 64})});
  EXPECT_TRUE(contains(k.ir, "copy arg_a at (0, 0) [8, 32] -> future_")) << k.ir;
  EXPECT_TRUE(k.warnings.empty());
  expect_compiles(k);
}

// On both sides of a copy, with `.step` and in three dimensions.
TEST(SubspanWithoutAt, PlacesDestinationsAndSteppedTiles) {
  GeneratedKernel k = generate(
      "__co__ s32 [2, 4, 8] f(s32 [2, 4, 16] a) {\n"
      "  s32 [2, 4, 8] out;\n"
      "  parallel p by 1 : block {\n"
      "    shared s32 [2, 4, 8] buf;\n"
      "    dma.copy a.subspan(2, 4, 8).step(2, 4, 8) => buf.subspan(2, 4, 8);\n"
      "    dma.copy buf.subspan(2, 4, 8) => out;\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {2, 4, 16})});
  EXPECT_TRUE(contains(k.ir, "copy arg_a at (0, 0, 0) [2, 4, 8] -> buf_")) << k.ir;
  expect_compiles(k);
}

// A tile larger than its (runtime-sized) tensor reads zeros past the end.
TEST(SubspanWithoutAt, GuardsATileThatCanPassTheTensor) {
  GeneratedKernel k = generate(
      "__co__ s32 [16, 32] f(s32 [M, N] a) {\n"
      "  s32 [16, 32] out;\n"
      "  parallel p by 1 : block {\n"
      "    t = dma.copy.zfill a.subspan(16, 32) => shared;\n"
      "    dma.copy t.data => out;\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {10, 32})});
  EXPECT_TRUE(contains(k.cuda_source, " < 10 && ")) << k.cuda_source;
  expect_compiles(k);
}

// A copy into a larger destination zeroes what the source does not cover,
// `.zfill` or not, and inside a thread-level parallel too.
TEST(LargerDestination, IsZeroFilledInAThreadLevel) {
  GeneratedKernel k = generate(
      "__co__ f16 [32, 32] f(f16 [31, 32] a) {\n"
      "  f16 [32, 32] out;\n"
      "  parallel p by 1 : block\n"
      "    parallel q by 32 : thread {\n"
      "      shared f16 [32, 32] buf;\n"
      "      dma.copy a.subspan(31, 32) => buf.subspan(32, 32);\n"
      "      dma.copy buf => out;\n"
      "    }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::f16, {31, 32})});
  EXPECT_TRUE(contains(k.cuda_source, "< 31) ?")) << k.cuda_source;
  ASSERT_EQ(k.warnings.size(), 1u);
  EXPECT_TRUE(contains(k.warnings[0].message, "are filled with zero")) << k.warnings[0].message;
  expect_compiles(k);
}

// `foreach x in t.span` over a rank-3 tile: x is one index per dimension,
// and `.at(x)` takes them all.
TEST(OneLoopIndexForAllDimensions, LoopsOverEachDimension) {
  GeneratedKernel k = generate(
      "__co__ s32 [4, 6, 8] f(s32 [4, 6, 8] a) {\n"
      "  s32 [4, 6, 8] out;\n"
      "  parallel p by 2, q by 4 {\n"
      "    t = dma.copy a.chunkat(p, _, q) => local;\n"
      "    local s32 [t.span] sum;\n"
      "    foreach x in t.span\n"
      "      sum.at(x) = t.data.at(x) * 2;\n"
      "    dma.copy sum => out.chunkat(p, _, q);\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {4, 6, 8})});
  // Loops of 2, 6 and 2 iterations, outermost first.
  const std::size_t first = k.ir.find("for x_"), second = k.ir.find("for x_", first + 1),
                    third = k.ir.find("for x_", second + 1);
  ASSERT_NE(third, std::string::npos) << k.ir;
  EXPECT_TRUE(contains(k.ir.substr(first, second - first), "in [0, 2)")) << k.ir;
  EXPECT_TRUE(contains(k.ir.substr(second, third - second), "in [0, 6)")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "sum_5[x_6, x_7, x_8] = (future_4[x_6, x_7, x_8] * 2)")) << k.ir;
  expect_compiles(k);
}

// Named tuples of loop and parallel indices index with `.at` too.
TEST(OneLoopIndexForAllDimensions, NamedTuplesIndexElements) {
  GeneratedKernel k = generate(
      "__co__ s32 [8, 16] f(s32 [8, 16] a) {\n"
      "  s32 [8, 16] out;\n"
      "  parallel p = {i, j} by [8, 16]\n"
      "    out.at(p) = a.at(i, j) + 1;\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {8, 16})});
  expect_compiles(k);
  GeneratedKernel loop = generate(
      "__co__ s32 [8, 16] f(s32 [8, 16] a) {\n"
      "  s32 [8, 16] out;\n"
      "  parallel b by 1 : block\n"
      "    foreach idx = {i, j} in [8, 16]\n"
      "      out.at(idx) = a.at(idx) - i;\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {8, 16})});
  expect_compiles(loop);
}

// A `: group` level outside any block level runs in one block: its copies
// into shared memory are the block's, fenced by barriers.
TEST(ImplicitBlock, GroupLevelAtTheTopRunsInOneBlock) {
  GeneratedKernel k = generate(
      "__co__ s32 [2, 5, 32] f(s32 [2, 5, 32] a) {\n"
      "  s32 [a.span] out;\n"
      "  parallel g by 5 : group {\n"
      "    t = dma.copy a => shared;\n"
      "    shared s32 [t.span] u;\n"
      "    foreach x in [2]\n"
      "      parallel l by 32\n"
      "        u.at(x, g, l) = t.data.at(x, g, l) + g;\n"
      "    dma.copy u => out;\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {2, 5, 32})});
  EXPECT_EQ(k.launch.grid, (std::array<unsigned, 3>{1, 1, 1}));
  EXPECT_EQ(k.launch.block, (std::array<unsigned, 3>{160, 1, 1}));
  EXPECT_TRUE(contains(k.ir, "region grid:")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "by block vector")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "barrier block")) << k.ir;
  expect_compiles(k);
}

// The block copies cooperatively, once: a tile that differs between the
// groups of a `: group` level cannot be copied that way, and says so.
TEST(ImplicitBlock, CopiesOfPerGroupTilesAreRefused) {
  try {
    generate(
        "__co__ s32 [4, 32] f(s32 [4, 32] a) {\n"
        "  s32 [a.span] out;\n"
        "  parallel g by 4 : group {\n"
        "    t = dma.copy a.chunkat(g, _) => shared;\n"
        "    dma.copy t => out.chunkat(g, _);\n"
        "  }\n"
        "  return out;\n"
        "}\n",
        {tensor(DType::s32, {4, 32})});
    ADD_FAILURE() << "no error";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "4:5: error: a copy whose tile depends on the index of a `: group` or `: group-4` level"))
        << e.what();
  }
}

// Thread indices of an unannotated level inside it stay below its count.
TEST(ImplicitBlock, NestedLevelSplitsTheGroupsThreads) {
  GeneratedKernel k = generate(
      "__co__ s32 [17, 32] f(s32 [17, 32] a) {\n"
      "  s32 [a.span] out;\n"
      "  parallel g by 17 : group\n"
      "    parallel {l} by [32]\n"
      "      out.at(g, l) = a.at(g, l);\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {17, 32})});
  EXPECT_TRUE(contains(k.ir, "(threadIdx.x % 32)")) << k.ir;
  EXPECT_FALSE(contains(k.ir, "region flat")) << k.ir;
  expect_compiles(k);
}

// The one thread of `parallel by 1, by 1` issues and awaits its TMA copies
// itself: no block barriers inside the thread level.
TEST(TmaInOneThread, LoadsAndStoresWithoutBlockBarriers) {
  GeneratedKernel k = generate(
      "__co__ f32 [6, 16, 64] f(f32 [6, 16, 64] a) {\n"
      "  f32 [a.span] out;\n"
      "  parallel by 1, by 1 {\n"
      "    t = tma.copy.async a => shared;\n"
      "    wait t;\n"
      "    tma.copy t.data => out;\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::f32, {6, 16, 64})});
  const std::size_t region = k.ir.find("region threads");
  ASSERT_NE(region, std::string::npos) << k.ir;
  EXPECT_FALSE(contains(k.ir.substr(region), "barrier block")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "tma.store ")) << k.ir;
  // The store's descriptor is the returned tensor's (argument -1).
  int maps = 0;
  for (const auto& p : k.params)
    if (p.kind == KernelParam::Kind::tensor_map) {
      ++maps;
      EXPECT_EQ(p.box, (std::vector<std::uint32_t>{6, 16, 64}));
    }
  EXPECT_EQ(maps, 2);
  EXPECT_EQ(k.params.back().kind, KernelParam::Kind::tensor_map);
  EXPECT_EQ(k.params.back().argument, -1);
  expect_compiles(k);
}

// More than one thread would each issue the copy: refused per call.
TEST(TmaInOneThread, ManyThreadsAreRefused) {
  try {
    generate(
        "__co__ void f(f32 [64, 64] a) {\n"
        "  parallel b by 1 : block\n"
        "    parallel t by 2 {\n"
        "      s = tma.copy a => shared;\n"
        "    }\n"
        "}\n",
        {tensor(DType::f32, {64, 64})});
    ADD_FAILURE() << "no error";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "in a thread-level parallel of one thread; this one runs in many threads")) << e.what();
  }
}

// A block-scope TMA store into the returned tensor, tile by tile.
TEST(TmaIntoTheReturnedTensor, StoresThroughItsOwnDescriptor) {
  GeneratedKernel k = generate(
      "__co__ f32 [6, 16, 128] f(f32 [6, 16, 128] a) {\n"
      "  f32 [a.span] out;\n"
      "  parallel p by 32 : block {\n"
      "    t = tma.copy.async a.chunkat(_, _, p) => shared;\n"
      "    wait t;\n"
      "    tma.copy t.data => out.chunkat(_, _, p);\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::f32, {6, 16, 128})});
  ASSERT_EQ(k.params.back().kind, KernelParam::Kind::tensor_map);
  EXPECT_EQ(k.params.back().argument, -1);
  EXPECT_EQ(k.params.back().box, (std::vector<std::uint32_t>{6, 16, 4}));
  expect_compiles(k);
}

// `_` in a subspan keeps the whole dimension; a tile of a tile that reaches
// past its buffer (rows 8..11 of 10) is guarded, though it starts inside
// (the copy in vectors, when its origin is inside, is never taken here).
TEST(ChainedSubspan, WholeDimensionsAndTailsOfTilesOfTiles) {
  GeneratedKernel k = generate(
      "__co__ s32 [4, 64] f(s32 [10, 64] a) {\n"
      "  s32 [4, 64] out;\n"
      "  parallel p by 1 : block {\n"
      "    t = dma.copy.zfill a.subspan(4, _).at(1, 0).subspan(4, _).at(1, 0) => shared;\n"
      "    dma.copy t.data => out;\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {10, 64})});
  EXPECT_TRUE(contains(k.ir, "copy arg_a at ((4 + 4), 0) [4, 64] guarded")) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "((4 + 4) + i_8) < 10 && ")) << k.cuda_source;
  expect_compiles(k);
}

// Swapped futures share a ring of shared buffers; each names its slot in a
// variable that `swap` exchanges, and a placeholder declares the ring where
// it stands, so code after the loop reads the slot the loop left.
TEST(SwappedFutures, ShareARingOfSharedBuffers) {
  GeneratedKernel k = generate(
      "__co__ s32 [64, 128] f(s32 [64, 128] a) {\n"
      "  s32 [a.span] out;\n"
      "  parallel p by 4 : block {\n"
      "    cur = dma.copy.async a.subspan(16, 16).at(p, 0) => shared;\n"
      "    nxt = dma.any;\n"
      "    foreach k in [7] {\n"
      "      nxt = dma.copy.async a.subspan(16, 16).at(p, k + 1) => shared;\n"
      "      wait cur;\n"
      "      parallel {i, j} by [16, 16]\n"
      "        out.at(p # i, k # j) = cur.data.at(i, j);\n"
      "      swap cur, nxt;\n"
      "    }\n"
      "    wait cur;\n"
      "    parallel {i, j} by [16, 16]\n"
      "      out.at(p # i, 112 + j) = cur.data.at(i, j);\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {64, 128})});
  EXPECT_TRUE(contains(k.ir, "shared s32 [16, 16] at 0 ring 2")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "var i32 cur_slot_2 = 0\n      var i32 nxt_slot_3 = 1\n      alloc ring_4")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "-> ring_4{nxt_slot_3}")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "cur_slot_2 = nxt_slot_3\n        nxt_slot_3 = slot_")) << k.ir;
  expect_compiles(k);
}

// TMA loads of a ring complete on one private barrier per slot.
TEST(SwappedFutures, TmaRingsWaitOnTheirSlotsBarrier) {
  GeneratedKernel k = generate(
      "__co__ f32 [8, 16, 32] f(f32 [8, 16, 32] l) {\n"
      "  f32 [l.span] output;\n"
      "  parallel p by 4 : block {\n"
      "    l0 = tma.copy.async l.subspan(8, 1, 8).at(0, 0, p) => shared;\n"
      "    l1 = tma.any;\n"
      "    foreach k in [15] {\n"
      "      l1 = tma.copy.async l.subspan(8, 1, 8).at(0, k + 1, p) => shared;\n"
      "      wait l0;\n"
      "      tma.copy l0.data => output.subspan(8, 1, 8).at(0, k, p);\n"
      "      swap l0, l1;\n"
      "    }\n"
      "    wait l0;\n"
      "    tma.copy l0.data => output.subspan(8, 1, 8).at(0, 15, p);\n"
      "  }\n"
      "  return output;\n"
      "}\n",
      {tensor(DType::f32, {8, 16, 32})});
  EXPECT_TRUE(contains(k.ir, "event tma_ring_bar_5[2]")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "completes tma_ring_bar_5[l1_slot_3]")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "wait tma_ring_bar_5[l0_slot_2]")) << k.ir;
  expect_compiles(k);
}

// Two rings of two slots: each ring's barriers take 8 bytes per slot in
// shared memory, apart from the other ring's and from every buffer.
TEST(SwappedFutures, RingBarrierArraysDoNotOverlap) {
  GeneratedKernel k = generate(
      "__co__ f32 [8, 16, 32] f(f32 [8, 16, 32] l, f32 [8, 16, 32] r) {\n"
      "  f32 [l.span] output;\n"
      "  parallel p by 4 : block {\n"
      "    l0 = tma.copy.async l.subspan(8, 1, 8).at(0, 0, p) => shared;\n"
      "    r0 = tma.copy.async r.subspan(8, 1, 8).at(0, 0, p) => shared;\n"
      "    l1 = tma.any;\n"
      "    r1 = tma.any;\n"
      "    foreach k in [15] {\n"
      "      l1 = tma.copy.async l.subspan(8, 1, 8).at(0, k + 1, p) => shared;\n"
      "      r1 = tma.copy.async r.subspan(8, 1, 8).at(0, k + 1, p) => shared;\n"
      "      wait l0, r0;\n"
      "      tma.copy l0.data => output.subspan(8, 1, 8).at(0, k, p);\n"
      "      swap l0, l1;\n"
      "      swap r0, r1;\n"
      "    }\n"
      "  }\n"
      "  return output;\n"
      "}\n",
      {tensor(DType::f32, {8, 16, 32}), tensor(DType::f32, {8, 16, 32})});
  // "event NAME[COUNT] at OFFSET": [OFFSET, OFFSET + 8 * COUNT) per array.
  std::vector<std::pair<long, long>> spans;
  for (std::size_t at = k.ir.find("event tma_ring_bar"); at != std::string::npos;
       at = k.ir.find("event tma_ring_bar", at + 1)) {
    const std::size_t open = k.ir.find('[', at), close = k.ir.find(']', at), off = k.ir.find(" at ", at);
    const long count = std::stol(k.ir.substr(open + 1, close - open - 1));
    const long offset = std::stol(k.ir.substr(off + 4));
    spans.emplace_back(offset, offset + 8 * count);
  }
  ASSERT_EQ(spans.size(), 2u) << k.ir;
  EXPECT_EQ(spans[0].second - spans[0].first, 16) << k.ir;
  EXPECT_TRUE(spans[0].second <= spans[1].first || spans[1].second <= spans[0].first) << k.ir;
  // The block's shared memory holds both arrays.
  const std::size_t size_at = k.cuda_source.find("shared memory ");
  ASSERT_NE(size_at, std::string::npos);
  EXPECT_GE(std::stol(k.cuda_source.substr(size_at + 14)), std::max(spans[0].second, spans[1].second));
  expect_compiles(k);
}

// `y(-1)` is the last value of `y`, bounded like `y` (chunkat takes it).
TEST(BoundedValue, LastValueOfAnIndex) {
  GeneratedKernel k = generate(
      "__co__ s32 [4, 32] f(s32 [4, 32] a) {\n"
      "  s32 [a.span] out;\n"
      "  parallel p by 4 : block {\n"
      "    foreach y in [8] {\n"
      "      t = dma.copy a.chunkat(p, y(-1)) => shared;\n"
      "      dma.copy t.data => out.chunkat(p, y(1));\n"
      "    }\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {4, 32})});
  EXPECT_TRUE(contains(k.ir, "copy arg_a at (p_1, 28) [1, 4]")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "-> croq_output at (p_1, 4) [1, 4]")) << k.ir;
  expect_compiles(k);
}

// `foreach y(1:-1:2) in [8]`: y = 1, 3, 5, still bounded by 8 (chunkat).
TEST(RangeLoop, StartEndAndStride) {
  GeneratedKernel k = generate(
      "__co__ s32 [4, 32] f(s32 [4, 32] a) {\n"
      "  s32 [a.span] out;\n"
      "  parallel p by 4 : block {\n"
      "    foreach y(1:-1:2) in [8] {\n"
      "      t = dma.copy a.chunkat(p, y) => shared;\n"
      "      dma.copy t.data => out.chunkat(p, y - 1);\n"
      "    }\n"
      "  }\n"
      "  return out;\n"
      "}\n",
      {tensor(DType::s32, {4, 32})});
  EXPECT_TRUE(contains(k.ir, "for y_2 in [1, (8 + -1)) step 2:")) << k.ir;
  expect_compiles(k);
}

}  // namespace
}  // namespace croq::pipeline
