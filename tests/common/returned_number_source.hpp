// Functions that return a number to the application (`return total + 1;`:
// frontend::ast::returned_scalar), computed by their host program, shared
// by the interpret-mode and GPU tests, with host references.
#pragma once

#include <cstdint>
#include <vector>

#include "croq/dtype.hpp"

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

// Conversions in host code (`__to<T>(x)`) and scalars declared with element
// types: what is stored converts to the declared type (bf16 rounded, u8 and
// s16 wrapped), and a kernel sees the converted values.
inline const char* kReturnedConversionsSource = R"(
__co__ auto converted(f32 [N] a, int i, float f) {
  bf16 z = __to<bf16>(f);
  u8 b = __to<u8>(i);
  s16 s = __to<s16>(i);
  mutable u8 c = b;
  c += 200;
  parallel p by N : block
    a.at(p) = a.at(p) + __to<f32>(z) + c;
  return __to<f32>(z) + b + s + c + __to<s32>(f);
}
__co__ auto widened(int i) {
  u64 wide = __to<u64>(i);
  return __to<f32>(wide);
}
)";

// The scalars of `converted` for i and f, as Croqtile's C++ computes them.
struct ConvertedScalars {
  float z;
  std::uint8_t b, c;
  std::int16_t s;
  std::int32_t t;
};
inline ConvertedScalars converted_scalars(std::int32_t i, float f) {
  ConvertedScalars v{};
  v.z = static_cast<float>(croq::bf16(f));
  v.b = static_cast<std::uint8_t>(i);
  v.s = static_cast<std::int16_t>(i);
  v.c = static_cast<std::uint8_t>(v.b + 200);
  v.t = static_cast<std::int32_t>(f);
  return v;
}
// What `converted` returns (f32: every term is exact in a float for |f| < 2^15).
inline float converted_reference(std::int32_t i, float f) {
  const ConvertedScalars v = converted_scalars(i, f);
  return v.z + static_cast<float>(v.b) + static_cast<float>(v.s) + static_cast<float>(v.c) + static_cast<float>(v.t);
}
// `a` after `converted`.
inline std::vector<float> converted_tensor(std::vector<float> a, std::int32_t i, float f) {
  const ConvertedScalars v = converted_scalars(i, f);
  for (float& x : a) x = x + v.z + static_cast<float>(v.c);
  return a;
}

}  // namespace croq::test
