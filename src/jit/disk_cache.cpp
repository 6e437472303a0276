#include "jit/disk_cache.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>

#include "croq/error.hpp"
#include "jit/cache_files.hpp"
#include "jit/cache_image.hpp"
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

// corrupt, untrusted and foreign entries are deleted; an unreadable one is
// left alone (another user's entry of a shared cache, a directory that
// cannot be entered).
enum class EntryState { valid, missing, corrupt, untrusted, foreign, unreadable };

bool is_temp_name(const std::string& name) { return name.rfind(".tmp-", 0) == 0; }

struct EntryRead {
  EntryState state = EntryState::missing;
  std::string why;
  std::optional<StoredKernel> kernel;
};

// The entry's metadata, read and validated; `*error` is the errno of a
// failed read (ENOENT: there is none), and then nothing was parsed.
ParsedMetadata read_metadata(const CacheDirectory& dir, const std::string& key, int* error, FileRead* read = nullptr) {
  ParsedMetadata parsed;
  FileRead file = dir.read(meta_name(key), kMaxMetadataBytes);
  *error = file.error;
  if (read) read->untrusted = file.untrusted;
  if (file.error != 0) parsed.problem = "cannot read " + meta_name(key) + ": " + std::strerror(file.error);
  else if (file.too_large) parsed.problem = "metadata is larger than " + std::to_string(kMaxMetadataBytes) + " bytes";
  else if (!file.problem.empty()) parsed.problem = file.problem;
  else parsed = parse_cache_metadata(file.bytes);
  return parsed;
}

// The state of a file that exists but must not be used.
EntryState state_of_problem(const FileRead& file) {
  return file.untrusted ? EntryState::untrusted : EntryState::corrupt;
}

// `request`: what the caller needs (nullptr: the tool, which checks the
// entry against itself only).
EntryRead read_entry(const CacheDirectory& dir, const std::string& key, const EntryRequest* request = nullptr) {
  EntryRead r;
  auto fail = [&](EntryState state, std::string why) {
    r.state = state;
    r.why = std::move(why);
    return r;
  };
  // Metadata first: it is renamed into place after the cubin, so a visible
  // .json means the cubin is complete.
  int error = 0;
  FileRead meta_file;
  ParsedMetadata parsed = read_metadata(dir, key, &error, &meta_file);
  if (error == ENOENT) return fail(EntryState::missing, "missing");
  if (!parsed.metadata)
    return fail(error != 0             ? EntryState::unreadable
                : parsed.other_version ? EntryState::foreign
                                       : state_of_problem(meta_file),
                parsed.problem);
  if (request)
    if (std::string why = DiskCache::request_problem(*parsed.metadata, *request); !why.empty())
      return fail(EntryState::foreign, why);
  FileRead image = dir.read(cubin_name(key), parsed.metadata->cubin_bytes);
  if (image.error == ENOENT) return fail(EntryState::corrupt, "cubin file missing");
  if (image.error != 0)
    return fail(EntryState::unreadable, "cannot read " + cubin_name(key) + ": " + std::strerror(image.error));
  if (image.too_large)
    return fail(EntryState::corrupt, "cubin is " + std::to_string(image.size) + " bytes, metadata says " +
                                         std::to_string(parsed.metadata->cubin_bytes));
  if (!image.problem.empty()) return fail(state_of_problem(image), image.problem);
  StoredKernel kernel;
  kernel.cubin.assign(image.bytes.begin(), image.bytes.end());
  kernel.metadata = std::move(*parsed.metadata);
  if (std::string why = DiskCache::check_entry(key, kernel); !why.empty()) return fail(EntryState::corrupt, why);
  r.state = EntryState::valid;
  r.kernel = std::move(kernel);
  return r;
}

// Deletes both files of an entry; 0 or the errno of the first failure
// (`*failed_name` names that file).
int remove_entry(const CacheDirectory& dir, const std::string& key, std::string* failed_name = nullptr) {
  int error = 0;
  for (const std::string& name : {meta_name(key), cubin_name(key)}) {
    int e = dir.remove(name);
    if (e != 0 && e != ENOENT && error == 0) {
      error = e;
      if (failed_name) *failed_name = name;
    }
  }
  return error;
}

// What a failed removal of `name` means, for a warning.
std::string removal_problem(const std::string& name, int error) {
  if (error == ENOTEMPTY) return "cannot delete " + name + ": it is a directory that is not empty";
  return "cannot delete " + name + ": " + std::strerror(error);
}

