// Codegen golden tests: each sample's kernel, specialized for the shapes
// its host code uses, must produce exactly the reviewed CUDA in
// tests/data/cuda/<sample>.cu (CROQ_UPDATE_GOLDEN=1 rewrites them) and
// that CUDA must compile with NVRTC for sm_90a.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/golden.hpp"
#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::read_file;
using test::sample_source;
using test::tensor;

struct SampleCase {
  std::string sample;
  std::vector<ArgSignature> args;
  std::array<unsigned, 3> grid, block;
  unsigned shared_bytes;
};

class SampleCodegen : public ::testing::TestWithParam<SampleCase> {};

TEST_P(SampleCodegen, MatchesGoldenAndCompiles) {
  const SampleCase& c = GetParam();
  GeneratedKernel k = generate(sample_source(c.sample), c.args, c.sample + ".co");
  std::string golden_path = std::string(CROQ_TEST_DATA_DIR) + "/cuda/" + c.sample + ".cu";
  CROQ_EXPECT_GOLDEN(k.cuda_source, golden_path);
  EXPECT_EQ(k.launch.grid, c.grid);
  EXPECT_EQ(k.launch.block, c.block);
  EXPECT_EQ(k.launch.shared_bytes, c.shared_bytes);
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, c.sample + ".cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Samples, SampleCodegen,
    ::testing::Values(
        SampleCase{"ele_add", {tensor(DType::s32, {100, 300}), tensor(DType::s32, {100, 300})}, {30, 1, 1}, {256, 1, 1}, 0},
        SampleCase{"tiled_add", {tensor(DType::s32, {64, 128}), tensor(DType::s32, {64, 128})}, {32, 1, 1}, {1, 1, 1}, 2048},
        SampleCase{"matmul_scalar", {tensor(DType::s32, {128, 256}), tensor(DType::s32, {256, 256})}, {4, 1, 1}, {256, 1, 1}, 0},
        SampleCase{"matmul_dma", {tensor(DType::s32, {128, 256}), tensor(DType::s32, {256, 256})}, {128, 1, 1}, {256, 1, 1}, 2048},
        SampleCase{"transpose", {tensor(DType::f32, {256, 512})}, {128, 1, 1}, {1, 1, 1}, 4096},
        SampleCase{"view_from", {tensor(DType::f32, {300, 70}), tensor(DType::f32, {8})}, {8, 1, 1}, {1, 1, 1}, 12288},
        SampleCase{"pad", {tensor(DType::f32, {64, 128})}, {16, 1, 1}, {512, 1, 1}, 18 * 34 * 4}),
    [](const auto& info) { return info.param.sample; });

// ---- vectorized cooperative copies -------------------------------------------

