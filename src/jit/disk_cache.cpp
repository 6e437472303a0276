#include "jit/disk_cache.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "croq/error.hpp"
#include "jit/cache_files.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace fs = std::filesystem;

namespace croq::jit {
namespace {

// Writers hold the lock for milliseconds; waiting longer means a stuck
// process (or, in a shared cache, another user): give up rather than hang.
constexpr double kLockWaitSeconds = 5;

std::string meta_name(const std::string& key) { return key + ".json"; }
std::string cubin_name(const std::string& key) { return key + ".cubin"; }

enum class EntryState { valid, missing, corrupt, unreadable };

struct EntryRead {
  EntryState state = EntryState::missing;
  std::string why;
  std::optional<StoredKernel> kernel;
};

// The entry's metadata, read and validated; `*error` is the errno of a
// failed read (ENOENT: there is none), and then nothing was parsed.
ParsedMetadata read_metadata(const CacheDirectory& dir, const std::string& key, int* error) {
  ParsedMetadata parsed;
  FileRead file = dir.read(meta_name(key), kMaxMetadataBytes);
  *error = file.error;
  if (file.error != 0) parsed.problem = "cannot read " + meta_name(key) + ": " + std::strerror(file.error);
  else if (file.too_large) parsed.problem = "metadata is larger than " + std::to_string(kMaxMetadataBytes) + " bytes";
  else if (!file.problem.empty()) parsed.problem = file.problem;
  else parsed = parse_cache_metadata(file.bytes);
  return parsed;
}

EntryRead read_entry(const CacheDirectory& dir, const std::string& key) {
  EntryRead r;
  auto fail = [&](EntryState state, std::string why) {
    r.state = state;
    r.why = std::move(why);
    return r;
  };
  // Metadata first: it is renamed into place after the cubin, so a visible
  // .json means the cubin is complete.
  int error = 0;
  ParsedMetadata parsed = read_metadata(dir, key, &error);
  if (error == ENOENT) return fail(EntryState::missing, "missing");
  if (!parsed.metadata) return fail(error != 0 ? EntryState::unreadable : EntryState::corrupt, parsed.problem);
  FileRead image = dir.read(cubin_name(key), parsed.metadata->cubin_bytes);
  if (image.error == ENOENT) return fail(EntryState::corrupt, "cubin file missing");
  if (image.error != 0)
    return fail(EntryState::unreadable, "cannot read " + cubin_name(key) + ": " + std::strerror(image.error));
  if (image.too_large)
    return fail(EntryState::corrupt, "cubin is " + std::to_string(image.size) + " bytes, metadata says " +
                                         std::to_string(parsed.metadata->cubin_bytes));
  if (!image.problem.empty()) return fail(EntryState::corrupt, image.problem);
  StoredKernel kernel;
  kernel.cubin.assign(image.bytes.begin(), image.bytes.end());
  kernel.metadata = std::move(*parsed.metadata);
  if (std::string why = DiskCache::check_entry(key, kernel); !why.empty()) return fail(EntryState::corrupt, why);
  r.state = EntryState::valid;
  r.kernel = std::move(kernel);
  return r;
}

// Deletes both files of an entry; 0 or the errno of the first failure.
int remove_entry(const CacheDirectory& dir, const std::string& key) {
  int error = 0;
  for (const std::string& name : {meta_name(key), cubin_name(key)}) {
    int e = dir.remove(name);
    if (e != 0 && e != ENOENT && error == 0) error = e;
  }
  return error;
}

// The entries of `dir`: every key with a .json or a .cubin (a crash between
// the two renames leaves a cubin alone). Files that cannot be examined make
// their entry unreadable instead of failing the listing.
std::vector<CacheEntryInfo> scan(const CacheDirectory& dir, bool with_metadata) {
  std::vector<DirectoryFile> files;
  if (int e = dir.list(files); e != 0)
    throw CacheError("cannot read cache directory " + dir.path().string() + ": " + std::strerror(e));
  std::map<std::string, CacheEntryInfo> entries;
  for (const DirectoryFile& f : files) {
    const fs::path name(f.name);
    const std::string ext = name.extension().string();
    const std::string key = name.stem().string();
    if ((ext != ".json" && ext != ".cubin") || !is_cache_key(key)) continue;
    CacheEntryInfo& info = entries[key];
    info.key = key;
    if (f.error != 0) {
      info.readable = false;
      info.problem = "cannot examine " + f.name + ": " + std::strerror(f.error);
      continue;
    }
    info.bytes += f.bytes;
    if (ext == ".json" || info.last_used == 0) info.last_used = f.mtime;
  }
  std::vector<CacheEntryInfo> out;
  for (auto& [key, info] : entries) {
    if (with_metadata && info.readable) {
      int error = 0;
      ParsedMetadata parsed = read_metadata(dir, key, &error);
      info.readable = error == 0 || error == ENOENT;
      info.metadata = std::move(parsed.metadata);
      info.problem = error == ENOENT ? "no metadata" : std::move(parsed.problem);
    }
    out.push_back(std::move(info));
  }
  return out;  // sorted by key (the map's order)
}

std::uint64_t evict_to(const CacheDirectory& dir, std::uint64_t max_bytes) {
  std::vector<CacheEntryInfo> entries = scan(dir, /*with_metadata=*/false);
  std::uint64_t total = 0;
  for (const auto& e : entries) total += e.bytes;  // unreadable entries count 0: their size is unknown
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.last_used < b.last_used; });
  std::uint64_t removed = 0;
  for (const auto& e : entries) {
    if (total <= max_bytes) break;
    if (!e.readable) continue;
    if (int err = remove_entry(dir, e.key); err != 0) {
      support::log().warn("kernel cache: could not evict {}: {}", e.key, std::strerror(err));
      continue;
    }
    total -= e.bytes;
    removed += e.bytes;
    support::log().info("kernel cache: evicted {} ({} bytes) to stay under {} bytes", e.key, e.bytes, max_bytes);
  }
  return removed;
}

