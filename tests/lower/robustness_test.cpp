// The middle end on kernels at the edges: index arithmetic past 2^31 (the
// 64-bit decision read off the IR), grids past 2^31 - 1 blocks (a loop over
// block indices), hostile source names in #line and comments, and
// arithmetic faults and impossible sizes as CompileErrors at line:col.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/large_tensor_kernels.hpp"
#include "common/ir_test_util.hpp"

namespace croq::ir {
namespace {

using test::contains;
using test::tensor;

constexpr std::int64_t kLarge = (std::int64_t{1} << 31) + 4099;

struct Naming {
  std::string source_name = "kernel.co";
  std::vector<std::string> dynamic_dims;
};

pipeline::GeneratedKernel generate(const std::string& source, const std::vector<abi::ArgSignature>& args,
                                   const Naming& setup = {}, const std::string& arch = "sm_90a") {
  CompileOptions options;
  options.source_name = setup.source_name;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  pipeline::GenerateOptions g;
  g.keep_ir = true;
  g.verify_ir = true;
  g.dynamic_dims = setup.dynamic_dims;
  return pipeline::generate(*program, fn, args, target::parse_target(arch), g);
}

std::vector<abi::ArgSignature> three_u8(std::vector<std::int64_t> shape) {
  return {tensor(DType::u8, shape), tensor(DType::u8, shape), tensor(DType::u8, shape)};
}

// The error generating `body` (statements of a function of one u8 [N]
// argument, from line 2) reports, or nothing when it generates.
std::optional<CompileError> error_of(const std::string& body, std::int64_t n = std::int64_t{1} << 62) {
  try {
    generate("__co__ void f(u8 [N] a) {\n" + body + "\n}\n", {tensor(DType::u8, {n})});
  } catch (const CompileError& e) {
    return e;
  }
  return std::nullopt;
}

// ---- 64-bit index arithmetic -------------------------------------------------------

TEST(IndexWidth, SmallTensorsAndTheGemmSampleKeep32BitIndices) {
  pipeline::GeneratedKernel small = generate(croq::test::kLargeFlatAdd, three_u8({1000}));
  EXPECT_FALSE(contains(small.ir, "64-bit indices")) << small.ir;
  // One thread per 16-element vector (vectorize_elementwise), the element index from it.
  EXPECT_TRUE(contains(small.ir, " = ((blockIdx.x * 256) + threadIdx.x)")) << small.ir;
  EXPECT_TRUE(contains(small.ir, "let i32 lin_0 = ((vec_")) << small.ir;
  EXPECT_FALSE(contains(small.cuda_source, "long long")) << small.cuda_source;

  const std::string gemm = test::sample_source("matmul_dma");
  pipeline::GeneratedKernel k = generate(gemm, {tensor(DType::s32, {128, 256}), tensor(DType::s32, {256, 256})});
  EXPECT_FALSE(contains(k.ir, "64-bit indices")) << k.ir;
  EXPECT_FALSE(contains(k.ir, "i64")) << k.ir;
  EXPECT_FALSE(contains(k.cuda_source, "long long")) << k.cuda_source;
}

TEST(IndexWidth, TensorsPast2To31ElementsIndexIn64Bits) {
  pipeline::GeneratedKernel k = generate(croq::test::kLargeFlatAdd, three_u8({kLarge}));
  EXPECT_TRUE(contains(k.ir, "64-bit indices")) << k.ir;
  EXPECT_TRUE(contains(k.ir, " = ((convert<i64>(blockIdx.x) * 256) + threadIdx.x)")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "let i64 lin_0 = ((vec_")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "let i64 i_1 = lin_0")) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "const long long i_1 = lin_0;")) << k.cuda_source;
  // The element and vector indices are 64-bit (the copy loops' counters
  // within one 16-element vector stay int).
  EXPECT_FALSE(contains(k.cuda_source, "const int lin_")) << k.cuda_source;
  EXPECT_FALSE(contains(k.cuda_source, "const int vec_")) << k.cuda_source;
  EXPECT_FALSE(contains(k.cuda_source, "const int i_1 =")) << k.cuda_source;
  // One thread per 16-element vector: cdiv((2^31 + 4099) / 16, 256) blocks, no loop needed.
  EXPECT_EQ(k.launch.grid[0], 524289u);
  EXPECT_FALSE(k.runtime_grid.grid_stride);
}

