// Bundles (cache_bundle.hpp): `croq-cache export` / `import`, and
// CROQ_CACHE_PRELOAD. A bundle moves verified entries whole; a corrupt,
// truncated or foreign one is an error naming the problem, and nothing of
// it is imported.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "croq/error.hpp"
#include "jit/cache_bundle.hpp"
#include "jit/jit_compiler.hpp"
#include "support/hash.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::ProcessResult;
using croq::test::run_process;
using croq::test::TempDir;
using croq::jit::test::cache_in;
using croq::test::read_file;

const std::string kProbe = CROQ_BINARY_DIR "/tests/croq_jit_probe";
using croq::jit::test::tiny_kernel;
using croq::jit::test::tiny_kernel_source;
using croq::jit::test::croq_cache;

std::size_t entries_in(const fs::path& dir) {
  if (!fs::exists(dir)) return 0;
  std::size_t n = 0;
  for (const auto& f : fs::directory_iterator(dir)) n += f.path().extension() == ".json";
  return n;
}

// A cache with three entries and its bundle.
class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    JitCompiler jit(cache_in(source_.path()));
    for (const char* name : {"b0", "b1", "b2"}) keys_.push_back(jit.compile(tiny_kernel(name))->key.hex());
    auto r = croq_cache(source_.path(), {"export", bundle().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("exported 3 entries (", 0), 0u) << r.out;
  }
  fs::path bundle() const { return files_.path() / "kernels.croqbundle"; }
  fs::path target() const { return files_.path() / "target-cache"; }

  // Imports `bytes` as a bundle into an empty cache: the tool's result.
  ProcessResult import_bytes(const std::string& bytes) {
    const fs::path path = files_.path() / "edited.croqbundle";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return croq_cache(target(), {"import", path.string()});
  }

  TempDir source_, files_;
  std::vector<std::string> keys_;
};

