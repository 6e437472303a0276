// The cache's trust model: a private directory, entries of other users (or
// writable by them) refused, the shared opt-in, and files never reached
// through links planted in the cache or dump directories.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "jit/jit_compiler.hpp"
#include "support/hash.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::run_process;
using croq::test::TempDir;
using croq::jit::test::cache_in;
using croq::test::read_file;

const std::string kProbe = CROQ_BINARY_DIR "/tests/croq_jit_probe";
const std::string kTool = CROQ_BINARY_DIR "/cache/croq-cache";
const std::string kSaxpyPath = CROQ_TEST_DATA_DIR "/jit/saxpy.cu";
constexpr uid_t kOtherUid = 65534;  // nobody

JitRequest saxpy(const std::string& tag) {
  JitRequest r;
  r.cuda_source = croq::test::read_file(kSaxpyPath) + "\n// " + tag + "\n";
  r.entry = "saxpy";
  r.arch = "sm_90a";
  r.source_name = "saxpy.cu";
  return r;
}

mode_t mode_of(const fs::path& p) {
  struct stat st{};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// Stores saxpy(tag) in `dir`; returns its key.
std::string cached_entry(const fs::path& dir, const std::string& tag) {
  JitCompiler jit(cache_in(dir));
  return jit.compile(saxpy(tag))->key.hex();
}

// Replaces the entry's image with `forged` and makes the metadata agree
// (size and checksum): what an attacker with write access would do.
void forge_entry(const fs::path& dir, const std::string& key, const std::string& forged) {
  const fs::path meta_path = dir / (key + ".json");
  auto meta = nlohmann::json::parse(read_file(meta_path));
  meta["cubin_bytes"] = forged.size();
  meta["cubin_xxh3_64"] = support::hex64(support::checksum64(forged.data(), forged.size()));
  fs::remove(meta_path);
  fs::remove(dir / (key + ".cubin"));
  std::ofstream(dir / (key + ".cubin"), std::ios::binary) << forged;
  std::ofstream(meta_path) << meta.dump(2);
}

// Makes `path` another user's, as far as this process can: root gives it
// away; any user can make it writable by others. Both are untrusted.
void make_foreign(const fs::path& path) {
  if (::geteuid() == 0) ASSERT_EQ(::lchown(path.c_str(), kOtherUid, kOtherUid), 0);
  else ::chmod(path.c_str(), fs::is_directory(path) ? 0777 : 0666);
}

TEST(CacheTrust, NewDirectoryAndFilesArePrivate) {
  TempDir parent;
  const fs::path dir = parent.path() / "new" / "cache";
  const std::string key = cached_entry(dir, "private");
  EXPECT_EQ(mode_of(dir), 0700u);
  EXPECT_EQ(mode_of(dir / (key + ".json")) & 077, 0u);
  EXPECT_EQ(mode_of(dir / (key + ".cubin")) & 077, 0u);
  EXPECT_EQ(mode_of(dir / ".lock") & 022, 0u);
}

// The attack: another user replaces a cubin and its checksum.
TEST(CacheTrust, ForgedEntryOfAnotherUserIsRefusedAndRebuilt) {
  for (const bool foreign_by_mode : {false, true}) {
    SCOPED_TRACE(foreign_by_mode ? "entry writable by others" : "entry owned by another user");
    TempDir dir;
    const std::string key = cached_entry(dir.path(), "forged");
    const std::string forged = "\x7f" "ELF forged image of another user";
    forge_entry(dir.path(), key, forged);
    for (const char* ext : {".json", ".cubin"}) {
      const fs::path p = dir.path() / (key + ext);
      if (foreign_by_mode) ::chmod(p.c_str(), 0666);
      else make_foreign(p);
    }
    // The tool does not vouch for it...
    TempDir logs;
    auto verify = run_process({kTool, "--dir", dir.str(), "verify"}, {}, logs.path());
    EXPECT_EQ(verify.exit_code, 1) << verify.out << verify.err;
    EXPECT_NE(verify.out.find("not trusted"), std::string::npos) << verify.out;
    // ...and the library rebuilds instead of loading it.
    JitCompiler jit(cache_in(dir.path()));
    auto k = jit.compile(saxpy("forged"));
    EXPECT_EQ(k->source, CacheSource::compiled);
    EXPECT_NE(std::string(k->cubin.begin(), k->cubin.end()), forged);
    EXPECT_TRUE(jit.disk().enabled());
    struct stat st{};
    ASSERT_EQ(::stat((dir.path() / (key + ".cubin")).c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, ::geteuid()) << "the rebuilt entry is ours";
    EXPECT_EQ(JitCompiler(cache_in(dir.path())).compile(saxpy("forged"))->source, CacheSource::disk);
  }
}

TEST(CacheTrust, DirectoryOfAnotherUserIsNotUsed) {
  TempDir parent, logs;
  const fs::path dir = parent.path() / "cache";
  const std::string key = cached_entry(dir, "foreign-dir");
  make_foreign(dir);
  JitCompiler jit(cache_in(dir));
  EXPECT_EQ(jit.compile(saxpy("foreign-dir"))->source, CacheSource::compiled);
  EXPECT_FALSE(jit.disk().enabled()) << "memory only";
  EXPECT_NO_THROW(jit.compile(saxpy("foreign-dir-2")));
  EXPECT_FALSE(fs::exists(dir / (jit.compile(saxpy("foreign-dir-2"))->key.hex() + ".json")));

  // In a child: one warning that names the directory and the opt-in.
  auto probe = run_process({kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--define-tag", "foreign-dir"},
                           {{"CROQ_CACHE_DIR", dir.string()}, {"CROQ_CACHE", ""}, {"CROQ_CACHE_SHARED", ""}},
                           logs.path());
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_EQ(nlohmann::json::parse(probe.out)["source"], "compiled");
  EXPECT_NE(probe.err.find("not trusted"), std::string::npos) << probe.err;
  EXPECT_NE(probe.err.find("CROQ_CACHE_SHARED=1"), std::string::npos) << probe.err;
  EXPECT_NE(probe.err.find("caching in memory only"), std::string::npos) << probe.err;

  auto ls = run_process({kTool, "--dir", dir.string(), "ls"}, {{"CROQ_CACHE_SHARED", ""}}, logs.path());
  EXPECT_EQ(ls.exit_code, 1);
  EXPECT_NE(ls.err.find("not trusted"), std::string::npos) << ls.err;

  // The documented opt-in for a cache shared between users.
  EXPECT_EQ(JitCompiler(cache_in(dir, /*shared=*/true)).compile(saxpy("foreign-dir"))->source, CacheSource::disk);
  auto shared = run_process({kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--define-tag", "foreign-dir"},
                            {{"CROQ_CACHE_DIR", dir.string()}, {"CROQ_CACHE", ""}, {"CROQ_CACHE_SHARED", "1"}},
                            logs.path());
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_EQ(nlohmann::json::parse(shared.out)["source"], "disk") << shared.err;
  auto shared_ls = run_process({kTool, "--dir", dir.string(), "ls"}, {{"CROQ_CACHE_SHARED", "1"}}, logs.path());
  EXPECT_EQ(shared_ls.exit_code, 0) << shared_ls.err;
  EXPECT_NE(shared_ls.out.find(key), std::string::npos) << shared_ls.out;
}

TEST(CacheTrust, PlantedLockLinkIsNotFollowed) {
  TempDir parent;
  const fs::path dir = parent.path() / "cache";
  const fs::path target = parent.path() / "created-through-link";
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  fs::create_symlink(target, dir / ".lock");
  JitCompiler jit(cache_in(dir));
  EXPECT_NO_THROW(jit.compile(saxpy("lock-link")));
  EXPECT_FALSE(fs::exists(target)) << "the planted link was followed";
  EXPECT_FALSE(jit.disk().enabled());
  EXPECT_TRUE(fs::is_symlink(dir / ".lock"));
}

TEST(CacheTrust, PlantedEntryLinksAreNotFollowed) {
  for (const char* ext : {".json", ".cubin"}) {
    SCOPED_TRACE(ext);
    TempDir parent;
    const fs::path dir = parent.path() / "cache";
    const std::string key = cached_entry(dir, "entry-link");
    // The link points at a valid copy of the file: only the link is wrong.
    const fs::path outside = parent.path() / (std::string("outside") + ext);
    fs::copy_file(dir / (key + ext), outside);
    fs::remove(dir / (key + ext));
    fs::create_symlink(outside, dir / (key + ext));
    const std::string before = read_file(outside);
    JitCompiler jit(cache_in(dir));
    EXPECT_EQ(jit.compile(saxpy("entry-link"))->source, CacheSource::compiled);
    EXPECT_EQ(read_file(outside), before) << "the link's target was written";
    EXPECT_FALSE(fs::is_symlink(dir / (key + ext))) << "the rebuilt entry replaced the link";
    EXPECT_EQ(JitCompiler(cache_in(dir)).compile(saxpy("entry-link"))->source, CacheSource::disk);
  }
}

// A FIFO where metadata belongs would block a reader forever.
TEST(CacheTrust, FifoInPlaceOfAnEntryDoesNotHang) {
  TempDir dir, logs;
  const std::string key = cached_entry(dir.path(), "fifo");
  fs::remove(dir.path() / (key + ".json"));
  ASSERT_EQ(::mkfifo((dir.path() / (key + ".json")).c_str(), 0600), 0);
  auto started = std::chrono::steady_clock::now();
  JitCompiler jit(cache_in(dir.path()));
  EXPECT_EQ(jit.compile(saxpy("fifo"))->source, CacheSource::compiled);
  auto ls = run_process({kTool, "--dir", dir.str(), "verify"}, {}, logs.path());
  EXPECT_EQ(ls.exit_code, 0) << ls.out << ls.err;  // the FIFO was replaced by the rebuilt entry
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

// CROQ_DUMP_DIR names come from the entry symbol and the key, never from
// text that could leave the directory; dump files replace planted links.
TEST(CacheTrust, DumpFilesStayInTheDumpDirectory) {
  TempDir root, logs;
  const fs::path cache = root.path() / "cache";
  const fs::path dump = root.path() / "a" / "b" / "dump";
  const fs::path escape = root.path() / "a" / "x";  // where "../../x/pwn" would land
  fs::create_directories(dump);
  fs::create_directories(escape);
  std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", cache.string()}, {"CROQ_CACHE", ""},
                                         {"CROQ_DUMP_DIR", dump.string()}};
  std::vector<std::string> argv{kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--define-tag", "dump-names"};
  auto first = run_process(argv, env, logs.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string key = nlohmann::json::parse(first.out)["key"];
  const std::string stem = "saxpy-" + key.substr(0, 12);

  // A metadata `entry` that is a path (checksum intact) ...
  const fs::path meta_path = cache / (key + ".json");
  auto meta = nlohmann::json::parse(read_file(meta_path));
  meta["entry"] = "../../x/pwn";
  std::ofstream(meta_path, std::ios::trunc) << meta.dump(2);
  // ... and a link planted where the next dump goes.
  const fs::path outside = root.path() / "outside.txt";
  std::ofstream(outside) << "keep";
  fs::remove(dump / (stem + ".cu"));
  fs::create_symlink(outside, dump / (stem + ".cu"));

  auto second = run_process(argv, env, logs.path());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(fs::is_empty(escape)) << "a dump file escaped the dump directory";
  EXPECT_EQ(read_file(outside), "keep");
  EXPECT_FALSE(fs::is_symlink(dump / (stem + ".cu")));
  std::vector<std::string> names;
  for (const auto& f : fs::directory_iterator(dump)) names.push_back(f.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{stem + ".cu", stem + ".cubin", stem + ".ptx"}));
}

}  // namespace
}  // namespace croq::jit
