// The cache key covers everything that changes the image (docs/reference/cache.md,
// "Cache layout"): checked here against NVRTC itself where an input changes the
// cubin, and for the library build, which only the key can tell apart.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "jit/build_id.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::jit {
namespace {

std::vector<char> cubin_of(const JitRequest& r) {
  return nvrtc_compile(r.cuda_source, r.source_name, r.entry, {r.arch, r.line_info, {}}, {}).cubin;
}

TEST(CacheKey, TheSourceNameCountsExactlyWhenLineInfoRecordsIt) {
  JitRequest a = test::saxpy_request("key-name"), b = a;
  b.source_name = "elsewhere/other.cu";
  ASSERT_EQ(cubin_of(a), cubin_of(b)) << "without line info NVRTC's output does not name the source";
  EXPECT_EQ(kernel_cache_key(a, "sm_90a", "build"), kernel_cache_key(b, "sm_90a", "build"));
  a.line_info = b.line_info = true;
  ASSERT_NE(cubin_of(a), cubin_of(b)) << "with line info it does";
  EXPECT_NE(kernel_cache_key(a, "sm_90a", "build"), kernel_cache_key(b, "sm_90a", "build"));
}

TEST(CacheKey, AnotherLibraryBuildHasOtherKeys) {
  const JitRequest r = test::saxpy_request("key-build");
  EXPECT_NE(kernel_cache_key(r, "sm_90a", "0.1.0+g0123456789ab"), kernel_cache_key(r, "sm_90a", "0.1.0+gfedcba987654"));
  DiskCacheSettings off;
  off.enabled = false;
  EXPECT_EQ(JitCompiler(off).cache_key(r, "sm_90a"), kernel_cache_key(r, "sm_90a", library_build_id()));
}

TEST(CacheKey, TheBuildIdNamesTheVersionAndTheTree) {
  const std::string& id = library_build_id();
  const auto plus = id.find('+');
  ASSERT_NE(plus, std::string::npos) << id;
  EXPECT_EQ(id.substr(0, plus).find_first_not_of("0123456789."), std::string::npos) << id;
  EXPECT_GT(id.size(), plus + 1) << "no git describe (or no-git) after the version: " << id;
}

TEST(CacheKey, MetadataRecordsTheLibraryBuild) {
  croq::test::TempDir dir;
  JitCompiler jit(test::cache_in(dir.path()));
  const JitRequest request = test::saxpy_request("key-metadata");
  auto k = jit.compile(request);
  auto stored = jit.disk().load(k->key, entry_request(request, k->arch));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->metadata.library_build, library_build_id());
  const auto json = nlohmann::json::parse(test::read_file(dir.path() / (k->key.hex() + ".json")));
  EXPECT_EQ(json["library_build"], library_build_id());
  EXPECT_EQ(json["format_version"], 2);
}

}  // namespace
}  // namespace croq::jit