bool shared_cache_from_environment() {
  static const bool shared = support::env_flag("CROQ_CACHE_SHARED", false);
  return shared;
}

}  // namespace

DiskCacheSettings DiskCacheSettings::from_environment() {
  DiskCacheSettings s;
  s.enabled = support::env_flag("CROQ_CACHE", true);
  s.shared = shared_cache_from_environment();
  if (auto dir = support::env_string("CROQ_CACHE_DIR")) s.dir = *dir;
  else if (auto xdg = support::env_string("XDG_CACHE_HOME")) s.dir = fs::path(*xdg) / "croq";
  else if (auto home = support::env_string("HOME")) s.dir = fs::path(*home) / ".cache" / "croq";
  else s.enabled = false;  // nowhere sensible to write
  s.max_bytes = support::env_bytes("CROQ_CACHE_MAX_BYTES").value_or(0);
  return s;
}

DiskCache::DiskCache(DiskCacheSettings settings) : settings_(std::move(settings)), enabled_(settings_.enabled) {}
DiskCache::~DiskCache() = default;

void DiskCache::disable(const std::string& why) {
  if (enabled_.exchange(false))
    support::log().warn("kernel cache directory {} is not usable ({}); caching in memory only",
                        settings_.dir.string(), why);
}

std::string DiskCache::check_entry(const std::string& key_hex, const StoredKernel& stored) {
  const CacheMetadata& m = stored.metadata;
  if (m.key != key_hex) return "metadata names another key";
  if (m.cubin_bytes != stored.cubin.size())
    return "cubin is " + std::to_string(stored.cubin.size()) + " bytes, metadata says " + std::to_string(m.cubin_bytes);
  if (m.cubin_xxh3_64 != support::hex64(support::checksum64(stored.cubin.data(), stored.cubin.size())))
    return "cubin checksum mismatch";
  // The driver reads PTX up to its NUL, which must be the last byte.
  if (m.image_is_ptx && (stored.cubin.empty() || stored.cubin.back() != '\0' ||
                         std::find(stored.cubin.begin(), stored.cubin.end(), '\0') != stored.cubin.end() - 1))
    return "PTX image is not one NUL-terminated text";
  return {};
}

std::optional<StoredKernel> DiskCache::load(const support::Hash128& key) {
  if (!enabled_) return std::nullopt;
  try {
    std::string why;
    int error = 0;
    auto dir = CacheDirectory::open(settings_.dir, settings_.shared, /*create=*/false, &why, &error);
    if (!dir) {
      if (error != ENOENT) disable(why);  // a missing directory is made by the first store
      return std::nullopt;
    }
    return load_from(*dir, key.hex());
  } catch (const std::exception& e) {  // not expected: every step reports errors as values
    disable(std::string("unexpected error: ") + e.what());
    return std::nullopt;
  }
}

std::optional<StoredKernel> DiskCache::load_from(const CacheDirectory& dir, const std::string& hex) {
  EntryRead entry = read_entry(dir, hex);
  if (entry.state == EntryState::valid) {
    dir.touch(meta_name(hex));  // last use, for LRU eviction
    return std::move(entry.kernel);
  }
  // Unreadable (EACCES in a directory that cannot be entered, an entry of
  // another user in a shared cache): a miss; storing then says whether the
  // directory is usable at all.
  if (entry.state == EntryState::missing || entry.state == EntryState::unreadable) return std::nullopt;
  // Corrupt: re-check under the lock (a writer may have just finished) and delete.
  CacheDirectory::Lock lock = dir.lock(kLockWaitSeconds);
  if (!lock.held()) return std::nullopt;
  entry = read_entry(dir, hex);
  if (entry.state == EntryState::valid) return std::move(entry.kernel);
  if (entry.state == EntryState::corrupt) {
    support::log().warn("kernel cache entry {} in {} is corrupt ({}); deleting it and rebuilding", hex,
                        settings_.dir.string(), entry.why);
    remove_entry(dir, hex);
  }
  return std::nullopt;
}

void DiskCache::store(const support::Hash128& key, const StoredKernel& kernel) {
  if (!enabled_) return;
  try {
    std::string why;
    int error = 0;
    auto dir = CacheDirectory::open(settings_.dir, settings_.shared, /*create=*/true, &why, &error);
    if (!dir) return disable(why);
    store_to(*dir, key.hex(), kernel);
  } catch (const std::exception& e) {  // not expected: every step reports errors as values
    disable(std::string("unexpected error: ") + e.what());
  }
}

