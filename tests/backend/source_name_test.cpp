// A source name is text, never code: whatever bytes it holds (quotes,
// newlines, backslashes, `*/`, NUL, non-ASCII), it reaches the generated
// CUDA only as an escaped string literal in `#line` and as one escaped line
// of the header comment. The kernel compiles to the same PTX as with a
// benign name, through CompileOptions::source_name and through
// `croq compile` on a file in a hostile directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "backend/cuda/cuda_text.hpp"
#include "pipeline/specialize.hpp"
#include "common/process.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using backend::cuda::cuda_comment_text;

using test::generate;
using test::tensor;

// A tiled kernel: #line directives at every statement, a shared tile, a
// guarded tail.
const char* kKernel = R"(__co__ f32 [N] scale(f32 [N] x) {
  f32 [x.span] y;
  parallel t by cdiv(N, 64) : block {
    tile = dma.copy x.subspan(64).at(t) => shared;
    parallel r by 64 : thread
      y.subspan(64).at(t).at(r) = tile.data.at(r) * 2.0f;
  }
  return y;
}
)";

const std::vector<std::string>& hostile_names() {
  static const std::vector<std::string> names = {
      "a\"\n#define threadIdx blockIdx",
      "x.co\"\n#include \"/etc/passwd",
      "trailing backslash\\",
      "line\\\ncontinued",
      "comment */ end /* start",
      "?\?/ trigraph ?\?=",
      "carriage\rreturn",
      std::string("nul\0byte", 8),
      "caf\xc3\xa9 \xff\xfe",
      "\"",
  };
  return names;
}

// The C string literal `text` (quotes included) decoded, or "<malformed>"
// when it is not exactly one literal using the escapes the backend writes.
std::string decode_literal(const std::string& text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return "<malformed>";
  const std::string body = text.substr(1, text.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '"' || body[i] == '\n') return "<malformed>";
    if (body[i] != '\\') {
      out += body[i];
      continue;
    }
    if (++i == body.size()) return "<malformed>";
    if (body[i] == '"' || body[i] == '\\' || body[i] == '?') {
      out += body[i];
      continue;
    }
    int value = 0, digits = 0;
    for (; digits < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++digits, ++i) value = value * 8 + (body[i] - '0');
    if (digits == 0) return "<malformed>";
    --i;
    out += static_cast<char>(value);
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every preprocessor line is a `#line N "<name>"` whose literal decodes to
// exactly `name`, or an #include of a CUDA header; the header comment is
// two lines of printable ASCII with no line splice.
void expect_safe(const std::string& cuda, const std::string& name) {
  const std::vector<std::string> lines = lines_of(cuda);
  ASSERT_GE(lines.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(lines[i].rfind("// ", 0), 0u) << "header line " << i << ": " << lines[i];
    for (unsigned char c : lines[i]) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "header line " << i << ": " << lines[i];
    EXPECT_NE(lines[i].back(), '\\');
  }
  int directives = 0;
  for (const std::string& line : lines) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '#') continue;
    if (line.rfind("#include <cuda_", 0) == 0) continue;
    // The generated code's own, the same for every source (the grid dependency helpers).
    if (line == "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900" || line == "#endif") continue;
    ASSERT_EQ(line.rfind("#line ", 0), 0u) << "unexpected directive: " << line;
    const std::size_t quote = line.find('"');
    ASSERT_NE(quote, std::string::npos) << line;
    EXPECT_EQ(decode_literal(line.substr(quote)), name) << line;
    ++directives;
  }
  EXPECT_GT(directives, 3);
}

TEST(SourceName, HostileNamesThroughTheApiStayEscapedText) {
  const std::vector<ArgSignature> args = {tensor(DType::f32, {1000})};
  const GeneratedKernel benign = generate(kKernel, args, "benign.co");
  const std::string benign_ptx = jit::nvrtc_compile(benign.cuda_source, "k.cu", benign.entry, {"compute_90", false, {}}).ptx;
  ASSERT_FALSE(benign_ptx.empty());
  for (const std::string& name : hostile_names()) {
    SCOPED_TRACE(cuda_comment_text(name));
    const GeneratedKernel k = generate(kKernel, args, name);
    expect_safe(k.cuda_source, name);
    // Same line count as with a benign name: nothing was split off.
    EXPECT_EQ(lines_of(k.cuda_source).size(), lines_of(benign.cuda_source).size());
    EXPECT_EQ(jit::nvrtc_compile(k.cuda_source, "k.cu", k.entry, {"compute_90", false, {}}).ptx, benign_ptx);
  }
}

// User names that look like generated ones (arg_*, dim_*, croq_*, reserved
// _X) get a distinct prefix, and a function named after a prelude type
// still compiles.
TEST(SourceName, UserNamesCannotCollideWithGeneratedOnes) {
  const std::string source = R"(__co__ void f(s32 [16] x_2, s32 [16] out) {
  parallel arg_x by 16 {
    mutable int croq_output = 1;
    out.at(arg_x) = x_2.at(arg_x) + croq_output;
  }
}
)";
  GeneratedKernel k = generate(source, {tensor(DType::s32, {16}), tensor(DType::s32, {16})});
  EXPECT_EQ(k.cuda_source.find("const int arg_x_"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("const int uarg_x_"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("ucroq_output_"), std::string::npos) << k.cuda_source;
  EXPECT_FALSE(jit::nvrtc_compile(k.cuda_source, "k.cu", k.entry, {"compute_90", false, {}}).ptx.empty());

  const std::string tma = R"(__co__ void dev(global f16 [64, 64] a, global f16 [64, 64] out) {
  parallel b by 1 : block {
    t = tma.copy a => shared;
    tma.copy t.data => out;
  }
}
)";
  k = generate(tma, {tensor(DType::f16, {64, 64}), tensor(DType::f16, {64, 64})});
  EXPECT_EQ(k.entry, "croq_dev_kernel");
  EXPECT_FALSE(jit::nvrtc_compile(k.cuda_source, "k.cu", k.entry, {"sm_90a", false, {}}).cubin.empty());
}

// `croq compile` names the file by its path: a directory named
// `a"` + newline + `#define threadIdx blockIdx` must not redefine anything.
TEST(SourceName, HostileDirectoryThroughTheCli) {
  croq::test::TempDir dir;
  const std::filesystem::path hostile = dir.path() / "a\"\n#define threadIdx blockIdx";
  const std::filesystem::path benign = dir.path() / "benign";
  for (const auto& d : {hostile, benign}) {
    std::filesystem::create_directories(d);
    std::ofstream(d / "k.co") << kKernel;
  }
  const std::string croq = std::string(CROQ_BINARY_DIR) + "/croq";
  auto compile = [&](const std::filesystem::path& file, const std::string& emit) {
    croq::test::ProcessResult r = croq::test::run_process({croq, "compile", file.string(), "--emit", emit, "--shape", "N=1000",
                                               "--arch", "compute_90"},
                                              {}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  const std::string cuda = compile(hostile / "k.co", "cuda");
  expect_safe(cuda, (hostile / "k.co").string());
  EXPECT_EQ(lines_of(cuda).size(), lines_of(compile(benign / "k.co", "cuda")).size());
  const std::string ptx = compile(hostile / "k.co", "ptx");
  EXPECT_FALSE(ptx.empty());
  EXPECT_EQ(ptx, compile(benign / "k.co", "ptx"));
}

}  // namespace
}  // namespace croq::pipeline
