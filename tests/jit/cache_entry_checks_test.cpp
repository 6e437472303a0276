// Cache entries that pass the size and checksum checks but are not what the
// request needs (issue 30, "The cache"): metadata naming another entry or
// arch, images that are no cubin of the kernel, directories planted as
// entries, source names that are not UTF-8. Each is a miss (rebuilt), and
// `croq-cache verify` calls it bad where it can tell without a request.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "jit/cache_image.hpp"
#include "jit/jit_compiler.hpp"
#include "support/hash.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::run_process;
using croq::test::TempDir;
using croq::jit::test::cache_in;
using croq::test::read_file;

const std::string kTool = CROQ_BINARY_DIR "/cache/croq-cache";
using croq::jit::test::tiny_kernel;

nlohmann::json read_meta(const fs::path& dir, const std::string& key) {
  return nlohmann::json::parse(read_file(dir / (key + ".json")));
}

void write_meta(const fs::path& dir, const std::string& key, const nlohmann::json& meta) {
  fs::remove(dir / (key + ".json"));
  std::ofstream(dir / (key + ".json")) << meta.dump(2);
}

// Replaces the entry's image by `image`, with metadata that agrees with it
// (size and checksum).
void replace_image(const fs::path& dir, const std::string& key, const std::string& image) {
  auto meta = read_meta(dir, key);
  meta["cubin_bytes"] = image.size();
  meta["cubin_xxh3_64"] = support::hex64(support::checksum64(image.data(), image.size()));
  fs::remove(dir / (key + ".cubin"));
  std::ofstream(dir / (key + ".cubin"), std::ios::binary) << image;
  write_meta(dir, key, meta);
}

croq::test::ProcessResult verify(const fs::path& dir) { return croq::jit::test::croq_cache(dir, {"verify"}); }

// Stores `request` in a fresh cache, lets `damage` change the entry, then
// checks a new compiler does not load it (a compile, and `why` in the
// disk layer's reason), and that verify finds it bad when `verify_sees` it.
// `load_why`: the disk layer's reason, when it differs from verify's `why`.
void expect_refused(const JitRequest& request, const std::function<void(const fs::path&, const std::string&)>& damage,
                    const std::string& why, bool verify_sees = true, std::string load_why = "") {
  if (load_why.empty()) load_why = why;
  TempDir dir;
  std::string key;
  {
    JitCompiler jit(cache_in(dir.path()));
    key = jit.compile(request)->key.hex();
  }
  damage(dir.path(), key);
  if (verify_sees) {
    auto v = verify(dir.path());
    EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
    EXPECT_NE(v.out.find("0 valid, 1 bad"), std::string::npos) << v.out;
    EXPECT_NE(v.out.find(why), std::string::npos) << v.out;
  }
  JitCompiler jit(cache_in(dir.path()));
  JitLookup lookup;
  auto k = jit.compile(request, &lookup);
  EXPECT_EQ(lookup.source, CacheSource::compiled);
  EXPECT_EQ(jit.stats().nvrtc_compiles, 1u);
  EXPECT_EQ(k->entry, request.entry);
  std::string notes;
  for (const auto& n : lookup.notes) notes += n + "\n";
  EXPECT_NE(notes.find(load_why), std::string::npos) << notes;
  EXPECT_TRUE(jit.disk().enabled());
  // The rebuilt entry replaced the bad one.
  EXPECT_EQ(verify(dir.path()).exit_code, 0);
  JitLookup next;
  JitCompiler(cache_in(dir.path())).compile(request, &next);
  EXPECT_EQ(next.source, CacheSource::disk);
}

TEST(CacheEntryChecks, MetadataNamingAnotherEntryIsNotAHit) {
  expect_refused(tiny_kernel("kern_a"), [](const fs::path& dir, const std::string& key) {
    auto meta = read_meta(dir, key);
    meta["entry"] = "kern_b";
    write_meta(dir, key, meta);
  }, "cubin has no kernel `kern_b`", true, "made for kernel `kern_b`, not `kern_a`");
  // The disk layer compares with the request even where the image has the symbol.
  expect_refused(tiny_kernel("kern_c"), [](const fs::path& dir, const std::string& key) {
    auto meta = read_meta(dir, key);
    meta["name_expression"] = "kern_d";
    write_meta(dir, key, meta);
  }, "made for kernel `kern_d`, not `kern_c`", /*verify_sees=*/false);
}

