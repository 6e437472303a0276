// Faults of the remote and of the compile locks: Redis killed mid-run,
// paused (SIGSTOP) so that commands time out, full (maxmemory); a compiling
// process of this host or another that dies or hangs while holding its
// lock. Each: the call finishes in bounded time with the image NVRTC makes
// for the request, nothing is lost, and the remote is used again once it
// is back.
#include <gtest/gtest.h>
#include <signal.h>

#include <sstream>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>

#include "common/process.hpp"
#include "jit/build_id.hpp"
#include "remote_test_util.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

using croq::test::Child;
using croq::test::RedisServer;
using croq::test::TempDir;
using namespace croq::jit::test;

// The library's warnings while it lives.
class WarningCapture {
 public:
  WarningCapture() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    sink_->set_level(spdlog::level::warn);
    support::log().sinks().push_back(sink_);
  }
  ~WarningCapture() {
    auto& sinks = support::log().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  std::size_t count(const std::string& what) const {
    const std::string all = text_.str();
    std::size_t n = 0;
    for (std::size_t at = all.find(what); at != std::string::npos; at = all.find(what, at + 1)) ++n;
    return n;
  }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

bool remote_has(const RedisServer& redis, const JitRequest& r) {
  auto reply = redis.command({"EXISTS", remote_key(key_of(r))});
  return reply && reply->integer == 1;
}

TEST(RemoteFaults, RedisKilledMidRunLosesNothing) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir a_dir, b_dir;
  WarningCapture warnings;
  JitCompiler a(remote_settings(a_dir.path(), redis));
  const JitRequest first = saxpy_request("killed-1"), second = saxpy_request("killed-2"),
                   third = saxpy_request("killed-3"), during = saxpy_request("killed-during");
  a.compile(first);
  ASSERT_TRUE(remote_has(redis, first));

  // Killed while a compile is in flight: its store fails, the call does not.
  std::thread killer([&] {
    std::this_thread::sleep_for(milliseconds(20));
    redis.kill();
  });
  auto k = a.compile(during);
  killer.join();
  EXPECT_EQ(k->cubin, nvrtc_image(during));

  k = a.compile(second);
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(second));
  EXPECT_TRUE(has_note(*k, "remote cache " + redis.endpoint().describe() + " unavailable: ")) << notes_of(*k);
  EXPECT_GE(a.stats().remote_errors, 1u);

  // A fresh host while Redis is down: compiles, correct, from its own disk next time.
  JitCompiler b(remote_settings(b_dir.path(), redis));
  k = b.compile(first);
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(first));
  EXPECT_EQ(warnings.count("is unavailable"), 2u) << "one warning per compiler and outage";

  // Back (empty: no persistence). After the back-off the remote is used again.
  ASSERT_TRUE(redis.restart());
  std::this_thread::sleep_for(milliseconds(450));
  k = b.compile(third);
  EXPECT_EQ(k->cubin, nvrtc_image(third));
  EXPECT_TRUE(remote_has(redis, third)) << "the remote was not tried again after its outage" << notes_of(*k);
  EXPECT_EQ(warnings.count("is unavailable"), 2u);
}

TEST(RemoteFaults, PausedRedisCostsAtMostTheTimeouts) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir dir, local_dir;
  // NVRTC time of a like kernel, without a remote, for the bound.
  DiskCacheSettings local;
  local.dir = local_dir.path();
  JitCompiler alone(local);
  alone.compile(saxpy_request("paused-warmup"));
  auto t = Clock::now();
  alone.compile(saxpy_request("paused-baseline"));
  const double baseline_ms = ms_since(t);

  JitSettings settings = remote_settings(dir.path(), redis);
  JitCompiler host(settings);
  host.compile(saxpy_request("paused-connect"));  // connected before the pause
  redis.pause();
  const JitRequest req = saxpy_request("paused");
  t = Clock::now();
  auto k = host.compile(req);
  const double paused_ms = ms_since(t);
  redis.resume();
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_TRUE(has_note(*k, "remote cache " + redis.endpoint().describe() + " unavailable: no answer within 100 ms"))
      << notes_of(*k);
  // Each command that reaches the paused server costs its 100 ms timeout,
  // and the back-off keeps the others away.
  EXPECT_LT(paused_ms, baseline_ms * 2 + 100 + 1000) << "baseline " << baseline_ms << " ms";

  // Continued: after the back-off the next kernel is published again.
  std::this_thread::sleep_for(milliseconds(250));
  const JitRequest after = saxpy_request("paused-after");
  host.compile(after);
  EXPECT_TRUE(remote_has(redis, after));
}

TEST(RemoteFaults, FetchFromAPausedRedisIsBoundedByTheCommandTimeout) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  RemoteCacheSettings settings;
  settings.endpoint = redis.endpoint();
  RemoteCache cache(settings);
  redis.pause();
  std::vector<std::string> notes;
  auto t = Clock::now();
  RemoteLookup r = cache.fetch({key_of(saxpy_request("x")), "sm_90a", "saxpy", library_build_id()}, notes);
  const double ms = ms_since(t);
  redis.resume();
  EXPECT_FALSE(r.kernel);
  EXPECT_FALSE(r.lease.held());
  EXPECT_LT(ms, 100 + 100 + 400);  // connect (accepted by the kernel) + one command + slack
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "remote cache " + redis.endpoint().describe() + " unavailable: no answer within 100 ms");
  // Within the back-off nothing is sent at all.
  t = Clock::now();
  cache.fetch({key_of(saxpy_request("y")), "sm_90a", "saxpy", library_build_id()}, notes);
  EXPECT_LT(ms_since(t), 90) << "the back-off did not keep the paused remote away";
}

