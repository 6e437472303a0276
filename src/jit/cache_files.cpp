#include "jit/cache_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace croq::jit {
namespace {

std::string octal_mode(mode_t mode) {
  std::ostringstream s;
  s << '0' << std::oct << (mode & 07777);
  return s.str();
}

}  // namespace

int write_file_atomically(int dir_fd, const std::string& name, const void* bytes, std::size_t size, unsigned mode) {
  static std::atomic<unsigned> counter{0};
  std::ostringstream tmp_name;
  tmp_name << ".tmp-" << ::getpid() << '-' << std::hash<std::thread::id>{}(std::this_thread::get_id()) << '-'
           << counter.fetch_add(1) << '-' << name;
  const std::string tmp = tmp_name.str();
  // O_EXCL: a fresh file, never an existing one or the target of a link.
  int fd = ::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return errno;
  const char* p = static_cast<const char*>(bytes);
  std::size_t left = size;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlinkat(dir_fd, tmp.c_str(), 0);
      return e;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || ::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    int e = errno;
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return e;
  }
  return 0;
}

std::string CacheDirectory::trust_problem(const struct ::stat& st, bool shared) {
  if (shared) return {};
  if (st.st_uid != ::geteuid())
    return "owned by uid " + std::to_string(st.st_uid) + ", not by the current user (uid " +
           std::to_string(::geteuid()) + ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "writable by group or others (mode " + octal_mode(st.st_mode) + ")";
  return {};
}

std::unique_ptr<CacheDirectory> CacheDirectory::open(const fs::path& path, bool shared, bool create,
                                                     std::string* why, int* error) {
  *error = 0;
  why->clear();
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);  // mkdir reports failures
    // Private unless shared: other users must not be able to plant entries.
    if (::mkdir(path.c_str(), shared ? 0755 : 0700) != 0 && errno != EEXIST) {
      *error = errno;
      *why = std::strerror(errno);
      return nullptr;
    }
    fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) {
    *error = errno;
    *why = std::strerror(errno);
    return nullptr;
  }
  struct ::stat st{};
  if (::fstat(fd, &st) != 0) {
    *error = errno;
    *why = std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  if (std::string problem = trust_problem(st, shared); !problem.empty()) {
    *why = "not trusted: " + problem + "; see \"Cache trust model\" in docs/reference/cache.md (CROQ_CACHE_SHARED=1 "
           "shares a cache between users)";
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<CacheDirectory>(new CacheDirectory(fd, path, shared));
}

CacheDirectory::~CacheDirectory() { ::close(fd_); }

FileRead CacheDirectory::read(const std::string& name, std::uint64_t max_bytes) const {
  FileRead r;
  struct ::stat before{};
  if (::fstatat(fd_, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
    r.error = errno;
    return r;
  }
  if (S_ISLNK(before.st_mode)) {
    r.problem = name + " is a symbolic link";
    return r;
  }
  if (!S_ISREG(before.st_mode)) {
    r.problem = name + " is not a regular file";
    return r;
  }
  // O_NOFOLLOW and O_NONBLOCK: a link or FIFO swapped in since the lstat
  // fails or returns at once instead of redirecting or blocking the read.
  int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) r.problem = name + " is a symbolic link";
    else r.error = errno;
    return r;
  }
  struct ::stat st{};
  if (::fstat(fd, &st) != 0) {
    r.error = errno;
  } else if (!S_ISREG(st.st_mode)) {
    r.problem = name + " is not a regular file";
  } else if (std::string problem = trust_problem(st, shared_); !problem.empty()) {
    r.problem = name + " is not trusted: " + problem;
    r.untrusted = true;
  } else if (r.size = static_cast<std::uint64_t>(st.st_size); r.size > max_bytes) {
    r.too_large = true;
    r.problem = name + " is " + std::to_string(r.size) + " bytes, more than the " + std::to_string(max_bytes) +
                " expected";
  } else {
    r.bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < r.bytes.size()) {
      ssize_t n = ::read(fd, r.bytes.data() + got, r.bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        r.error = errno;
        break;
      }
      if (n == 0) break;  // shrank while reading: the checks that follow see the short text
      got += static_cast<std::size_t>(n);
    }
    r.bytes.resize(got);
  }
  ::close(fd);
  return r;
}

int CacheDirectory::write_atomically(const std::string& name, const void* bytes, std::size_t size) const {
  return write_file_atomically(fd_, name, bytes, size, shared_ ? 0644 : 0600);
}

int CacheDirectory::remove(const std::string& name) const {
  if (::unlinkat(fd_, name.c_str(), 0) == 0) return 0;
  if (errno != EISDIR) return errno;
  // A directory planted at an entry's name: removed only when empty (its
  // contents are not the cache's to delete).
  return ::unlinkat(fd_, name.c_str(), AT_REMOVEDIR) == 0 ? 0 : errno == EEXIST ? ENOTEMPTY : errno;
}

void CacheDirectory::touch(const std::string& name) const {
  ::utimensat(fd_, name.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

bool CacheDirectory::exists(const std::string& name) const {
  struct ::stat st{};
  return ::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int CacheDirectory::list(std::vector<DirectoryFile>& out) const {
  int dup_fd = ::dup(fd_);
  if (dup_fd < 0) return errno;
  DIR* dir = ::fdopendir(dup_fd);
  if (dir == nullptr) {
    int e = errno;
    ::close(dup_fd);
    return e;
  }
  ::rewinddir(dir);  // the duplicate shares the offset of fd_
  int error = 0;
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(dir);
    if (e == nullptr) {
      error = errno;
      break;
    }
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    DirectoryFile f;
    f.name = name;
    struct ::stat st{};
    if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      f.error = errno;
    } else {
      f.regular = S_ISREG(st.st_mode);
      f.bytes = f.regular ? static_cast<std::uint64_t>(st.st_size) : 0;
      f.mtime = static_cast<std::int64_t>(st.st_mtime);
    }
    out.push_back(std::move(f));
  }
  ::closedir(dir);
  return error;
}

CacheDirectory::Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

CacheDirectory::Lock CacheDirectory::lock(double wait_seconds) const {
  Lock lock;
  // flock needs no write access, so a lock file of another user of a shared
  // cache serves as well as ours.
  int fd = ::openat(fd_, ".lock", O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, shared_ ? 0644 : 0600);
  if (fd < 0) {
    lock.error_ = errno == ELOOP ? ".lock is a symbolic link" : std::strerror(errno);
    return lock;
  }
  struct ::stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    lock.error_ = ".lock is not a regular file";
    ::close(fd);
    return lock;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_seconds);
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      lock.fd_ = fd;
      return lock;
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {
      lock.error_ = std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      lock.timed_out_ = true;
      lock.error_ = "another process has held .lock for more than " + std::to_string(static_cast<int>(wait_seconds)) +
                    " seconds";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::close(fd);
  return lock;
}

}  // namespace croq::jit
