// Strided views lower to a pointer into their tensor whose buffer carries
// the strides: the CUDA multiplies each index by its stride, copies of them
// stay scalar, a window past the tensor is an error when its offsets are
// constants and stops the kernel otherwise.
#include <gtest/gtest.h>

#include <string>

#include "common/specialize_test_util.hpp"
#include "common/strided_view_kernel.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

TEST(StridedView, APointerWithItsStrides) {
  GeneratedKernel k = generate(croq::test::kStridedViewKernel, {tensor(DType::f32, {64, 32}), tensor(DType::f32, {64, 4}),
                                                               tensor(DType::f32, {16, 6})});
  // The window's first element: p * 40 + 5 * 3 elements into a.
  EXPECT_NE(k.cuda_source.find("float* a_strided_"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find(" * 40)"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find(" * 3)"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find(" * 16)"), std::string::npos) << k.cuda_source;
  // Runtime offsets: the window's end is checked against a's 2048 elements.
  EXPECT_NE(k.cuda_source.find("< 2048"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("__trap();"), std::string::npos) << k.cuda_source;
  EXPECT_EQ(k.cuda_source.find("float4"), std::string::npos) << "strided rows are not vectors:\n" << k.cuda_source;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "strided.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(StridedView, ConstantOffsetsAreCheckedAtCompileTime) {
  const std::string source =
      "__co__ void f(f32 [8, 8] a, f32 [4, 6] out) {\n  parallel p by 1 : block {\n"
      "    b = a.view(4, 6 : 16, 1).from(1, 1);\n"
      "    parallel {i, j} by [4, 6] : thread {\n      out.at(i, j) = b.at(i, j);\n    }\n  }\n}\n";
  try {
    generate(source, {tensor(DType::f32, {8, 8}), tensor(DType::f32, {4, 6})});
    FAIL() << "the window ends at element 70 of 64";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].message, "this strided view reaches element 70 of `a`, which has 64 elements");
    EXPECT_EQ(e.diagnostics()[0].hint, "the last element is at the sum of (offset + extent - 1) * stride over the dimensions");
    EXPECT_EQ(e.diagnostics()[0].line, 3);
  }
}

TEST(StridedView, StridesOfADimAreBoundPerCall) {
  const std::string source =
      "__co__ void f(f32 [M, N] a, f32 [4, 4] out) {\n  parallel p by 1 : block {\n"
      "    s = dma.copy a.view(4, 4 : N, 2).from(0, 0) => shared;\n    dma.copy s.data => out;\n  }\n}\n";
  GeneratedKernel k = generate(source, {tensor(DType::f32, {8, 24}), tensor(DType::f32, {4, 4})});
  EXPECT_NE(k.cuda_source.find(" * 24)"), std::string::npos) << k.cuda_source;
  EXPECT_EQ(k.cuda_source.find("__trap"), std::string::npos) << "constant offsets need no check:\n" << k.cuda_source;
}

}  // namespace
}  // namespace croq::pipeline
