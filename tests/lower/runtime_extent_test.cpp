// Tiles whose extent the kernel computes (`view(n, 16)`, `subspan(n, 16)`)
// keep a static bound and a runtime limit; copies guard the limit and stop
// the kernel when it passes the tile they move.
#include <gtest/gtest.h>

#include <string>

#include "common/runtime_extent_sources.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RuntimeExtent, CopiesMoveTheBoundAndGuardTheLimit) {
  GeneratedKernel k = generate(croq::test::kChunkedRows, {tensor(DType::f32, {10, 48}), tensor(DType::f32, {10, 48})});
  // Each copy moves [4, 16] tiles below the row count n (the view's bound is
  // R = 10, the shared tile's 4: the copy takes 4).
  EXPECT_EQ(count_of(k.ir, "[4 below n_3, 16]"), 5u) << k.ir;
  // n <= 4 is checked once per copy (both sides name n).
  EXPECT_EQ(count_of(k.cuda_source, "if (!((n_3 <= 4))) __trap();"), 3u) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("if (i_12 < n_3) xs_4["), std::string::npos) << k.cuda_source;
  // The loop runs to the computed bound.
  EXPECT_NE(k.cuda_source.find("for (int r_9 = 0; r_9 < n_3; ++r_9)"), std::string::npos) << k.cuda_source;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "chunked.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(RuntimeExtent, WildcardTakesTheWholeDimAndAtStepsByTheLimit) {
  const std::string source =
      "__co__ void f(s32 [8, 32] x, s32 [8, 32] y) {\n  parallel b by 2 : block {\n"
      "    n = b + 2;\n    shared s32 [4, 32] s;\n"
      "    dma.copy x.subspan(n, _).at(1, 0) => s.subspan(n, _).at(0, 0);\n"
      "    dma.copy s => y.view(n, _).from(4 * b, 0);\n  }\n}\n";
  GeneratedKernel k = generate(source, {tensor(DType::s32, {8, 32}), tensor(DType::s32, {8, 32})});
  // `.at(1, 0)` of tiles n rows high starts at row n; `_` is all 32 columns.
  EXPECT_NE(k.ir.find("arg_x at ((1 * n_"), std::string::npos) << k.ir;
  EXPECT_NE(k.ir.find("below n_2, 32]"), std::string::npos) << k.ir;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "wildcard.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(RuntimeExtent, ADimOfDynamicExtentHasNoBound) {
  CompileOptions options;
  const std::string source =
      "__co__ void f(s32 [M, 32] x) {\n  parallel b by 2 : block {\n    n = b + 1;\n"
      "    t = dma.copy x.view(n, 32).from(0, 0) => shared;\n  }\n}\n";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  GenerateOptions generate_options;
  generate_options.dynamic_dims = {"M"};
  try {
    generate_program(*program, fn, {tensor(DType::s32, {-1, 32})}, target::parse_target("sm_90a"), generate_options);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    EXPECT_EQ(d.message,
              "a tile extent computed in the kernel (`n`) in a dimension of dynamic extent is not supported yet by "
              "libcroqjit");
    EXPECT_EQ(d.line, 4);
  }
}

}  // namespace
}  // namespace croq::pipeline
