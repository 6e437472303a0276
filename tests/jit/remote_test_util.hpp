// Shared by the remote cache tests: requests, the image NVRTC makes for
// them (what a correct result is, without a GPU), settings for a compiler
// that uses a private Redis, and waiting on helper processes.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cache_test_util.hpp"
#include "common/process.hpp"
#include "common/redis_server.hpp"
#include "jit/jit_compiler.hpp"
#include "jit/nvrtc_compiler.hpp"

// Skips the test, saying why, where no private redis-server can start.
#define REQUIRE_REDIS(redis) \
  if (!(redis).available()) GTEST_SKIP() << (redis).why()

namespace croq::jit::test {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

inline const std::string kLockHolder = CROQ_BINARY_DIR "/tests/croq_cache_lock_holder";
inline const std::string kProbe = CROQ_BINARY_DIR "/tests/croq_jit_probe";

inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// What NVRTC makes for `r`, outside every cache: a correct result.
inline std::vector<char> nvrtc_image(const JitRequest& r) {
  return nvrtc_compile(r.cuda_source, r.source_name, r.entry, {r.arch, r.line_info, {}}, r.origin).cubin;
}

inline std::string key_of(const JitRequest& r) {
  DiskCacheSettings off;
  off.enabled = false;
  return JitCompiler(off).cache_key(r, r.arch).hex();
}

// A compiler with the disk cache in `dir` and the remote on `redis`, with
// short back-offs and waits so that faults resolve quickly.
inline JitSettings remote_settings(const std::filesystem::path& dir, const croq::test::RedisServer& redis,
                                   const std::string& secret = "") {
  JitSettings s;
  s.disk.dir = dir;
  s.remote.endpoint = redis.endpoint();
  s.remote.secret = secret;
  s.remote.first_retry = milliseconds(50);
  s.remote.max_retry = milliseconds(200);
  s.remote.lock_wait = milliseconds(5000);
  s.compile_wait = milliseconds(5000);
  return s;
}

inline std::string remote_key(const std::string& key_hex) { return "croq:kernel:" + key_hex; }

inline bool has_note(const CompiledKernel& k, const std::string& prefix) {
  for (const auto& n : k.lookup_notes)
    if (n.rfind(prefix, 0) == 0) return true;
  return false;
}

inline std::string notes_of(const CompiledKernel& k) {
  std::string all;
  for (const auto& n : k.lookup_notes) all += "\n  " + n;
  return all.empty() ? " (no notes)" : all;
}

// The notes that say something went wrong: all but the disk layer's plain
// absence, which every first compile of a kernel has.
inline std::string problems_of(const CompiledKernel& k) {
  std::string out;
  for (const auto& n : k.lookup_notes)
    if (n.rfind("not in the disk cache", 0) != 0) out += n + "\n";
  return out;
}

// Waits (at most 10 s) until the helper has printed "held".
inline bool wait_until_held(const croq::test::Child& child) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    if (child.output_so_far().find("held") != std::string::npos) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return false;
}

}  // namespace croq::jit::test
