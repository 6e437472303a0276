// NVRTC cannot read a file of the host, whatever spelling a directive takes:
// it gets the CUDA headers in memory and runs on a thread whose seccomp
// filter fails every open, stat and exec (jit/nvrtc_sandbox.hpp). The first
// tests call NVRTC inside the sandbox directly, past the early textual check
// of nvrtc_compile, so the guarantee is the sandbox's; a control shows the
// same probe finds the secret without it. Then the same spellings go
// through nvrtc_compile and through croq::compile + prepare (the CLI's run
// is in tests/cli/cli_host_files_test.cpp).
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <regex>

#include "common/process.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/nvrtc_sandbox.hpp"

namespace croq::jit {
namespace {

using croq::test::TempDir;

constexpr const char* kSecret = "croq_host_secret_5e1d";
const std::string kKernel = "extern \"C\" __global__ void k(int* p) { p[0] = 1; }\n";

struct HostFile {
  TempDir dir;
  std::string path = (dir.path() / "secret.h").string();
  HostFile() { std::ofstream(path) << kSecret << " stolen;\n"; }
};

// Every way we know to name a file to NVRTC's preprocessor.
std::vector<std::string> directive_spellings(const std::string& path) {
  const std::string q = "\"" + path + "\"";
  return {
      "#include " + q,
      "#include <" + path + ">",
      "%:include " + q,
      "%:include_next " + q,
      "#include_next " + q,
      "#\\\ninclude " + q,
      "#inc\\\nlude " + q,
      "# /* a comment */ include " + q,
      "/* before */ # include " + q,
      "#define CROQ_FILE " + q + "\n#include CROQ_FILE",
      "%:define CROQ_FILE " + q + "\n%:include CROQ_FILE",
      "#define CROQ_STR(x) #x\n#define CROQ_XSTR(x) CROQ_STR(x)\n#include CROQ_XSTR(" + path + ")",
      "_Pragma(\"once\")\n#include " + q,
      "_Pragma(\"push_macro(\\\"x\\\")\") _Pragma(\"pop_macro(\\\"x\\\")\")\n#include " + q,
      "#warning it's\n#include " + q,
      "#pragma message \"x\n#include " + q,
      "static const char c = '\"';\n#include " + q,
      "??=include " + q,
      "#embed " + q,
      "#import " + q,
      "#line 1 " + q + "\n#include " + q,
      "#if __has_include(" + q + ")\n#error present\n#endif",
      "#if __has_include_next(" + q + ")\n#error present\n#endif",
  };
}

// NVRTC's log for `source`, compiled in the sandbox with the in-memory
// headers and no textual check; `sandboxed = false` is the control.
std::string nvrtc_log(const std::string& source, bool sandboxed = true) {
  std::string log;
  auto compile = [&] {
    const DeviceHeaders& headers = device_headers();
    std::vector<const char*> texts, names;
    for (std::size_t i = 0; i < headers.names.size(); ++i) {
      texts.push_back(headers.texts[i].c_str());
      names.push_back(headers.names[i].c_str());
    }
    nvrtcProgram program = nullptr;
    ASSERT_EQ(nvrtcCreateProgram(&program, source.c_str(), "probe.cu", static_cast<int>(names.size()), texts.data(),
                                 names.data()),
              NVRTC_SUCCESS);
    const char* options[] = {"-arch=sm_90a", "--no-source-include"};
    nvrtcCompileProgram(program, 2, options);
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    log.resize(size);
    nvrtcGetProgramLog(program, log.data());
    nvrtcDestroyProgram(&program);
  };
  if (sandboxed) run_without_file_access(compile);
  else compile();
  return log;
}

void expect_no_host_text(const std::string& text, const std::string& what) {
  EXPECT_EQ(text.find(kSecret), std::string::npos) << what << "\n" << text;
  EXPECT_EQ(text.find("root:"), std::string::npos) << what << "\n" << text;  // /etc/passwd's first line
  // A message located inside the file means NVRTC read it (`/etc/passwd:1: label "root" ...`);
  // only a `#line` naming the file may make NVRTC say that of the probe's own lines.
  if (what.find("#line") == std::string::npos)
    EXPECT_FALSE(std::regex_search(text, std::regex("passwd[:(][0-9]"))) << what << "\n" << text;
  EXPECT_EQ(text.find("error: present"), std::string::npos) << what << " (the file's existence leaked)\n" << text;
}

TEST(NvrtcHostFiles, WithoutTheSandboxTheProbeReadsTheFile) {
  HostFile host;
  const std::string log = nvrtc_log("#include \"" + host.path + "\"\n" + kKernel, false);
  EXPECT_NE(log.find(kSecret), std::string::npos) << "the probe cannot see a leak:\n" << log;
}

TEST(NvrtcHostFiles, NoDirectiveSpellingReachesAHostFile) {
  HostFile host;
  for (const std::string& path : {host.path, std::string("/etc/passwd")})
    for (const std::string& directive : directive_spellings(path)) {
      const std::string log = nvrtc_log("// probe\n" + directive + "\n" + kKernel);
      expect_no_host_text(log, directive);
      // Each spelling that names the file fails to open it, none reads it.
      if (directive.find("include") != std::string::npos && directive.find("__has_include") == std::string::npos &&
          directive.find("??=") == std::string::npos)
        EXPECT_NE(log.find("cannot open source file"), std::string::npos) << directive << "\n" << log;
    }
}

TEST(NvrtcHostFiles, TheSandboxIsTheCompilingThreadOnly) {
  HostFile host;
  int inside_errno = 0;
  bool inside_opened = true;
  run_without_file_access([&] {
    FILE* f = std::fopen(host.path.c_str(), "r");
    inside_opened = f != nullptr;
    inside_errno = errno;
    if (f) std::fclose(f);
  });
  EXPECT_FALSE(inside_opened);
  EXPECT_EQ(inside_errno, EACCES);
  std::ifstream after(host.path);  // this thread, and the process, are untouched
  std::string word;
  after >> word;
  EXPECT_EQ(word, kSecret);
  // An exception thrown in the sandbox reaches the caller.
  EXPECT_THROW(run_without_file_access([] { throw ArgumentError("from the sandbox"); }), ArgumentError);
}

TEST(NvrtcHostFiles, EveryDeviceHeaderCompilesAloneInTheSandbox) {
  ASSERT_FALSE(includable_header_names().empty());
  // The list is closed: nothing any of them includes is missing (a few
  // .hpp parts refuse to be included directly, by an #error of their own).
  for (const std::string& name : includable_header_names()) {
    const std::string log = nvrtc_log("#include <" + name + ">\n" + kKernel);
    EXPECT_EQ(log.find("open source file"), std::string::npos) << name << "\n" << log;
    if (name.find(".hpp") == std::string::npos) EXPECT_EQ(log.find("error"), std::string::npos) << name << "\n" << log;
  }
  // What the generated code includes, and what device code may.
  for (const char* name : {"cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "crt/host_defines.h"})
    EXPECT_NE(std::find(includable_header_names().begin(), includable_header_names().end(), name),
              includable_header_names().end())
        << name;
}

TEST(NvrtcHostFiles, NvrtcCompileRevealsNothing) {
  HostFile host;
  for (const std::string& path : {host.path, std::string("/etc/passwd")})
    for (const std::string& directive : directive_spellings(path)) {
      try {
        nvrtc_compile("// probe\n" + directive + "\n" + kKernel, "probe.cu", "k", {"sm_90a", false, {}});
        ADD_FAILURE() << "compiled: " << directive;
      } catch (const CompileError& e) {
        expect_no_host_text(e.what(), directive);
        expect_no_host_text(e.to_json(), directive);
      }
    }
}

TEST(NvrtcHostFiles, DeviceCodeThroughCompileAndPrepareRevealsNothing) {
  HostFile host;
  for (const std::string& path : {host.path, std::string("/etc/passwd")})
    for (const std::string& directive : directive_spellings(path)) {
      const std::string source = "__device__ int twice(int v) {\n" + directive +
                                 "\n  return 2 * v;\n}\n"
                                 "__co__ void f(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\n";
      std::string seen;
      try {
        Kernel k = compile(source);
        TensorView spec = TensorView::contiguous(nullptr, DType::s32, Shape{8}, MemoryKind::device, 0);
        std::vector<Arg> args{Arg(spec)};
        k.prepare(args);
        seen = "prepared";
      } catch (const Error& e) {
        seen = e.what();
        if (const auto* c = dynamic_cast<const CompileError*>(&e)) seen += c->to_json();
      }
      EXPECT_NE(seen, "prepared") << directive;
      expect_no_host_text(seen, directive);
    }
}

}  // namespace
}  // namespace croq::jit
