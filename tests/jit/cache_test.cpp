// The kernel cache: memory hits, disk hits across processes, concurrent
// writers, corrupt entries, unwritable directories, CROQ_CACHE=0, eviction.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "croq/error.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::Child;
using croq::test::run_process;
using croq::test::TempDir;

const std::string kProbe = CROQ_BINARY_DIR "/tests/croq_jit_probe";
using test::kSaxpyPath;
using test::saxpy_request;

DiskCacheSettings settings_for(const fs::path& dir, std::uint64_t max_bytes = 0) {
  DiskCacheSettings s;
  s.dir = dir;
  s.max_bytes = max_bytes;
  return s;
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec)) names.push_back(f.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::size_t count_with_extension(const fs::path& dir, const std::string& ext) {
  std::size_t n = 0;
  for (const auto& name : files_in(dir)) n += fs::path(name).extension() == ext;
  return n;
}

nlohmann::json probe_json(const croq::test::ProcessResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(KernelCache, SecondCompileInProcessIsMemoryHit) {
  TempDir dir;
  JitCompiler jit(settings_for(dir.path()));
  auto first = jit.compile(saxpy_request());
  auto second = jit.compile(saxpy_request());
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(first->source, CacheSource::compiled);
  JitStats s = jit.stats();
  EXPECT_EQ(s.nvrtc_compiles, 1u);
  EXPECT_EQ(s.memory_hits, 1u);
  EXPECT_EQ(s.disk_hits, 0u);
}

TEST(KernelCache, NewProcessGetsDiskHitWithoutNvrtc) {
  TempDir dir, logs;
  std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", dir.str()}, {"CROQ_CACHE", ""}};
  std::vector<std::string> argv{kProbe, "--source", kSaxpyPath, "--entry", "saxpy"};
  auto cold = probe_json(run_process(argv, env, logs.path()));
  EXPECT_EQ(cold["nvrtc_compiles"], 1);
  EXPECT_EQ(cold["source"], "compiled");
  auto warm = probe_json(run_process(argv, env, logs.path()));
  EXPECT_EQ(warm["nvrtc_compiles"], 0) << "NVRTC ran although the disk cache had the kernel";
  EXPECT_EQ(warm["disk_hits"], 1);
  EXPECT_EQ(warm["source"], "disk");
  EXPECT_EQ(warm["key"], cold["key"]);
  const std::string key = cold["key"];
  EXPECT_EQ(files_in(dir.path()), (std::vector<std::string>{".lock", key + ".cubin", key + ".json"}));
}

TEST(KernelCache, MetadataDescribesTheEntry) {
  TempDir dir;
  JitCompiler jit(settings_for(dir.path()));
  JitRequest req = saxpy_request();
  req.launch.grid = {4, 1, 1};
  req.launch.block = {256, 1, 1};
  req.croq_source_hash = "0123456789abcdef0123456789abcdef";
  auto k = jit.compile(req);
  std::ifstream in(dir.path() / (k->key.hex() + ".json"));
  auto meta = nlohmann::json::parse(in);
  EXPECT_EQ(meta["format_version"], kCacheFormatVersion);
  EXPECT_EQ(meta["key"], k->key.hex());
  EXPECT_EQ(meta["entry"], "saxpy");
  EXPECT_EQ(meta["arch"], "sm_90a");
  EXPECT_EQ(meta["cubin_bytes"], k->cubin.size());
  EXPECT_EQ(meta["launch"]["block"][0], 256);
  EXPECT_EQ(meta["croq_source_xxh3_128"], req.croq_source_hash);
  EXPECT_TRUE(meta.contains("nvrtc_version"));
  EXPECT_TRUE(meta.contains("nvrtc_flags"));
  EXPECT_TRUE(meta.contains("created"));
  EXPECT_EQ(meta["cubin_xxh3_64"].get<std::string>().size(), 16u);
}

TEST(KernelCache, KeyCoversEverythingThatChangesTheCubin) {
  TempDir dir;
  JitCompiler jit(settings_for(dir.path()));
  JitRequest base = saxpy_request();
  auto key = jit.cache_key(base, "sm_90a");
  EXPECT_EQ(key, jit.cache_key(saxpy_request(), "sm_90a"));
  EXPECT_NE(key, jit.cache_key(base, "sm_80"));
  JitRequest other_text = saxpy_request("x");
  EXPECT_NE(key, jit.cache_key(other_text, "sm_90a"));
  JitRequest lines = base;
  lines.line_info = true;
  EXPECT_NE(key, jit.cache_key(lines, "sm_90a"));
  JitRequest entry = base;
  entry.entry = "other";
  EXPECT_NE(key, jit.cache_key(entry, "sm_90a"));
}

TEST(KernelCache, SixteenProcessesShareOneEmptyDirectory) {
  TempDir dir, logs;
  std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", dir.str()}, {"CROQ_CACHE", ""}};
  std::vector<std::string> argv{kProbe, "--source", kSaxpyPath, "--entry", "saxpy"};
  std::vector<std::unique_ptr<Child>> children;
  for (int i = 0; i < 16; ++i) children.push_back(std::make_unique<Child>(argv, env, logs.path()));
  std::set<std::string> keys;
  for (auto& c : children) {
    auto r = c->wait();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    keys.insert(nlohmann::json::parse(r.out)["key"].get<std::string>());
  }
  ASSERT_EQ(keys.size(), 1u);
  // Exactly one entry, no temp files left behind, and it verifies.
  const std::string key = *keys.begin();
  EXPECT_EQ(files_in(dir.path()), (std::vector<std::string>{".lock", key + ".cubin", key + ".json"}));
  DiskCache disk(settings_for(dir.path()));
  VerifyResult v = disk.verify(false);
  EXPECT_EQ(v.valid, 1u);
  EXPECT_TRUE(v.bad.empty());
}

// Damages the cached cubin with `damage`, then checks a fresh compiler
// detects it, recompiles, and leaves a valid entry.
void expect_rebuilt_after(const std::function<void(const fs::path&)>& damage) {
  TempDir dir;
  support::Hash128 key;
  {
    JitCompiler jit(settings_for(dir.path()));
    key = jit.compile(saxpy_request())->key;
  }
  damage(dir.path() / key.hex());
  JitCompiler jit(settings_for(dir.path()));
  auto k = jit.compile(saxpy_request());
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(jit.stats().nvrtc_compiles, 1u);
  EXPECT_EQ(jit.stats().disk_hits, 0u);
  DiskCache disk(settings_for(dir.path()));
  EXPECT_EQ(disk.verify(false).valid, 1u);
  // And the rebuilt entry is served from disk to the next process.
  JitCompiler next(settings_for(dir.path()));
  EXPECT_EQ(next.compile(saxpy_request())->source, CacheSource::disk);
}

TEST(KernelCache, TruncatedCubinIsDetectedAndRebuilt) {
  expect_rebuilt_after([](const fs::path& stem) {
    fs::path cubin = stem;
    cubin += ".cubin";
    fs::resize_file(cubin, fs::file_size(cubin) / 2);
  });
}

TEST(KernelCache, BitFlippedCubinIsDetectedAndRebuilt) {
  expect_rebuilt_after([](const fs::path& stem) {
    fs::path cubin = stem;
    cubin += ".cubin";
    std::fstream f(cubin, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(200);
    char c = 0;
    f.read(&c, 1);
    c ^= 0x10;
    f.seekp(200);
    f.write(&c, 1);
  });
}

TEST(KernelCache, TruncatedMetadataIsDetectedAndRebuilt) {
  expect_rebuilt_after([](const fs::path& stem) {
    fs::path json = stem;
    json += ".json";
    fs::resize_file(json, 10);
  });
}

TEST(KernelCache, MissingCubinIsDetectedAndRebuilt) {
  expect_rebuilt_after([](const fs::path& stem) {
    fs::path cubin = stem;
    cubin += ".cubin";
    fs::remove(cubin);
  });
}

TEST(KernelCache, ReadOnlyDirectoryWorksMemoryOnly) {
  TempDir parent, logs;
  fs::path dir = parent.path() / "ro";
  fs::create_directories(dir);
  ::chmod(parent.path().c_str(), 0755);
  ::chmod(dir.c_str(), 0555);
  std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", dir.string()}, {"CROQ_CACHE", ""},
                                         {"CROQ_LOG_LEVEL", "warn"}, {"HOME", "/nonexistent"}};
  // --without-bypass: root would ignore the permission bits. The probe reads
  // its source first, so it needs no access to the test tree (which may be
  // a root-only clone).
  std::vector<std::string> argv{kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--repeat", "3",
                                "--without-bypass", "--define-tag", "ro"};
  auto r = run_process(argv, env, logs.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["nvrtc_compiles"], 1);
  EXPECT_EQ(out["memory_hits"], 2);
  EXPECT_EQ(out["disk_enabled"], false);
  EXPECT_TRUE(files_in(dir).empty());
  // One warning, naming the directory, however many compiles.
  std::size_t first = r.err.find("caching in memory only");
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("caching in memory only", first + 1), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir.string()), std::string::npos) << r.err;
}

