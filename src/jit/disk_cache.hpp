// The on-disk layer of the kernel cache: <dir>/<key>.cubin + <key>.json.
// The .cubin file holds the image the driver loads: a cubin, or the PTX text
// (NUL-terminated) of a compute_XY target, which the metadata's "image"
// field marks ("ptx"; absent or "cubin" otherwise).
//
// Writes are atomic (temp file + rename in the same directory, under an
// flock on <dir>/.lock) and never replace a valid entry, so concurrent
// processes only ever see complete entries. Loads verify size and XXH3
// checksum; a corrupt entry is deleted with a warning and reported as a
// miss. An unwritable directory turns the layer off with one warning.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/hash.hpp"

namespace croq::jit {

// Bump when the entry layout or metadata meaning changes: old entries then
// become misses (the version is part of every key).
inline constexpr int kCacheFormatVersion = 1;

struct DiskCacheSettings {
  bool enabled = true;
  std::filesystem::path dir;
  std::uint64_t max_bytes = 0;  // 0: no cap

  // CROQ_CACHE=0 disables; CROQ_CACHE_DIR, else $XDG_CACHE_HOME/croq, else
  // ~/.cache/croq; CROQ_CACHE_MAX_BYTES caps the directory.
  static DiskCacheSettings from_environment();
};

struct StoredKernel {
  std::vector<char> cubin;  // the image: cubin, or NUL-terminated PTX
  nlohmann::json metadata;  // see README "Cache layout"
};

struct CacheEntryInfo {
  std::string key;
  nlohmann::json metadata;       // null when unreadable
  std::uint64_t bytes = 0;       // cubin + json
  std::int64_t last_used = 0;    // unix seconds (json mtime, touched on hits)
};

struct VerifyResult {
  std::size_t valid = 0;
  std::vector<std::string> bad;  // "<key>: reason"
};

class DiskCache {
 public:
  explicit DiskCache(DiskCacheSettings settings);

  bool enabled() const { return enabled_; }
  const std::filesystem::path& dir() const { return settings_.dir; }

  // The verified entry, or nullopt (missing, disabled, or corrupt: deleted).
  std::optional<StoredKernel> load(const support::Hash128& key);
  // Adds the entry unless a valid one exists; then evicts to the cap.
  void store(const support::Hash128& key, const StoredKernel& kernel);

  // For the croq-cache tool. These throw CacheError on I/O failure.
  std::vector<CacheEntryInfo> list() const;
  VerifyResult verify(bool remove_bad);
  std::uint64_t prune(std::uint64_t max_bytes);  // returns bytes removed
  std::size_t clear();                           // returns entries removed

  // Deletes the entry of `key_hex` in `dir` under the directory lock, with a
  // warning saying `why` (an image the driver refused to load: a later
  // process rebuilds it instead of loading it again).
  static void discard(const std::filesystem::path& dir, const std::string& key_hex, const std::string& why);

  // Why `stored` does not match its metadata, or empty when it does.
  static std::string check_entry(const std::string& key_hex, const StoredKernel& stored);

 private:
  void disable(const std::string& why);
  std::filesystem::path cubin_path(const std::string& key) const;
  std::filesystem::path meta_path(const std::string& key) const;
  std::optional<StoredKernel> read_entry(const std::string& key, std::string* why) const;
  void remove_entry(const std::string& key) const;
  std::uint64_t evict_to(std::uint64_t max_bytes);

  DiskCacheSettings settings_;
  std::atomic<bool> enabled_;
};

}  // namespace croq::jit
