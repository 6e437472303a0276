// `croq compile --emit ptx` runs NVRTC on __device__ code: whatever spelling
// a directive in it takes, no host file is read and none is shown (the
// NVRTC sandbox; tests/jit/nvrtc_host_files_test.cpp tests it directly).
#include <gtest/gtest.h>

#include <fstream>

#include "common/croq_command.hpp"

namespace croq::cli {
namespace {

constexpr const char* kSecret = "croq_cli_secret_91c2";

TEST(CroqHostFiles, DeviceCodeDirectivesShowNoHostFile) {
  TempDir dir;
  const std::string secret = (dir.path() / "secret.h").string();
  std::ofstream(secret) << kSecret << " stolen;\n";
  const std::vector<std::string> directives{
      "%:include \"" + secret + "\"",
      "%:include_next \"" + secret + "\"",
      "#include_next <" + secret + ">",
      "#\\\ninclude \"" + secret + "\"",
      "# /* c */ include \"" + secret + "\"",
      "#warning it's\n#include \"" + secret + "\"",
      "#pragma message \"x\n#include \"" + secret + "\"",
      "_Pragma(\"once\")\n#include \"/etc/passwd\"",
      "#embed \"" + secret + "\"",
  };
  int index = 0;
  for (const std::string& directive : directives) {
    const std::string path = (dir.path() / ("probe" + std::to_string(index++) + ".co")).string();
    std::ofstream(path) << "__device__ int twice(int v) {\n" << directive
                        << "\n  return 2 * v;\n}\n__co__ void f(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\n";
    auto r = run_process({kCroq, "compile", path, "--emit", "ptx"}, {}, dir.path());
    EXPECT_EQ(r.exit_code, 1) << directive << "\n" << r.err;
    EXPECT_EQ(r.err.find(kSecret), std::string::npos) << directive << "\n" << r.err;
    EXPECT_EQ(r.err.find("root:"), std::string::npos) << directive << "\n" << r.err;
    EXPECT_EQ(r.out.find(kSecret), std::string::npos) << directive;
  }
}

}  // namespace
}  // namespace croq::cli
