// Host side shared by the GEMM samples (matmul_tma, matmul_wgmma,
// matmul_persistent). Their kernels compute C = A * B^T with A [M, K],
// B [N, K] and C [M, N], all f16, row-major. For each shape this fills A and
// B with random values in [-1, 1), poisons C (every element must be
// written), runs the kernel and compares C with a host reference of
// A * B^T (double accumulation): the relative Frobenius error
// ||C - ref|| / ||ref|| must be <= 1e-2.
#pragma once

#include <cmath>
#include <cstddef>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include <croq/croq.hpp>

struct GemmShape {
  int m, n, k;
};

// ||out - lhs * rhs^T|| / ||lhs * rhs^T|| over host f16 (or bf16) tensors.
template <typename T>
double gemm_relative_error(const croq::spandata<T>& lhs, const croq::spandata<T>& rhs,
                           const croq::spandata<T>& out) {
  const std::size_t m = lhs.shape()[0], k = lhs.shape()[1], n = rhs.shape()[0];
  auto widen = [](const croq::spandata<T>& t) {  // T -> float -> double
    std::vector<double> wide(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) wide[i] = float(t.data()[i]);
    return wide;
  };
  const std::vector<double> a = widen(lhs), b = widen(rhs), c = widen(out);
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double* a_row = &a[i * k];
      const double* b_row = &b[j * k];
      double ref = 0;
      for (std::size_t x = 0; x < k; ++x) ref += a_row[x] * b_row[x];
      const double d = c[i * n + j] - ref;
      err += d * d;
      norm += ref * ref;
    }
  return std::sqrt(err / norm);
}

// Runs `kernel(lhs, rhs, output)` on each shape and checks it; prints one
// line per shape and "Test Passed". Without a GPU it only says that the
// kernel compiled and that running it needs one (and returns 0).
inline int run_gemm_sample(const char* name, const croq::Kernel& kernel, std::span<const GemmShape> shapes) {
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << name << ": compiled `" << kernel.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  for (const GemmShape& s : shapes) {
    auto lhs = croq::make_spandata<croq::f16>(s.m, s.k);
    auto rhs = croq::make_spandata<croq::f16>(s.n, s.k);
    auto out = croq::make_spandata<croq::f16>(s.m, s.n);
    lhs.fill_random(-1, 1);
    rhs.fill_random(-1, 1);
    out.fill_random(1e4, 2e4);  // poison: every element must be written

    kernel(lhs.view(), rhs.view(), out.view());

    const double rel = gemm_relative_error(lhs, rhs, out);
    std::cout << name << ": [" << s.m << ", " << s.k << "] x [" << s.n << ", " << s.k
              << "]^T: relative Frobenius error " << rel << "\n";
    croq::croq_assert(rel <= 1e-2, "relative Frobenius error above 1e-2");
  }
  std::cout << "Test Passed\n";
  return 0;
}
