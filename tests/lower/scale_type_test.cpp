// Kernels of tf32 and the block-scale types (f8_ue8m0, f8_ue4m3) through the
// whole pipeline: the CUDA they become (the scale-type prelude's storage
// structs, arithmetic through f32, copies and TMA of their bits) compiles
// with NVRTC for sm_90a (and sm_80 without TMA). The results are
// tests/gpu/scale_type_gpu_test.cpp's. The kernels are the sub-byte ones.
#include <gtest/gtest.h>

#include "common/subbyte_sources.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

const std::vector<std::string> kScaleTypes = {"tf32", "f8_ue8m0", "f8_ue4m3"};

DType dtype_named(const std::string& name) {
  DType t{};
  EXPECT_TRUE(parse_dtype(name, t)) << name;
  return t;
}

bool has(const GeneratedKernel& k, const std::string& text) { return k.cuda_source.find(text) != std::string::npos; }

void expect_compiles(const GeneratedKernel& k, const std::string& what, const std::string& arch = "sm_90a") {
  try {
    jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, what + ".cu", k.entry, {arch, false, {}});
    EXPECT_FALSE(out.cubin.empty()) << what;
  } catch (const CompileError& e) {
    ADD_FAILURE() << what << ": NVRTC rejected the kernel: " << e.what() << "\n" << k.cuda_source;
  }
}

class ScaleTypeKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(ScaleTypeKernels, CopiesMoveTheirBits) {
  const std::string name = GetParam();
  const DType t = dtype_named(name);
  GeneratedKernel k = generate(croq::test::subbyte_moves(name), std::vector<ArgSignature>(4, tensor(t, {5, 64})));
  EXPECT_TRUE(has(k, "croq_" + name + "* __restrict__ a")) << k.cuda_source;
  EXPECT_TRUE(has(k, "typedef croq_dev::")) << k.cuda_source;
  EXPECT_FALSE(has(k, "struct SmallFloat")) << "no sub-byte prelude:\n" << k.cuda_source;
  EXPECT_TRUE(has(k, "croq_" + name + " future_")) << k.cuda_source;  // the local tile
  // Element copies assign the struct: no conversion on the way.
  EXPECT_TRUE(has(k, "arg_elements[(((q_4 * 8) + j_6) + (p_1 * 64))] = arg_a[")) << k.cuda_source;
  expect_compiles(k, "moves_" + name);
  expect_compiles(k, "moves_" + name + "_sm80", "sm_80");

  GeneratedKernel odd = generate(croq::test::subbyte_odd_copy(name), {tensor(t, {6, 17, 33})});
  EXPECT_EQ(odd.output_dtype, t);
  EXPECT_EQ(odd.output_shape, (std::vector<std::int64_t>{6, 17, 33}));
  expect_compiles(odd, "odd_copy_" + name);
}

TEST_P(ScaleTypeKernels, ArithmeticComputesInF32) {
  const std::string name = GetParam();
  const DType t = dtype_named(name);
  GeneratedKernel k = generate(croq::test::subbyte_arithmetic(name),
                               {tensor(t, {3, 64}), tensor(t, {3, 64}), tensor(DType::f16, {3, 64}), tensor(t, {3, 64}),
                                tensor(t, {3, 64}), tensor(DType::f32, {3, 64})});
  EXPECT_TRUE(has(k, "(float)(arg_a[")) << k.cuda_source;     // reads widen
  EXPECT_TRUE(has(k, "(croq_" + name + ")(")) << k.cuda_source;  // stores convert back
  EXPECT_TRUE(has(k, "(__half)((float)((croq_" + name + ")(")) << k.cuda_source;  // f16 from the rounded sum
  EXPECT_FALSE(has(k, "+= ")) << "no compound assignment on storage structs:\n" << k.cuda_source;
  expect_compiles(k, "arith_" + name);
  expect_compiles(k, "arith_" + name + "_sm80", "sm_80");
}

