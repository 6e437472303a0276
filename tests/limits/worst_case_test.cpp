// No input under the limits takes over 10 seconds (docs/reference/limits.md):
// each test builds the worst case issue 30 found for a stage at (or just
// under) its limit, runs the croq command on it, and times it; one step
// past the limit is a clear error, at once. Label `slow`: they compile
// large inputs, NVRTC included.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "common/croq_command.hpp"
#include "croq/croq.hpp"
#include "frontend/limits.hpp"

namespace croq {
namespace {

using croq::cli::write;
using croq::test::kCroq;
using croq::test::ProcessResult;
using croq::test::run_process;
using croq::test::TempDir;

constexpr double kBudgetSeconds = 10.0;

struct Timed {
  ProcessResult result;
  double seconds = 0;
};

Timed croq(const std::vector<std::string>& args, const TempDir& dir) {
  std::vector<std::string> argv{kCroq};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto start = std::chrono::steady_clock::now();
  Timed t{run_process(argv, {}, dir.path()), 0};
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

const std::string kKernel = "__co__ void f(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\n";

// croq host picks a raw-string delimiter the source never closes with: one
// pass, however many `)croqN"` the source holds (was quadratic: 14 s).
TEST(WorstCase, HostRawStringDelimiterSearchIsLinear) {
  TempDir dir;
  std::string source = kKernel + "const char* text = R\"x(\n)croq\"";
  for (int n = 1; n <= 60000; ++n) source += " )croq" + std::to_string(n) + "\"";
  source += "\n)x\";\nint main() {}\n";
  const std::string path = write(dir, "delimiters.co", source);
  const Timed t = croq({"host", path}, dir);
  EXPECT_EQ(t.result.exit_code, 0) << t.result.err;
  EXPECT_LT(t.seconds, kBudgetSeconds);
  EXPECT_NE(t.result.out.find("R\"croq60001("), std::string::npos);
}

// croq host of many functions: each host stretch's #line is counted on from
// the last, not from the top (was 38 s for 40,000 functions).
TEST(WorstCase, HostOfManyFunctionsIsLinear) {
  TempDir dir;
  std::string source;
  for (int n = 0; n < 40000; ++n)
    source += "__co__ void f" + std::to_string(n) + "(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\nint h" +
              std::to_string(n) + ";\n";
  const std::string path = write(dir, "many.co", source);
  const Timed t = croq({"host", path}, dir);
  EXPECT_EQ(t.result.exit_code, 0) << t.result.err;
  EXPECT_LT(t.seconds, kBudgetSeconds);
  // The last stretch of host code starts on the last function's closing line.
  EXPECT_NE(t.result.out.find("\n#line 199999 \""), std::string::npos);
}

std::string program_of(std::size_t kernels) {
  std::string body = "__co__ void f(s32 [8] x) {\n";
  for (std::size_t k = 0; k < kernels; ++k) body += "  parallel i by 8\n    x.at(i) = 1;\n";
  return body + "}\n";
}

// The kernels of a program are capped: at the cap it compiles in time,
// past it (20,000 took 15 s) the error comes at once.
TEST(WorstCase, KernelsOfAProgramAreCapped) {
  TempDir dir;
  const Timed at = croq({"compile", write(dir, "at.co", program_of(frontend::limits::kMaxKernels))}, dir);
  EXPECT_EQ(at.result.exit_code, 0) << at.result.err;
  EXPECT_LT(at.seconds, kBudgetSeconds);
  const Timed past = croq({"compile", write(dir, "past.co", program_of(20000))}, dir);
  EXPECT_EQ(past.result.exit_code, 1);
  EXPECT_LT(past.seconds, kBudgetSeconds);
  EXPECT_NE(past.result.err.find("`f` has more than 128 top-level parallel statements (kernels), the limit; this "
                                 "is kernel 129 [kernel-count]"),
            std::string::npos)
      << past.result.err.substr(0, 2000);
}

std::string asm_kernel(std::size_t bytes, const std::string& name = "f") {
  const std::string instruction = "add.u32 %0, %0, 1;";  // 18 bytes: many instructions per byte
  std::string text;
  while (text.size() + instruction.size() <= bytes) text += instruction;
  return "__co__ void " + name + "(u32 [8] x) {\n  parallel i by 8 : thread {\n    __asm__ volatile (\"" + text +
         "\" : \"+r\"(x.at(i)));\n  }\n}\n";
}

// Inline PTX costs NVRTC the square of its instructions (240 KB took 24 s):
// at the cap it compiles in time, one byte more is refused before NVRTC.
TEST(WorstCase, InlineAssemblyIsCapped) {
  TempDir dir;
  const Timed at = croq({"compile", write(dir, "asm.co", asm_kernel(frontend::limits::kMaxAsmBytes)), "--emit", "ptx"}, dir);
  EXPECT_EQ(at.result.exit_code, 0) << at.result.err.substr(0, 2000);
  EXPECT_LT(at.seconds, kBudgetSeconds);
  const Timed past = croq({"check", write(dir, "past.co", asm_kernel(frontend::limits::kMaxAsmBytes) +
                                                             asm_kernel(64, "g"))},
                          dir);
  // One function at the cap and another small one are fine: the cap is per function.
  EXPECT_EQ(past.result.exit_code, 0) << past.result.err.substr(0, 2000);
  std::string over = asm_kernel(frontend::limits::kMaxAsmBytes);  // 910 instructions, 16,380 bytes
  over.insert(over.find("\" : "), "mov.u32 %0, %0;");
  const Timed refused = croq({"check", write(dir, "over.co", over)}, dir);
  EXPECT_EQ(refused.result.exit_code, 1);
  EXPECT_NE(refused.result.err.find("the inline assembly of `f` reaches 16395 bytes here, more than 16384 (16 KiB), "
                                    "the limit [asm-size]"),
            std::string::npos)
      << refused.result.err.substr(0, 2000);
}

// __device__ code goes to NVRTC as written; its worst case here is many
// out-of-line functions one helper calls, all kept by a function pointer
// (NVRTC's time grows faster than their number: 2,000 called from a kernel
// took 159 s). At the cap NVRTC finishes in time; past it the frontend
// refuses the source.
TEST(WorstCase, DeviceCodeIsCapped) {
  TempDir dir;
  std::string helpers, calls;
  for (int n = 0;; ++n) {
    std::string helper = "__device__ __noinline__ int h" + std::to_string(n) + "(int v) { return v * " +
                         std::to_string(n) + " + 1; }\n";
    std::string call = " + h" + std::to_string(n) + "(v)";
    if (helpers.size() + calls.size() + helper.size() + call.size() + 120 > frontend::limits::kMaxDeviceCodeBytes) break;
    helpers += helper;
    calls += call;
  }
  const std::string device =
      helpers + "__device__ int all(int v) { return 0" + calls + "; }\n__device__ int (*keep)(int) = all;\n";
  ASSERT_LE(device.size(), frontend::limits::kMaxDeviceCodeBytes);
  const Timed at = croq({"compile", write(dir, "device.co", device + kKernel), "--emit", "ptx"}, dir);
  EXPECT_EQ(at.result.exit_code, 0) << at.result.err.substr(0, 2000);
  EXPECT_LT(at.seconds, kBudgetSeconds);
  // NVRTC compiled them all (the pointer keeps them), it did not drop them.
  EXPECT_NE(at.result.out.find(".func  (.param .b32 func_retval0) _Z4h400i"), std::string::npos)
      << at.result.out.substr(0, 2000);
  const Timed past = croq({"check", write(dir, "past.co", device + device + kKernel)}, dir);
  EXPECT_EQ(past.result.exit_code, 1);
  EXPECT_NE(past.result.err.find("bytes here, more than 32,768 (32 KiB), the limit"), std::string::npos)
      << past.result.err.substr(0, 2000);
}

// 8 names x 20 values would be 2.56e10 configurations: refused before any
// is made (the API threw std::bad_alloc).
TEST(WorstCase, TuneConfigurationsAreCapped) {
  std::vector<std::pair<std::string, std::vector<DefineValue>>> axes;
  for (int n = 0; n < 8; ++n) {
    std::vector<DefineValue> values;
    for (int v = 0; v < 20; ++v) values.emplace_back(std::int64_t{v});
    axes.emplace_back("T" + std::to_string(n), values);
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    cross_product(axes);
    FAIL() << "made the configurations";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "croq::cross_product: 20 x 20 x 20 x 20 x 20 x 20 x 20 x 20 values make more than 1024 configurations, "
              "the limit; tune fewer names or values");
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  axes.resize(2);  // 400: fine
  EXPECT_EQ(cross_product(axes).size(), 400u);
  TempDir dir;
  std::vector<std::string> args{"bench", CROQ_TEST_DATA_DIR "/cli/add.co", "--shape", "M=4", "--shape", "N=4"};
  for (int n = 0; n < 8; ++n) {
    std::string values = "T" + std::to_string(n) + "=";
    for (int v = 0; v < 20; ++v) values += (v ? "," : "") + std::to_string(v);
    args.insert(args.end(), {"--tune", values});
  }
  const Timed bench = croq(args, dir);
  EXPECT_EQ(bench.result.exit_code, 1);
  EXPECT_LT(bench.seconds, kBudgetSeconds);
  EXPECT_NE(bench.result.err.find("values make more than 1024 configurations, the limit"), std::string::npos)
      << bench.result.err;
}

// Columns count characters: counted on along a line, so a long line of
// multi-byte text costs its length once.
TEST(WorstCase, ColumnsOfALongLineAreCountedOnce) {
  TempDir dir;
  std::string line;
  while (line.size() < 8u << 20) line += "\xc3\xa9 x ";
  const Timed t = croq({"check", write(dir, "line.co", kKernel + "int host_code = 0; " + line + "\n")}, dir);
  EXPECT_EQ(t.result.exit_code, 0) << t.result.err.substr(0, 2000);
  EXPECT_LT(t.seconds, kBudgetSeconds);
}

}  // namespace
}  // namespace croq