// Two dims of 2^16 + 1 each fit in 32 bits; their product does not, so the
// addresses (row * N + column) scale in 64 bits.
TEST(IndexWidth, ProductsOfSmallDimsPast2To31ScaleAddressesIn64Bits) {
  const std::int64_t d = (std::int64_t{1} << 16) + 1;
  pipeline::GeneratedKernel k = generate(croq::test::kLargeTwoDimAdd, three_u8({d, d}));
  EXPECT_TRUE(contains(k.ir, "64-bit indices")) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "((long long)(i_2) * 65537)")) << k.cuda_source;
}

// A count or coordinate past 2^31 - 1 in an otherwise small kernel turns
// the decision over: lowering starts again in 64 bits.
TEST(IndexWidth, ATileCoordinatePast2To31RestartsIn64Bits) {
  pipeline::GeneratedKernel k = generate(
      "__co__ void f(u8 [N] a) {\n  parallel p by 4 : block { a.subspan(1 << 40).at(p).at(0) = 1; }\n}\n",
      {tensor(DType::u8, {16})});
  EXPECT_TRUE(contains(k.ir, "64-bit indices")) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "((long long)(p_1) * 1099511627776) < 16")) << k.cuda_source;
  EXPECT_TRUE(k.warnings.empty());
}

// ---- grids past 2^31 - 1 blocks ----------------------------------------------------------

TEST(GridStride, ABlockLevelPastAGridLoopsOverBlockIndices) {
  pipeline::GeneratedKernel k = generate(croq::test::kLargeBlockAdd, three_u8({kLarge}));
  EXPECT_EQ(k.launch.grid[0], 2147483647u);
  EXPECT_TRUE(k.runtime_grid.grid_stride);
  EXPECT_TRUE(contains(k.ir, "looping over block indices")) << k.ir;
  EXPECT_TRUE(contains(k.ir, "for lin_0 in [blockIdx.x, 2147487747) step gridDim.x:")) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "for (long long lin_0 = blockIdx.x; lin_0 < 2147487747; lin_0 += gridDim.x) {"))
      << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "// grid 2147483647 (looping over block indices)")) << k.cuda_source;
  // The next block index may reuse shared memory: the body ends with a barrier.
  EXPECT_TRUE(contains(k.cuda_source, "__syncthreads();\n    }\n")) << k.cuda_source;
}

TEST(GridStride, AFlatLevelPastAGridLoopsAndAWithinGridOneDoesNot) {
  const std::int64_t huge = std::int64_t{1} << 40;  // 2^32 blocks of 256
  pipeline::GeneratedKernel k = generate(croq::test::kLargeFlatAdd, three_u8({huge}));
  EXPECT_EQ(k.launch.grid[0], 2147483647u);
  EXPECT_TRUE(k.runtime_grid.grid_stride);
  EXPECT_TRUE(contains(k.ir, "step (convert<i64>(gridDim.x) * 256):")) << k.ir;

  pipeline::GeneratedKernel small = generate(croq::test::kLargeBlockAdd, three_u8({1000}));
  EXPECT_EQ(small.launch.grid[0], 1000u);
  EXPECT_FALSE(small.runtime_grid.grid_stride);
  EXPECT_FALSE(contains(small.ir, "gridDim")) << small.ir;
}

TEST(GridStride, RuntimeBlockCountsLoopOverBlockIndices) {
  abi::ArgSignature dynamic = tensor(DType::u8, {-1});
  pipeline::GeneratedKernel k = generate(croq::test::kLargeBlockAdd, {dynamic, dynamic, dynamic}, Naming{"kernel.co", {"N"}});
  EXPECT_TRUE(k.runtime_grid.dynamic());
  EXPECT_TRUE(k.runtime_grid.grid_stride);
  EXPECT_TRUE(contains(k.cuda_source, "for (long long lin_0 = blockIdx.x; lin_0 < dim_N; lin_0 += gridDim.x) {"))
      << k.cuda_source;
}