TEST_P(ScaleTypeKernels, TmaMovesTheirBits) {
  const std::string name = GetParam();
  const DType t = dtype_named(name);
  GeneratedKernel k =
      generate(croq::test::subbyte_tma(name), {tensor(t, {64, 128}), tensor(t, {64, 128}), tensor(DType::f32, {64, 128})});
  int maps = 0;
  for (const KernelParam& p : k.params)
    if (p.kind == KernelParam::Kind::tensor_map) {
      ++maps;
      EXPECT_EQ(p.box, (std::vector<std::uint32_t>{16, 128})) << p.name;
    }
  EXPECT_EQ(maps, 2) << k.cuda_source;
  EXPECT_TRUE(has(k, "tma_load_2d")) << k.cuda_source;
  expect_compiles(k, "tma_" + name);
}

// Prints, math builtins, scalar locals with compound assignment, zero-filled
// tails and padding read the types as floats.
TEST_P(ScaleTypeKernels, PrintsMathLocalsTailsAndPadding) {
  const std::string name = GetParam();
  const DType t = dtype_named(name);
  const std::string source =
      "__co__ void misc(" + name + " [20] a, " + name + " [32] c, f32 [32] r) {\n"
      "  parallel p by 2 : block {\n"
      "    s = dma.copy.zfill a.subspan(16).at(p) => shared;\n"
      "    v = dma.pad<{1}, {1}, {0}, 1> s.data => local;\n"
      "    parallel q by 16 : thread {\n"
      "      if (q == 0) println(\"first \", s.data.at(q));\n"
      "      " + name + " k = s.data.at(q);\n"
      "      k += 1;\n"
      "      c.at(p # q) = __max(k, s.data.at(q));\n"
      "      r.at(p # q) = __sqrt(__fabs(s.data.at(q))) + v.data.at(q);\n"
      "    }\n"
      "  }\n"
      "}\n";
  GeneratedKernel k = generate(source, {tensor(t, {20}), tensor(t, {32}), tensor(DType::f32, {32})});
  EXPECT_TRUE(has(k, ": croq_" + name + "(0);")) << k.cuda_source;  // the tail reads as zero
  EXPECT_TRUE(has(k, "printf(")) << k.cuda_source;
  expect_compiles(k, "misc_" + name);
  expect_compiles(k, "misc_" + name + "_sm80", "sm_80");
}

INSTANTIATE_TEST_SUITE_P(EveryType, ScaleTypeKernels, ::testing::ValuesIn(kScaleTypes),
                         [](const auto& info) { return info.param; });

// The prelude is pasted once, only where used; conversions between the new
// types and others go through f32.
TEST(ScaleTypeKernelsPrelude, OnlyWhereUsedAndConvertsThroughF32) {
  GeneratedKernel plain = generate("__co__ void f(f32 [64] a, f32 [64] b) {\n  parallel p by 64\n    b.at(p) = a.at(p);\n}\n",
                                   {tensor(DType::f32, {64}), tensor(DType::f32, {64})});
  EXPECT_FALSE(has(plain, "croq_dev::Tf32")) << plain.cuda_source;
  GeneratedKernel mixed = generate(
      "__co__ void f(tf32 [64] a, f8_ue8m0 [64] b, f8_ue4m3 [64] c, s4 [64] d, f8_e4m3 [64] e) {\n"
      "  parallel p by 64 {\n"
      "    b.at(p) = a.at(p);\n    c.at(p) = b.at(p);\n    d.at(p) = c.at(p);\n    e.at(p) = a.at(p);\n"
      "    a.at(p) = d.at(p);\n  }\n}\n",
      {tensor(DType::tf32, {64}), tensor(DType::f8_ue8m0, {64}), tensor(DType::f8_ue4m3, {64}), tensor(DType::s4, {64}),
       tensor(DType::f8_e4m3, {64})});
  const std::string& src = mixed.cuda_source;
  EXPECT_EQ(src.find("struct Tf32"), src.rfind("struct Tf32")) << src;
  EXPECT_NE(src.find("struct Tf32"), std::string::npos) << src;
  // On the element vectors of vectorize_elementwise (8 elements a thread).
  EXPECT_TRUE(has(mixed, "(croq_f8_ue8m0)((float)(a_vec_")) << src;
  EXPECT_TRUE(has(mixed, "(croq_f8_ue4m3)((float)(b_vec_")) << src;
  EXPECT_TRUE(has(mixed, "(croq_s4)((int)((float)(c_vec_")) << src;
  EXPECT_TRUE(has(mixed, "(croq_tf32)((float)((int)(d_vec_")) << src;
  expect_compiles(mixed, "mixed");
}

}  // namespace
}  // namespace croq::pipeline