TEST(KernelCache, DirectoryPathThroughAFileWorksMemoryOnly) {
  TempDir parent;
  fs::path file = parent.path() / "not-a-dir";
  std::ofstream(file) << "x";
  JitCompiler jit(settings_for(file / "cache"));
  auto k = jit.compile(saxpy_request("through-file"));
  EXPECT_FALSE(k->cubin.empty());
  EXPECT_FALSE(jit.disk().enabled());
  EXPECT_NO_THROW(jit.compile(saxpy_request("through-file-2")));
}

TEST(KernelCache, CacheZeroWritesNothing) {
  TempDir dir, logs;
  fs::path cache = dir.path() / "cache";
  std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", cache.string()}, {"CROQ_CACHE", "0"}};
  std::vector<std::string> argv{kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--repeat", "2"};
  auto first = probe_json(run_process(argv, env, logs.path()));
  auto second = probe_json(run_process(argv, env, logs.path()));
  EXPECT_EQ(first["nvrtc_compiles"], 1);
  EXPECT_EQ(first["memory_hits"], 1);
  EXPECT_EQ(second["nvrtc_compiles"], 1);  // nothing was kept between processes
  EXPECT_FALSE(fs::exists(cache));
}

TEST(KernelCache, DumpDirReceivesSourcePtxAndCubin) {
  TempDir cache, dump, logs;
  std::map<std::string, std::string> env{{"CROQ_CACHE_DIR", cache.str()}, {"CROQ_CACHE", ""},
                                         {"CROQ_DUMP_DIR", dump.str()}};
  std::vector<std::string> argv{kProbe, "--source", kSaxpyPath, "--entry", "saxpy", "--define-tag", "dump"};
  auto out = probe_json(run_process(argv, env, logs.path()));
  const std::string stem = "saxpy-" + out["key"].get<std::string>().substr(0, 12);
  EXPECT_EQ(files_in(dump.path()), (std::vector<std::string>{stem + ".cu", stem + ".cubin", stem + ".ptx"}));
  std::ifstream ptx(dump.path() / (stem + ".ptx"));
  std::stringstream text;
  text << ptx.rdbuf();
  EXPECT_NE(text.str().find(".entry saxpy"), std::string::npos);
  EXPECT_EQ(fs::file_size(dump.path() / (stem + ".cubin")), fs::file_size(cache.path() / (out["key"].get<std::string>() + ".cubin")));
}

TEST(KernelCache, EvictionKeepsDirectoryUnderCap) {
  TempDir dir;
  std::uint64_t entry_bytes;
  {
    TempDir probe_dir;
    JitCompiler probe(settings_for(probe_dir.path()));
    probe.compile(saxpy_request("size-probe"));
    entry_bytes = 0;
    for (const auto& e : probe.disk().list()) entry_bytes += e.bytes;
  }
  const std::uint64_t cap = entry_bytes * 5 / 2;  // room for two entries
  JitCompiler jit(settings_for(dir.path(), cap));
  std::vector<std::string> keys;
  for (int i = 0; i < 6; ++i) {
    keys.push_back(jit.compile(saxpy_request("variant-" + std::to_string(i)))->key.hex());
    std::uint64_t total = 0;
    for (const auto& e : jit.disk().list()) total += e.bytes;
    EXPECT_LE(total, cap) << "after entry " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // distinct mtimes for LRU
  }
  auto left = jit.disk().list();
  ASSERT_EQ(left.size(), 2u);
  std::set<std::string> left_keys;
  for (const auto& e : left) left_keys.insert(e.key);
  EXPECT_TRUE(left_keys.count(keys[5])) << "the newest entry must survive";
  EXPECT_TRUE(left_keys.count(keys[4]));
}

TEST(KernelCache, ManualPruneAndClear) {
  TempDir dir;
  JitCompiler jit(settings_for(dir.path()));
  for (int i = 0; i < 3; ++i) jit.compile(saxpy_request("prune-" + std::to_string(i)));
  EXPECT_EQ(jit.disk().list().size(), 3u);
  EXPECT_GT(jit.disk().prune(0), 0u);
  EXPECT_TRUE(jit.disk().list().empty());
  jit.compile(saxpy_request("after-prune"));  // memory hit? no: a new key
  EXPECT_EQ(jit.disk().clear().entries, 1u);
  EXPECT_EQ(count_with_extension(dir.path(), ".cubin"), 0u);
}

TEST(KernelCache, EightThreadsCompileEachKeyOnce) {
  TempDir dir;
  JitCompiler jit(settings_for(dir.path()));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 4; ++i) jit.compile(saxpy_request("thread-key-" + std::to_string((t + i) % 3)));
      } catch (...) {
        ++failures;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  JitStats s = jit.stats();
  EXPECT_EQ(s.nvrtc_compiles, 3u) << "each of the 3 keys compiles exactly once";
  EXPECT_EQ(s.memory_hits, 8u * 4u - 3u);
}

