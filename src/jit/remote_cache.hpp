// The remote layer of the kernel cache: one Redis shared by a fleet of
// hosts (CROQ_CACHE_REMOTE). It comes after the disk layer and before
// NVRTC: a kernel one host compiled is fetched by the others instead of
// being compiled again.
//
// An entry is one value (remote_entry.hpp) under croq:kernel:<key>, added
// with SET NX, so readers only ever see whole entries; everything read is
// verified before use, and with CROQ_CACHE_REMOTE_SECRET it must carry the
// fleet's HMAC. A refused entry is replaced by the next host that compiles
// the kernel.
//
// Single flight across hosts: the host that misses first takes the lock
// croq:lock:<key> (SET NX PX, an owner token, released only by its owner)
// and compiles; the others poll for its entry until the lock's expiry
// (`lock_wait`) and then compile themselves. A holder that dies blocks no
// one past that bound.
//
// The remote never fails or hangs a call: every connect and command is
// bounded by its timeout; a failure (down, paused, full, garbage) is warned
// about once per outage, noted in CompiledKernel::lookup_notes, and the
// call goes on with the local layers; the remote is tried again after an
// exponential back-off.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "jit/redis_client.hpp"
#include "jit/remote_entry.hpp"

namespace croq::jit {

struct RemoteCacheSettings {
  std::optional<RedisEndpoint> endpoint;  // nullopt: no remote layer
  std::string secret;                     // HMAC-SHA256 key; empty: entries are not signed
  RedisTimeouts timeouts;
  std::chrono::milliseconds lock_wait{10000};  // the lock's expiry and the longest wait for another host
  std::chrono::milliseconds first_retry{1000}; // back-off after a failure, doubled up to max_retry
  std::chrono::milliseconds max_retry{60000};

  // CROQ_CACHE_REMOTE (a redis:// URL), CROQ_CACHE_REMOTE_SECRET,
  // CROQ_CACHE_REMOTE_TIMEOUT_MS (connect and each command, default 100),
  // CROQ_CACHE_WAIT_MS (lock_wait, default 10000). Throws CacheError or
  // croq::Error for a malformed value.
  static RemoteCacheSettings from_environment();
};

struct RemoteStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;  // lookups that ended without an entry (the kernel is compiled here)
  std::uint64_t errors = 0;  // failed commands, error replies, refused entries
};

class RemoteCache;

// This host's claim to compile a kernel for the fleet; released (if still
// its own) when destroyed.
class RemoteLease {
 public:
  RemoteLease() = default;
  RemoteLease(RemoteLease&& other) noexcept { *this = std::move(other); }
  RemoteLease& operator=(RemoteLease&& other) noexcept;
  ~RemoteLease();
  bool held() const { return cache_ != nullptr; }

 private:
  friend class RemoteCache;
  RemoteCache* cache_ = nullptr;
  std::string lock_key_, token_;
};

struct RemoteLookup {
  std::optional<StoredKernel> kernel;  // a verified entry
  bool replace = false;                // a refused value is stored under the key: the store replaces it
  RemoteLease lease;                   // held while this host compiles the kernel
};

class RemoteCache {
 public:
  explicit RemoteCache(RemoteCacheSettings settings);
  ~RemoteCache();

  // The verified entry `expected` names; else, while another host holds
  // the key's lock, waits for its entry (up to lock_wait), and otherwise
  // returns the lock. Each problem seen adds one line to `notes`.
  RemoteLookup fetch(const RemoteEntryExpectation& expected, std::vector<std::string>& notes);
  // Publishes the entry (SET NX; SET when `replace`).
  void store(const std::string& key_hex, const StoredKernel& kernel, bool replace, std::vector<std::string>& notes);

  RemoteStats stats() const;
  const RemoteCacheSettings& settings() const { return settings_; }

 private:
  friend class RemoteLease;
  enum class Found { entry, absent, refused, unavailable };
  Found get(const RemoteEntryExpectation& expected, std::optional<StoredKernel>& kernel, std::vector<std::string>& notes);
  // Tries to take the key's lock: true/false, or nullopt when unavailable.
  std::optional<bool> try_lock(const std::string& key_hex, RemoteLease& lease, std::vector<std::string>& notes);
  void release(const std::string& lock_key, const std::string& token);
  // One command; nullopt (with a note) when the remote is unavailable.
  std::optional<RedisReply> run(const std::vector<std::string_view>& args, std::vector<std::string>* notes);
  void note_error_reply(const char* what, const std::string& text, std::vector<std::string>& notes);

  RemoteCacheSettings settings_;
  std::string where_;  // the endpoint without credentials
  std::mutex mutex_;   // the connection and the back-off state
  std::unique_ptr<RedisConnection> connection_;
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::milliseconds backoff_{0};
  std::string outage_;  // why the remote is down; empty while it works
  bool warned_error_reply_ = false;
  std::atomic<std::uint64_t> hits_{0}, misses_{0}, errors_{0};
};

}  // namespace croq::jit