void DiskCache::store_to(const CacheDirectory& dir, const std::string& hex, const StoredKernel& kernel) {
  CacheDirectory::Lock lock = dir.lock(kLockWaitSeconds);
  if (lock.timed_out()) {
    support::log().warn("kernel cache {}: {}; not storing {}", settings_.dir.string(), lock.error(), hex);
    return;
  }
  if (!lock.held()) return disable(lock.error());
  if (read_entry(dir, hex).state == EntryState::valid) return;  // another process stored it first
  const std::string meta = kernel.metadata.to_json().dump(2);
  int err = dir.write_atomically(cubin_name(hex), kernel.cubin.data(), kernel.cubin.size());
  if (err == 0) err = dir.write_atomically(meta_name(hex), meta.data(), meta.size());
  if (err != 0) {
    remove_entry(dir, hex);
    return disable(std::strerror(err));
  }
  if (settings_.max_bytes > 0) evict_to(dir, settings_.max_bytes);
}

void DiskCache::discard(const fs::path& dir_path, const std::string& key_hex, const std::string& why) {
  std::string problem;
  int error = 0;
  auto dir = CacheDirectory::open(dir_path, shared_cache_from_environment(), /*create=*/false, &problem, &error);
  if (!dir || !is_cache_key(key_hex)) return;
  CacheDirectory::Lock lock = dir->lock(kLockWaitSeconds);
  if (!lock.held() || !dir->exists(meta_name(key_hex))) return;
  support::log().warn("kernel cache entry {} in {} is not loadable ({}); deleting it", key_hex, dir_path.string(), why);
  remove_entry(*dir, key_hex);
}

std::unique_ptr<CacheDirectory> DiskCache::open_for_tool(bool* missing) const {
  std::string why;
  int error = 0;
  auto dir = CacheDirectory::open(settings_.dir, settings_.shared, /*create=*/false, &why, &error);
  *missing = !dir && error == ENOENT;
  if (!dir && !*missing) throw CacheError("cannot use cache directory " + settings_.dir.string() + ": " + why);
  return dir;
}

std::vector<CacheEntryInfo> DiskCache::list() const {
  bool missing = false;
  auto dir = open_for_tool(&missing);
  if (missing) return {};
  return scan(*dir, /*with_metadata=*/true);
}

VerifyResult DiskCache::verify(bool remove_bad) {
  VerifyResult result;
  bool missing = false;
  auto dir = open_for_tool(&missing);
  if (missing) return result;
  // Without the lock a writer's entry could look half-made; reading works
  // without it (a read-only directory), deleting does not.
  CacheDirectory::Lock lock = dir->lock(kLockWaitSeconds);
  if (remove_bad && !lock.held())
    throw CacheError("cannot lock cache directory " + settings_.dir.string() + ": " + lock.error());
  for (const auto& info : scan(*dir, /*with_metadata=*/false)) {
    EntryRead entry = info.readable ? read_entry(*dir, info.key) : EntryRead{EntryState::unreadable, info.problem, {}};
    if (entry.state == EntryState::valid) {
      ++result.valid;
      continue;
    }
    BadEntry bad{info.key, entry.state == EntryState::missing ? "no metadata" : entry.why, false, {}};
    if (remove_bad) {
      int err = remove_entry(*dir, info.key);
      bad.removed = err == 0;
      if (err != 0) bad.remove_error = std::strerror(err);
    }
    result.bad.push_back(std::move(bad));
  }
  return result;
}

std::uint64_t DiskCache::prune(std::uint64_t max_bytes) {
  bool missing = false;
  auto dir = open_for_tool(&missing);
  if (missing) return 0;
  CacheDirectory::Lock lock = dir->lock(kLockWaitSeconds);
  if (!lock.held()) throw CacheError("cannot lock cache directory " + settings_.dir.string() + ": " + lock.error());
  return evict_to(*dir, max_bytes);
}

std::size_t DiskCache::clear() {
  bool missing = false;
  auto dir = open_for_tool(&missing);
  if (missing) return 0;
  CacheDirectory::Lock lock = dir->lock(kLockWaitSeconds);
  if (!lock.held()) throw CacheError("cannot lock cache directory " + settings_.dir.string() + ": " + lock.error());
  std::size_t removed = 0;
  std::string failures;
  for (const auto& info : scan(*dir, /*with_metadata=*/false)) {
    if (int err = remove_entry(*dir, info.key); err != 0) failures += "\n  " + info.key + ": " + std::strerror(err);
    else ++removed;
  }
  // Leftover temp files of crashed writers.
  std::vector<DirectoryFile> files;
  dir->list(files);
  for (const auto& f : files)
    if (f.name.rfind(".tmp-", 0) == 0) dir->remove(f.name);
  if (!failures.empty())
    throw CacheError("removed " + std::to_string(removed) + " entries; could not remove:" + failures);
  return removed;
}

}  // namespace croq::jit
