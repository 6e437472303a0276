#include "jit/cache_bundle.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "croq/error.hpp"
#include "jit/cache_files.hpp"

namespace croq::jit {
namespace {

constexpr char kMagic[8] = {'C', 'R', 'O', 'Q', 'B', 'N', 'D', 'L'};
constexpr std::size_t kChecksumBytes = 16;
constexpr std::size_t kHeaderBytes = sizeof kMagic + 4 + 4;

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i) & 0xff));
}

void put_be64(std::string& out, std::uint64_t value) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>(value >> (8 * i) & 0xff));
}

std::string checksum(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  std::string out;
  put_be64(out, h.high64);
  put_be64(out, h.low64);
  return out;
}

// Reads the bundle's fields in order, bounds-checked.
class Reader {
 public:
  Reader(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}

  std::uint64_t integer(int width, const std::string& what) {
    need(static_cast<std::uint64_t>(width), what);
    std::uint64_t v = 0;
    for (int i = 0; i < width; ++i) v |= std::uint64_t{static_cast<unsigned char>(bytes_[at_ + i])} << (8 * i);
    at_ += static_cast<std::size_t>(width);
    return v;
  }
  std::string_view take(std::uint64_t n, const std::string& what) {
    need(n, what);
    std::string_view out = bytes_.substr(at_, n);
    at_ += static_cast<std::size_t>(n);
    return out;
  }
  std::size_t left() const { return bytes_.size() - at_; }
  [[noreturn]] void fail(const std::string& problem) const { throw CacheError("bundle " + name_ + ": " + problem); }

 private:
  void need(std::uint64_t n, const std::string& what) const {
    if (n > left()) fail("truncated: " + what + " ends past the entries");
  }
  std::string_view bytes_;
  std::string name_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_bundle(const std::vector<StoredKernel>& entries) {
  std::string out(kMagic, sizeof kMagic);
  put_le(out, kBundleFormatVersion, 4);
  put_le(out, entries.size(), 4);
  for (const StoredKernel& e : entries) {
    const std::string meta = e.metadata.to_text();
    put_le(out, meta.size(), 4);
    out += meta;
    put_le(out, e.cubin.size(), 8);
    out.append(e.cubin.data(), e.cubin.size());
  }
  out += checksum(out);
  return out;
}

std::vector<StoredKernel> decode_bundle(std::string_view bytes, const std::string& name) {
  Reader whole(bytes, name);
  if (bytes.size() < kHeaderBytes + kChecksumBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    whole.fail("not a libcroqjit bundle (no CROQBNDL header)");
  Reader header(bytes.substr(sizeof kMagic), name);
  if (auto version = header.integer(4, "the version"); version != kBundleFormatVersion)
    whole.fail("bundle format version " + std::to_string(version) + " is not supported (this library reads " +
               std::to_string(kBundleFormatVersion) + ")");
  const std::string_view body = bytes.substr(0, bytes.size() - kChecksumBytes);
  if (checksum(body) != bytes.substr(body.size()))
    whole.fail("checksum mismatch: the file is corrupt or truncated (" + std::to_string(bytes.size()) + " bytes)");

  Reader r(body.substr(kHeaderBytes - 4), name);
  const std::uint64_t count = r.integer(4, "the entry count");
  if (count > kMaxBundleEntries) r.fail(std::to_string(count) + " entries, more than the " +
                                        std::to_string(kMaxBundleEntries) + " a bundle may hold");
  std::vector<StoredKernel> out;
  std::set<std::string> keys;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::string which = "entry " + std::to_string(i + 1);
    const std::uint64_t meta_bytes = r.integer(4, which + "'s metadata length");
    if (meta_bytes > kMaxMetadataBytes) r.fail(which + ": metadata of " + std::to_string(meta_bytes) + " bytes");
    ParsedMetadata parsed = parse_cache_metadata(r.take(meta_bytes, which + "'s metadata"));
    if (!parsed.metadata) r.fail(which + ": " + parsed.problem);
    const std::uint64_t image_bytes = r.integer(8, which + "'s image length");
    if (image_bytes != parsed.metadata->cubin_bytes)
      r.fail(which + " (" + parsed.metadata->key + "): image of " + std::to_string(image_bytes) +
             " bytes, metadata says " + std::to_string(parsed.metadata->cubin_bytes));
    const std::string_view image = r.take(image_bytes, which + "'s image");
    StoredKernel kernel;
    kernel.cubin.assign(image.begin(), image.end());
    kernel.metadata = std::move(*parsed.metadata);
    const std::string& key = kernel.metadata.key;
    if (std::string problem = DiskCache::check_entry(key, kernel); !problem.empty())
      r.fail(which + " (" + key + "): " + problem);
    if (!keys.insert(key).second) r.fail(which + " repeats key " + key);
    out.push_back(std::move(kernel));
  }
  if (r.left() != 0) r.fail(std::to_string(r.left()) + " unexpected bytes after the last entry");
  return out;
}

void write_bundle(const std::filesystem::path& path, const std::vector<StoredKernel>& entries) {
  const std::string bytes = encode_bundle(entries);
  const std::filesystem::path parent = path.has_parent_path() ? path.parent_path() : ".";
  int dir_fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) throw CacheError("cannot write bundle " + path.string() + ": " + std::strerror(errno));
  const int err = write_file_atomically(dir_fd, path.filename().string(), bytes.data(), bytes.size(), 0644);
  ::close(dir_fd);
  if (err != 0) throw CacheError("cannot write bundle " + path.string() + ": " + std::strerror(err));
}

std::vector<StoredKernel> read_bundle(const std::filesystem::path& path) {
  const std::string name = path.string();
  // O_NONBLOCK: a FIFO at the path fails the regular-file check instead of blocking.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw CacheError("cannot read bundle " + name + ": " + std::strerror(errno));
  struct ::stat st{};
  std::string problem;
  std::string bytes;
  if (::fstat(fd, &st) != 0) problem = std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) problem = "not a regular file";
  else if (static_cast<std::uint64_t>(st.st_size) > kMaxBundleBytes)
    problem = std::to_string(st.st_size) + " bytes, more than the " + std::to_string(kMaxBundleBytes) + " allowed";
  if (problem.empty()) {
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) problem = std::strerror(errno);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);  // a file that shrank fails the checksum
  }
  ::close(fd);
  if (!problem.empty()) throw CacheError("cannot read bundle " + name + ": " + problem);
  return decode_bundle(bytes, name);
}

}  // namespace croq::jit