TEST_F(BundleTest, ExportAndImportMoveEveryEntry) {
  auto r = croq_cache(target(), {"--json", "import", bundle().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto result = nlohmann::json::parse(r.out);
  EXPECT_EQ(result["entries"], 3);
  EXPECT_EQ(result["added"], 3);
  EXPECT_EQ(croq_cache(target(), {"verify"}).out, "3 valid, 0 bad\n");
  for (const auto& key : keys_)
    EXPECT_EQ(read_file(target() / (key + ".cubin")), read_file(source_.path() / (key + ".cubin")));
  // Importing again adds nothing and replaces nothing.
  r = croq_cache(target(), {"import", bundle().string()});
  EXPECT_EQ(r.out, "imported 0 of 3 entries into " + target().string() + " (3 were there already)\n");
  // The library serves them.
  JitLookup lookup;
  JitCompiler(cache_in(target())).compile(tiny_kernel("b1"), &lookup);
  EXPECT_EQ(lookup.source, CacheSource::disk);
}

TEST_F(BundleTest, ExportSelectsKeys) {
  const fs::path one = files_.path() / "one.croqbundle";
  auto r = croq_cache(source_.path(), {"export", one.string(), "--key", keys_[1]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bundle(one).size(), 1u);
  EXPECT_EQ(read_bundle(one)[0].metadata.key, keys_[1]);
  r = croq_cache(source_.path(), {"export", one.string(), "--key", std::string(32, 'f')});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "croq-cache: entry " + std::string(32, 'f') + ": not in the cache\n");
  r = croq_cache(source_.path(), {"export", one.string(), "--key", "nope"});
  EXPECT_EQ(r.err, "croq-cache: `nope` is not a cache key (32 lowercase hex digits)\n");
  EXPECT_EQ(croq_cache(source_.path(), {"export"}).exit_code, 2);
  EXPECT_EQ(croq_cache(source_.path(), {"ls", "--key", keys_[0]}).exit_code, 2);
}

TEST_F(BundleTest, CorruptBundlesImportNothing) {
  const std::string good = read_file(bundle());
  struct Case {
    const char* what;
    std::string bytes;
    std::string error;
  };
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x20;
  std::string version = good;
  version[8] = 2;
  const std::string checksum = "checksum mismatch: the file is corrupt or truncated";
  const std::vector<Case> cases{
      {"bit flip", flipped, checksum + " (" + std::to_string(good.size()) + " bytes)"},
      {"truncated", good.substr(0, good.size() - 100), checksum},
      {"cut to its header", good.substr(0, 40), checksum},
      {"empty", "", "not a libcroqjit bundle (no CROQBNDL header)"},
      {"other file", "#!/bin/sh\necho hello, this is not a bundle at all\n", "not a libcroqjit bundle"},
      {"newer format", version, "bundle format version 2 is not supported (this library reads 1)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto r = import_bytes(c.bytes);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(c.error), std::string::npos) << r.err;
    EXPECT_EQ(entries_in(target()), 0u);
  }
  auto missing = croq_cache(target(), {"import", (files_.path() / "absent").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot read bundle"), std::string::npos) << missing.err;
}

// A bundle whose checksum is right but one of whose entries is not: made
// by a broken exporter. Nothing of it is imported, the good entries neither.
TEST_F(BundleTest, AnEntryThatFailsVerificationImportsNothing) {
  std::vector<StoredKernel> entries = read_bundle(bundle());
  const std::string second_key = entries[1].metadata.key;  // entries are in key order
  const std::string garbage = "not a cubin, but its checksum matches";
  entries[1].cubin.assign(garbage.begin(), garbage.end());
  entries[1].metadata.cubin_bytes = garbage.size();
  entries[1].metadata.cubin_xxh3_64 = support::hex64(support::checksum64(garbage.data(), garbage.size()));
  auto r = import_bytes(encode_bundle(entries));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(": entry 2 (" + second_key + "): cubin is not an ELF file"), std::string::npos) << r.err;
  EXPECT_EQ(entries_in(target()), 0u);

  entries = read_bundle(bundle());
  entries[2].metadata.key = entries[0].metadata.key;
  r = import_bytes(encode_bundle(entries));
  EXPECT_NE(r.err.find("entry 3 repeats key " + entries[0].metadata.key), std::string::npos) << r.err;
  EXPECT_EQ(entries_in(target()), 0u);
}

TEST(BundleFormat, FramingErrorsAreNamed) {
  EXPECT_EQ(encode_bundle({}).size(), 16u + 16u);
  EXPECT_TRUE(decode_bundle(encode_bundle({}), "b").empty());
  // A count past the entries, with a checksum that matches: truncated framing.
  std::string bytes = encode_bundle({});
  bytes.resize(bytes.size() - 16);
  bytes[12] = 1;
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<char>(h.high64 >> (8 * i)));
  for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<char>(h.low64 >> (8 * i)));
  try {
    decode_bundle(bytes, "b");
    FAIL() << "decoded a bundle with a missing entry";
  } catch (const CacheError& e) {
    EXPECT_STREQ(e.what(), "bundle b: truncated: entry 1's metadata length ends past the entries");
  }
}

TEST_F(BundleTest, PreloadFillsAnEmptyDiskCache) {
  TempDir logs;
  const fs::path source = logs.path() / "b2.cu";
  std::ofstream(source) << tiny_kernel_source("b2");
  std::vector<std::string> argv{kProbe, "--source", source.string(), "--entry", "b2"};
  auto r = run_process(argv, {{"CROQ_CACHE_DIR", target().string()}, {"CROQ_CACHE", ""},
                              {"CROQ_CACHE_PRELOAD", bundle().string()}}, logs.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["source"], "disk");
  EXPECT_EQ(out["nvrtc_compiles"], 0);
  EXPECT_EQ(entries_in(target()), 3u);

  // With the disk cache off, the bundle serves from memory.
  r = run_process(argv, {{"CROQ_CACHE_DIR", (logs.path() / "unused").string()}, {"CROQ_CACHE", "0"},
                         {"CROQ_CACHE_PRELOAD", bundle().string()}}, logs.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["source"], "memory");
  EXPECT_EQ(out["nvrtc_compiles"], 0);
  EXPECT_FALSE(fs::exists(logs.path() / "unused"));

  // A corrupt bundle is warned about; the kernel compiles as usual.
  std::string bytes = read_file(bundle());
  bytes[bytes.size() / 3] ^= 1;
  const fs::path bad = logs.path() / "bad.croqbundle";
  std::ofstream(bad, std::ios::binary) << bytes;
  TempDir empty;
  r = run_process(argv, {{"CROQ_CACHE_DIR", empty.str()}, {"CROQ_CACHE", ""}, {"CROQ_CACHE_PRELOAD", bad.string()}},
                  logs.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["source"], "compiled");
  EXPECT_NE(r.err.find("[croq] [warning] CROQ_CACHE_PRELOAD: bundle " + bad.string() +
                       ": checksum mismatch: the file is corrupt or truncated"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing preloaded"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace croq::jit
