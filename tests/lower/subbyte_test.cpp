// Kernels of every sub-byte element type through the whole pipeline: the
// CUDA they become (the prelude's one-byte structs, conversions through f32
// or int, byte copies and TMA descriptors of bytes) and that it compiles
// with NVRTC. The results are tests/gpu/subbyte_gpu_test.cpp's.
#include <gtest/gtest.h>

#include "common/subbyte_sources.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

DType dtype_named(const std::string& name) {
  DType t{};
  EXPECT_TRUE(parse_dtype(name, t)) << name;
  return t;
}

bool has(const GeneratedKernel& k, const std::string& text) { return k.cuda_source.find(text) != std::string::npos; }

// Compiles for `arch` (sm_80 kernels as well as sm_90a ones).
void expect_compiles(const GeneratedKernel& k, const std::string& what, const std::string& arch = "sm_90a") {
  try {
    jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, what + ".cu", k.entry, {arch, false, {}});
    EXPECT_FALSE(out.cubin.empty()) << what;
  } catch (const CompileError& e) {
    ADD_FAILURE() << what << ": NVRTC rejected the kernel: " << e.what() << "\n" << k.cuda_source;
  }
}

class SubByteKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(SubByteKernels, CopiesMoveBytes) {
  const std::string name = GetParam();
  const DType t = dtype_named(name);
  const std::vector<ArgSignature> args(4, tensor(t, {5, 64}));
  GeneratedKernel k = generate(croq::test::subbyte_moves(name), args);
  // Tensors are arrays of the prelude's one-byte structs.
  EXPECT_TRUE(has(k, "croq_" + name + "* __restrict__ a")) << k.cuda_source;
  EXPECT_TRUE(has(k, "typedef croq_dev::")) << k.cuda_source;
  // Whole rows move 16 bytes (16 elements) at a time; the rest element by element.
  EXPECT_TRUE(has(k, "*reinterpret_cast<int4*>(&arg_staged[")) << k.cuda_source;
  EXPECT_TRUE(has(k, "croq_" + name + " future_")) << k.cuda_source;  // the local tile
  EXPECT_TRUE(has(k, "arg_elements[(((q_4 * 8) + j_6) + (p_1 * 64))] = arg_a[")) << k.cuda_source;
  expect_compiles(k, "moves_" + name);
  expect_compiles(k, "moves_" + name + "_sm80", "sm_80");

  GeneratedKernel odd = generate(croq::test::subbyte_odd_copy(name), {tensor(t, {6, 17, 33})});
  EXPECT_EQ(odd.output_dtype, t);
  EXPECT_EQ(odd.output_shape, (std::vector<std::int64_t>{6, 17, 33}));
  expect_compiles(odd, "odd_copy_" + name);
}

TEST_P(SubByteKernels, ArithmeticComputesThroughItsComputeType) {
  const std::string name = GetParam();
  const DType t = dtype_named(name);
  GeneratedKernel k = generate(croq::test::subbyte_arithmetic(name),
                               {tensor(t, {3, 64}), tensor(t, {3, 64}), tensor(DType::f16, {3, 64}), tensor(t, {3, 64}),
                                tensor(t, {3, 64}), tensor(DType::f32, {3, 64})});
  const std::string compute = is_floating(t) ? "(float)" : "(int)";
  EXPECT_TRUE(has(k, compute + "(arg_a[")) << k.cuda_source;                     // reads widen
  EXPECT_TRUE(has(k, "(croq_" + name + ")(")) << k.cuda_source;            // stores narrow back
  EXPECT_FALSE(has(k, "+= ")) << "narrow types have no compound assignment:\n" << k.cuda_source;
  expect_compiles(k, "arith_" + name);
  expect_compiles(k, "arith_" + name + "_sm80", "sm_80");
}

TEST_P(SubByteKernels, TmaMovesBytes) {
  const std::string name = GetParam();
  const DType t = dtype_named(name);
  GeneratedKernel k =
      generate(croq::test::subbyte_tma(name), {tensor(t, {64, 128}), tensor(t, {64, 128}), tensor(DType::f32, {64, 128})});
  int maps = 0;
  for (const KernelParam& p : k.params)
    if (p.kind == KernelParam::Kind::tensor_map) {
      ++maps;
      EXPECT_EQ(p.box, (std::vector<std::uint32_t>{16, 128})) << p.name;  // elements of a byte each
    }
  EXPECT_EQ(maps, 2) << k.cuda_source;
  EXPECT_TRUE(has(k, "tma_load_2d")) << k.cuda_source;
  expect_compiles(k, "tma_" + name);
}

// The other places an element value goes: printf, math builtins, scalar
// locals and their compound assignment, zero-filled tails and padding.
TEST_P(SubByteKernels, PrintsMathLocalsTailsAndPadding) {
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

INSTANTIATE_TEST_SUITE_P(EveryType, SubByteKernels, ::testing::ValuesIn(croq::test::kSubByteTypes),
                         [](const auto& info) { return info.param; });

// The prelude is pasted once, and only into kernels that use the types.
TEST(SubByteKernelsPrelude, OnlyWhereUsed) {
  GeneratedKernel plain = generate("__co__ void f(s8 [64] a, s8 [64] b) {\n  parallel p by 64\n    b.at(p) = a.at(p);\n}\n",
                                   {tensor(DType::s8, {64}), tensor(DType::s8, {64})});
  EXPECT_FALSE(has(plain, "croq_dev::SmallFloat")) << plain.cuda_source;
  GeneratedKernel mixed = generate(
      "__co__ void f(u4 [64] a, f4_e2m1 [64] b, s2 [64] c) {\n  parallel p by 64 {\n"
      "    b.at(p) = a.at(p);\n    c.at(p) = b.at(p);\n  }\n}\n",
      {tensor(DType::u4, {64}), tensor(DType::f4_e2m1, {64}), tensor(DType::s2, {64})});
  const std::string& src = mixed.cuda_source;
  EXPECT_EQ(src.find("struct SmallFloat"), src.rfind("struct SmallFloat")) << src;
  // u4 to f4_e2m1 goes int -> float -> f4; f4 to s2 goes float -> int -> s2
  // (on the element vectors of vectorize_elementwise: 16 a thread).
  EXPECT_TRUE(has(mixed, "(croq_f4_e2m1)((float)((int)(a_vec_")) << src;
  EXPECT_TRUE(has(mixed, "(croq_s2)((int)((float)(b_vec_")) << src;
  expect_compiles(mixed, "mixed");
}

}  // namespace
}  // namespace croq::pipeline
