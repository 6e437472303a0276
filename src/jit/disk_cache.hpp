// The on-disk layer of the kernel cache: <dir>/<key>.cubin + <key>.json.
// The .cubin file holds the image the driver loads: a cubin, or the PTX text
// (NUL-terminated) of a compute_XY target, which the metadata's "image"
// field marks ("ptx"; absent or "cubin" otherwise).
//
// Writes are atomic (temp file + rename in the same directory, under an
// flock on <dir>/.lock) and never replace a valid entry, so concurrent
// processes only ever see complete entries. Loads verify the metadata
// (cache_metadata.hpp), size, XXH3 checksum and image (cache_image.hpp), and
// that the metadata describes the request (entry, arch, launch, NVRTC); an
// entry that fails is deleted with a warning (or, when it cannot be, left
// and said so) and reported as a miss with the reason. Files are reached as
// cache_files.hpp describes: no links followed, and only a directory and
// entries of the current user are trusted (unless the cache is shared). An
// unusable or untrusted directory turns the layer off with one warning; one
// bad entry (a directory planted at its name) never does.
//
// Temp files (`.tmp-*`) of writers that died before their rename are
// counted by the tool's stats and removed by clear, and by prune and the
// max-bytes cap once older than kStaleTempSeconds.
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

// A temp file older than this belongs to a writer that died (writers hold
// the lock for milliseconds while theirs exists).
inline constexpr std::int64_t kStaleTempSeconds = 600;

// What a request needs of an entry besides its key. The key is a hash of the
// request, so an entry that says otherwise was edited or made by another
// build: it is a miss (and deleted), never loaded under a name or arch it
// was not compiled for.
struct EntryRequest {
  std::string entry;                   // the name expression requested
  std::string arch;
  std::optional<LaunchConfig> launch;  // nullopt: not compared
  std::string nvrtc_version;           // empty: not compared
  std::vector<std::string> nvrtc_flags;  // empty: not compared
};

struct StoredKernel {
  std::vector<char> cubin;  // the image: cubin, or NUL-terminated PTX
  CacheMetadata metadata;   // see docs/reference/cache.md
};

struct CacheEntryInfo {
  std::string key;
  std::optional<CacheMetadata> metadata;  // nullopt when missing or invalid (see `problem`)
  std::string problem;                    // why the metadata is missing or invalid
  bool readable = true;                   // false: its files could not be examined (bytes unknown)
  std::uint64_t bytes = 0;                // cubin + json
  std::int64_t last_used = 0;             // unix seconds (json mtime, touched on hits)
};

struct TempFileInfo {
  std::string name;
  std::uint64_t bytes = 0;
  std::int64_t modified = 0;  // unix seconds
  bool stale = false;         // older than kStaleTempSeconds
};

struct ClearResult {
  std::size_t entries = 0;
  std::size_t temp_files = 0;
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

  // The verified entry for `request`, or nullopt: then `*why_missed` (when
  // given) says why in one line ("not in the disk cache", "disk cache entry
  // was corrupt (cubin checksum mismatch)", ...). A corrupt, untrusted or
  // foreign entry is deleted.
  std::optional<StoredKernel> load(const support::Hash128& key, const EntryRequest& request,
                                   std::string* why_missed = nullptr);
  // Adds the entry unless a valid one exists; then evicts to the cap.
  void store(const support::Hash128& key, const StoredKernel& kernel);
  // Adds verified entries (check_entry) under one lock, skipping keys that
  // have a valid entry already; returns how many were added. Throws
  // CacheError when the directory cannot be used or written.
  std::size_t add_entries(const std::vector<StoredKernel>& kernels);

  // For the croq-cache tool. These throw CacheError when the directory
  // cannot be used (unreadable, untrusted, lock unavailable).
  std::vector<CacheEntryInfo> list() const;
  std::vector<TempFileInfo> temp_files() const;
  // The valid entries of `keys` (every valid entry when empty; invalid
  // ones are then skipped and counted in `*skipped`). A named key that is
  // missing or invalid is a CacheError.
  std::vector<StoredKernel> read_entries(const std::vector<std::string>& keys, std::size_t* skipped) const;
  VerifyResult verify(bool remove_bad);
  std::uint64_t prune(std::uint64_t max_bytes);  // returns bytes removed
  ClearResult clear();

  // Deletes the entry of `key_hex` in `dir` under the directory lock, with a
  // warning saying `why` (an image the driver refused to load: a later
  // process rebuilds it instead of loading it again).
  static void discard(const std::filesystem::path& dir, const std::string& key_hex, const std::string& why);

  // Why `stored` does not match its metadata and key (size, checksum, an
  // image that is no kernel image of its entry), or empty when it does.
  static std::string check_entry(const std::string& key_hex, const StoredKernel& stored);
  // Why `metadata` was not made for `request`, or empty when it was.
  static std::string request_problem(const CacheMetadata& metadata, const EntryRequest& request);

 private:
  std::unique_ptr<CacheDirectory> open_for_tool(bool* missing) const;
  std::optional<StoredKernel> load_from(const CacheDirectory& dir, const std::string& hex, const EntryRequest& request,
                                        std::string* why_missed);
  void store_to(const CacheDirectory& dir, const std::string& hex, const StoredKernel& kernel);
  // Writes a verified entry under the held lock; false when it was not
  // (`*fatal`: the directory cannot be written at all).
  bool write_entry(const CacheDirectory& dir, const std::string& hex, const StoredKernel& kernel, bool* fatal);
  void disable(const std::string& why);

  DiskCacheSettings settings_;
  std::atomic<bool> enabled_;
};

}  // namespace croq::jit
