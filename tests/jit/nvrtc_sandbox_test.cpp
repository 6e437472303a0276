// NVRTC reads CUDA headers only: no host file through #include (absolute,
// `..`, a macro, the working directory) or __has_include, and errors point
// at the user's line when NVRTC complains about code copied from the
// user's source (the generated CUDA's #line directives), else at the
// generated text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "common/process.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/test_seed.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::TempDir;

constexpr const char* kSecret = "croq_host_secret_7f3a";
const std::string kKernel = "extern \"C\" __global__ void k(int* p) { p[0] = 1; }\n";

// A host file whose contents must never reach a compile error.
struct HostFile {
  TempDir dir;
  fs::path path = dir.path() / "secret.h";
  HostFile() { std::ofstream(path) << kSecret << " stolen;\n"; }
};

CompileError compile_error(const std::string& src, const SourceOrigin& origin = {}) {
  try {
    nvrtc_compile(src, "gen.cu", "k", {"sm_90a", false, {}}, origin);
  } catch (const CompileError& e) {
    return e;
  }
  ADD_FAILURE() << "compiled:\n" << src;
  return CompileError({}, "", "");
}

void expect_first_error_at(const CompileError& e, const std::string& file, int line, int column,
                           const std::string& message) {
  EXPECT_EQ(e.source_name(), file);
  ASSERT_FALSE(e.diagnostics().empty());
  EXPECT_EQ(e.diagnostics()[0].line, line);
  EXPECT_EQ(e.diagnostics()[0].column, column);
  const std::string rendered =
      file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " + message;
  EXPECT_NE(std::string(e.what()).find(rendered), std::string::npos) << e.what();
}

TEST(NvrtcSandbox, IncludesThatReachHostFilesAreRefusedBeforeNvrtc) {
  HostFile host;
  // From the CUDA include directory up to the root, then down to the file.
  std::string up;
  for (int i = 0; i < 16; ++i) up += "../";
  const std::string relative_escape = up + host.path.string().substr(1);
  const std::vector<std::string> directives{
      "#include \"" + host.path.string() + "\"",
      "#include <" + host.path.string() + ">",
      "#include \"" + relative_escape + "\"",
      "#include <cuda/../../" + relative_escape + ">",
      "  #  include_next \"" + host.path.string() + "\"",
      "/* comment */ # /* more */ include \"" + host.path.string() + "\"",
      "#inc\\\nlude \"" + host.path.string() + "\"",
      "#define SECRET \"" + host.path.string() + "\"\n#include SECRET",
      "#embed \"" + host.path.string() + "\"",
      "#import \"" + host.path.string() + "\"",
      "#if __has_include(\"" + host.path.string() + "\")\n#endif",
      "#include <./cuda_fp16.h>",
  };
  for (const std::string& directive : directives) {
    SCOPED_TRACE(directive);
    const std::uint64_t before = nvrtc_invocations();
    CompileError e = compile_error("// generated\n" + directive + "\n" + kKernel);
    EXPECT_EQ(nvrtc_invocations(), before) << "NVRTC ran";
    ASSERT_FALSE(e.diagnostics().empty());
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.line, directive.rfind("#define", 0) == 0 ? 3 : 2);
    EXPECT_TRUE(d.message.find("is not allowed") != std::string::npos ||
                d.message.find("must name a CUDA header directly") != std::string::npos)
        << d.message;
    EXPECT_EQ(std::string(e.what()).find(kSecret), std::string::npos) << e.what();
  }
}

TEST(NvrtcSandbox, WorkingDirectoryIsNotSearched) {
  HostFile host;
  const fs::path cwd = fs::current_path();
  fs::current_path(host.dir.path());
  CompileError e = compile_error("#include \"secret.h\"\n" + kKernel);
  fs::current_path(cwd);
  EXPECT_EQ(std::string(e.what()).find(kSecret), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("secret.h"), std::string::npos) << e.what();
  const auto flags = nvrtc_flags({"sm_90a", false, {}});
  EXPECT_NE(std::find(flags.begin(), flags.end(), "--no-source-include"), flags.end());
  for (const auto& f : flags)  // the CUDA headers come in memory: no include path at all
    EXPECT_NE(f.rfind("-I", 0), 0u) << f;
}

TEST(NvrtcSandbox, CudaHeadersAndLookalikeTextStillCompile) {
  const std::string src =
      "#include <cuda_fp16.h>\n"
      "#include \"cuda_bf16.h\"\n"
      "#  include <crt/host_defines.h>\n"
      "#if __has_include(<cuda_fp8.h>)\n#endif\n"
      "// #include \"/etc/passwd\"\n"
      "/* #include \"/etc/passwd\" */\n"
      "static const char* text = R\"x(\n#include \"/etc/passwd\"\n)x\";\n"
      "static const char* str = \"#include \\\"/etc/passwd\\\"\";\n"
      "static const int n = 1'000'000;\n"
      "extern \"C\" __global__ void k(__half* p) { p[0] = __float2half(n + text[0] + str[0]); }\n";
  EXPECT_NO_THROW(nvrtc_compile(src, "ok.cu", "k", {"sm_90a", false, {}}));
}

