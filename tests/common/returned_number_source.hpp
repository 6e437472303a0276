// Functions that return a number to the application (`return total + 1;`:
// frontend::ast::returned_scalar), computed by their host program, shared
// by the interpret-mode and GPU tests, with host references.
#pragma once

#include <cstdint>
#include <vector>

namespace croq::test {

// A host loop launching a kernel per round; the host counts what the
// rounds added and returns it (s32) beside the tensor the kernels wrote.
inline const char* kReturnedCountSource = R"(
__co__ auto added(f32 [N] a, int rounds) {
  mutable int total = 0;
  foreach i in [rounds] {
    parallel p by N : block
      a.at(p) = a.at(p) * 0.5f + i;
    total += i * N;
  }
  return total + a.span(0) * 2;
}
)";

// What kReturnedCountSource returns for N elements and `rounds`.
inline std::int32_t returned_count(std::int64_t n, std::int64_t rounds) {
  return static_cast<std::int32_t>(n * rounds * (rounds - 1) / 2 + 2 * n);
}

// `a` after kReturnedCountSource with `rounds`.
inline std::vector<float> returned_count_tensor(std::vector<float> a, std::int64_t rounds) {
  for (std::int64_t i = 0; i < rounds; ++i)
    for (float& x : a) x = x * 0.5f + static_cast<float>(i);
  return a;
}

// Numbers without kernels: an early `return` in a host branch (s32), a
// float expression (f32), an unsuffixed literal (f64), element counts of
// a tensor argument (s32).
inline const char* kReturnedNumbersSource = R"(
__co__ auto clamped(int n) {
  if (n > 10) {
    return 10;
  }
  mutable int root = 0;
  foreach i in [n] {
    root = i;
    if (root * root > n) { return root; }
  }
  return n;
}
__co__ auto halved(float s, int k) {
  return s * 0.5f + k;
}
__co__ auto precise(int k) {
  return k + 0.25;
}
__co__ auto elements(f32 [N, M] a) {
  return |a| + |a.span| * 2;
}
)";

// What `clamped` returns for n.
inline std::int32_t clamped_reference(std::int32_t n) {
  if (n > 10) return 10;
  for (std::int32_t i = 0; i < n; ++i)
    if (i * i > n) return i;
  return n;
}

}  // namespace croq::test
