// Making root subject to file permission bits, for tests of unreadable and
// unwritable cache directories: root keeps its uid (so files it made stay
// its own and the test tree stays reachable, wherever it is cloned) but
// loses the capabilities that bypass permission checks.
#pragma once

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace croq::test {

inline constexpr int kPermissionBypassCapabilities[] = {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER};

// Drops the bypass capabilities from this process (effective, permitted
// and inheritable sets). Always allowed; a no-op for other users.
inline bool drop_permission_bypass() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  for (int cap : kPermissionBypassCapabilities) {
    const unsigned bit = 1u << (cap % 32);
    data[cap / 32].effective &= ~bit;
    data[cap / 32].permitted &= ~bit;
    data[cap / 32].inheritable &= ~bit;
  }
  return ::syscall(SYS_capset, &header, data) == 0;
}

// Also removes them from the bounding set, so that programs this process
// executes do not get them back (root regains its capabilities on exec).
// Needs CAP_SETPCAP when running as root; false when that is missing.
inline bool drop_permission_bypass_for_exec() {
  if (::geteuid() == 0)
    for (int cap : kPermissionBypassCapabilities)
      if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return false;
  return drop_permission_bypass();
}

}  // namespace croq::test
