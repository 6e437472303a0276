// The remote layer through the compiler: the lookup order, write-through,
// cross-host single flight, and entries that must be refused (garbage,
// truncated, of another type, signed with another secret, unsigned when a
// secret is set, for another arch or library build): each refused with a
// note and a warning, the kernel compiled here, correct, and the bad value
// replaced. "Correct" without a GPU: the image is byte for byte what NVRTC
// makes for the request.
#include <gtest/gtest.h>

#include <thread>

#include "common/process.hpp"
#include "jit/build_id.hpp"
#include "jit/remote_entry.hpp"
#include "remote_test_util.hpp"

namespace croq::jit {
namespace {

using croq::test::RedisServer;
using croq::test::TempDir;
using namespace croq::jit::test;

// The entry the remote holds for `key`, decoded as a host with `secret` would.
DecodedRemoteEntry remote_entry(const RedisServer& redis, const JitRequest& r, const std::string& secret = "") {
  auto value = redis.command({"GET", remote_key(key_of(r))});
  if (!value || value->kind != RedisReply::Kind::string) return {std::nullopt, "no value"};
  return decode_remote_entry(value->text, {key_of(r), r.arch, r.entry, library_build_id()}, secret);
}

TEST(RemoteCache, AFreshHostGetsTheKernelFromTheRemoteAndKeepsItOnDisk) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir host_a, host_b;
  const JitRequest req = saxpy_request("fresh-host");
  JitCompiler a(remote_settings(host_a.path(), redis));
  auto compiled = a.compile(req);
  EXPECT_EQ(compiled->source, CacheSource::compiled);
  EXPECT_EQ(problems_of(*compiled), "");
  EXPECT_EQ(a.stats().remote_misses, 1u);
  EXPECT_TRUE(remote_entry(redis, req).kernel) << "a compile writes through to the remote";

  JitCompiler b(remote_settings(host_b.path(), redis));
  auto fetched = b.compile(req);
  EXPECT_EQ(fetched->source, CacheSource::remote);
  EXPECT_EQ(fetched->cubin, nvrtc_image(req));
  EXPECT_EQ(fetched->entry, "saxpy");
  const JitStats s = b.stats();
  EXPECT_EQ(s.nvrtc_compiles, 0u);
  EXPECT_EQ(s.remote_hits, 1u);
  EXPECT_EQ(s.remote_errors, 0u);

  // The remote hit went to b's disk: without the remote, b's directory serves it.
  JitCompiler b_offline(remote_settings(host_b.path(), redis).disk);
  auto from_disk = b_offline.compile(req);
  EXPECT_EQ(from_disk->source, CacheSource::disk);
  EXPECT_EQ(from_disk->cubin, fetched->cubin);
}

TEST(RemoteCache, TheDiskComesBeforeTheRemote) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir dir;
  const JitRequest req = saxpy_request("disk-first");
  JitCompiler(remote_settings(dir.path(), redis)).compile(req);
  JitCompiler again(remote_settings(dir.path(), redis));
  EXPECT_EQ(again.compile(req)->source, CacheSource::disk);
  EXPECT_EQ(again.stats().remote_hits + again.stats().remote_misses, 0u) << "the remote was asked";
}

TEST(RemoteCache, HostsCompilingTheSameKernelTogetherCompileItOnce) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir dirs[4];
  const JitRequest req = saxpy_request("together");
  std::vector<std::unique_ptr<JitCompiler>> hosts;
  for (auto& d : dirs) hosts.push_back(std::make_unique<JitCompiler>(remote_settings(d.path(), redis)));
  std::vector<std::shared_ptr<const CompiledKernel>> got(hosts.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < hosts.size(); ++i) threads.emplace_back([&, i] { got[i] = hosts[i]->compile(req); });
  for (auto& t : threads) t.join();
  std::uint64_t compiles = 0, hits = 0;
  for (auto& h : hosts) {
    compiles += h->stats().nvrtc_compiles;
    hits += h->stats().remote_hits;
  }
  EXPECT_EQ(compiles, 1u);
  EXPECT_EQ(hits, hosts.size() - 1);
  const std::vector<char> image = nvrtc_image(req);
  for (auto& k : got) EXPECT_EQ(k->cubin, image);
}