TEST(RemoteFaults, AFullRedisFailsTheStoreNotTheCall) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  ASSERT_TRUE(redis.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"}));
  ASSERT_TRUE(redis.command({"CONFIG", "SET", "maxmemory", "1"}));
  TempDir dir;
  WarningCapture warnings;
  JitCompiler host(remote_settings(dir.path(), redis));
  const JitRequest req = saxpy_request("full");
  auto k = host.compile(req);
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_TRUE(has_note(*k, "remote lock failed: OOM command not allowed")) << notes_of(*k);
  EXPECT_TRUE(has_note(*k, "remote store failed: OOM command not allowed")) << notes_of(*k);
  EXPECT_GE(host.stats().remote_errors, 2u);
  host.compile(saxpy_request("full-2"));
  EXPECT_EQ(warnings.count("failed: OOM"), 1u) << "warned once";
  EXPECT_EQ(JitCompiler(remote_settings(dir.path(), redis)).compile(req)->source, CacheSource::disk)
      << "the disk layer kept it";
}

TEST(RemoteFaults, AKilledLocalLockHolderReleasesItsWaiters) {
  TempDir dir, logs;
  JitSettings settings;
  settings.disk.dir = dir.path();
  settings.compile_wait = milliseconds(30000);
  JitCompiler jit(settings);
  const JitRequest req = saxpy_request("local-holder-killed");
  Child holder({kLockHolder, "--dir", dir.str(), "--key", key_of(req)}, {}, logs.path());
  ASSERT_TRUE(wait_until_held(holder)) << holder.wait().err;
  std::thread killer([&] {
    std::this_thread::sleep_for(milliseconds(300));
    ::kill(holder.pid(), SIGKILL);
  });
  auto t = Clock::now();
  auto k = jit.compile(req);
  const double ms = ms_since(t);
  killer.join();
  holder.wait();
  EXPECT_GE(ms, 290) << "the compile did not wait for the holder";
  EXPECT_LT(ms, 300 + 10000) << "the waiter was held far past the holder's death";
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_EQ(problems_of(*k), "");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / (key_of(req) + ".lock"))) << "the lock file was left behind";
}

TEST(RemoteFaults, AHungLocalLockHolderHoldsWaitersOnlyUntilTheBound) {
  TempDir dir, logs;
  JitSettings settings;
  settings.disk.dir = dir.path();
  settings.compile_wait = milliseconds(500);
  JitCompiler jit(settings);
  const JitRequest req = saxpy_request("local-holder-hung");
  Child holder({kLockHolder, "--dir", dir.str(), "--key", key_of(req)}, {}, logs.path());
  ASSERT_TRUE(wait_until_held(holder)) << holder.wait().err;
  ::kill(holder.pid(), SIGSTOP);
  auto t = Clock::now();
  auto k = jit.compile(req);
  const double ms = ms_since(t);
  ::kill(holder.pid(), SIGKILL);
  holder.wait();
  EXPECT_GE(ms, 500);
  EXPECT_LT(ms, 500 + 10000);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_TRUE(has_note(*k, "waited 500 ms for another process of this host compiling this kernel; compiled it here"))
      << notes_of(*k);
}

TEST(RemoteFaults, AKilledRemoteLockHolderBlocksNoOnePastTheBound) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir dir, logs;
  const JitRequest req = saxpy_request("remote-holder-killed");
  // The holder's lock outlives it (60 s): waiters give up at their bound.
  Child holder({kLockHolder, "--remote", redis.url(), "--key", key_of(req), "--ttl-ms", "60000"}, {}, logs.path());
  ASSERT_TRUE(wait_until_held(holder)) << holder.wait().err;
  ::kill(holder.pid(), SIGKILL);
  holder.wait();
  JitSettings settings = remote_settings(dir.path(), redis);
  settings.remote.lock_wait = milliseconds(1000);
  JitCompiler jit(settings);
  auto t = Clock::now();
  auto k = jit.compile(req);
  const double ms = ms_since(t);
  EXPECT_GE(ms, 1000);
  EXPECT_LT(ms, 1000 + 10000);
  EXPECT_EQ(k->source, CacheSource::compiled);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_TRUE(has_note(*k, "waited 1000 ms for another host compiling this kernel; compiled it here")) << notes_of(*k);
  EXPECT_TRUE(remote_has(redis, req)) << "the waiter's compile is published";
}

TEST(RemoteFaults, ARemoteLockThatExpiresIsTakenOver) {
  RedisServer redis;
  REQUIRE_REDIS(redis);
  TempDir dir, logs;
  const JitRequest req = saxpy_request("remote-holder-expired");
  Child holder({kLockHolder, "--remote", redis.url(), "--key", key_of(req), "--ttl-ms", "600"}, {}, logs.path());
  ASSERT_TRUE(wait_until_held(holder)) << holder.wait().err;
  ::kill(holder.pid(), SIGKILL);
  holder.wait();
  JitSettings settings = remote_settings(dir.path(), redis);
  settings.remote.lock_wait = milliseconds(20000);
  JitCompiler jit(settings);
  auto t = Clock::now();
  auto k = jit.compile(req);
  EXPECT_LT(ms_since(t), 600 + 10000);
  EXPECT_EQ(k->cubin, nvrtc_image(req));
  EXPECT_EQ(problems_of(*k), "");
  auto lock = redis.command({"EXISTS", "croq:lock:" + key_of(req)});
  EXPECT_EQ(lock->integer, 0) << "the lock taken over was not released";
}

}  // namespace
}  // namespace croq::jit
