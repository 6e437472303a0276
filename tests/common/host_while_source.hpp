// A host `while` loop around a kernel (a host program: frontend/host_code.hpp),
// shared by the interpret-mode and GPU tests, with what it prints and computes.
#pragma once

#include <cstdint>
#include <vector>

namespace croq::test {

// Each round launches the kernel with the host scalar `n` (a parameter per
// launch), then halves `n` on the host, until it reaches 1.
inline const char* kHostWhileSource = R"(
__co__ void halving(f32 [N] a, int start) {
  mutable int n = start;
  mutable int rounds = 0;
  while (n > 1) {
    parallel p by N : block
      a.at(p) = a.at(p) * 0.5f + n;
    n = n / 2;
    rounds += 1;
  }
  println("rounds ", rounds, " n ", n);
}
)";

// What kHostWhileSource prints for `start`.
inline std::string host_while_output(std::int64_t start) {
  std::int64_t n = start, rounds = 0;
  while (n > 1) {
    n /= 2;
    ++rounds;
  }
  return "rounds " + std::to_string(rounds) + " n " + std::to_string(n) + "\n";
}

// `a` after kHostWhileSource with `start`.
inline std::vector<float> host_while_reference(std::vector<float> a, std::int64_t start) {
  for (std::int64_t n = start; n > 1; n /= 2)
    for (float& x : a) x = x * 0.5f + static_cast<float>(n);
  return a;
}

}  // namespace croq::test
