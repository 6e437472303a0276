#include "jit/disk_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "croq/error.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace fs = std::filesystem;

namespace croq::jit {
namespace {

// Holds an exclusive flock on <dir>/.lock for the writer-side operations.
class DirectoryLock {
 public:
  explicit DirectoryLock(const fs::path& dir) {
    fd_ = ::open((dir / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) { error_ = errno; return; }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) { error_ = errno; ::close(fd_); fd_ = -1; return; }
    }
  }
  ~DirectoryLock() { if (fd_ >= 0) ::close(fd_); }  // closing releases the flock
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  bool held() const { return fd_ >= 0; }
  int error() const { return error_; }

 private:
  int fd_ = -1;
  int error_ = 0;
};

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = std::move(ss).str();
  return !in.bad();
}

// Writes `bytes` to a unique temp file in `dir` and renames it to `dest`.
// Returns 0 or the errno of the failing step.
int write_atomically(const fs::path& dir, const fs::path& dest, const void* bytes, std::size_t size) {
  static std::atomic<unsigned> counter{0};
  std::ostringstream name;
  name << ".tmp-" << ::getpid() << '-' << std::hash<std::thread::id>{}(std::this_thread::get_id())
       << '-' << counter.fetch_add(1) << '-' << dest.filename().string();
  fs::path tmp = dir / name.str();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  const char* p = static_cast<const char*>(bytes);
  std::size_t left = size;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { int e = n < 0 ? errno : EIO; ::close(fd); ::unlink(tmp.c_str()); return e; }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) { int e = errno; ::unlink(tmp.c_str()); return e; }
  if (::rename(tmp.c_str(), dest.c_str()) != 0) { int e = errno; ::unlink(tmp.c_str()); return e; }
  return 0;
}

std::int64_t mtime_seconds(const fs::path& p) {
  struct stat st{};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return static_cast<std::int64_t>(st.st_mtime);
}