TEST(KernelCache, CompileErrorsAreNotCached) {
  TempDir dir;
  JitCompiler jit(settings_for(dir.path()));
  JitRequest bad = saxpy_request();
  bad.cuda_source += "\nthis is not cuda;\n";
  EXPECT_THROW(jit.compile(bad), CompileError);
  EXPECT_THROW(jit.compile(bad), CompileError);
  EXPECT_EQ(jit.stats().nvrtc_compiles, 0u);  // counted only when successful
  EXPECT_TRUE(jit.disk().list().empty());
}

TEST(DiskCacheSettings, ReadsTheEnvironment) {
  ::setenv("CROQ_CACHE_DIR", "/tmp/croq-x", 1);
  ::setenv("CROQ_CACHE_MAX_BYTES", "64M", 1);
  ::unsetenv("CROQ_CACHE");
  auto s = DiskCacheSettings::from_environment();
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.dir, fs::path("/tmp/croq-x"));
  EXPECT_EQ(s.max_bytes, 64ull << 20);
  ::unsetenv("CROQ_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(DiskCacheSettings::from_environment().dir, fs::path("/tmp/xdg/croq"));
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(DiskCacheSettings::from_environment().dir, fs::path("/home/someone/.cache/croq"));
  for (const char* off : {"0", "false", "no", "off", "OFF", "No", "False"}) {
    ::setenv("CROQ_CACHE", off, 1);
    EXPECT_FALSE(DiskCacheSettings::from_environment().enabled) << off;
  }
  for (const char* on : {"1", "true", "yes", "on", "ON", "Yes"}) {
    ::setenv("CROQ_CACHE", on, 1);
    EXPECT_TRUE(DiskCacheSettings::from_environment().enabled) << on;
  }
  ::setenv("CROQ_CACHE", "maybe", 1);  // warned about, default kept
  EXPECT_TRUE(DiskCacheSettings::from_environment().enabled);
  EXPECT_FALSE(DiskCacheSettings::from_environment().shared);
  ::setenv("CROQ_CACHE", "0", 1);
  ::setenv("CROQ_CACHE_MAX_BYTES", "lots", 1);
  try {
    DiskCacheSettings::from_environment();
    FAIL() << "expected an error for a malformed byte count";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "CROQ_CACHE_MAX_BYTES=lots: expected a byte count such as 1048576, 512K, 64M or 2G");
  }
  ::unsetenv("CROQ_CACHE_MAX_BYTES");
  ::unsetenv("CROQ_CACHE");
}

}  // namespace
}  // namespace croq::jit
