// The croq-cache command over a real cache directory.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "common/process.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::jit {
namespace {

using croq::test::run_process;
using croq::test::TempDir;
const std::string kTool = CROQ_BINARY_DIR "/cache/croq-cache";

JitRequest tiny(int i) {
  JitRequest r;
  r.cuda_source = "extern \"C\" __global__ void tiny" + std::to_string(i) + "(int* p) { p[0] = " +
                  std::to_string(i) + "; }\n";
  r.entry = "tiny" + std::to_string(i);
  r.arch = "sm_90a";
  return r;
}

TEST(CacheTool, ListsStatsVerifiesPrunesAndClears) {
  TempDir dir, logs;
  std::string cubin_of_first;
  {
    DiskCacheSettings s;
    s.dir = dir.path();
    JitCompiler jit(s);
    for (int i = 0; i < 3; ++i) {
      auto k = jit.compile(tiny(i));
      if (i == 0) cubin_of_first = (dir.path() / (k->key.hex() + ".cubin")).string();
    }
  }
  std::map<std::string, std::string> env;
  auto tool = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {kTool, "--dir", dir.str()});
    return run_process(args, env, logs.path());
  };

  auto ls = tool({"ls"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("tiny0"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("sm_90a"), std::string::npos) << ls.out;

  auto stats = nlohmann::json::parse(tool({"--json", "stats"}).out);
  EXPECT_EQ(stats["entries"], 3);
  EXPECT_GT(stats["bytes"].get<std::uint64_t>(), 0u);

  EXPECT_EQ(tool({"verify"}).exit_code, 0);
  std::ofstream(cubin_of_first, std::ios::app) << "garbage";
  auto bad = tool({"verify"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("2 valid, 1 bad"), std::string::npos) << bad.out;
  EXPECT_EQ(tool({"verify", "--remove"}).exit_code, 1);
  EXPECT_EQ(tool({"verify"}).exit_code, 0);

  EXPECT_EQ(tool({"prune", "--max-bytes", "0"}).exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(tool({"--json", "stats"}).out)["entries"], 0);
  EXPECT_EQ(tool({"clear"}).exit_code, 0);

  EXPECT_EQ(tool({"frobnicate"}).exit_code, 2);
  auto malformed = tool({"prune", "--max-bytes", "lots"});
  EXPECT_EQ(malformed.exit_code, 1);
  EXPECT_NE(malformed.err.find("expected a byte count"), std::string::npos) << malformed.err;
}

}  // namespace
}  // namespace croq::jit