bool is_key(const std::string& s) {
  return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

DiskCacheSettings DiskCacheSettings::from_environment() {
  DiskCacheSettings s;
  if (auto v = support::env_string("CROQ_CACHE")) s.enabled = !(*v == "0" || *v == "off" || *v == "false");
  if (auto dir = support::env_string("CROQ_CACHE_DIR")) s.dir = *dir;
  else if (auto xdg = support::env_string("XDG_CACHE_HOME")) s.dir = fs::path(*xdg) / "croq";
  else if (auto home = support::env_string("HOME")) s.dir = fs::path(*home) / ".cache" / "croq";
  else s.enabled = false;  // nowhere sensible to write
  s.max_bytes = support::env_bytes("CROQ_CACHE_MAX_BYTES").value_or(0);
  return s;
}

DiskCache::DiskCache(DiskCacheSettings settings)
    : settings_(std::move(settings)), enabled_(settings_.enabled) {}

fs::path DiskCache::cubin_path(const std::string& key) const { return settings_.dir / (key + ".cubin"); }
fs::path DiskCache::meta_path(const std::string& key) const { return settings_.dir / (key + ".json"); }

void DiskCache::disable(const std::string& why) {
  if (enabled_.exchange(false))
    support::log().warn("kernel cache directory {} is not usable ({}); caching in memory only",
                        settings_.dir.string(), why);
}

std::string DiskCache::check_entry(const std::string& key_hex, const StoredKernel& stored) {
  const nlohmann::json& m = stored.metadata;
  if (!m.is_object()) return "metadata is not a JSON object";
  if (m.value("format_version", -1) != kCacheFormatVersion) return "unknown format version";
  if (m.value("key", std::string()) != key_hex) return "metadata names another key";
  auto size = m.value("cubin_bytes", std::uint64_t{0});
  if (size != stored.cubin.size())
    return "cubin is " + std::to_string(stored.cubin.size()) + " bytes, metadata says " + std::to_string(size);
  std::string sum = support::hex64(support::checksum64(stored.cubin.data(), stored.cubin.size()));
  if (m.value("cubin_xxh3_64", std::string()) != sum) return "cubin checksum mismatch";
  // The image is a cubin unless the metadata says PTX (compute_XY targets);
  // the driver reads PTX up to its NUL, which must be the last byte.
  const std::string image = m.value("image", std::string("cubin"));
  if (image != "cubin" && image != "ptx") return "unknown image kind `" + image + "`";
  // A PTX image belongs to a virtual arch (compute_XY) and a cubin to a
  // real one: the launcher loads it by the image kind.
  const std::string arch = m.value("arch", std::string());
  if ((image == "ptx") != is_virtual_arch(arch))
    return "image kind `" + image + "` does not match architecture `" + arch + "`";
  if (image == "ptx" && (stored.cubin.empty() || stored.cubin.back() != '\0' ||
                         std::find(stored.cubin.begin(), stored.cubin.end(), '\0') != stored.cubin.end() - 1))
    return "PTX image is not one NUL-terminated text";
  return {};
}

std::optional<StoredKernel> DiskCache::read_entry(const std::string& key, std::string* why) const {
  std::string meta_text, cubin_text;
  // Metadata first: it is renamed into place after the cubin, so a visible
  // .json means the cubin is complete.
  if (!read_file(meta_path(key), meta_text)) { *why = "missing"; return std::nullopt; }
  StoredKernel out;
  out.metadata = nlohmann::json::parse(meta_text, nullptr, /*allow_exceptions=*/false);
  if (out.metadata.is_discarded()) { *why = "metadata is not valid JSON"; return std::nullopt; }
  if (!read_file(cubin_path(key), cubin_text)) { *why = "cubin file missing"; return std::nullopt; }
  out.cubin.assign(cubin_text.begin(), cubin_text.end());
  *why = check_entry(key, out);
  if (!why->empty()) return std::nullopt;
  return out;
}

void DiskCache::discard(const std::filesystem::path& dir, const std::string& key_hex, const std::string& why) {
  DirectoryLock lock(dir);
  if (!lock.held()) return;
  std::error_code ec;
  if (!fs::exists(dir / (key_hex + ".json"), ec)) return;
  support::log().warn("kernel cache entry {} in {} is not loadable ({}); deleting it", key_hex, dir.string(), why);
  fs::remove(dir / (key_hex + ".json"), ec);
  fs::remove(dir / (key_hex + ".cubin"), ec);
}

void DiskCache::remove_entry(const std::string& key) const {
  std::error_code ec;
  fs::remove(meta_path(key), ec);
  fs::remove(cubin_path(key), ec);
}

std::optional<StoredKernel> DiskCache::load(const support::Hash128& key) {
  if (!enabled_) return std::nullopt;
  std::string hex = key.hex(), why;
  auto entry = read_entry(hex, &why);
  if (entry) {
    ::utimensat(AT_FDCWD, meta_path(hex).c_str(), nullptr, 0);  // last use, for LRU eviction
    return entry;
  }
  if (why == "missing") return std::nullopt;
  // Corrupt: re-check under the lock (a writer may have just finished) and delete.
  DirectoryLock lock(settings_.dir);
  if (!lock.held()) return std::nullopt;
  entry = read_entry(hex, &why);
  if (entry) return entry;
  if (why != "missing") {
    support::log().warn("kernel cache entry {} in {} is corrupt ({}); deleting it and rebuilding", hex,
                        settings_.dir.string(), why);
    remove_entry(hex);
  }
  return std::nullopt;
}

void DiskCache::store(const support::Hash128& key, const StoredKernel& kernel) {
  if (!enabled_) return;
  std::error_code ec;
  fs::create_directories(settings_.dir, ec);
  if (ec) { disable(ec.message()); return; }
  DirectoryLock lock(settings_.dir);
  if (!lock.held()) { disable(std::strerror(lock.error())); return; }
  std::string hex = key.hex(), why;
  if (read_entry(hex, &why)) return;  // another process stored it first
  std::string meta = kernel.metadata.dump(2);
  int err = write_atomically(settings_.dir, cubin_path(hex), kernel.cubin.data(), kernel.cubin.size());
  if (err == 0) err = write_atomically(settings_.dir, meta_path(hex), meta.data(), meta.size());
  if (err != 0) {
    remove_entry(hex);
    disable(std::strerror(err));
    return;
  }
  if (settings_.max_bytes > 0) evict_to(settings_.max_bytes);
}

std::vector<CacheEntryInfo> DiskCache::list() const {
  std::vector<CacheEntryInfo> out;
  std::error_code ec;
  if (!fs::exists(settings_.dir, ec)) return out;
  fs::directory_iterator it(settings_.dir, ec);
  if (ec) throw CacheError("cannot read cache directory " + settings_.dir.string() + ": " + ec.message());
  for (const auto& file : it) {
    std::string name = file.path().filename().string();
    if (file.path().extension() != ".json" || !is_key(file.path().stem().string())) continue;
    CacheEntryInfo info;
    info.key = file.path().stem().string();
    std::string text;
    if (read_file(file.path(), text))
      info.metadata = nlohmann::json::parse(text, nullptr, false);
    if (info.metadata.is_discarded()) info.metadata = nullptr;
    info.bytes = file.file_size(ec) + fs::file_size(cubin_path(info.key), ec);
    info.last_used = mtime_seconds(file.path());
    out.push_back(std::move(info));
  }
  // Cubins without metadata (a crash between the two renames) are entries too.
  for (const auto& file : fs::directory_iterator(settings_.dir, ec)) {
    std::string stem = file.path().stem().string();
    if (file.path().extension() == ".cubin" && is_key(stem) && !fs::exists(meta_path(stem))) {
      CacheEntryInfo info;
      info.key = stem;
      info.metadata = nullptr;
      info.bytes = file.file_size(ec);
      info.last_used = mtime_seconds(file.path());
      out.push_back(std::move(info));
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

VerifyResult DiskCache::verify(bool remove_bad) {
  VerifyResult result;
  DirectoryLock lock(settings_.dir);
  for (const auto& info : list()) {
    std::string why;
    if (read_entry(info.key, &why)) { ++result.valid; continue; }
    result.bad.push_back(info.key + ": " + why);
    if (remove_bad) remove_entry(info.key);
  }
  return result;
}

std::uint64_t DiskCache::evict_to(std::uint64_t max_bytes) {
  std::vector<CacheEntryInfo> entries = list();
  std::uint64_t total = 0;
  for (const auto& e : entries) total += e.bytes;
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.last_used < b.last_used; });
  std::uint64_t removed = 0;
  for (const auto& e : entries) {
    if (total <= max_bytes) break;
    remove_entry(e.key);
    total -= e.bytes;
    removed += e.bytes;
    support::log().info("kernel cache: evicted {} ({} bytes) to stay under {} bytes", e.key, e.bytes, max_bytes);
  }
  return removed;
}

std::uint64_t DiskCache::prune(std::uint64_t max_bytes) {
  DirectoryLock lock(settings_.dir);
  if (!lock.held()) throw CacheError("cannot lock cache directory " + settings_.dir.string() + ": " +
                                     std::strerror(lock.error()));
  return evict_to(max_bytes);
}

std::size_t DiskCache::clear() {
  std::error_code ec;
  if (!fs::exists(settings_.dir, ec)) return 0;
  DirectoryLock lock(settings_.dir);
  if (!lock.held()) throw CacheError("cannot lock cache directory " + settings_.dir.string() + ": " +
                                     std::strerror(lock.error()));
  std::size_t n = 0;
  for (const auto& info : list()) { remove_entry(info.key); ++n; }
  // Leftover temp files of crashed writers.
  for (const auto& file : fs::directory_iterator(settings_.dir, ec))
    if (file.path().filename().string().rfind(".tmp-", 0) == 0) fs::remove(file.path(), ec);
  return n;
}

}  // namespace croq::jit
