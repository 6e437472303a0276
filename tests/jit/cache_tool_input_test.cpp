// croq-cache and the library on hostile cache contents: metadata of the
// wrong JSON types, huge or deeply nested metadata, directories that can be
// read but not entered, sizes that do not fit in 64 bits, deletions that
// are not permitted. Nothing may crash, hang or throw anything but
// croq::Error; a malformed entry is a corrupt entry (warned, removed, rebuilt).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "croq/error.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::jit {
namespace {

namespace fs = std::filesystem;
using croq::test::ProcessResult;
using croq::test::run_process;
using croq::test::TempDir;
using croq::jit::test::cache_in;
using croq::test::read_file;

const std::string kTool = CROQ_BINARY_DIR "/cache/croq-cache";
const std::string kWithoutBypass = CROQ_BINARY_DIR "/tests/croq_without_bypass";

JitRequest tiny(const std::string& name) {
  JitRequest r;
  r.cuda_source = "extern \"C\" __global__ void " + name + "(int* p) { p[0] = 1; }\n";
  r.entry = name;
  r.arch = "sm_90a";
  return r;
}

void write_text(const fs::path& p, const std::string& text) {
  fs::remove(p);
  std::ofstream(p, std::ios::binary) << text;
}

ProcessResult tool(const fs::path& dir, std::vector<std::string> args, bool without_bypass = false) {
  TempDir logs;
  args.insert(args.begin(), {kTool, "--dir", dir.string()});
  if (without_bypass) args.insert(args.begin(), kWithoutBypass);
  return run_process(args, {}, logs.path());
}

// One field of valid metadata replaced by a value of the wrong type or range.
struct Mutation {
  const char* name;
  std::function<void(nlohmann::json&)> apply;
};

const std::vector<Mutation>& mutations() {
  static const std::vector<Mutation> all{
      {"cubin_bytes string", [](auto& m) { m["cubin_bytes"] = "abc"; }},
      {"cubin_bytes negative", [](auto& m) { m["cubin_bytes"] = -1; }},
      {"cubin_bytes float", [](auto& m) { m["cubin_bytes"] = 12.5; }},
      {"cubin_bytes huge", [](auto& m) { m["cubin_bytes"] = 18446744073709551615ull; }},
      {"format_version string", [](auto& m) { m["format_version"] = "1"; }},
      {"key number", [](auto& m) { m["key"] = 123; }},
      {"image number", [](auto& m) { m["image"] = 5; }},
      {"image null", [](auto& m) { m["image"] = nullptr; }},
      {"arch array", [](auto& m) { m["arch"] = nlohmann::json::array({"sm_90a"}); }},
      {"arch path", [](auto& m) { m["arch"] = "../sm_90a"; }},
      {"entry null", [](auto& m) { m["entry"] = nullptr; }},
      {"entry path", [](auto& m) { m["entry"] = "../../x/pwn"; }},
      {"entry missing", [](auto& m) { m.erase("entry"); }},
      {"checksum object", [](auto& m) { m["cubin_xxh3_64"] = nlohmann::json::object(); }},
      {"launch string", [](auto& m) { m["launch"] = "x"; }},
      {"launch grid short", [](auto& m) { m["launch"]["grid"] = nlohmann::json::array({1, 1}); }},
      {"launch grid negative", [](auto& m) { m["launch"]["grid"][0] = -4; }},
      {"nvrtc_flags numbers", [](auto& m) { m["nvrtc_flags"] = nlohmann::json::array({1, 2}); }},
      {"compile_ms string", [](auto& m) { m["compile_ms"] = "fast"; }},
      {"metadata array", [](auto& m) { m = nlohmann::json::array({1, 2, 3}); }},
      {"metadata string", [](auto& m) { m = "hello"; }},
  };
  return all;
}

TEST(CacheHostileInput, MalformedMetadataIsACorruptEntry) {
  TempDir dir;
  std::vector<std::string> keys;
  {
    JitCompiler jit(cache_in(dir.path()));
    for (std::size_t i = 0; i < mutations().size(); ++i)
      keys.push_back(jit.compile(tiny("k" + std::to_string(i)))->key.hex());
  }
  for (std::size_t i = 0; i < mutations().size(); ++i) {
    const fs::path meta_path = dir.path() / (keys[i] + ".json");
    auto meta = nlohmann::json::parse(read_file(meta_path));
    mutations()[i].apply(meta);
    write_text(meta_path, meta.dump(2));
  }

  // The tool lists, counts and verifies them without aborting.
  auto ls = tool(dir.path(), {"ls"});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  auto ls_json = tool(dir.path(), {"--json", "ls"});
  ASSERT_EQ(ls_json.exit_code, 0) << ls_json.err;
  auto listed = nlohmann::json::parse(ls_json.out);
  ASSERT_EQ(listed.size(), mutations().size());
  for (const auto& e : listed) {
    EXPECT_TRUE(e["metadata"].is_null()) << e.dump();
    EXPECT_TRUE(e["problem"].is_string()) << e.dump();
  }
  auto stats = tool(dir.path(), {"--json", "stats"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_EQ(nlohmann::json::parse(stats.out)["entries"], mutations().size());
  auto verify = tool(dir.path(), {"verify"});
  EXPECT_EQ(verify.exit_code, 1) << verify.err;
  EXPECT_NE(verify.out.find("0 valid, " + std::to_string(mutations().size()) + " bad"), std::string::npos)
      << verify.out;
  EXPECT_NE(verify.out.find("metadata field `cubin_bytes` is not a non-negative integer"), std::string::npos)
      << verify.out;

  // The library rebuilds each one (no exception), and the rebuilt entries verify.
  JitCompiler jit(cache_in(dir.path()));
  for (std::size_t i = 0; i < mutations().size(); ++i) {
    SCOPED_TRACE(mutations()[i].name);
    std::shared_ptr<const CompiledKernel> k;
    ASSERT_NO_THROW(k = jit.compile(tiny("k" + std::to_string(i))));
    EXPECT_EQ(k->source, CacheSource::compiled);
    EXPECT_EQ(k->entry, "k" + std::to_string(i));
  }
  EXPECT_TRUE(jit.disk().enabled());
  auto again = tool(dir.path(), {"verify"});
  EXPECT_EQ(again.exit_code, 0) << again.out;
}

TEST(CacheHostileInput, HugeOrDeeplyNestedMetadataIsRefusedBeforeParsing) {
  TempDir dir;
  std::string key_deep, key_huge;
  {
    JitCompiler jit(cache_in(dir.path()));
    key_deep = jit.compile(tiny("deep"))->key.hex();
    key_huge = jit.compile(tiny("huge"))->key.hex();
  }
  // Valid JSON both: nlohmann parses them, but recursing through them (to
  // print or destroy) overflows the stack.
  write_text(dir.path() / (key_deep + ".json"), std::string(30000, '[') + std::string(30000, ']'));
  write_text(dir.path() / (key_huge + ".json"), std::string(2000000, '[') + std::string(2000000, ']'));
  auto ls = tool(dir.path(), {"--json", "ls"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  auto listed = nlohmann::json::parse(ls.out);
  ASSERT_EQ(listed.size(), 2u);
  std::string problems = listed[0]["problem"].get<std::string>() + "\n" + listed[1]["problem"].get<std::string>();
  EXPECT_NE(problems.find("nests deeper than"), std::string::npos) << problems;
  EXPECT_NE(problems.find("metadata is larger than 65536 bytes"), std::string::npos) << problems;
  EXPECT_EQ(tool(dir.path(), {"verify"}).exit_code, 1);

  JitCompiler jit(cache_in(dir.path()));
  EXPECT_EQ(jit.compile(tiny("deep"))->source, CacheSource::compiled);
  EXPECT_EQ(jit.compile(tiny("huge"))->source, CacheSource::compiled);
  EXPECT_EQ(tool(dir.path(), {"verify"}).exit_code, 0);
}

// Skips when this process cannot run a program with permission bits enforced.
#define REQUIRE_PERMISSION_CHECKS(dir)                                                          \
  do {                                                                                          \
    auto probe = tool(dir, {"--help"}, /*without_bypass=*/true);                                \
    if (probe.exit_code == 77) GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE here: " << probe.err; \
    ASSERT_EQ(probe.exit_code, 0) << probe.err;                                                 \
  } while (0)

TEST(CacheHostileInput, DirectoryThatCanBeReadButNotEntered) {
  TempDir parent;
  const fs::path dir = parent.path() / "cache";
  {
    JitCompiler jit(cache_in(dir));
    jit.compile(tiny("a"));
    jit.compile(tiny("b"));
  }
  REQUIRE_PERMISSION_CHECKS(dir);
  ::chmod(dir.c_str(), 0600);  // r, no x: names can be listed, files not reached
  auto ls = tool(dir, {"ls"}, true);
  auto stats = tool(dir, {"stats"}, true);
  auto verify = tool(dir, {"verify"}, true);
  auto prune = tool(dir, {"prune", "--max-bytes", "0"}, true);
  auto clear = tool(dir, {"clear"}, true);
  ::chmod(dir.c_str(), 0700);
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("(unreadable)"), std::string::npos) << ls.out;
  EXPECT_NE(ls.err.find("Permission denied"), std::string::npos) << ls.err;
  EXPECT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("unreadable: 2 entries"), std::string::npos) << stats.out;
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_NE(verify.out.find("0 valid, 2 bad"), std::string::npos) << verify.out;
  for (const auto* r : {&prune, &clear}) {
    EXPECT_EQ(r->exit_code, 1) << r->out << r->err;
    EXPECT_NE(r->err.find("croq-cache: cannot lock cache directory"), std::string::npos) << r->err;
  }
  for (const auto* r : {&ls, &stats, &verify})
    EXPECT_EQ((r->out + r->err).find("17592186044416"), std::string::npos) << "a -1 size was added";
  EXPECT_EQ(tool(dir, {"verify"}).exit_code, 0) << "nothing was deleted";
}

TEST(CacheHostileInput, VerifyRemoveReportsWhatItCouldNotRemove) {
  TempDir parent;
  const fs::path dir = parent.path() / "cache";
  std::string key;
  {
    JitCompiler jit(cache_in(dir));
    key = jit.compile(tiny("ro"))->key.hex();
    jit.compile(tiny("ok"));
  }
  REQUIRE_PERMISSION_CHECKS(dir);
  std::ofstream(dir / (key + ".cubin"), std::ios::app) << "garbage";
  ASSERT_TRUE(fs::exists(dir / ".lock"));
  ::chmod(dir.c_str(), 0500);  // entries cannot be deleted
  auto text = tool(dir, {"verify", "--remove"}, true);
  auto json = tool(dir, {"--json", "verify", "--remove"}, true);
  ::chmod(dir.c_str(), 0700);
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("bad: " + key + ": cubin is"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(not removed: Permission denied)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("(removed)"), std::string::npos) << text.out;
  ASSERT_EQ(json.exit_code, 1);
  auto bad = nlohmann::json::parse(json.out)["bad"];
  ASSERT_EQ(bad.size(), 1u) << json.out;
  EXPECT_EQ(bad[0]["key"], key);
  EXPECT_EQ(bad[0]["removed"], false);
  EXPECT_EQ(bad[0]["remove_error"], "Permission denied");
  EXPECT_TRUE(fs::exists(dir / (key + ".cubin")));

  // Without a lock file it cannot even lock: refused up front, and said so.
  fs::remove(dir / ".lock");
  ::chmod(dir.c_str(), 0500);
  auto no_lock = tool(dir, {"verify", "--remove"}, true);
  ::chmod(dir.c_str(), 0700);
  EXPECT_EQ(no_lock.exit_code, 1);
  EXPECT_EQ(no_lock.out.find("(removed)"), std::string::npos) << no_lock.out;
  EXPECT_NE(no_lock.err.find("cannot lock cache directory"), std::string::npos) << no_lock.err;
  EXPECT_NE(no_lock.err.find("Permission denied"), std::string::npos) << no_lock.err;

  auto removed = tool(dir, {"verify", "--remove"});
  EXPECT_NE(removed.out.find("(removed)"), std::string::npos) << removed.out;
  EXPECT_EQ(tool(dir, {"verify"}).exit_code, 0);
}

TEST(CacheHostileInput, SizesThatDoNotFitAreRejectedNotWrapped) {
  TempDir dir;
  {
    JitCompiler jit(cache_in(dir.path()));
    jit.compile(tiny("p0"));
    jit.compile(tiny("p1"));
  }
  for (const char* size : {"18446744073709551616", "17179869184G", "99999999999999999999999", "16777216T"}) {
    auto r = tool(dir.path(), {"prune", "--max-bytes", size});
    EXPECT_EQ(r.exit_code, 1) << size << ": " << r.out;
    EXPECT_NE(r.err.find("byte count too large"), std::string::npos) << r.err;
  }
  for (const char* size : {"K", "G", "-1", "+5", "1.5G", "5 K", "5KB", "0x10", " 5"}) {
    auto r = tool(dir.path(), {"prune", "--max-bytes", size});
    EXPECT_EQ(r.exit_code, 1) << "`" << size << "`: " << r.out;
    EXPECT_NE(r.err.find("expected a byte count"), std::string::npos) << r.err;
  }
  EXPECT_EQ(nlohmann::json::parse(tool(dir.path(), {"--json", "stats"}).out)["entries"], 2) << "nothing pruned";
  auto max = tool(dir.path(), {"prune", "--max-bytes", "18446744073709551615"});
  EXPECT_EQ(max.exit_code, 0) << max.err;
  EXPECT_NE(max.out.find("removed 0B"), std::string::npos) << max.out;
  EXPECT_EQ(nlohmann::json::parse(tool(dir.path(), {"--json", "stats"}).out)["entries"], 2);
}

TEST(CacheHostileInput, MaxBytesVariableIsCheckedTheSameWay) {
  ::setenv("CROQ_CACHE_MAX_BYTES", "17179869184G", 1);
  EXPECT_THROW(DiskCacheSettings::from_environment(), Error);
  ::setenv("CROQ_CACHE_MAX_BYTES", "K", 1);
  EXPECT_THROW(DiskCacheSettings::from_environment(), Error);
  ::setenv("CROQ_CACHE_MAX_BYTES", "16383T", 1);
  EXPECT_EQ(DiskCacheSettings::from_environment().max_bytes, 16383ull << 40);
  ::unsetenv("CROQ_CACHE_MAX_BYTES");
}

}  // namespace
}  // namespace croq::jit
