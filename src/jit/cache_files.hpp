// Files of the kernel cache directory, reached only through a descriptor of
// the directory opened once per operation, so that nothing the cache reads,
// writes or deletes can be redirected:
//  - reads open with O_NOFOLLOW | O_NONBLOCK and accept only regular files
//    of bounded size (a planted symlink, FIFO or device is refused);
//  - writes go to a fresh O_EXCL temp file renamed into place (rename
//    replaces a planted link instead of writing through it);
//  - the directory and every file read must belong to the current user and
//    not be writable by group or others, unless the cache is shared
//    (CROQ_CACHE_SHARED=1: docs/reference/cache.md, "Cache trust model").
// Every call reports errors as values (errno, or a reason); none throws.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace croq::jit {

struct FileRead {
  int error = 0;          // errno of a failed open or read; ENOENT: no such file
  std::string problem;    // the file exists but must not be used (link, not regular, untrusted, too large)
  bool too_large = false; // the problem is its size (`size` bytes, more than asked for)
  bool untrusted = false; // the problem is its owner or mode (trust_problem)
  std::uint64_t size = 0;
  std::string bytes;
  bool ok() const { return error == 0 && problem.empty(); }
};

struct DirectoryFile {
  std::string name;
  int error = 0;          // errno of lstat (EACCES when the directory cannot be entered)
  bool regular = false;   // a regular file (not a link, FIFO, directory, ...)
  std::uint64_t bytes = 0;
  std::int64_t mtime = 0; // unix seconds
};

class CacheDirectory {
 public:
  // Opens `path` (following links in the path itself: the cache directory
  // may be a link to another disk) and checks that it is a directory the
  // trust rules accept. With `create`, makes it first when missing: mode
  // 0700, or 0755 for a shared cache; missing parents get the usual
  // permissions. Returns nullptr with `*why` set and `*error` the errno
  // (ENOENT: missing; 0: the directory exists but is not trusted).
  static std::unique_ptr<CacheDirectory> open(const std::filesystem::path& path, bool shared, bool create,
                                              std::string* why, int* error);
  ~CacheDirectory();
  CacheDirectory(const CacheDirectory&) = delete;
  CacheDirectory& operator=(const CacheDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The directory's descriptor, for *at() calls of other cache files
  // (compile_lock.hpp); valid while this object lives.
  int descriptor() const { return fd_; }
  bool shared() const { return shared_; }

  // Reads the regular file `name` if it is at most `max_bytes`.
  FileRead read(const std::string& name, std::uint64_t max_bytes) const;
  // Writes `name` through a temp file + rename. Returns 0 or an errno.
  int write_atomically(const std::string& name, const void* bytes, std::size_t size) const;
  // Unlinks `name` (a link itself, never its target), or removes it when it
  // is an empty directory. Returns 0 or an errno (ENOENT when already gone,
  // ENOTEMPTY for a directory with contents).
  int remove(const std::string& name) const;
  // Sets the modification time of regular file `name` to now (LRU use).
  void touch(const std::string& name) const;
  // Whether `name` exists (as anything, links included).
  bool exists(const std::string& name) const;
  // Every name in the directory but . and .., with lstat information.
  // Returns an errno when the directory cannot be read.
  int list(std::vector<DirectoryFile>& out) const;

  // An exclusive flock on <dir>/.lock, waited for at most `wait_seconds`
  // (writers hold it for milliseconds: a longer wait is a stuck process).
  class Lock {
   public:
    Lock() = default;
    Lock(Lock&& other) noexcept : fd_(other.fd_), timed_out_(other.timed_out_), error_(std::move(other.error_)) {
      other.fd_ = -1;
    }
    Lock& operator=(Lock&&) = delete;
    ~Lock();
    bool held() const { return fd_ >= 0; }
    bool timed_out() const { return timed_out_; }
    const std::string& error() const { return error_; }

   private:
    friend class CacheDirectory;
    int fd_ = -1;
    bool timed_out_ = false;
    std::string error_;
  };
  Lock lock(double wait_seconds) const;

  // Why `st` (of a file or directory in the cache) is not trusted, or empty.
  static std::string trust_problem(const struct ::stat& st, bool shared);

 private:
  CacheDirectory(int fd, std::filesystem::path path, bool shared) : fd_(fd), path_(std::move(path)), shared_(shared) {}

  int fd_;
  std::filesystem::path path_;
  bool shared_;
};

// Writes `bytes` to `dir`/`name` through an O_EXCL temp file + rename, so a
// link planted at `name` is replaced, not followed. Returns 0 or an errno.
int write_file_atomically(int dir_fd, const std::string& name, const void* bytes, std::size_t size, unsigned mode);

}  // namespace croq::jit