// Stages a [rows, cols] window of `a` at (16, c0) in shared memory and
// writes it back into `b` through a second copy.
std::string staging_source(const std::string& dtype, int rows, int cols, int c0) {
  return "__co__ void f(" + dtype + " [M, N] a, " + dtype + " [M, N] b) {\n"
         "  parallel p by 4 : block {\n"
         "    t = dma.copy a.view(" + std::to_string(rows) + ", " + std::to_string(cols) + ").from(16, " +
         std::to_string(c0) + ") => shared;\n"
         "    dma.copy t.data => b.view(" + std::to_string(rows) + ", " + std::to_string(cols) + ").from(16, " +
         std::to_string(c0) + ");\n"
         "  }\n"
         "}\n";
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

GeneratedKernel generate_staging(DType t, const std::string& dtype, std::vector<std::int64_t> shape, int rows, int cols,
                                 int c0, int align = 16) {
  ArgSignature a = tensor(t, shape), b = tensor(t, shape);
  a.align_bytes = align;
  GeneratedKernel k = generate(staging_source(dtype, rows, cols, c0), {a, b});
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "staging.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
  return k;
}

TEST(VectorCopy, AlignedF32TileUses16ByteVectorsBothWays) {
  GeneratedKernel k = generate_staging(DType::f32, "f32", {64, 128}, 16, 32, 32);
  EXPECT_EQ(count_of(k.cuda_source, "*reinterpret_cast<int4*>"), 2u) << k.cuda_source;
  EXPECT_EQ(count_of(k.cuda_source, "// 16-byte vectors of 4 elements\n"), 2u) << k.cuda_source;
  // 16 rows x 8 vectors, consecutive threads on consecutive vectors of a row.
  EXPECT_NE(k.cuda_source.find("e_3 < 128; e_3 += blockDim.x"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("((e_3 % 8) * 4)"), std::string::npos) << k.cuda_source;
}

TEST(VectorCopy, HalfPrecisionMovesEightElementsPerAccess) {
  GeneratedKernel k = generate_staging(DType::f16, "f16", {64, 128}, 16, 64, 0);
  EXPECT_EQ(count_of(k.cuda_source, "// 16-byte vectors of 8 elements\n"), 2u) << k.cuda_source;
}

TEST(VectorCopy, PointerAlignedTo8BytesGetsNarrowerVectors) {
  GeneratedKernel k = generate_staging(DType::f32, "f32", {64, 128}, 16, 32, 0, 8);
  EXPECT_NE(k.cuda_source.find("(data aligned to 8 bytes)"), std::string::npos);
  // The load from `a` is 8 bytes; the store to `b` (16-byte aligned) is too:
  // one vector width per copy, limited by its less aligned side.
  EXPECT_EQ(count_of(k.cuda_source, "// 8-byte vectors of 2 elements\n"), 1u) << k.cuda_source;
  EXPECT_EQ(count_of(k.cuda_source, "// 16-byte vectors of 4 elements\n"), 1u) << k.cuda_source;
  EXPECT_EQ(count_of(k.cuda_source, "reinterpret_cast<const int2*>(&arg_a"), 1u) << k.cuda_source;
}

TEST(VectorCopy, ElementAlignedPointerOrOddOriginFallsBackToScalar) {
  // `a` only 4-byte aligned: its load is scalar, the store to `b` still vectorized.
  GeneratedKernel k = generate_staging(DType::f32, "f32", {64, 128}, 16, 32, 0, 4);
  EXPECT_EQ(count_of(k.cuda_source, "reinterpret_cast<const int4*>(&future"), 1u) << k.cuda_source;
  EXPECT_EQ(count_of(k.cuda_source, "reinterpret_cast<const int4*>(&arg_a"), 0u) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("e_3 < 512; e_3 += blockDim.x"), std::string::npos) << k.cuda_source;
  // Column origin 3: no row start is aligned on either side.
  GeneratedKernel odd = generate_staging(DType::f32, "f32", {64, 128}, 16, 32, 3);
  EXPECT_EQ(count_of(odd.cuda_source, "reinterpret_cast<const int"), 0u) << odd.cuda_source;
  // Column origin 2 (8 bytes): 8-byte vectors.
  GeneratedKernel two = generate_staging(DType::f32, "f32", {64, 128}, 16, 32, 2);
  EXPECT_EQ(count_of(two.cuda_source, "// 8-byte vectors of 2 elements\n"), 2u) << two.cuda_source;
}

TEST(VectorCopy, RowNotAMultipleOfTheVectorGetsAScalarTail) {
  // A global-to-global copy of 7-float rows whose starts are 16-byte aligned.
  GeneratedKernel k = generate(
      "__co__ void f(f32 [64, 128] a, f32 [64, 128] b) {\n"
      "  parallel p by 4 : block\n"
      "    dma.copy a.subspan(16, 7).step(16, 8).at(p, 1) => b.subspan(16, 7).step(16, 8).at(p, 1);\n"
      "}\n",
      {tensor(DType::f32, {64, 128}), tensor(DType::f32, {64, 128})});
  EXPECT_EQ(count_of(k.cuda_source, "// 16-byte vectors of 4 elements, then the last 3 of each row one by one\n"), 1u)
      << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("e_2 < 16; e_2 += blockDim.x"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("e_5 < 48; e_5 += blockDim.x"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("(4 + (e_5 % 3))"), std::string::npos) << k.cuda_source;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "tail.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(VectorCopy, InnerExtentNotAMultipleOfTheVectorKeepsRowsUnaligned) {
  // N = 130: row starts of `a` are 8-byte but not 16-byte aligned.
  GeneratedKernel k = generate_staging(DType::f32, "f32", {64, 130}, 16, 32, 0);
  EXPECT_EQ(count_of(k.cuda_source, "// 8-byte vectors of 2 elements\n"), 2u) << k.cuda_source;
  GeneratedKernel odd = generate_staging(DType::f32, "f32", {64, 129}, 16, 32, 0);
  EXPECT_EQ(count_of(odd.cuda_source, "reinterpret_cast<const int"), 0u) << odd.cuda_source;
}

TEST(VectorCopy, GuardedCopiesOfMultiWordElementTypesCompile) {
  // `unsigned char(0)` is not valid CUDA; the zero of a guarded read must be a cast.
  GeneratedKernel k = generate_staging(DType::u8, "u8", {30, 128}, 16, 32, 0);
  EXPECT_NE(k.cuda_source.find("static_cast<unsigned char>(0)"), std::string::npos) << k.cuda_source;
}

TEST(VectorCopy, GuardedWindowsStayScalar) {
  // M = 30: the window of 16 rows at row 16 reaches past the tensor.
  GeneratedKernel k = generate_staging(DType::f32, "f32", {30, 128}, 16, 32, 0);
  EXPECT_EQ(count_of(k.cuda_source, "reinterpret_cast<const int"), 0u) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find(" < 30"), std::string::npos) << k.cuda_source;
}

TEST(VectorCopy, TilesThatMayReachPastTheTensorMoveVectorsWhenInside) {
  // 30 rows in 4 tiles of 8: the last tile (rows 24..31) reaches past the
  // tensor. Tiles starting below row 23 move vectors; the last one moves
  // elements, each guarded.
  GeneratedKernel k = generate(
      "__co__ void f(f32 [30, 128] a, f32 [30, 128] b) {\n"
      "  parallel p by 4 : block {\n"
      "    t = dma.copy a.chunkat(p, _) => shared;\n"
      "    dma.copy t.data => b.chunkat(p, _);\n"
      "  }\n"
      "}\n",
      {tensor(DType::f32, {30, 128}), tensor(DType::f32, {30, 128})});
  EXPECT_EQ(count_of(k.cuda_source, "reinterpret_cast<const int4"), 2u) << k.cuda_source;
  EXPECT_EQ(count_of(k.cuda_source, " < 23)) {"), 2u) << k.cuda_source;
  const std::size_t vectors = k.cuda_source.find("reinterpret_cast<const int4"), guarded = k.cuda_source.find(" < 30");
  ASSERT_NE(guarded, std::string::npos) << k.cuda_source;
  EXPECT_LT(vectors, guarded) << "the guarded copy is the else branch";
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "tail.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

// ---- .zfill warnings ------------------------------------------------------------

struct ZfillCase {
  std::string name;
  std::string statement;  // on line 4, inside a block level; `buf` is shared s32 [16, 64]
  std::string message;    // empty: no warning
  std::string hint;
};

class ZfillWarnings : public ::testing::TestWithParam<ZfillCase> {};

TEST_P(ZfillWarnings, ExactMessageAndLocation) {
  const ZfillCase& c = GetParam();
  std::string source =
      "__co__ void f(s32 [60, 64] a, s32 [64, 64] b) {\n"
      "  parallel i by 4 : block {\n"
      "    shared s32 [16, 64] buf;\n"
      "    " + c.statement + "\n"
      "    dma.copy buf => b.chunkat(i, _);\n"
      "  }\n"
      "}\n";
  GeneratedKernel k = generate(source, {tensor(DType::s32, {60, 64}), tensor(DType::s32, {64, 64})});
  if (c.message.empty()) {
    EXPECT_TRUE(k.warnings.empty()) << k.warnings[0].message;
    return;
  }
  ASSERT_EQ(k.warnings.size(), 1u);
  EXPECT_EQ(k.warnings[0].severity, Severity::warning);
  EXPECT_EQ(k.warnings[0].message, c.message);
  EXPECT_EQ(k.warnings[0].hint, c.hint);
  EXPECT_EQ(k.warnings[0].line, 4);
  EXPECT_EQ(k.warnings[0].column, 5);
}

INSTANTIATE_TEST_SUITE_P(
    Codegen, ZfillWarnings,
    ::testing::Values(
        ZfillCase{"RedundantOnAFullTile", "t = dma.copy.zfill b.chunkat(i, _) => shared;",
                  "`.zfill` is redundant: the source tile always covers the destination", ""},
        ZfillCase{"RedundantIntoAnEqualBuffer", "dma.copy.zfill b.view(16, 64).from(16, 0) => buf;",
                  "`.zfill` is redundant: the source tile always covers the destination", ""},
        ZfillCase{"MissingOnATail", "t = dma.copy a.subspan(16, 64).at(i, 0) => shared;",
                  "the source tile can reach past its tensor; elements past the end are filled with zero",
                  "add `.zfill` to say so"},
        ZfillCase{"MissingIntoALargerDestination", "dma.copy b.view(10, 64).from(3, 0) => buf;",
                  "the destination s32 [16, 64] is larger than the source tile s32 [10, 64]; the elements it does "
                  "not cover are filled with zero",
                  "add `.zfill` to say so"},
        ZfillCase{"NeededOnATail", "t = dma.copy.zfill a.subspan(16, 64).at(i, 0) => shared;", "", ""},
        ZfillCase{"NeededIntoALargerDestination", "dma.copy.zfill b.view(10, 64).from(3, 0) => buf;", "", ""},
        ZfillCase{"PlainFullTile", "dma.copy b.chunkat(i, _) => buf;", "", ""}),
    [](const auto& info) { return info.param.name; });

// Croqtile's copies into a larger destination zero what the source does not
// cover (upstream's tiled_dma programs check it); `.zfill` only says so.
TEST(ZfillCodegen, LargerDestinationIsZeroedWithOrWithoutZfill) {
  auto source = [](const std::string& modifier) {
    return "__co__ void f(s32 [64, 64] b) {\n"
           "  parallel i by 4 : block {\n"
           "    shared s32 [16, 64] buf;\n"
           "    dma.copy" + modifier + " b.view(10, 64).from(3, 0) => buf;\n"
           "    dma.copy buf => b.chunkat(i, _);\n"
           "  }\n"
           "}\n";
  };
  GeneratedKernel plain = generate(source(""), {tensor(DType::s32, {64, 64})});
  GeneratedKernel zfill = generate(source(".zfill"), {tensor(DType::s32, {64, 64})});
  // Both cover the whole buffer (16 x 64), reading only the 10 valid rows.
  EXPECT_NE(zfill.cuda_source.find("buf_2[(i_4 + (i_5 * 64))] = (i_5 < 10) ? arg_b[(i_4 + ((3 + i_5) * 64))] : int(0);"),
            std::string::npos) << zfill.cuda_source;
  EXPECT_EQ(plain.cuda_source, zfill.cuda_source);
}

}  // namespace
}  // namespace croq::pipeline
