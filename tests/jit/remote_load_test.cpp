// Load: many processes start together on the same uncompiled kernel and
// compile it once. 32 probes with a cache directory each stand for 32
// hosts sharing the private Redis; 8 probes sharing one directory stand
// for the ranks of one host. Each probe prints its JitStats as JSON and
// writes the image it got; the images must be byte for byte what NVRTC
// makes for the request.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "remote_test_util.hpp"

namespace croq::jit {
namespace {

using croq::test::Child;
using croq::test::RedisServer;
using croq::test::TempDir;
using namespace croq::jit::test;
namespace fs = std::filesystem;

struct ProbeResult {
  nlohmann::json stats;
  std::vector<char> image;
  std::string tag;
};

std::vector<char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Starts one probe per tag (probe i compiles saxpy tagged tags[i], in the
// cache directory dir_of(i)), waits until all are ready, releases them at
// once, and collects what each got.
template <typename DirOf>
std::vector<ProbeResult> run_together(const std::vector<std::string>& tags, DirOf dir_of, const std::string& remote,
                                      const TempDir& work) {
  const fs::path barrier = work.path() / "go";
  std::vector<std::unique_ptr<Child>> probes;
  for (std::size_t i = 0; i < tags.size(); ++i) {
    const std::string n = std::to_string(i);
    std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", dir_of(i)},
                                           {"CROQ_CACHE", ""},
                                           {"CROQ_CACHE_REMOTE", remote},
                                           {"CROQ_CACHE_REMOTE_SECRET", ""},
                                           // the one compile must finish even on a loaded machine
                                           {"CROQ_CACHE_WAIT_MS", "300000"},
                                           {"CROQ_CACHE_REMOTE_TIMEOUT_MS", "2000"}};
    probes.push_back(std::make_unique<Child>(
        std::vector<std::string>{kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--define-tag", tags[i], "--ready",
                                 (work.path() / ("ready-" + n)).string(), "--barrier", barrier.string(),
                                 "--image-out", (work.path() / ("image-" + n)).string()},
        env, work.path()));
  }
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  for (std::size_t i = 0; i < tags.size(); ++i)
    while (!fs::exists(work.path() / ("ready-" + std::to_string(i))) && Clock::now() < deadline)
      std::this_thread::sleep_for(milliseconds(5));
  std::ofstream(barrier) << "go\n";
  std::vector<ProbeResult> results;
  for (std::size_t i = 0; i < tags.size(); ++i) {
    croq::test::ProcessResult r = probes[i]->wait();
    EXPECT_EQ(r.exit_code, 0) << "probe " << i << ": " << r.err;
    ProbeResult p;
    p.tag = tags[i];
    p.stats = r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
    p.image = read_bytes(work.path() / ("image-" + std::to_string(i)));
    results.push_back(std::move(p));
  }
  return results;
}

std::uint64_t total(const std::vector<ProbeResult>& results, const char* field) {
  std::uint64_t sum = 0;
  for (const auto& r : results) sum += r.stats.value(field, std::uint64_t{0});
  return sum;
}

std::map<std::string, std::vector<char>> nvrtc_images(const std::vector<std::string>& tags) {
  std::map<std::string, std::vector<char>> images;
  for (const auto& tag : tags) {
    if (images.count(tag)) continue;
    JitRequest r = saxpy_request(tag);
    r.source_name = kSaxpyPath;  // as the probe names it
    images[tag] = nvrtc_image(r);
  }
  return images;
}

constexpr int kHosts = 32;

TEST(RemoteLoad, ThirtyTwoHostsStartingTogetherCompileOnce) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir work;
  const std::vector<std::string> tags(kHosts, "load-same");
  auto results = run_together(tags, [&](std::size_t i) { return (work.path() / ("host-" + std::to_string(i))).string(); },
                              redis.url(), work);
  EXPECT_EQ(total(results, "nvrtc_compiles"), 1u) << "hosts compiled the same kernel more than once";
  EXPECT_EQ(total(results, "remote_hits"), kHosts - 1u);
  EXPECT_EQ(total(results, "remote_errors"), 0u);
  const auto expected = nvrtc_images(tags);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].image, expected.at(tags[i])) << "probe " << i << " (" << results[i].stats.dump() << ")";
    const std::string source = results[i].stats.value("source", "");
    EXPECT_TRUE(source == "compiled" || source == "remote") << source;
  }
}

TEST(RemoteLoad, ThirtyTwoHostsWithDifferentKernelsCompileEachOnce) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir work;
  std::vector<std::string> tags;
  for (int i = 0; i < kHosts; ++i) tags.push_back("load-" + std::to_string(i));
  auto results = run_together(tags, [&](std::size_t i) { return (work.path() / ("host-" + std::to_string(i))).string(); },
                              redis.url(), work);
  EXPECT_EQ(total(results, "nvrtc_compiles"), std::uint64_t(kHosts));
  EXPECT_EQ(total(results, "remote_errors"), 0u);
  const auto expected = nvrtc_images(tags);
  for (std::size_t i = 0; i < results.size(); ++i)
    EXPECT_EQ(results[i].image, expected.at(tags[i])) << "probe " << i << " (" << results[i].stats.dump() << ")";
}

TEST(RemoteLoad, RanksOfOneHostSharingADirectoryCompileOnce) {
  TempDir work;
  const std::vector<std::string> tags(8, "load-one-host");
  const std::string dir = (work.path() / "cache").string();
  auto results = run_together(tags, [&](std::size_t) { return dir; }, "", work);
  EXPECT_EQ(total(results, "nvrtc_compiles"), 1u) << "processes of one host compiled the same kernel more than once";
  EXPECT_EQ(total(results, "disk_hits"), 7u);
  const auto expected = nvrtc_images(tags);
  for (const auto& r : results) EXPECT_EQ(r.image, expected.at(r.tag));
  std::size_t lock_files = 0;
  for (const auto& f : fs::directory_iterator(dir))
    lock_files += f.path().extension() == ".lock";  // <key>.lock; the directory's own is .lock
  EXPECT_EQ(lock_files, 0u) << "compile lock files were left behind";
}

}  // namespace
}  // namespace croq::jit