TEST(CacheEntryChecks, MetadataNamingAnotherArchIsNotAHit) {
  expect_refused(tiny_kernel("kern_arch"), [](const fs::path& dir, const std::string& key) {
    auto meta = read_meta(dir, key);
    meta["arch"] = "sm_80";
    write_meta(dir, key, meta);
  }, "made for sm_80, not sm_90a", /*verify_sees=*/false);
}

TEST(CacheEntryChecks, MetadataOfAnotherLaunchOrNvrtcIsNotAHit) {
  expect_refused(tiny_kernel("kern_launch"), [](const fs::path& dir, const std::string& key) {
    auto meta = read_meta(dir, key);
    meta["launch"]["block"] = nlohmann::json::array({64, 1, 1});
    write_meta(dir, key, meta);
  }, "launch shape differs from the request", /*verify_sees=*/false);
  expect_refused(tiny_kernel("kern_nvrtc"), [](const fs::path& dir, const std::string& key) {
    auto meta = read_meta(dir, key);
    meta["nvrtc_version"] = "9.9";
    write_meta(dir, key, meta);
  }, "made by NVRTC 9.9", /*verify_sees=*/false);
}

TEST(CacheEntryChecks, ImagesThatAreNoCubinAreRefusedDespiteTheirChecksum) {
  expect_refused(tiny_kernel("kern_empty"), [](const fs::path& dir, const std::string& key) {
    replace_image(dir, key, "");
  }, "cubin is empty");
  expect_refused(tiny_kernel("kern_trunc"), [](const fs::path& dir, const std::string& key) {
    std::string cubin = read_file(dir / (key + ".cubin"));
    replace_image(dir, key, cubin.substr(0, cubin.size() / 2));
  }, "cubin is truncated");
  expect_refused(tiny_kernel("kern_random"), [](const fs::path& dir, const std::string& key) {
    std::mt19937 rng(5);
    std::string bytes(4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    replace_image(dir, key, bytes);
  }, "cubin is not an ELF file");
  expect_refused(tiny_kernel("kern_x86"), [](const fs::path& dir, const std::string& key) {
    std::string cubin = read_file(dir / (key + ".cubin"));
    cubin[18] = 62;  // e_machine: EM_X86_64
    cubin[19] = 0;
    replace_image(dir, key, cubin);
  }, "cubin is an ELF file for machine 62, not CUDA (190)");
  // A real cubin of another kernel.
  expect_refused(tiny_kernel("kern_mine"), [](const fs::path& dir, const std::string& key) {
    std::string other;
    {
      TempDir elsewhere;
      JitCompiler jit(cache_in(elsewhere.path()));
      const auto k = jit.compile(tiny_kernel("kern_theirs"));
      other.assign(k->cubin.begin(), k->cubin.end());
    }
    replace_image(dir, key, other);
  }, "cubin has no kernel `kern_mine`");
}

TEST(CacheEntryChecks, PtxImageMustDefineTheEntry) {
  expect_refused(tiny_kernel("ptx_mine", "compute_80"), [](const fs::path& dir, const std::string& key) {
    replace_image(dir, key, std::string(".version 8.0\n.target sm_80\n.visible .entry other()\n{\n ret;\n}\n") + '\0');
  }, "PTX has no `.entry ptx_mine`");
}

TEST(CacheEntryChecks, ImageCheckNamesEachProblem) {
  EXPECT_EQ(image_problem("", false, "k"), "cubin is empty");
  EXPECT_EQ(image_problem("\x7f" "ELF", false, "k"), "cubin is truncated (4 bytes, shorter than an ELF header)");
  EXPECT_EQ(image_problem(std::string(64, 'x'), false, "k"), "cubin is not an ELF file");
  std::string header(64, '\0');
  header.replace(0, 4, "\x7f" "ELF");
  header[4] = 1;  // ELFCLASS32
  EXPECT_EQ(image_problem(header, false, "k"), "cubin is not a 64-bit little-endian ELF file");
  EXPECT_EQ(image_problem(std::string("x\0", 2), true, "k"), "PTX has no `.entry k`");
  EXPECT_EQ(image_problem(".entry k(", true, "k"), "PTX image is not one NUL-terminated text");
  EXPECT_EQ(image_problem(std::string(".visible .entry k(\0", 19), true, "k"), "");
  EXPECT_EQ(image_problem(std::string(".visible .entry k2(\0", 20), true, "k"), "PTX has no `.entry k`");
}

// A directory where an entry's file belongs: that entry cannot be cached
// (when the directory cannot be removed), the rest of the cache works.
TEST(CacheEntryChecks, DirectoryPlantedAsAnEntryDisablesOnlyThatEntry) {
  for (const char* ext : {".json", ".cubin"}) {
    for (const bool empty : {true, false}) {
      SCOPED_TRACE(std::string(ext) + (empty ? " empty" : " non-empty"));
      TempDir dir;
      std::string key;
      {
        TempDir scratch;
        key = JitCompiler(cache_in(scratch.path())).compile(tiny_kernel("planted"))->key.hex();
      }
      const fs::path planted = dir.path() / (key + ext);
      fs::create_directories(planted);
      if (!empty) std::ofstream(planted / "inside") << "x";
      JitCompiler jit(cache_in(dir.path()));
      JitLookup lookup;
      auto k = jit.compile(tiny_kernel("planted"), &lookup);
      EXPECT_EQ(lookup.source, CacheSource::compiled);
      EXPECT_TRUE(jit.disk().enabled()) << "one bad entry turned the whole disk cache off";
      // Other kernels are still cached on disk.
      const std::string other = jit.compile(tiny_kernel("unrelated"))->key.hex();
      EXPECT_TRUE(fs::is_regular_file(dir.path() / (other + ".json")));
      EXPECT_TRUE(fs::is_regular_file(dir.path() / (other + ".cubin")));
      if (empty) {
        // Removed, and the entry stored in its place.
        EXPECT_TRUE(fs::is_regular_file(dir.path() / (key + ".json")));
        EXPECT_TRUE(fs::is_regular_file(dir.path() / (key + ".cubin")));
      } else {
        EXPECT_TRUE(fs::is_directory(planted)) << "a directory with contents is never deleted";
      }
      // The metadata is read first: a .cubin directory without one is no entry yet.
      std::string notes;
      for (const auto& n : lookup.notes) notes += n + "\n";
      const std::string note = std::string(ext) == ".json" ? key + ext + " is not a regular file" : "not in the disk cache";
      EXPECT_NE(notes.find(note), std::string::npos) << notes;
    }
  }
}

TEST(CacheEntryChecks, DirectoryPlantedAsAnEntryIsReportedTruthfully) {
  TempDir dir, logs;
  std::string key;
  {
    TempDir scratch;
    key = JitCompiler(cache_in(scratch.path())).compile(tiny_kernel("said"))->key.hex();
  }
  fs::create_directories(dir.path() / (key + ".json"));
  std::ofstream(dir.path() / (key + ".json") / "inside") << "x";
  // The library's warning, from a child process.
  const std::string source = (logs.path() / "said.cu").string();
  std::ofstream(source) << tiny_kernel("said").cuda_source;
  auto r = run_process({CROQ_BINARY_DIR "/tests/croq_jit_probe", "--source", source, "--entry", "said"},
                       {{"CROQ_CACHE_DIR", dir.str()}, {"CROQ_CACHE", ""}}, logs.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["disk_enabled"], true);
  EXPECT_NE(r.err.find("cannot delete " + key + ".json: it is a directory that is not empty"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("deleting it"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("caching in memory only"), std::string::npos) << r.err;
  // The tool reports it, and says what it could not do.
  auto v = run_process({kTool, "--dir", dir.str(), "verify", "--remove"}, {}, logs.path());
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find(key + ".json is not a regular file"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("(not removed: Directory not empty)"), std::string::npos) << v.out;
}

TEST(CacheEntryChecks, SourceNameThatIsNotUtf8KeepsTheDiskCache) {
  TempDir dir, logs;
  JitRequest r = tiny_kernel("latin1");
  r.source_name = "caf\xe9.co.cu";  // Latin-1, not UTF-8
  JitCompiler jit(cache_in(dir.path()));
  const std::string key = jit.compile(r)->key.hex();
  EXPECT_TRUE(jit.disk().enabled());
  auto meta = read_meta(dir.path(), key);  // valid JSON, so valid UTF-8
  EXPECT_EQ(meta["source_name"], "caf\xef\xbf\xbd.co.cu") << "the bad byte is U+FFFD";
  JitLookup lookup;
  JitCompiler(cache_in(dir.path())).compile(r, &lookup);
  EXPECT_EQ(lookup.source, CacheSource::disk);
}

}  // namespace
}  // namespace croq::jit
