// Runs a program with file permission bits enforced even for root:
//
//   croq_without_bypass PROGRAM [ARGS...]
//
// Exits 77 when the capabilities cannot be dropped (a container without
// CAP_SETPCAP), 127 when PROGRAM cannot be executed.
#include <unistd.h>

#include <cstdio>

#include "privileges.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: croq_without_bypass PROGRAM [ARGS...]\n");
    return 2;
  }
  if (!croq::test::drop_permission_bypass_for_exec()) {
    std::perror("croq_without_bypass: dropping CAP_DAC_OVERRIDE");
    return 77;
  }
  ::execv(argv[1], argv + 1);
  std::perror("croq_without_bypass: exec");
  return 127;
}
