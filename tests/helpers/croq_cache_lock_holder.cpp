// Takes a compile lock the way a compiling process does, prints "held",
// and then sleeps until it is killed: the fault tests kill or stop it to
// stand for a compiling process that dies or hangs.
//
//   croq_cache_lock_holder --dir DIR --key HEX            the host lock file
//   croq_cache_lock_holder --remote URL --key HEX --ttl-ms N   the Redis lock
//
// Exit status 1 (and a reason on stderr) when the lock is not taken.
#include <unistd.h>

#include <iostream>
#include <string>

#include "croq/error.hpp"
#include "jit/build_id.hpp"
#include "jit/compile_lock.hpp"
#include "jit/remote_cache.hpp"

int main(int argc, char** argv) {
  std::string dir, remote, key;
  long ttl_ms = 10000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--dir") dir = next();
    else if (a == "--remote") remote = next();
    else if (a == "--key") key = next();
    else if (a == "--ttl-ms") ttl_ms = std::stol(next());
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  using namespace croq::jit;
  try {
    if (!dir.empty()) {
      HostCompileLock lock = HostCompileLock::acquire(dir, /*shared=*/false, key, std::chrono::seconds(5));
      if (!lock.held()) {
        std::cerr << "host lock not taken\n";
        return 1;
      }
      std::cout << "held" << std::endl;
      for (;;) ::pause();
    }
    RemoteCacheSettings settings;
    settings.endpoint = RedisEndpoint::parse(remote, "--remote");
    settings.lock_wait = std::chrono::milliseconds(ttl_ms);  // the lock's expiry
    RemoteCache cache(settings);
    std::vector<std::string> notes;
    // A miss takes the lock, as for a host about to compile the kernel.
    RemoteLookup lookup = cache.fetch({key, "sm_90a", "holder", library_build_id()}, notes);
    if (!lookup.lease.held()) {
      std::cerr << "remote lock not taken";
      for (const auto& n : notes) std::cerr << "; " << n;
      std::cerr << "\n";
      return 1;
    }
    std::cout << "held" << std::endl;
    for (;;) ::pause();
  } catch (const croq::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
