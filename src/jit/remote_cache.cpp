#include "jit/remote_cache.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <thread>

#include "support/env.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const std::string kEntryPrefix = "croq:kernel:";
const std::string kLockPrefix = "croq:lock:";
// GET, unless the value is larger than ARGV[1] bytes (then its length): a
// huge value is never transferred.
constexpr std::string_view kBoundedGet =
    "local n = redis.call('STRLEN', KEYS[1]) "
    "if n > tonumber(ARGV[1]) then return n end "
    "return redis.call('GET', KEYS[1])";
// DEL the lock only while it still holds the caller's token: a lock that
// expired and was taken by another host is not released by the first.
constexpr std::string_view kRelease =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end "
    "return 0";
// Replies carry at most one entry and a few bytes of framing.
constexpr std::size_t kMaxReplyBytes = kMaxRemoteEntryBytes + 4096;
constexpr milliseconds kFirstPoll{2}, kMaxPoll{100};

std::string random_token() {
  std::random_device random;
  char text[33];
  std::snprintf(text, sizeof text, "%08x%08x%08x%08x", random(), random(), random(), random());
  return text;
}

// Adds `line` unless it is there already; whether it was added.
bool add_note(std::vector<std::string>& notes, const std::string& line) {
  if (std::find(notes.begin(), notes.end(), line) != notes.end()) return false;
  notes.push_back(line);
  return true;
}

}  // namespace

RemoteCacheSettings RemoteCacheSettings::from_environment() {
  RemoteCacheSettings s;
  if (auto url = support::env_string("CROQ_CACHE_REMOTE")) s.endpoint = RedisEndpoint::parse(*url, "CROQ_CACHE_REMOTE");
  if (auto secret = support::env_string("CROQ_CACHE_REMOTE_SECRET")) s.secret = *secret;
  if (auto timeout = support::env_milliseconds("CROQ_CACHE_REMOTE_TIMEOUT_MS", 60000))
    s.timeouts.connect = s.timeouts.command = std::max(*timeout, milliseconds(1));
  if (auto wait = support::env_milliseconds("CROQ_CACHE_WAIT_MS", 3600000)) s.lock_wait = *wait;
  return s;
}

RemoteLease& RemoteLease::operator=(RemoteLease&& other) noexcept {
  if (this != &other) {
    if (cache_ != nullptr) cache_->release(lock_key_, token_);
    cache_ = std::exchange(other.cache_, nullptr);
    lock_key_ = std::move(other.lock_key_);
    token_ = std::move(other.token_);
  }
  return *this;
}

RemoteLease::~RemoteLease() {
  if (cache_ != nullptr) cache_->release(lock_key_, token_);
}

RemoteCache::RemoteCache(RemoteCacheSettings settings)
    : settings_(std::move(settings)), where_(settings_.endpoint ? settings_.endpoint->describe() : "") {}

RemoteCache::~RemoteCache() = default;

RemoteStats RemoteCache::stats() const { return {hits_.load(), misses_.load(), errors_.load()}; }

RemoteLookup RemoteCache::fetch(const RemoteEntryExpectation& expected, std::vector<std::string>& notes) {
  RemoteLookup out;
  auto look = [&] {
    const Found found = get(expected, out.kernel, notes);
    out.replace = out.replace || found == Found::refused;
    if (found == Found::entry) ++hits_;
    return found;
  };
  const auto started = Clock::now();
  milliseconds poll = kFirstPoll;
  for (;;) {
    const Found found = look();
    if (found == Found::entry) return out;
    if (found == Found::unavailable || settings_.lock_wait.count() == 0) break;
    const std::optional<bool> locked = try_lock(expected.key_hex, out.lease, notes);
    if (!locked) break;
    // Locked: an entry published between the GET and the lock (its writer
    // has released the lock since) is taken instead of compiling again.
    if (*locked) {
      if (look() == Found::entry) return out;
      break;
    }
    const auto waited = Clock::now() - started;
    if (waited >= settings_.lock_wait) {
      add_note(notes, "waited " + std::to_string(settings_.lock_wait.count()) +
                          " ms for another host compiling this kernel; compiled it here");
      break;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(poll, settings_.lock_wait - waited));
    poll = std::min(poll * 2, kMaxPoll);
  }
  ++misses_;
  return out;
}

