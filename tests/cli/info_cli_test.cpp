// croq compile --emit info: each kernel's resources through the kernel
// cache, ptxas's figures without a GPU (the driver's with one: gpu tests).
#include <gtest/gtest.h>

#include <fstream>

#include "common/croq_command.hpp"
#include "jit/driver.hpp"

namespace croq::cli {
namespace {

class InfoCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (jit::driver_available(&why) && jit::device_count() > 0) GTEST_SKIP() << "with a GPU the figures are the driver's";
  }
  ProcessResult croq(std::vector<std::string> args) {
    args.insert(args.begin(), kCroq);
    return run_process(args, {{"CROQ_CACHE_DIR", cache_.str()}, {"CROQ_CACHE", ""}, {"CROQ_ARCH", ""}}, files_.path());
  }
  TempDir cache_, files_;
};

TEST_F(InfoCli, PrintsPtxasFiguresWithoutAGpu) {
  auto r = croq({"compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--emit", "info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_EQ(out.rfind("specialization: add(f32 [16, 32], f32 [16, 32]) for sm_90a\nsource: compiled\n"
                      "figures: nvrtc (ptxas's report of the compile; no CUDA driver)\nkernel 1 of 1: croq_add\n",
                      0),
            0u)
      << out;
  // 512 elements, 4 a thread (vectorize_elementwise): 128 vectors, one block.
  for (const char* line : {"  launch: grid [1, 1, 1], block [256, 1, 1]\n",
                           "  spills: 0 bytes stored, 0 bytes loaded per thread (nvrtc)\n",
                           "  local memory: 0 bytes per thread (nvrtc)\n",
                           "  shared memory: 0 bytes static (nvrtc), 0 bytes dynamic per block\n",
                           "  occupancy: unknown (needs a CUDA device)\n", "  image: sm_90a cubin, "})
    EXPECT_NE(out.find(line), std::string::npos) << line << out;
  EXPECT_NE(out.find("  registers: "), std::string::npos) << out;
  // A second run finds the image on disk, with the same report.
  auto again = croq({"compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--emit", "info"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("source: disk\n"), std::string::npos) << again.out;
  const auto from = [](const std::string& text) { return text.substr(text.find("kernel 1 of 1")); };
  std::string disk = from(again.out), compiled = from(out);
  disk.replace(disk.rfind(", disk\n"), 7, ", compiled\n");
  EXPECT_EQ(disk, compiled);
}

TEST_F(InfoCli, WritesToAFileAndReportsErrors) {
  const std::string path = (files_.path() / "info.txt").string();
  auto r = croq({"compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--emit", "info", "-o", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "specialization: add(f32 [16, 32], f32 [16, 32]) for sm_90a");
  auto missing = croq({"compile", kAdd, "--shape", "M=16", "--emit", "info"});
  EXPECT_EQ(missing.exit_code, 1) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("parameter 'lhs' has the symbolic dim N; give it with --shape N=N"), std::string::npos)
      << missing.err;
}

// An image a preloaded bundle holds in memory (the disk cache off) says so.
TEST_F(InfoCli, SaysWhenTheImageIsAPreloadedBundles) {
  auto r = croq({"compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--emit", "info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bundle = (files_.path() / "add.croqbundle").string();
  auto exported = run_process({CROQ_BINARY_DIR "/cache/croq-cache", "--dir", cache_.str(), "export", bundle}, {},
                              files_.path());
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  auto preloaded = run_process({kCroq, "compile", kAdd, "--shape", "M=16", "--shape", "N=32", "--emit", "info"},
                               {{"CROQ_CACHE", "0"}, {"CROQ_CACHE_PRELOAD", bundle}, {"CROQ_ARCH", ""}},
                               files_.path());
  ASSERT_EQ(preloaded.exit_code, 0) << preloaded.err;
  EXPECT_NE(preloaded.out.find("source: memory\n"), std::string::npos) << preloaded.out;
  EXPECT_NE(preloaded.out.find(" bytes, memory (a preloaded bundle's)\n"), std::string::npos) << preloaded.out;
  EXPECT_EQ(r.out.find("preloaded"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace croq::cli