TEST(GridStride, HopperKernelsCannotLoopOverBlockIndices) {
  const std::string source =
      "__co__ void f(f16 [N] a) {\n  parallel p by N : block {\n    shared event e;\n    trigger e;\n  }\n}\n";
  try {
    generate(source, {tensor(DType::f16, {kLarge})});
    ADD_FAILURE() << "a Hopper kernel past 2^31 - 1 blocks was accepted";
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    EXPECT_NE(d.message.find("cannot loop over block indices"), std::string::npos) << e.what();
    EXPECT_EQ(d.line, 2);
    EXPECT_EQ(d.column, 12);
  }
}

// ---- hostile source names ------------------------------------------------------------------

TEST(SourceNames, QuotesNewlinesAndNonAsciiStayInsideLineDirectivesAndComments) {
  const std::string name = "dir\\evil\".co\n#define threadIdx blockIdx\n\xc3\xa9";
  pipeline::GeneratedKernel k = generate(croq::test::kLargeFlatAdd, three_u8({64}), Naming{name, {}});
  // Quotes, backslashes and `?` escaped, controls and non-ASCII in octal: the literal decodes to the name.
  EXPECT_TRUE(contains(k.cuda_source, "#line 2 \"dir\\\\evil\\\".co\\012#define threadIdx blockIdx\\012\\303\\251\"\n"))
      << k.cuda_source;
  EXPECT_FALSE(contains(k.cuda_source, "\n#define")) << k.cuda_source;
  const std::string header = k.cuda_source.substr(0, k.cuda_source.find('\n'));
  EXPECT_EQ(header, "// Generated by libcroqjit from dir\\134evil\".co\\012#define threadIdx blockIdx\\012\\303\\251: `add` for u8 [64] u8 [64] u8 [64]");
}

TEST(SourceNames, DeviceCodeGetsALineDirective) {
  const std::string source = "__device__ int twice(int x) { return 2 * x; }\n" + std::string(croq::test::kLargeFlatAdd);
  pipeline::GeneratedKernel k = generate(source, three_u8({64}));
  EXPECT_TRUE(contains(k.cuda_source, "#line 1 \"kernel.co\"\n__device__ int twice")) << k.cuda_source;
}

// User names that look like generated ones get a prefix; an entry that
// would be a prelude name is renamed.
TEST(SourceNames, UserNamesStayApartFromGeneratedOnes) {
  const std::string source =
      "__co__ void dev(s32 [N] arg_x, s32 [N] x) {\n  parallel p by N {\n    mutable int arg_x_0 = p;\n"
      "    mutable int croq_output = p;\n    x.at(p) = arg_x_0 + croq_output;\n  }\n}\n";
  pipeline::GeneratedKernel k = generate(source, {tensor(DType::s32, {8}), tensor(DType::s32, {8})});
  EXPECT_EQ(k.entry, "croq_dev_kernel");
  EXPECT_TRUE(contains(k.cuda_source, "int uarg_x_0_")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "int ucroq_output_")) << k.cuda_source;
}

// Arithmetic on a tile is refused where it is written (it used to reach
// the builder as an expression without a value).
TEST(Operands, ArithmeticOnATileIsACompileError) {
  std::optional<CompileError> e = error_of("  parallel p by 1 : block { a.at(0) = -a; }", 16);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->diagnostics().at(0).message, "expected a number, an index or an element here, got `a`");
  EXPECT_EQ(e->diagnostics().at(0).line, 2);
  EXPECT_EQ(e->diagnostics().at(0).column, 40);
}

// ---- arithmetic faults and impossible sizes ----------------------------------------------

struct Fault {
  std::string body;
  std::string message;  // the whole message
  int line = 2, column = 0;
};

class ArithmeticFaults : public ::testing::TestWithParam<Fault> {};

TEST_P(ArithmeticFaults, AreCompileErrorsAtTheExpression) {
  const Fault& f = GetParam();
  std::optional<CompileError> e = error_of(f.body);
  ASSERT_TRUE(e) << f.body;
  const Diagnostic& d = e->diagnostics().at(0);
  EXPECT_EQ(d.message, f.message) << f.body;
  EXPECT_EQ(d.line, f.line) << f.body;
  EXPECT_EQ(d.column, f.column) << f.body;
}