// Plants `value` under the request's key, compiles on a fresh host with
// `secret`, and checks that the value is refused for `why`, the kernel is
// compiled here and correct, and the value is replaced by a good entry.
void expect_refused_and_replaced(const RedisServer& redis, const JitRequest& req, const std::string& value,
                                 const std::string& why, const std::string& secret = "") {
  ASSERT_TRUE(redis.command({"SET", remote_key(key_of(req)), value}));
  TempDir dir;
  JitCompiler host(remote_settings(dir.path(), redis, secret));
  auto k = host.compile(req);
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_TRUE(has_note(*k, "remote entry refused: " + why)) << notes_of(*k);
  EXPECT_GE(host.stats().remote_errors, 1u);
  EXPECT_EQ(host.stats().nvrtc_compiles, 1u);
  DecodedRemoteEntry now = remote_entry(redis, req, secret);
  EXPECT_TRUE(now.kernel) << "the refused value was not replaced: " << now.problem;
  TempDir next_dir;
  JitCompiler next(remote_settings(next_dir.path(), redis, secret));
  EXPECT_EQ(next.compile(req)->source, CacheSource::remote);
}

// A valid entry for `req` as another writer would publish it under `key`
// (default: the request's own), with `edit` applied before it is framed.
template <typename Edit>
std::string entry_value(const JitRequest& req, Edit edit, const std::string& secret = "", std::string key = "") {
  TempDir dir;
  DiskCacheSettings disk;
  disk.dir = dir.path();
  JitCompiler jit(disk);
  auto k = jit.compile(req);
  auto stored = jit.disk().load(k->key, entry_request(req, k->arch));
  EXPECT_TRUE(stored);
  if (key.empty()) key = k->key.hex();
  stored->metadata.key = key;
  edit(*stored);
  return encode_remote_entry(key, *stored, secret);
}

TEST(RemoteCache, GarbageUnderTheKeyIsRefusedAndReplaced) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  expect_refused_and_replaced(redis, saxpy_request("garbage"), "this is not a kernel, just some bytes",
                              "not a kernel cache entry");
}

TEST(RemoteCache, ATruncatedEntryIsRefusedAndReplaced) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  const JitRequest req = saxpy_request("truncated");
  std::string value = entry_value(req, [](StoredKernel&) {});
  expect_refused_and_replaced(redis, req, value.substr(0, value.size() / 2),
                              "truncated or malformed (its lengths do not add up)");
}

TEST(RemoteCache, AValueOfAnotherTypeIsRefusedAndReplaced) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  const JitRequest req = saxpy_request("list");
  ASSERT_TRUE(redis.command({"RPUSH", remote_key(key_of(req)), "a", "b"}));
  TempDir dir;
  JitCompiler host(remote_settings(dir.path(), redis));
  auto k = host.compile(req);
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_TRUE(has_note(*k, "remote entry refused: not a string value")) << notes_of(*k);
  EXPECT_TRUE(remote_entry(redis, req).kernel);
}

TEST(RemoteCache, AnEntrySignedWithAnotherSecretIsRefused) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  const JitRequest req = saxpy_request("other-secret");
  expect_refused_and_replaced(redis, req, entry_value(req, [](StoredKernel&) {}, "their-secret"), "bad signature",
                              "our-secret");
}

TEST(RemoteCache, AnUnsignedEntryIsRefusedWhenASecretIsSet) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  const JitRequest req = saxpy_request("unsigned");
  TempDir unsigned_host;
  JitCompiler(remote_settings(unsigned_host.path(), redis)).compile(req);  // publishes without a MAC
  const auto value = redis.command({"GET", remote_key(key_of(req))});
  ASSERT_TRUE(value && value->kind == RedisReply::Kind::string);
  expect_refused_and_replaced(redis, req, value->text, "unsigned (CROQ_CACHE_REMOTE_SECRET is set)", "our-secret");
}

TEST(RemoteCache, AnEntryForAnotherArchIsRefused) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  const JitRequest req = saxpy_request("other-arch");
  JitRequest sm80 = req;
  sm80.arch = "sm_80";
  // A real sm_80 cubin with its true metadata, framed under the sm_90a key.
  expect_refused_and_replaced(redis, req, entry_value(sm80, [](StoredKernel&) {}, "", key_of(req)),
                              "built for sm_80, not sm_90a");
}

TEST(RemoteCache, AnEntryOfAnotherLibraryBuildIsRefused) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  const JitRequest req = saxpy_request("other-build");
  expect_refused_and_replaced(
      redis, req, entry_value(req, [](StoredKernel& k) { k.metadata.library_build = "0.0.9+g0123456789ab"; }),
      "from another library build (0.0.9+g0123456789ab)");
}

TEST(RemoteCache, WithTheSameSecretHostsShareSignedEntries) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir a_dir, b_dir;
  const JitRequest req = saxpy_request("signed");
  JitCompiler(remote_settings(a_dir.path(), redis, "fleet")).compile(req);
  EXPECT_TRUE(remote_entry(redis, req, "fleet").kernel);
  JitCompiler b(remote_settings(b_dir.path(), redis, "fleet"));
  auto k = b.compile(req);
  EXPECT_EQ(k->source, CacheSource::remote);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
}

}  // namespace
}  // namespace croq::jit