RemoteCache::Found RemoteCache::get(const RemoteEntryExpectation& expected, std::optional<StoredKernel>& kernel,
                                    std::vector<std::string>& notes) {
  const std::string key = kEntryPrefix + expected.key_hex;
  const std::string max_bytes = std::to_string(kMaxRemoteEntryBytes);
  const auto reply = run({"EVAL", kBoundedGet, "1", key, max_bytes}, &notes);
  if (!reply) return Found::unavailable;
  std::string why;
  switch (reply->kind) {
    case RedisReply::Kind::nil: return Found::absent;
    case RedisReply::Kind::string: {
      DecodedRemoteEntry decoded = decode_remote_entry(reply->text, expected, settings_.secret);
      if (decoded.kernel) {
        kernel = std::move(decoded.kernel);
        return Found::entry;
      }
      why = decoded.problem;
      break;
    }
    case RedisReply::Kind::integer: why = "larger than " + max_bytes + " bytes"; break;
    case RedisReply::Kind::error:
      if (reply->text.rfind("WRONGTYPE", 0) != 0) {
        note_error_reply("read", reply->text, notes);
        return Found::unavailable;
      }
      why = "not a string value";
      break;
    default: why = "an unexpected reply"; break;
  }
  ++errors_;
  if (add_note(notes, "remote entry refused: " + why))
    support::log().warn("kernel cache: remote entry {} on {} refused ({}); compiling it here and replacing it",
                        expected.key_hex, where_, why);
  return Found::refused;
}

std::optional<bool> RemoteCache::try_lock(const std::string& key_hex, RemoteLease& lease, std::vector<std::string>& notes) {
  const std::string lock_key = kLockPrefix + key_hex;
  const std::string token = random_token();
  const std::string expiry = std::to_string(settings_.lock_wait.count());
  const auto reply = run({"SET", lock_key, token, "NX", "PX", expiry}, &notes);
  if (!reply) return std::nullopt;
  if (reply->kind == RedisReply::Kind::nil) return false;
  if (reply->kind != RedisReply::Kind::status) {
    note_error_reply("lock", reply->kind == RedisReply::Kind::error ? reply->text : "unexpected reply", notes);
    return std::nullopt;
  }
  lease = RemoteLease();
  lease.cache_ = this;
  lease.lock_key_ = lock_key;
  lease.token_ = token;
  return true;
}

void RemoteCache::release(const std::string& lock_key, const std::string& token) {
  run({"EVAL", kRelease, "1", lock_key, token}, nullptr);  // a lock not released expires
}

void RemoteCache::store(const std::string& key_hex, const StoredKernel& kernel, bool replace,
                        std::vector<std::string>& notes) {
  const std::string value = encode_remote_entry(key_hex, kernel, settings_.secret);
  if (value.size() > kMaxRemoteEntryBytes) {
    add_note(notes, "not published remotely: " + std::to_string(value.size()) + " bytes, more than " +
                        std::to_string(kMaxRemoteEntryBytes));
    return;
  }
  const std::string key = kEntryPrefix + key_hex;
  std::vector<std::string_view> args{"SET", key, value};
  if (!replace) args.push_back("NX");  // an entry another host published first stays
  const auto reply = run(args, &notes);
  if (reply && reply->kind == RedisReply::Kind::error) note_error_reply("store", reply->text, notes);
}

void RemoteCache::note_error_reply(const char* what, const std::string& text, std::vector<std::string>& notes) {
  ++errors_;
  add_note(notes, std::string("remote ") + what + " failed: " + text);
  std::lock_guard<std::mutex> lock(mutex_);
  if (warned_error_reply_) {
    support::log().debug("kernel cache: remote {} on {} failed: {}", what, where_, text);
    return;
  }
  warned_error_reply_ = true;
  support::log().warn("kernel cache: remote {} on {} failed: {} (going on with the local cache)", what, where_, text);
}

std::optional<RedisReply> RemoteCache::run(const std::vector<std::string_view>& args, std::vector<std::string>* notes) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string why;
  if (!connection_) {
    if (!outage_.empty() && Clock::now() < retry_at_) {
      if (notes) add_note(*notes, "remote cache " + where_ + " unavailable: " + outage_);
      return std::nullopt;
    }
    connection_ = RedisConnection::connect(*settings_.endpoint, settings_.timeouts, kMaxReplyBytes, &why);
  }
  std::optional<RedisReply> reply;
  if (connection_) reply = connection_->command(args, &why);
  if (reply) {
    if (!outage_.empty()) support::log().info("kernel cache: remote {} is available again", where_);
    outage_.clear();
    return reply;
  }
  // The connection is unusable (a reply may still be in flight): drop it
  // and stay away for the back-off.
  connection_.reset();
  ++errors_;
  const bool new_outage = outage_.empty();
  backoff_ = new_outage ? settings_.first_retry : std::min(backoff_ * 2, settings_.max_retry);
  retry_at_ = Clock::now() + backoff_;
  outage_ = why;
  if (new_outage)
    support::log().warn("kernel cache: remote {} is unavailable ({}); going on with the local cache, trying it again "
                        "in {} ms and then less often",
                        where_, why, backoff_.count());
  else
    support::log().debug("kernel cache: remote {} is still unavailable ({}); next try in {} ms", where_, why,
                         backoff_.count());
  if (notes) add_note(*notes, "remote cache " + where_ + " unavailable: " + why);
  return std::nullopt;
}

}  // namespace croq::jit
