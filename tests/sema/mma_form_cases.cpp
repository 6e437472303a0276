// Rule cases: masked stores (`mma.store.mask acc, tile, rows[, cols]`),
// mma.load from local memory and as an accumulator's initial value, and block-scaled mma with the scales of both
// sides (`mma.row.row.scale acc, a, b, sa, sb`).
#include "sema_test_util.hpp"

namespace croq::sema::test {

namespace {

// `body` directly in a `: group` level (each warp its own mma); starts on line 4.
std::string warps(const std::string& body) { return blk("    parallel {g0, g1} by [4, 2] : group {\n" + body + "    }\n"); }

}  // namespace

std::vector<RuleCase> mma_form_cases() {
  const std::string mma = "      mma.row.row mc, ta.data, tb.data;\n";
  const std::string tile = "out.subspan(64, 128).at(bm, bn)";
  return {
      {"MmaStoreOfThreeOperands", "mma-store-mask", wg(mma + "      mma.store mc, " + tile + ", 3;\n"), 8, "mma.store",
       "mma.store takes 2 operands, got 3; only a masked store takes the rows and columns to write",
       "write `mma.store.mask acc, tile, rows, cols;`"},
      {"MmaStoreMaskOfTwoOperands", "mma-store-mask", wg(mma + "      mma.store.mask mc, " + tile + ";\n"), 8, "mma.store",
       "mma.store.mask takes 3 or 4 operands (the accumulator, the tile, the rows and optionally the columns to write), "
       "got 2"},
      {"MmaStoreMaskOfFiveOperands", "mma-store-mask", wg(mma + "      mma.store.mask mc, " + tile + ", 1, 2, 3;\n"), 8,
       "mma.store", "mma.store.mask takes 3 or 4 operands (the accumulator, the tile, the rows and optionally the columns "
                    "to write), got 5"},
      {"MmaStoreMaskOfFloatRows", "mma-store-mask", wg(mma + "      mma.store.mask mc, " + tile + ", 1.5f;\n"), 8, "1.5f",
       "the rows to write of mma.store.mask are an integer, got `1.5f`"},
      {"MmaStoreMaskOfATileAsColumns", "mma-store-mask", wg(mma + "      mma.store.mask mc, " + tile + ", 3, ta;\n"), 8,
       "ta;", "the columns to write of mma.store.mask are an integer, got `ta`"},
      {"MmaStoreMaskTransposed", "unsupported-modifier", wg(mma + "      mma.store.mask.transp mc, " + tile + ", 3;\n"), 8,
       "transp", "`.transp` with `.mask` on mma.store is not supported yet by libcroqjit",
       "store the accumulator transposed unmasked, or masked untransposed"},
      {"MmaLoadOfLocalInAWarpgroup", "unsupported-mma-form", wg("      local f16 [64, 64] la;\n      ma = mma.load la;\n"), 8,
       "la;", "mma.load from local memory is not supported yet by libcroqjit", "copy the tile to shared memory first"},
      {"MmaLoadOfLocalAsAWarpAccumulator", "unsupported-mma-form",
       warps("      local f32 [16, 8] lc;\n      mc = mma.load lc;\n"
             "      a = dma.copy lhs.subspan(16, 16).at(g0, 0) => shared;\n"
             "      b = dma.copy rhs.subspan(8, 16).at(g1, 0) => shared;\n      mma.row.row mc, a.data, b.data;\n"),
       5, "lc;", "an accumulator loaded from local memory (mma.load as the initial value) is not supported yet by libcroqjit",
       "load it from global or shared memory, or fill it with mma.fill"},
      {"MmaLoadOfGlobalAsAWarpgroupAccumulator", "unsupported-mma-form",
       wg("      mo = mma.load out.subspan(64, 128).at(bm, bn);\n      mma.row.row mo, ta.data, tb.data;\n"), 7,
       "at(bm, bn);",
       "an accumulator loaded from memory (mma.load as the initial value) outside a warp's `: group` level is not "
       "supported yet by libcroqjit",
       "load it in the `: group` level of a warp's mma, or fill it with mma.fill"},
      {"MmaLoadOfAnS8TileAsAWarpAccumulator", "mma-fill-type",
       warps("      local s8 [16, 8] lc;\n      mc = mma.load lc;\n"
             "      a = dma.copy lhs.subspan(16, 16).at(g0, 0) => shared;\n"
             "      b = dma.copy rhs.subspan(8, 16).at(g1, 0) => shared;\n      mma.row.row mc, a.data, b.data;\n"),
       5, "lc;", "an accumulator's mma.load reads a tile of f32, f16, bf16 or s32, got s8"},
      {"MmaLoadOfAWarpAccumulatorWithASwizzle", "unsupported-modifier",
       warps("      mc = mma.load.swiz<32> out.subspan(16, 8).at(g0, g1);\n"
             "      a = dma.copy lhs.subspan(16, 16).at(g0, 0) => shared;\n"
             "      b = dma.copy rhs.subspan(8, 16).at(g1, 0) => shared;\n      mma.row.row mc, a.data, b.data;\n"),
       4, "swiz", "`.swiz` on an accumulator's mma.load is not supported yet by libcroqjit"},
      {"MmaLoadOfLocalWithASwizzle", "unsupported-modifier",
       warps("      local f16 [16, 16] la;\n      ma = mma.load.swiz<32> la;\n"), 5, "swiz",
       "`.swiz` on an mma.load from local memory is not supported yet by libcroqjit"},
      {"RowScaledMmaOfF16Scales", "mma-scale-operands", wg("      mma.row.row.scale mc, ta, tb, ta, tb;\n"), 7, "ta, tb;",
       "the lhs scales of mma.row.row.scale are a tile of f32 (one per accumulator row), got `ta`, a tile of f16",
       "DeepSeek-style block scales: `scale_lhs.subspan(64, 1).at(block_m, k)`"},
      {"RowScaledMmaOfATileAsRhsScale", "mma-scale-operands",
       wg("      mma.row.row.scale mc, ta, tb, out.subspan(64, 1).at(bm, 0), ta;\n"), 7, "ta;",
       "the rhs scale of mma.row.row.scale is one f32 value, got `ta`", "name one element: `scale_rhs.at(block_n, k)`"},
      {"MmaLoadInTheFunctionBody", "mma-outside-parallel", fn("  ma = mma.load lhs;\n"), 2, "ma =",
       "mma.load outside every parallel statement is not supported by libcroqjit: the host has no accumulators",
       "move it into the `parallel` statement whose threads multiply"},
      {"MmaOfS32Tiles", "unsupported-mma-type",
       warps("      mc = mma.fill.s32 0;\n      ma = mma.load a.subspan(16, 16).at(g0, 0);\n"
             "      mb = mma.load a.subspan(8, 16).at(g1, 0);\n      mma.row.row mc, ma, mb;\n"),
       7, "mma.row.row",
       "mma on s32 tiles is not supported by libcroqjit (PTX has no s32 x s32 mma): integer mma takes s8 or u8 "
       "operands into an s32 accumulator",
       "convert the operands to s8 or u8 and fill the accumulator with mma.fill.s32"},
      // The accumulator of a rejected sparse multiply counts as written: its
      // store reports nothing more (mma-store-unwritten).
      {"SparseMmaOfUnloadedMetadata", "mma-operand-kind",
       wg("      mma.row.row.sp mc, ta.data, tb.data, ta.data;\n      mma.store mc, out.subspan(64, 128).at(bm, bn);\n"), 7,
       "data;", "sparse WGMMA metadata must be loaded with mma.load before use, got `ta.data`",
       "load it first: `me = mma.load meta_tile;`"},
  };
}

}  // namespace croq::sema::test