INSTANTIATE_TEST_SUITE_P(
    Lowering, ArithmeticFaults,
    ::testing::Values(
        Fault{"  foreach i in [N * 4] { a.at(0) = 1; }",
              "`N * 4` overflows a 64-bit signed integer (4611686018427387904 * 4)", 2, 17},
        Fault{"  foreach i in [cdiv(N, 0)] { a.at(0) = 1; }", "`cdiv(N, 0)` divides by zero", 2, 17},
        Fault{"  parallel i by 4 { a.at(i) = i / 0; }", "`i / 0` divides by zero", 2, 31},
        Fault{"  parallel {p, q} by [N, 4] : block { a.at(0) = 1; }",
              "`[N, 4]` overflows a 64-bit signed integer (the level's total count, 4611686018427387904 * 4)", 2, 22},
        Fault{"  foreach {i, j} in [N, 4] { a.at(0) = i # j; }",
              "`i # j` overflows a 64-bit signed integer (the index takes 4611686018427387904 * 4 values)", 2, 40},
        Fault{"  foreach i in [|[N, 8]|] { a.at(0) = 1; }",
              "`|[N, 8]|` overflows a 64-bit signed integer (the product of [4611686018427387904, 8])", 2, 17},
        Fault{"  parallel p by 4 : block { a.subspan(1 << 62).at(p).at(0) = 1; }",
              "`p` overflows a 64-bit signed integer (tile 3 of 4611686018427387904 elements ends past 2^63 - 1)", 2, 51},
        Fault{"  parallel p by 1 : block { t = dma.copy a.subspan(4).at(-1) => shared; }", "tile coordinate -1 is negative",
              2, 58},
        Fault{"  parallel p by 1 : block { local u8 [1 << 40] t; }",
              "this local buffer, u8 [1099511627776], needs 1099511627776 bytes per thread; a thread's local memory "
              "holds at most 524288",
              2, 48},
        Fault{"  parallel p by 1 : block { shared u8 [1 << 50] t; }",
              "this shared buffer, u8 [1125899906842624], is larger than any device memory", 2, 49}));

TEST(ArgumentExtents, AreCheckedBeforeLowering) {
  const std::string source = "__co__ void f(s32 [M, N] a) {\n  parallel {i, j} by [M, N] a.at(i, j) = 1;\n}\n";
  auto message = [&](std::vector<std::int64_t> shape) -> std::string {
    try {
      generate(source, {tensor(DType::s32, std::move(shape))});
    } catch (const ArgumentError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message({std::int64_t{1} << 62, 8}).find("argument 1 'a': s32 [4611686018427387904, 8] holds more bytes"),
            std::string::npos);
  EXPECT_NE(message({std::int64_t{1} << 32, std::int64_t{1} << 32}).find("holds more bytes than a 64-bit size can count"),
            std::string::npos);
  EXPECT_NE(message({-5, 8}).find("negative extent -5"), std::string::npos);
  EXPECT_NE(message({-1, 8}).find("is not a dynamic dim"), std::string::npos);
}

// Guarded reads nested in indices double the text per level: refused at
// 1 MiB of CUDA, measured as the backend prints it.
TEST(RunawayText, NestedGuardedReadsAreRefused) {
  std::string index = "i";
  for (int k = 0; k < 30; ++k) index = "a.at(i + " + index + ")";
  try {
    generate("__co__ void f(u8 [N] a) {\n  parallel i by N\n    a.at(i) = " + index + ";\n}\n", {tensor(DType::u8, {16})});
    ADD_FAILURE() << "runaway expression accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("generates more than 1 MiB of CUDA"), std::string::npos) << e.what();
    EXPECT_EQ(e.diagnostics().at(0).line, 3);
  }
}

// Statements of expressions just below that cap add up: the kernel's text
// is capped at 4 MiB too, at the statement the backend prints past it.
TEST(RunawayText, KernelTextPast4MiBIsRefused) {
  std::string index = "i";
  for (int k = 0; k < 11; ++k) index = "a.at(i + " + index + ")";
  std::string body;
  for (int k = 0; k < 60; ++k) body += "    a.at(i) = " + index + ";\n";
  try {
    generate("__co__ void f(u8 [N] a) {\n  parallel i by N {\n" + body + "  }\n}\n", {tensor(DType::u8, {16})});
    ADD_FAILURE() << "runaway kernel accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("the kernel's CUDA passes 4 MiB before this statement"), std::string::npos) << e.what();
    EXPECT_GT(e.diagnostics().at(0).line, 3);
  }
}

}  // namespace
}  // namespace croq::ir
