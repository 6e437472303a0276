#include "jit/compile_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "jit/cache_files.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kFirstPoll{1}, kMaxPoll{20};

// Waits for an exclusive flock on `fd` until `deadline`.
bool lock_until(int fd, Clock::time_point deadline) {
  std::chrono::milliseconds poll = kFirstPoll;
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    const auto now = Clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(poll, deadline - now));
    poll = std::min(poll * 2, kMaxPoll);
  }
}

// Whether `fd` is still the file named `name` in `dir_fd` (its holder
// removes it when done).
bool still_linked(int dir_fd, const std::string& name, int fd) {
  struct ::stat open_file{}, named{};
  return ::fstat(fd, &open_file) == 0 && ::fstatat(dir_fd, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

}  // namespace

HostCompileLock::HostCompileLock() = default;

HostCompileLock::HostCompileLock(HostCompileLock&& other) noexcept
    : dir_(std::move(other.dir_)), name_(std::move(other.name_)), fd_(std::exchange(other.fd_, -1)),
      timed_out_(other.timed_out_) {}

HostCompileLock::~HostCompileLock() {
  if (fd_ < 0) return;
  ::unlinkat(dir_->descriptor(), name_.c_str(), 0);  // before the release: waiters see that it is gone
  ::close(fd_);
}

HostCompileLock HostCompileLock::acquire(const std::filesystem::path& dir, bool shared, const std::string& key_hex,
                                         std::chrono::milliseconds wait) {
  HostCompileLock lock;
  std::string why;
  int error = 0;
  lock.dir_ = CacheDirectory::open(dir, shared, /*create=*/true, &why, &error);
  if (!lock.dir_) return lock;  // the disk layer says why when it stores
  lock.name_ = key_hex + ".lock";
  const int dir_fd = lock.dir_->descriptor();
  const auto deadline = Clock::now() + wait;
  for (;;) {
    // Read-only is enough for flock (a lock file of another user of a
    // shared cache serves too); no links followed, nothing but a file.
    const int fd = ::openat(dir_fd, lock.name_.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                            shared ? 0644 : 0600);
    struct ::stat st{};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      support::log().debug("kernel cache: no compile lock {} in {}: {}", lock.name_, dir.string(),
                           fd < 0 ? std::strerror(errno) : "not a regular file");
      if (fd >= 0) ::close(fd);
      return lock;
    }
    if (!lock_until(fd, deadline)) {
      ::close(fd);
      lock.timed_out_ = Clock::now() >= deadline;
      return lock;
    }
    if (still_linked(dir_fd, lock.name_, fd)) {
      lock.fd_ = fd;
      return lock;
    }
    ::close(fd);  // its holder finished and removed it: lock the current file
  }
}

}  // namespace croq::jit