// The explanation's line for a miss of `state` (why: the entry's problem).
std::string miss_note(EntryState state, const std::string& why) {
  switch (state) {
    case EntryState::valid: return {};
    case EntryState::missing: return "not in the disk cache";
    case EntryState::corrupt: return "disk cache entry was corrupt (" + why + ")";
    case EntryState::untrusted: return "disk cache entry was not trusted (" + why + ")";
    case EntryState::foreign: return "disk cache entry was " + why;
    case EntryState::unreadable: return "disk cache entry could not be read (" + why + ")";
  }
  return why;
}

struct DirectoryScan {
  std::vector<CacheEntryInfo> entries;  // sorted by key
  std::vector<TempFileInfo> temps;
};

// The entries of `dir`: every key with a .json or a .cubin (a crash between
// the two renames leaves a cubin alone). Files that cannot be examined make
// their entry unreadable instead of failing the listing.
DirectoryScan scan(const CacheDirectory& dir, bool with_metadata) {
  std::vector<DirectoryFile> files;
  if (int e = dir.list(files); e != 0)
    throw CacheError("cannot read cache directory " + dir.path().string() + ": " + std::strerror(e));
  DirectoryScan out;
  const std::int64_t now = std::time(nullptr);
  std::map<std::string, CacheEntryInfo> entries;
  for (const DirectoryFile& f : files) {
    if (is_temp_name(f.name) && f.error == 0 && f.regular) {
      out.temps.push_back({f.name, f.bytes, f.mtime, now - f.mtime > kStaleTempSeconds});
      continue;
    }
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
  for (auto& [key, info] : entries) {
    if (with_metadata && info.readable) {
      int error = 0;
      ParsedMetadata parsed = read_metadata(dir, key, &error);
      info.readable = error == 0 || error == ENOENT;
      info.metadata = std::move(parsed.metadata);
      info.problem = error == ENOENT ? "no metadata" : std::move(parsed.problem);
    }
    out.entries.push_back(std::move(info));
  }
  return out;  // entries sorted by key (the map's order)
}

// Removes stale temp files; the bytes of those left (a writer at work) are
// added to `*kept_bytes`. Returns the bytes removed.
std::uint64_t collect_stale_temps(const CacheDirectory& dir, const std::vector<TempFileInfo>& temps,
                                  std::uint64_t* kept_bytes) {
  std::uint64_t removed = 0;
  for (const TempFileInfo& t : temps) {
    if (t.stale && dir.remove(t.name) == 0) {
      removed += t.bytes;
      support::log().info("kernel cache: removed {} ({} bytes), left by a writer that died", t.name, t.bytes);
    } else {
      *kept_bytes += t.bytes;
    }
  }
  return removed;
}

std::uint64_t evict_to(const CacheDirectory& dir, std::uint64_t max_bytes) {
  DirectoryScan scanned = scan(dir, /*with_metadata=*/false);
  std::vector<CacheEntryInfo>& entries = scanned.entries;
  std::uint64_t total = 0;
  std::uint64_t removed = collect_stale_temps(dir, scanned.temps, &total);  // fresh ones count toward the cap
  for (const auto& e : entries) total += e.bytes;  // unreadable entries count 0: their size is unknown
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.last_used < b.last_used; });
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
  return image_problem(std::string_view(stored.cubin.data(), stored.cubin.size()), m.image_is_ptx, m.entry);
}

std::string DiskCache::request_problem(const CacheMetadata& m, const EntryRequest& request) {
  if (m.requested_entry() != request.entry)
    return "made for kernel `" + m.requested_entry() + "`, not `" + request.entry + "`";
  if (m.arch != request.arch) return "made for " + m.arch + ", not " + request.arch;
  if (!request.nvrtc_version.empty() && m.nvrtc_version != request.nvrtc_version)
    return "made by NVRTC " + m.nvrtc_version + ", not " + request.nvrtc_version + " (another library version)";
  if (!request.nvrtc_flags.empty() && m.nvrtc_flags != request.nvrtc_flags)
    return "made with other NVRTC flags (another library version)";
  if (request.launch) {
    const LaunchConfig& want = *request.launch;
    const bool same = m.launch && m.launch->grid == want.grid && m.launch->block == want.block &&
                      m.launch->shared_bytes == want.shared_bytes && m.launch->cluster == want.cluster &&
                      m.launch->cooperative == want.cooperative;
    if (!same) return "made for another launch: its launch shape differs from the request";
  }
  return {};
}

