// Copy and loop forms of Croqtile's end-to-end programs, through lowering:
// a `.subspan` copied without `.at` (its first tile), destinations larger
// than the source (zero-filled). Each kernel's CUDA compiles with NVRTC.
#include <gtest/gtest.h>

#include "jit/nvrtc_compiler.hpp"
#include "specialize/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

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

}  // namespace
}  // namespace croq::pipeline
