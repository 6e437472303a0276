// Single flight on one host: processes that need the same kernel at the
// same moment compile it once. The first takes an flock on <key>.lock in the
// disk cache directory and compiles; the others wait for the lock and then
// find the entry on disk.
//
// The lock file is removed by its holder (while still holding it), so the
// directory keeps no lock files of finished compiles; a waiter that gets a
// lock on a file already removed opens the new one and tries again. A
// holder that dies releases the flock with its descriptor (its file stays
// until the next compile of that key removes it). A holder that hangs keeps
// waiters only until `wait` has passed: they then compile themselves.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace croq::jit {

class CacheDirectory;

class HostCompileLock {
 public:
  HostCompileLock();  // not held
  HostCompileLock(HostCompileLock&& other) noexcept;
  HostCompileLock& operator=(HostCompileLock&&) = delete;
  ~HostCompileLock();  // removes the lock file and releases the lock

  // Takes the lock of `key_hex` in the cache directory `dir` (created if
  // missing, and used only if the trust rules of cache_files.hpp accept
  // it), waiting at most `wait` for another process that holds it. The
  // result is not held when the directory cannot be used or the wait ran
  // out (`timed_out`); the caller then compiles without it.
  static HostCompileLock acquire(const std::filesystem::path& dir, bool shared, const std::string& key_hex,
                                 std::chrono::milliseconds wait);

  bool held() const { return fd_ >= 0; }
  bool timed_out() const { return timed_out_; }

 private:
  std::unique_ptr<CacheDirectory> dir_;
  std::string name_;
  int fd_ = -1;
  bool timed_out_ = false;
};

}  // namespace croq::jit