std::optional<StoredKernel> DiskCache::load(const support::Hash128& key, const EntryRequest& request,
                                            std::string* why_missed) {
  std::string ignored;
  std::string& why = why_missed ? *why_missed : ignored;
  if (!enabled_) {
    why = "the disk cache is off";
    return std::nullopt;
  }
  try {
    std::string problem;
    int error = 0;
    auto dir = CacheDirectory::open(settings_.dir, settings_.shared, /*create=*/false, &problem, &error);
    if (!dir) {
      if (error != ENOENT) disable(problem);  // a missing directory is made by the first store
      why = error == ENOENT ? "not in the disk cache (its directory does not exist yet)" : "the disk cache is off";
      return std::nullopt;
    }
    return load_from(*dir, key.hex(), request, &why);
  } catch (const std::exception& e) {  // not expected: every step reports errors as values
    support::log().warn("kernel cache: unexpected error reading entry {}: {}; caching in memory only", key.hex(),
                        e.what());
    enabled_ = false;
    why = "the disk cache is off";
    return std::nullopt;
  }
}

std::optional<StoredKernel> DiskCache::load_from(const CacheDirectory& dir, const std::string& hex,
                                                 const EntryRequest& request, std::string* why_missed) {
  EntryRead entry = read_entry(dir, hex, &request);
  if (entry.state == EntryState::valid) {
    dir.touch(meta_name(hex));  // last use, for LRU eviction
    return std::move(entry.kernel);
  }
  *why_missed = miss_note(entry.state, entry.why);
  // Unreadable (EACCES in a directory that cannot be entered, an entry of
  // another user in a shared cache): a miss; storing then says whether the
  // directory is usable at all.
  if (entry.state == EntryState::missing || entry.state == EntryState::unreadable) return std::nullopt;
  // Bad: re-check under the lock (a writer may have just finished) and delete.
  CacheDirectory::Lock lock = dir.lock(kLockWaitSeconds);
  if (!lock.held()) return std::nullopt;
  entry = read_entry(dir, hex, &request);
  if (entry.state == EntryState::valid) return std::move(entry.kernel);
  *why_missed = miss_note(entry.state, entry.why);
  if (entry.state == EntryState::missing || entry.state == EntryState::unreadable) return std::nullopt;
  std::string failed_name;
  if (int err = remove_entry(dir, hex, &failed_name); err != 0)
    support::log().warn("kernel cache entry {} in {}: {}; {}; compiling it without caching it on disk", hex,
                        settings_.dir.string(), *why_missed, removal_problem(failed_name, err));
  else
    support::log().warn("kernel cache entry {} in {}: {}; deleted it, rebuilding", hex, settings_.dir.string(),
                        *why_missed);
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
    support::log().warn("kernel cache: unexpected error storing entry {}: {}; caching in memory only", key.hex(),
                        e.what());
    enabled_ = false;
  }
}

bool DiskCache::write_entry(const CacheDirectory& dir, const std::string& hex, const StoredKernel& kernel,
                            bool* fatal) {
  *fatal = false;
  if (read_entry(dir, hex).state == EntryState::valid) return false;  // another process stored it first
  // A directory planted at a name would make the rename fail: removed when
  // empty, otherwise this entry is not cached (the rest of the cache is).
  for (const std::string& name : {cubin_name(hex), meta_name(hex)}) {
    if (int err = dir.remove(name); err != 0 && err != ENOENT) {
      support::log().warn("kernel cache {}: not storing {}: {}", settings_.dir.string(), hex, removal_problem(name, err));
      return false;
    }
  }
  const std::string meta = kernel.metadata.to_text();
  int err = dir.write_atomically(cubin_name(hex), kernel.cubin.data(), kernel.cubin.size());
  if (err == 0) err = dir.write_atomically(meta_name(hex), meta.data(), meta.size());
  if (err == 0) return true;
  remove_entry(dir, hex);
  // A name taken again since (by a directory): this entry only.
  if (err == EISDIR || err == ENOTEMPTY || err == ENOTDIR || err == EEXIST) {
    support::log().warn("kernel cache {}: not storing {}: {}", settings_.dir.string(), hex, std::strerror(err));
    return false;
  }
  *fatal = true;
  disable(std::strerror(err));
  return false;
}

void DiskCache::store_to(const CacheDirectory& dir, const std::string& hex, const StoredKernel& kernel) {
  CacheDirectory::Lock lock = dir.lock(kLockWaitSeconds);
  if (lock.timed_out()) {
    support::log().warn("kernel cache {}: {}; not storing {}", settings_.dir.string(), lock.error(), hex);
    return;
  }
  if (!lock.held()) return disable(lock.error());
  bool fatal = false;
  if (write_entry(dir, hex, kernel, &fatal) && settings_.max_bytes > 0) evict_to(dir, settings_.max_bytes);
}

