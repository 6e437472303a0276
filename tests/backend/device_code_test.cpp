// __device__ code pasted into the generated CUDA sees the source's
// #defines (as the C preprocessor would give them to it, from the line they
// are made on), printed from their values; they are undone before the
// generated kernel (issue 30: they were not visible at all).
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline::test {
namespace {

const std::string kKernel = "__co__ void f(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\n";

GeneratedKernel generate_with(const std::string& source, const std::map<std::string, DefineValue>& defines = {}) {
  CompileOptions options;
  options.source_name = "dev.co";
  options.defines = defines;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, {tensor(DType::s32, {8})}, 227 * 1024);
}

TEST(DeviceCode, DefinesReachDeviceCodeAsValues) {
  const std::string source =
      "#define TILE 64\n#define HALF (TILE / 2)\n#define NEG -3\n#define OCT 010\n#define SCALE 0.5f\n"
      "#define HUGE 5000000000\n#define WORD relu\n#define F(x) x\n"
      "__device__ int sizes() { return TILE + HALF + NEG + OCT + (int)(HUGE % 7); }\n"
      "__device__ float scale() { return SCALE; }\n" +
      kKernel;
  const GeneratedKernel k = generate_with(source);
  const std::string& cuda = k.cuda_source;
  for (const char* line : {"#define TILE 64\n", "#define HALF 32\n", "#define NEG (-3)\n", "#define OCT 8\n",
                           "#define SCALE 0.5f\n", "#define HUGE 5000000000LL\n"})
    EXPECT_TRUE(contains(cuda, line)) << line << cuda;
  // Only numbers: no define's source text (a name, a function-like macro) is pasted.
  EXPECT_FALSE(contains(cuda, "#define WORD")) << cuda;
  EXPECT_FALSE(contains(cuda, "#define F")) << cuda;
  // Undone before the kernel.
  const std::size_t undef = cuda.find("#undef TILE\n");
  ASSERT_NE(undef, std::string::npos) << cuda;
  EXPECT_LT(cuda.find("float scale()"), undef);
  EXPECT_LT(undef, cuda.find("__global__"));
  EXPECT_FALSE(jit::nvrtc_compile(cuda, "dev.co.cu", k.entry, {"compute_90", false, {}}).ptx.empty());
}

TEST(DeviceCode, OptionDefinesOverrideAndADefineIsSeenFromItsLineOn) {
  const std::string source =
      "#define T 4\n__device__ int early() { return T; }\n#define LATE 3\n__device__ int late() { return LATE; }\n" +
      kKernel;
  const GeneratedKernel k = generate_with(source, {{"T", std::int64_t{8}}});
  const std::string& cuda = k.cuda_source;
  EXPECT_TRUE(contains(cuda, "#define T 8\n")) << cuda;
  const std::size_t early = cuda.find("int early()"), late_define = cuda.find("#define LATE 3\n");
  ASSERT_NE(late_define, std::string::npos) << cuda;
  EXPECT_LT(early, late_define);
  EXPECT_LT(late_define, cuda.find("int late()"));
  EXPECT_FALSE(jit::nvrtc_compile(cuda, "dev.co.cu", k.entry, {"compute_90", false, {}}).ptx.empty());
}

TEST(DeviceCode, WithoutDeviceCodeNoDefineIsEmitted) {
  const GeneratedKernel k = generate_with("#define TILE 64\n" + kKernel);
  EXPECT_FALSE(contains(k.cuda_source, "#define")) << k.cuda_source;
}

// A __device__ function named like the generated kernel is refused before
// NVRTC (sema rule device-reserved-name, tests/sema), so no overload or
// redefinition of generated code can reach the compiler.
TEST(DeviceCode, NamesWithTheGeneratedPrefixAreRefused) {
  CompileOptions options;
  try {
    croq::compile("__device__ int croq_f(int v) { return v; }\n" + kKernel, options);
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].rule, "device-reserved-name");
    EXPECT_EQ(e.diagnostics()[0].line, 1);
    EXPECT_EQ(e.diagnostics()[0].column, 16);
  }
}

}  // namespace
}  // namespace croq::pipeline::test