// Hand-written CUDA shaped like the generator's: a #line before code copied
// from the user's source, generated code after a statement's #line.
TEST(NvrtcSandbox, ErrorsInCopiedLinesPointAtTheUsersSource) {
  const std::string user =
      "// user file\n"
      "__device__ int twice(int v) {\n"
      "  return v + undefined_in_user_code;\n"
      "}\n"
      "__co__ void f() { }\n";
  const std::string cuda =
      "// Generated\n"
      "#line 2 \"my \\\"kernel\\\".co\"\n"
      "__device__ int twice(int v) {\n"
      "  return v + undefined_in_user_code;\n"
      "}\n"
      "extern \"C\" __global__ void k(int* p) {\n"
      "#line 5 \"my \\\"kernel\\\".co\"\n"
      "  p[0] = twice(1);\n"
      "}\n";
  CompileError e = compile_error(cuda, {"my \"kernel\".co", user});
  expect_first_error_at(e, "my \"kernel\".co", 3, 14, "identifier \"undefined_in_user_code\" is undefined");
  EXPECT_NE(std::string(e.what()).find("  return v + undefined_in_user_code;"), std::string::npos) << e.what();
}

// The generator may replace bytes a #line name cannot hold by '?'.
TEST(NvrtcSandbox, ErrorsInCopiedLinesMapWhateverTheNameEscaping) {
  const std::string user = "__device__ int twice(int v) {\n  return v + missing_name;\n}\n";
  const std::string cuda = "#line 1 \"k??rnel?.co\"\n" + user + kKernel;
  CompileError e = compile_error(cuda, {"k\xc3\xa9rnel\n.co", user});
  expect_first_error_at(e, "k\xc3\xa9rnel\n.co", 2, 14, "identifier \"missing_name\" is undefined");
}

TEST(NvrtcSandbox, ErrorsInGeneratedLinesPointAtTheGeneratedText) {
  const std::string user = "line one\nline two\n__co__ void f() { x = 1; }\n";
  // Line 3 of the user's file became generated code NVRTC rejects.
  const std::string cuda =
      "// Generated\n"
      "extern \"C\" __global__ void k(int* p) {\n"
      "#line 3 \"user.co\"\n"
      "  p[0] = generated_only_name;\n"
      "}\n";
  CompileError e = compile_error(cuda, {"user.co", user});
  // The physical line of the CUDA text, not the #line's.
  expect_first_error_at(e, "gen.cu", 4, 10, "identifier \"generated_only_name\" is undefined");
}

TEST(NvrtcSandbox, IncludeInDeviceCodeIsReportedAtTheUsersLine) {
  HostFile host;
  const std::string user =
      "__device__ int leak() {\n"
      "#include \"" + host.path.string() + "\"\n"
      "  return 0;\n"
      "}\n";
  const std::string cuda = "// Generated\n#line 1 \"leak.co\"\n" + user + kKernel;
  CompileError e = compile_error(cuda, {"leak.co", user});
  EXPECT_EQ(e.source_name(), "leak.co");
  ASSERT_FALSE(e.diagnostics().empty());
  EXPECT_EQ(e.diagnostics()[0].line, 2);
  EXPECT_EQ(e.diagnostics()[0].column, 1);
  EXPECT_EQ(std::string(e.what()).find(kSecret), std::string::npos) << e.what();
}

// End to end: a Croqtile program's __device__ helper with an error.
TEST(NvrtcSandbox, CroqtileDeviceCodeErrorsNameTheCoFile) {
  const std::string source =
      "__device__ int bump(int v) {\n"
      "  return v + not_declared_anywhere;\n"
      "}\n"
      "\n"
      "__co__ s32 [N] add_one(s32 [N] x) {\n"
      "  s32 [x.span] out;\n"
      "  parallel i by N\n"
      "    out.at(i) = x.at(i) + 1;\n"
      "  return out;\n"
      "}\n";
  CompileOptions options;
  options.source_name = "bump.co";
  options.arch = "sm_90a";
  Kernel k = croq::compile(source, options);
  auto x = make_spandata<s32>(64);
  x.fill_random(-5, 5, croq::test::next_seed());
  try {
    k(x.view());
    FAIL() << "expected a CompileError from NVRTC";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.source_name(), "bump.co") << what;
    EXPECT_NE(what.find("bump.co:2:14: error: identifier \"not_declared_anywhere\" is undefined"), std::string::npos)
        << what;
  } catch (const Error& e) {
    FAIL() << "expected a CompileError, got: " << e.what();
  }
}

}  // namespace
}  // namespace croq::jit

namespace croq::jit {
namespace {

// A #line the user wrote in __device__ code renames the lines after it for
// NVRTC; errors there still point at the .co file's own line (issue 30).
TEST(NvrtcSandbox, UserLineDirectiveInDeviceCodeKeepsErrorsInTheCoFile) {
  const std::string source =
      "__device__ int twice(int v) {\n"
      "#line 1000 \"other.cu\"\n"
      "  return v + missing_name;\n"
      "}\n"
      "__co__ void f(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\n";
  CompileOptions options;
  options.source_name = "k.co";
  Kernel k = compile(source, options);
  TensorView spec = TensorView::contiguous(nullptr, DType::s32, Shape{8}, MemoryKind::device, 0);
  std::vector<Arg> args{Arg(spec)};
  try {
    k.prepare(args);
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.source_name(), "k.co") << e.what();
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics()[0].line, 3) << e.what();
    EXPECT_EQ(e.diagnostics()[0].column, 14) << e.what();
    EXPECT_NE(std::string(e.what()).find("k.co:3:14: error: identifier \"missing_name\" is undefined"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace croq::jit