std::size_t DiskCache::add_entries(const std::vector<StoredKernel>& kernels) {
  std::string why;
  int error = 0;
  auto dir = CacheDirectory::open(settings_.dir, settings_.shared, /*create=*/true, &why, &error);
  if (!dir) throw CacheError("cannot use cache directory " + settings_.dir.string() + ": " + why);
  CacheDirectory::Lock lock = dir->lock(kLockWaitSeconds);
  if (!lock.held()) throw CacheError("cannot lock cache directory " + settings_.dir.string() + ": " + lock.error());
  std::size_t added = 0;
  for (const StoredKernel& k : kernels) {
    if (std::string problem = check_entry(k.metadata.key, k); !problem.empty())
      throw CacheError("entry " + k.metadata.key + " is not valid: " + problem);
    bool fatal = false;
    if (write_entry(*dir, k.metadata.key, k, &fatal)) ++added;
    if (fatal) throw CacheError("cannot write to cache directory " + settings_.dir.string());
  }
  if (settings_.max_bytes > 0) evict_to(*dir, settings_.max_bytes);
  return added;
}

void DiskCache::discard(const fs::path& dir_path, const std::string& key_hex, const std::string& why) {
  std::string problem;
  int error = 0;
  auto dir = CacheDirectory::open(dir_path, shared_cache_from_environment(), /*create=*/false, &problem, &error);
  if (!dir || !is_cache_key(key_hex)) return;
  CacheDirectory::Lock lock = dir->lock(kLockWaitSeconds);
  if (!lock.held() || !dir->exists(meta_name(key_hex))) return;
  std::string failed_name;
  if (int err = remove_entry(*dir, key_hex, &failed_name); err != 0)
    support::log().warn("kernel cache entry {} in {} is not loadable ({}); {}", key_hex, dir_path.string(), why,
                        removal_problem(failed_name, err));
  else
    support::log().warn("kernel cache entry {} in {} is not loadable ({}); deleted it", key_hex, dir_path.string(),
                        why);
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
  return scan(*dir, /*with_metadata=*/true).entries;
}

std::vector<TempFileInfo> DiskCache::temp_files() const {
  bool missing = false;
  auto dir = open_for_tool(&missing);
  if (missing) return {};
  return scan(*dir, /*with_metadata=*/false).temps;
}

std::vector<StoredKernel> DiskCache::read_entries(const std::vector<std::string>& keys, std::size_t* skipped) const {
  *skipped = 0;
  bool missing = false;
  auto dir = open_for_tool(&missing);
  if (missing && !keys.empty())
    throw CacheError("no entry " + keys.front() + ": cache directory " + settings_.dir.string() + " does not exist");
  if (missing) return {};
  std::vector<std::string> wanted = keys;
  if (wanted.empty())
    for (const CacheEntryInfo& info : scan(*dir, /*with_metadata=*/false).entries) wanted.push_back(info.key);
  std::vector<StoredKernel> out;
  for (const std::string& key : wanted) {
    if (!is_cache_key(key)) throw CacheError("`" + key + "` is not a cache key (32 lowercase hex digits)");
    EntryRead entry = read_entry(*dir, key);
    if (entry.state == EntryState::valid) {
      out.push_back(std::move(*entry.kernel));
      continue;
    }
    const std::string why = entry.state == EntryState::missing ? "not in the cache" : entry.why;
    if (!keys.empty()) throw CacheError("entry " + key + ": " + why);
    support::log().warn("kernel cache entry {} is skipped: {}", key, why);
    ++*skipped;
  }
  return out;
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
  for (const auto& info : scan(*dir, /*with_metadata=*/false).entries) {
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

ClearResult DiskCache::clear() {
  bool missing = false;
  auto dir = open_for_tool(&missing);
  if (missing) return {};
  CacheDirectory::Lock lock = dir->lock(kLockWaitSeconds);
  if (!lock.held()) throw CacheError("cannot lock cache directory " + settings_.dir.string() + ": " + lock.error());
  ClearResult removed;
  std::string failures;
  const DirectoryScan scanned = scan(*dir, /*with_metadata=*/false);
  for (const auto& info : scanned.entries) {
    if (int err = remove_entry(*dir, info.key); err != 0) failures += "\n  " + info.key + ": " + std::strerror(err);
    else ++removed.entries;
  }
  // Temp files of any age: cache writers hold the lock while theirs exist.
  for (const TempFileInfo& t : scanned.temps) removed.temp_files += dir->remove(t.name) == 0;
  if (!failures.empty())
    throw CacheError("removed " + std::to_string(removed.entries) + " entries; could not remove:" + failures);
  return removed;
}

}  // namespace croq::jit
