// Temp files of writers that died before their rename (`.tmp-*`): counted
// by stats, collected once stale by prune, clear and the max-bytes cap.
// And croq-cache's output on a full disk.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "jit/cache_files.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::ProcessResult;
using croq::test::run_process;
using croq::test::TempDir;
using croq::jit::test::cache_in;

using croq::jit::test::tiny_kernel;
using croq::jit::test::croq_cache;

std::vector<std::string> temp_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().filename().string().rfind(".tmp-", 0) == 0) out.push_back(f.path().filename().string());
  return out;
}

void age(const fs::path& file, std::chrono::seconds by) {
  const auto then = std::chrono::system_clock::now() - by;
  const timespec t{std::chrono::system_clock::to_time_t(then), 0};
  const timespec times[2] = {t, t};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
}

// A writer killed (SIGKILL) while it writes a large image leaves its temp file.
std::string killed_writer_leftover(const fs::path& dir) {
  const std::vector<char> image(256u << 20, 'x');
  for (int attempt = 0; attempt < 5; ++attempt) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
      write_file_atomically(dir_fd, "0123456789abcdef0123456789abcdef.cubin", image.data(), image.size(), 0600);
      ::_exit(0);
    }
    // Until the temp file has bytes: killed between its creation and its
    // first write (a loaded machine), it would be left empty.
    const auto written = [&] {
      std::error_code ec;
      for (const auto& name : temp_files(dir))
        if (fs::file_size(dir / name, ec) > 0 && !ec) return true;
      return false;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!written() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (auto left = temp_files(dir); !left.empty()) return left.front();
    fs::remove(dir / "0123456789abcdef0123456789abcdef.cubin");  // it finished first: try again
  }
  return "";
}

TEST(CacheTempFiles, KilledWriterLeavesATempFileThatIsCollectedOnceStale) {
  TempDir dir;
  JitCompiler(cache_in(dir.path())).compile(tiny_kernel("kept"));
  const std::string left = killed_writer_leftover(dir.path());
  ASSERT_FALSE(left.empty()) << "the writer was never caught mid-write";
  const std::uint64_t left_bytes = fs::file_size(dir.path() / left);
  ASSERT_GT(left_bytes, 0u);

  auto stats = nlohmann::json::parse(croq_cache(dir.path(), {"--json", "stats"}).out);
  EXPECT_EQ(stats["entries"], 1);
  EXPECT_EQ(stats["temp_files"], 1);
  EXPECT_EQ(stats["temp_bytes"], left_bytes);
  EXPECT_EQ(stats["stale_temp_files"], 0) << "a fresh temp file may belong to a writer still at work";
  // Fresh: prune leaves it (and says so), the entry is not evicted for it.
  auto prune = croq_cache(dir.path(), {"prune", "--max-bytes", "1G"});
  EXPECT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_EQ(temp_files(dir.path()).size(), 1u);

  age(dir.path() / left, std::chrono::hours(2));
  stats = nlohmann::json::parse(croq_cache(dir.path(), {"--json", "stats"}).out);
  EXPECT_EQ(stats["stale_temp_files"], 1);
  EXPECT_EQ(stats["temp_bytes"], left_bytes);
  prune = croq_cache(dir.path(), {"prune", "--max-bytes", "1G"});
  EXPECT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_TRUE(temp_files(dir.path()).empty()) << "the stale temp file was not collected";
  EXPECT_EQ(nlohmann::json::parse(croq_cache(dir.path(), {"--json", "stats"}).out)["entries"], 1) << "the entry stays";
}

// The case: after `prune --max-bytes 1K` a directory still held 4.9 MB.
TEST(CacheTempFiles, PruneToASmallCapCollectsStaleTempFiles) {
  TempDir dir;
  JitCompiler(cache_in(dir.path())).compile(tiny_kernel("p"));
  const fs::path planted = dir.path() / ".tmp-4242-1-0-0123456789abcdef0123456789abcdef.cubin";
  std::ofstream(planted) << std::string(5 << 20, 'x');
  age(planted, std::chrono::hours(1));
  auto prune = croq_cache(dir.path(), {"prune", "--max-bytes", "1K"});
  EXPECT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_FALSE(fs::exists(planted));
  std::uint64_t total = 0;
  for (const auto& f : fs::directory_iterator(dir.path())) total += f.is_regular_file() ? f.file_size() : 0;
  EXPECT_LE(total, 1024u);
}

TEST(CacheTempFiles, TheMaxBytesCapCollectsStaleTempFiles) {
  TempDir dir;
  const fs::path planted = dir.path() / ".tmp-4242-1-0-0123456789abcdef0123456789abcdef.json";
  std::ofstream(planted) << std::string(1 << 20, 'x');
  age(planted, std::chrono::hours(1));
  DiskCacheSettings s = cache_in(dir.path());
  s.max_bytes = 512 * 1024;
  JitCompiler jit(s);
  const std::string key = jit.compile(tiny_kernel("capped"))->key.hex();
  EXPECT_FALSE(fs::exists(planted)) << "the cap left a stale temp file of 1 MiB";
  EXPECT_TRUE(fs::exists(dir.path() / (key + ".cubin"))) << "the new entry fits once the temp file is gone";
}

TEST(CacheTempFiles, ClearRemovesTempFilesOfAnyAge) {
  TempDir dir;
  JitCompiler(cache_in(dir.path())).compile(tiny_kernel("c"));
  std::ofstream(dir.path() / ".tmp-1-2-3-x.cubin") << "partial";
  auto clear = croq_cache(dir.path(), {"clear"});
  EXPECT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_NE(clear.out.find("removed 1 entries and 1 temp files"), std::string::npos) << clear.out;
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(CacheTool, WritesToAFullDiskFail) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  TempDir dir, logs;
  JitCompiler(cache_in(dir.path())).compile(tiny_kernel("full"));
  for (const char* command : {"ls", "stats", "verify"}) {
    for (const char* json : {"--json ", ""}) {
      SCOPED_TRACE(std::string(json) + command);
      const std::string line = std::string(CROQ_BINARY_DIR "/cache/croq-cache") + " --dir " + dir.str() + " " + json + command + " > /dev/full";
      auto r = run_process({"/bin/sh", "-c", line}, {}, logs.path());
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_NE(r.err.find("croq-cache: cannot write to standard output: No space left on device"), std::string::npos)
          << r.err;
    }
  }
}

}  // namespace
}  // namespace croq::jit
