// Dynamic dims (CompileOptions::dynamic_dims): the dim stays a kernel
// parameter, the CUDA text and the grid rule are shared by every value,
// and uses that need a constant are CompileErrors naming the dim.
#include <gtest/gtest.h>

#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::generate_cuda;
using test::tensor;

GeneratedKernel generate(const std::string& source, const std::vector<ArgSignature>& args,
                         const std::vector<std::string>& dynamic) {
  CompileOptions options;
  options.source_name = "dyn.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, args, 227 * 1024, dynamic);
}

// Rows of M are tiled by 64 (the last tile guarded); columns are static.
const char* kRowScale = R"(__co__ f32 [M, 96] scale(f32 [M, 96] x) {
  f32 [x.span] y;
  parallel t by cdiv(M, 64) : block {
    tile = dma.copy x.subspan(64, 96).at(t, 0) => shared;
    parallel r by 64 : thread {
      foreach c in [96]
        y.subspan(64, 96).at(t, 0).at(r, c) = tile.data.at(r, c) * 2.0f;
    }
  }
  return y;
}
)";

TEST(DynamicDims, OneKernelTextForEveryValueWithTheGridComputedAtLaunch) {
  GeneratedKernel k = generate(kRowScale, {tensor(DType::f32, {-1, 96})}, {"M"});
  EXPECT_NE(k.cuda_source.find("const long long dim_M"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("< dim_M"), std::string::npos) << "tail rows must be guarded by the runtime M\n"
                                                              << k.cuda_source;
  // Parameters: the tensor, M, then the output.
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[1].kind, KernelParam::Kind::dim);
  EXPECT_EQ(k.params[1].dim, (DimSource{0, 0}));
  EXPECT_EQ(k.params[2].kind, KernelParam::Kind::output);
  // blocks = cdiv(M, 64)
  ASSERT_TRUE(k.runtime_grid.dynamic());
  ASSERT_EQ(k.runtime_grid.terms.size(), 1u);
  EXPECT_EQ(k.runtime_grid.terms[0].divisor, 64);
  EXPECT_TRUE(k.runtime_grid.terms[0].ceil);
  EXPECT_EQ(k.runtime_grid.factor, 1);
  // The output is [M, 96], M read from argument 1 dimension 0.
  EXPECT_EQ(k.output_shape, (std::vector<std::int64_t>{-1, 96}));
  ASSERT_EQ(k.output_dim_sources.size(), 2u);
  EXPECT_EQ(k.output_dim_sources[0], (DimSource{0, 0}));
  EXPECT_EQ(k.output_dim_sources[1], DimSource{});
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "dyn.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(DynamicDims, FlatLevelAndRuntimeStridesInnerDynamicDim) {
  // N is the innermost (contiguous) dim, so it enters every row stride.
  const char* src = R"(__co__ void add1(s32 [M, N] a) {
  parallel {i, j} by [M, N]
    a.at(i, j) = a.at(i, j) + 1;
}
)";
  GeneratedKernel k = generate(src, {tensor(DType::s32, {-1, -1})}, {"M", "N"});
  EXPECT_NE(k.cuda_source.find("* dim_N"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("(dim_M * dim_N)"), std::string::npos) << k.cuda_source;
  ASSERT_TRUE(k.runtime_grid.dynamic());
  EXPECT_EQ(k.runtime_grid.per_block, 256);
  EXPECT_EQ(k.runtime_grid.terms.size(), 2u);
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "dyn2.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(DynamicDims, SameTextForStaticDimsAsWithoutThem) {
  const char* src = "__co__ void f(s32 [M, 8] a) {\n  parallel i by 8\n    a.at(0, i) = i;\n}\n";
  GeneratedKernel with = generate(src, {tensor(DType::s32, {4, 8})}, {});
  GeneratedKernel again = generate(src, {tensor(DType::s32, {4, 8})}, {});
  EXPECT_EQ(with.cuda_source, again.cuda_source);
  EXPECT_FALSE(with.runtime_grid.dynamic());
}

struct DynamicErrorCase {
  std::string source;
  std::vector<std::string> dynamic;
  int line, column;
  std::string message_part;
};

class DynamicDimErrors : public ::testing::TestWithParam<DynamicErrorCase> {};

TEST_P(DynamicDimErrors, NameTheDimAndTheLocation) {
  const auto& c = GetParam();
  try {
    generate(c.source, {tensor(DType::s32, {-1, 64})}, c.dynamic);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_NE(e.diagnostics()[0].message.find(c.message_part), std::string::npos) << e.diagnostics()[0].message;
    EXPECT_EQ(e.diagnostics()[0].line, c.line) << e.what();
    EXPECT_EQ(e.diagnostics()[0].column, c.column) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Codegen, DynamicDimErrors,
    ::testing::Values(
        DynamicErrorCase{"__co__ void f(s32 [M, 64] a) {\n  parallel i by 4 : block {\n    t = dma.copy a.chunkat(i, _) => shared;\n  }\n}\n",
                         {"M"}, 3, 28, "`chunkat` splits dimension 0, the dynamic dim `M`"},
        DynamicErrorCase{"__co__ void f(s32 [M, 64] a) {\n  parallel i by 4 : block {\n    local s32 [a.span] t;\n  }\n}\n",
                         {"M"}, 3, 18, "this shape involves the dynamic dim `M`"},
        DynamicErrorCase{"__co__ void f(s32 [M, 64] a) {\n  parallel i by 4 : block {\n    parallel j by M : thread\n      a.at(j, 0) = 1;\n  }\n}\n",
                         {"M"}, 3, 19, "the thread count of a block must be known at compile time"},
        DynamicErrorCase{"__co__ void f(s32 [M, 64] a) {\n  parallel i by 4 : block {\n    t = dma.copy a => shared;\n  }\n}\n",
                         {"M"}, 3, 18, "the copied tile's extent in dimension 0 is the dynamic dim `M`"},
        DynamicErrorCase{"__co__ void f(s32 [M, 64] a) {\n  parallel i by 4 : block {\n  }\n}\n",
                         {"M", "K"}, 1, 13, "CompileOptions::dynamic_dims names `K`, but no tensor parameter of `f` has it"}));

}  // namespace
}  // namespace croq::pipeline
