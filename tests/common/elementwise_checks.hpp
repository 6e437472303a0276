// The element-wise kernels' checks (tests/gpu/elementwise_gpu_test.cpp on
// the device, tests/interp/elementwise_samples_interp_test.cpp in interpret
// mode): the README's add, a fused multiply-add of three tensors, a cast
// from f32 and the benchmark transposes, random inputs, the output poisoned
// with NaN before the call, host references rounded as the kernel rounds
// (bitwise equal; the fused multiply-add either of its two orders). Each
// compiles its kernel with `options`.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "croq/croq.hpp"

namespace croq::test {

struct Shape2 {
  std::size_t m, n;
};

// Options for the checks in interpret mode, as for an H100.
inline CompileOptions interpreting() {
  CompileOptions options;
  options.interpret = true;
  options.arch = "sm_90a";
  return options;
}

// f32 rounded to T and back, as the device rounds (to nearest even).
template <typename T>
inline float round_to(float v) {
  return float(T(v));
}

template <typename T>
void check_add(const char* element, Shape2 s, const CompileOptions& options = {}) {
  Kernel k = croq::compile(std::string("__co__ void add(") + element + " [M, N] lhs, " + element + " [M, N] rhs, " + element +
                     " [M, N] out) {\n  parallel {i, j} by [M, N]\n    out.at(i, j) = lhs.at(i, j) + rhs.at(i, j);\n}\n",
                          options);
  auto a = make_spandata<T>(s.m, s.n);
  auto b = make_spandata<T>(s.m, s.n);
  auto out = make_spandata<T>(s.m, s.n);
  a.fill_random(-8, 8);
  b.fill_random(-8, 8);
  out.fill(NAN);
  k(a.view(), b.view(), out.view());
  for (std::size_t i = 0; i < s.m * s.n; ++i) {
    const float want = round_to<T>(float(a.data()[i]) + float(b.data()[i]));
    ASSERT_EQ(float(out.data()[i]), want) << element << " add [" << s.m << ", " << s.n << "] element " << i;
  }
}

// Fills a narrow (f16/bf16) tensor with k / 2^s for random integers |k| <
// 2^(significand bits): every value exact in T, using all of its significand.
// The grid makes the host reference exact (see check_fma).
template <typename T>
inline void fill_on_grid(T* data, std::size_t n, int significand_bits, int scale_bits, std::mt19937& rng) {
  const int k_max = (1 << significand_bits) - 1;
  std::uniform_int_distribution<int> k(-k_max, k_max);
  for (std::size_t i = 0; i < n; ++i) data[i] = T(std::ldexp(float(k(rng)), -scale_bits));
}

template <typename T>
void check_fma(const char* element, Shape2 s, const CompileOptions& options = {}) {
  Kernel k = croq::compile(std::string("__co__ void fma(") + element + " [M, N] a, " + element + " [M, N] b, " + element +
                     " [M, N] c, " + element + " [M, N] out) {\n  parallel {i, j} by [M, N]\n"
                     "    out.at(i, j) = a.at(i, j) * b.at(i, j) + c.at(i, j);\n}\n",
                          options);
  auto a = make_spandata<T>(s.m, s.n);
  auto b = make_spandata<T>(s.m, s.n);
  auto c = make_spandata<T>(s.m, s.n);
  auto out = make_spandata<T>(s.m, s.n);
  constexpr bool narrow = !std::is_same_v<T, float>;
  if constexpr (narrow) {
    // f16: 11 significand bits, values k / 2^8 (|v| < 8); bf16: 8 bits, k / 2^5.
    // a * b is then an integer over 2^16 (2^10) below 2^22 (2^16) in magnitude
    // and c one over 2^8 (2^5): a * b + c, and round_to<T>(a * b) + c, are
    // integers over 2^16 (2^10) below 2^23, exact in f32, so each host
    // expression below rounds once, to T, exactly as the device rounds.
    const int bits = std::is_same_v<T, bf16> ? 8 : 11, scale = std::is_same_v<T, bf16> ? 5 : 8;
    std::mt19937 rng(s.m * 131 + s.n);
    fill_on_grid(a.data(), s.m * s.n, bits, scale, rng);
    fill_on_grid(b.data(), s.m * s.n, bits, scale, rng);
    fill_on_grid(c.data(), s.m * s.n, bits, scale, rng);
  } else {
    a.fill_random(-4, 4);
    b.fill_random(-4, 4);
    c.fill_random(-4, 4);
  }
  out.fill(NAN);
  k(a.view(), b.view(), c.view(), out.view());
  for (std::size_t i = 0; i < s.m * s.n; ++i) {
    const float av = float(a.data()[i]), bv = float(b.data()[i]), cv = float(c.data()[i]);
    const float got = float(out.data()[i]);
    // The kernel computes in the element type: a * b + c with T's operators,
    // PTX mul.f16 / add.f16 (.bf16) without a rounding modifier, which ptxas
    // may contract into one fma (HFMA2; the sm_90 image does): each element is
    // either a * b + c rounded once, or a * b rounded and the sum rounded
    // again. f32: one fma or two roundings as well (nvrtc's --fmad).
    const float fused = narrow ? round_to<T>(av * bv + cv) : std::fma(av, bv, cv);
    const float twice = narrow ? round_to<T>(round_to<T>(av * bv) + cv) : av * bv + cv;
    ASSERT_TRUE(got == fused || got == twice)
        << element << " fma element " << i << ": " << av << " * " << bv << " + " << cv << " gave " << got
        << ", want " << fused << " (one rounding) or " << twice << " (two)";
  }
}

template <typename T>
void check_cast(const char* element, Shape2 s, const CompileOptions& options = {}) {
  Kernel k = croq::compile(std::string("__co__ void cast(f32 [M, N] x, ") + element +
                     " [M, N] y) {\n  parallel {i, j} by [M, N]\n    y.at(i, j) = x.at(i, j);\n}\n",
                          options);
  auto x = make_spandata<float>(s.m, s.n);
  auto y = make_spandata<T>(s.m, s.n);
  x.fill_random(-1000, 1000);
  y.fill(NAN);
  k(x.view(), y.view());
  for (std::size_t i = 0; i < s.m * s.n; ++i)
    ASSERT_EQ(float(y.data()[i]), round_to<T>(x.data()[i])) << "cast f32 -> " << element << " element " << i;
}

// Integers from [-100, 100] with the output poisoned by the type's
// maximum; floats from [-1, 1], poisoned with NaN. Compared bit for bit.
template <typename T>
void check_transpose(const std::string& source, const char* element, std::size_t m, std::size_t n,
                     const CompileOptions& options = {}) {
  Kernel k = croq::compile(source, options);
  auto x = make_spandata<T>(m, n);
  auto y = make_spandata<T>(n, m);
  if constexpr (std::is_integral_v<T>) {
    x.fill_random(std::is_signed_v<T> ? -100 : 0, 100);
    y.fill(std::numeric_limits<T>::max());
  } else {
    x.fill_random(-1, 1);
    y.fill(T(NAN));
  }
  k(x.view(), y.view());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j)
      ASSERT_EQ(std::memcmp(&y.data()[j * m + i], &x.data()[i * n + j], sizeof(T)), 0)
          << element << " " << i << ", " << j << ": " << double(y.data()[j * m + i]) << ", want "
          << double(x.data()[i * n + j]);
}

}  // namespace croq::test
