// NVRTC layer: CUDA text -> sm_90a cubin, errors with NVRTC's message.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/files.hpp"
#include "croq/error.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "support/utf8.hpp"

namespace croq::jit {
namespace {

using croq::test::read_file;

const std::string kSaxpy = read_file(CROQ_TEST_DATA_DIR "/jit/saxpy.cu");

// The SM number recorded in a CUDA ELF's e_flags (bits 8..15).
int cubin_sm(const std::vector<char>& cubin) {
  std::uint32_t flags = 0;
  std::memcpy(&flags, cubin.data() + 0x30, sizeof flags);
  return static_cast<int>((flags >> 8) & 0xff);
}

TEST(Nvrtc, CompilesHandWrittenKernelToSm90aCubin) {
  NvrtcOutput out = nvrtc_compile(kSaxpy, "saxpy.cu", "saxpy", {"sm_90a", false, {}});
  ASSERT_GT(out.cubin.size(), 64u);
  EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF");
  std::uint16_t machine = 0;
  std::memcpy(&machine, out.cubin.data() + 0x12, sizeof machine);
  EXPECT_EQ(machine, 190) << "e_machine should be EM_CUDA";
  EXPECT_EQ(cubin_sm(out.cubin), 90);
  EXPECT_NE(out.ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_EQ(out.lowered_entry, "saxpy");
}

TEST(Nvrtc, ResolvesMangledNameExpressions) {
  std::string src = "template <int N> __global__ void fill(int* p) { p[threadIdx.x] = N; }\n";
  NvrtcOutput out = nvrtc_compile(src, "fill.cu", "fill<7>", {"sm_90a", false, {}});
  EXPECT_NE(out.lowered_entry.find("fill"), std::string::npos);
  EXPECT_NE(out.lowered_entry, "fill<7>");  // a mangled symbol, not the expression
}

TEST(Nvrtc, SyntaxErrorCarriesNvrtcMessageAndLocation) {
  std::string src =
      "extern \"C\" __global__ void broken(float* x) {\n"
      "  int i = threadIdx.x;\n"
      "  x[i] = undefined_name + 1.0f;\n"
      "}\n";
  try {
    nvrtc_compile(src, "broken.cu", "broken", {"sm_90a", false, {}});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.severity, Severity::error);
    EXPECT_EQ(d.message, "identifier \"undefined_name\" is undefined");
    EXPECT_EQ(d.line, 3);
    EXPECT_EQ(d.column, 10);
    std::string what = e.what();
    // The rendered error shows the offending generated line with a caret.
    EXPECT_NE(what.find("broken.cu:3:10: error: identifier \"undefined_name\" is undefined"), std::string::npos)
        << what;
    EXPECT_NE(what.find("  x[i] = undefined_name + 1.0f;"), std::string::npos) << what;
    EXPECT_NE(what.find("         ^"), std::string::npos) << what;
  }
}

TEST(Nvrtc, MissingEntryIsAnError) {
  try {
    nvrtc_compile(kSaxpy, "saxpy.cu", "saxpy_typo", {"sm_90a", false, {}});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("saxpy_typo"), std::string::npos) << e.what();
  }
}

TEST(Nvrtc, UnsupportedArchitectureIsNamed) {
  try {
    nvrtc_compile(kSaxpy, "saxpy.cu", "saxpy", {"sm_35", false, {}});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("unsupported architecture `sm_35`: NVRTC"), std::string::npos) << what;
    EXPECT_NE(what.find("sm_90"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(validate_arch("compute_90"));  // PTX only (see ptx_image_test.cpp)
  EXPECT_THROW(validate_arch("compute_9x"), CompileError);
  EXPECT_THROW(validate_arch("sm_9x"), CompileError);
  EXPECT_NO_THROW(validate_arch("sm_90a"));
  EXPECT_NO_THROW(validate_arch("sm_80"));
}

TEST(Nvrtc, LineInfoChangesFlags) {
  auto plain = nvrtc_flags({"sm_90a", false, {}});
  auto lines = nvrtc_flags({"sm_90a", true, {}});
  EXPECT_EQ(plain[0], "-arch=sm_90a");
  EXPECT_NE(std::find(lines.begin(), lines.end(), "-lineinfo"), lines.end());
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "-lineinfo"), plain.end());
}

TEST(Nvrtc, FindsCudaHeaders) {
  EXPECT_FALSE(cuda_include_dir().empty());
  // A kernel using toolkit headers compiles (NVRTC gets the include path).
  std::string src = "#include <cuda_fp16.h>\n"
                    "extern \"C\" __global__ void h(__half* p) { p[0] = __float2half(1.0f); }\n";
  EXPECT_NO_THROW(nvrtc_compile(src, "h.cu", "h", {"sm_90a", false, {}}));
}

TEST(Arch, AnArchNamedIsTheArchUsed) {  // the mapping from a device: tests/target
  EXPECT_EQ(resolve_arch("sm_80"), "sm_80");
}

// NVRTC's log quotes the CUDA text as it is: Latin-1 bytes there reach the
// diagnostics, which come out as valid UTF-8 (U+FFFD for them) in what(),
// to_json() and each message, and a long line is cut between characters.
TEST(Nvrtc, LogTextThatIsNotUtf8IsRepaired) {
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "\xC3\xA9";
  const std::string src = "#error caf\xE9 " + accents + "\n" + kSaxpy;
  try {
    nvrtc_compile(src, "latin1\xFF.cu", "saxpy", {"sm_90a", false, {}});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(support::is_valid_utf8(what)) << what;
    EXPECT_NE(what.find("caf\xEF\xBF\xBD \xC3\xA9"), std::string::npos) << what;
    ASSERT_FALSE(e.diagnostics().empty());
    for (const Diagnostic& d : e.diagnostics()) EXPECT_TRUE(support::is_valid_utf8(d.message)) << d.message;
    const nlohmann::json j = nlohmann::json::parse(e.to_json());
    EXPECT_EQ(j["source"], "latin1\xEF\xBF\xBD.cu");
  }
}

}  // namespace
}  // namespace croq::jit
