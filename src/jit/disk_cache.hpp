// The on-disk layer of the kernel cache: <dir>/<key>.cubin + <key>.json.
// The .cubin file holds the image the driver loads: a cubin, or the PTX text
// (NUL-terminated) of a compute_XY target, which the metadata's "image"
// field marks ("ptx"; absent or "cubin" otherwise).
//
// Writes are atomic (temp file + rename in the same directory, under an
// flock on <dir>/.lock) and never replace a valid entry, so concurrent
// processes only ever see complete entries. Loads verify the metadata
// (cache_metadata.hpp), size and XXH3 checksum; a corrupt entry is deleted
// with a warning and reported as a miss. Files are reached as
// cache_files.hpp describes: no links followed, and only a directory and
// entries of the current user are trusted (unless the cache is shared). An
// unusable or untrusted directory turns the layer off with one warning.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jit/cache_metadata.hpp"
#include "support/hash.hpp"

namespace croq::jit {

class CacheDirectory;

struct DiskCacheSettings {
  bool enabled = true;
  bool shared = false;  // trust a directory and entries of other users
  std::filesystem::path dir;
  std::uint64_t max_bytes = 0;  // 0: no cap

  // CROQ_CACHE (a yes/no value, default yes); CROQ_CACHE_DIR, else
  // $XDG_CACHE_HOME/croq, else ~/.cache/croq; CROQ_CACHE_MAX_BYTES caps the
  // directory; CROQ_CACHE_SHARED (yes/no, default no).
  static DiskCacheSettings from_environment();
};

struct StoredKernel {
  std::vector<char> cubin;  // the image: cubin, or NUL-terminated PTX
  CacheMetadata metadata;   // see README "Cache layout"
};

struct CacheEntryInfo {
  std::string key;
  std::optional<CacheMetadata> metadata;  // nullopt when missing or invalid (see `problem`)
  std::string problem;                    // why the metadata is missing or invalid
  bool readable = true;                   // false: its files could not be examined (bytes unknown)
  std::uint64_t bytes = 0;                // cubin + json
  std::int64_t last_used = 0;             // unix seconds (json mtime, touched on hits)
};

struct BadEntry {
  std::string key;
  std::string reason;
  bool removed = false;      // verify(true) deleted both files
  std::string remove_error;  // why it could not
};

struct VerifyResult {
  std::size_t valid = 0;
  std::vector<BadEntry> bad;
};

class DiskCache {
 public:
  explicit DiskCache(DiskCacheSettings settings);
  ~DiskCache();

  bool enabled() const { return enabled_; }
  const std::filesystem::path& dir() const { return settings_.dir; }

  // The verified entry, or nullopt (missing, disabled, or corrupt: deleted).
  std::optional<StoredKernel> load(const support::Hash128& key);
  // Adds the entry unless a valid one exists; then evicts to the cap.
  void store(const support::Hash128& key, const StoredKernel& kernel);

  // For the croq-cache tool. These throw CacheError when the directory
  // cannot be used (unreadable, untrusted, lock unavailable).
  std::vector<CacheEntryInfo> list() const;
  VerifyResult verify(bool remove_bad);
  std::uint64_t prune(std::uint64_t max_bytes);  // returns bytes removed
  std::size_t clear();                           // returns entries removed

  // Deletes the entry of `key_hex` in `dir` under the directory lock, with a
  // warning saying `why` (an image the driver refused to load: a later
  // process rebuilds it instead of loading it again).
  static void discard(const std::filesystem::path& dir, const std::string& key_hex, const std::string& why);

  // Why `stored` does not match its metadata and key, or empty when it does.
  static std::string check_entry(const std::string& key_hex, const StoredKernel& stored);

 private:
  std::unique_ptr<CacheDirectory> open_for_tool(bool* missing) const;
  std::optional<StoredKernel> load_from(const CacheDirectory& dir, const std::string& hex);
  void store_to(const CacheDirectory& dir, const std::string& hex, const StoredKernel& kernel);
  void disable(const std::string& why);

  DiskCacheSettings settings_;
  std::atomic<bool> enabled_;
};

}  // namespace croq::jit
