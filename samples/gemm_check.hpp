// Host side shared by the GEMM samples (matmul_tma, matmul_wgmma,
// matmul_persistent, matmul_fp8). Their kernels compute C = A * B^T with
// A [M, K], B [N, K] and C [M, N], row-major: f16 throughout, or (fp8) e4m3
// inputs and a bf16 output. For each shape this fills A and
// B with random values in [-1, 1), poisons C (every element must be
// written), runs the kernel and compares C with a host reference of
// A * B^T (double accumulation): the relative Frobenius error
// ||C - ref|| / ||ref|| must be <= 1e-2 and every element within its own
// tolerance (see GemmCheck).
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

// How far a GEMM output is from the host reference of lhs * rhs^T.
struct GemmCheck {
  double relative_error = 0;  // ||out - ref|| / ||ref|| (Frobenius)
  // Per element: the largest |out - ref| / (0.05 * rms(ref) + 1e-2 * |ref|).
  // The norm alone would let a few wrong elements through; this bound is
  // loose enough for f16 accumulation and rounding to f16, and far below
  // the typical size of an element, so a wrong or unwritten one fails.
  double worst_ratio = 0;
  std::size_t worst_row = 0, worst_col = 0;
  double worst_got = 0, worst_want = 0;
  bool passed() const { return relative_error <= 1e-2 && worst_ratio <= 1; }
};

// Checks `got` against `ref` (both [rows, cols] row-major, in double);
// `allowance`, when given, adds to each element's bound (an error the
// computation owns, such as a rounding the reference cannot place).
inline GemmCheck compare_with_reference(const std::vector<double>& got, const std::vector<double>& ref,
                                        std::size_t cols, const std::vector<double>* allowance = nullptr) {
  double norm = 0;
  for (double r : ref) norm += r * r;
  const double rms = std::sqrt(norm / double(ref.size()));
  GemmCheck check;
  double err = 0;
  for (std::size_t e = 0; e < ref.size(); ++e) {
    const double d = got[e] - ref[e];
    err += d * d;
    double ratio = std::abs(d) / (0.05 * rms + 1e-2 * std::abs(ref[e]) + (allowance ? (*allowance)[e] : 0.0));
    if (!std::isfinite(ratio)) ratio = INFINITY;
    if (ratio > check.worst_ratio || e == 0) {
      check.worst_ratio = ratio;
      check.worst_row = e / cols;
      check.worst_col = e % cols;
      check.worst_got = got[e];
      check.worst_want = ref[e];
    }
  }
  check.relative_error = std::isfinite(err) ? std::sqrt(err / norm) : INFINITY;
  return check;
}

// Checks host tensors out [M, N] against lhs [M, K] * rhs [N, K]^T in double.
template <typename In, typename Out>
GemmCheck check_gemm(const croq::spandata<In>& lhs, const croq::spandata<In>& rhs, const croq::spandata<Out>& out) {
  const std::size_t m = lhs.shape()[0], k = lhs.shape()[1], n = rhs.shape()[0];
  auto widen = [](const auto& t) {  // element type -> float -> double
    std::vector<double> wide(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) wide[i] = float(t.data()[i]);
    return wide;
  };
  const std::vector<double> a = widen(lhs), b = widen(rhs), c = widen(out);
  std::vector<double> ref(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double* a_row = &a[i * k];
      const double* b_row = &b[j * k];
      double r = 0;
      for (std::size_t x = 0; x < k; ++x) r += a_row[x] * b_row[x];
      ref[i * n + j] = r;
    }
  return compare_with_reference(c, ref, n);
}

// One line for logs and failures.
inline std::string describe(const GemmCheck& c) {
  return "relative Frobenius error " + std::to_string(c.relative_error) + ", worst element [" +
         std::to_string(c.worst_row) + ", " + std::to_string(c.worst_col) + "] = " + std::to_string(c.worst_got) +
         " (want " + std::to_string(c.worst_want) + ", " + std::to_string(c.worst_ratio) + " of its tolerance)";
}

// Runs `gemm(lhs, rhs, output)` (views) on each shape (inputs of type In,
// output Out) and checks it; prints one line per shape.
template <typename In = croq::f16, typename Out = croq::f16, typename Gemm>
void check_gemm_shapes(const std::string& name, const Gemm& gemm, std::span<const GemmShape> shapes) {
  for (const GemmShape& s : shapes) {
    auto lhs = croq::make_spandata<In>(s.m, s.k);
    auto rhs = croq::make_spandata<In>(s.n, s.k);
    auto out = croq::make_spandata<Out>(s.m, s.n);
    lhs.fill_random(-1, 1);
    rhs.fill_random(-1, 1);
    out.fill_random(1e4, 2e4);  // poison: every element must be written

    gemm(lhs.view(), rhs.view(), out.view());

    const GemmCheck check = check_gemm(lhs, rhs, out);
    std::cout << name << ": [" << s.m << ", " << s.k << "] x [" << s.n << ", " << s.k << "]^T: " << describe(check)
              << "\n";
    croq::croq_assert(check.passed(), "relative Frobenius error above 1e-2 or an element outside its tolerance");
  }
}

// check_gemm_shapes of `kernel`, then "Test Passed". Without a GPU it only
// says that the kernel compiled and that running it needs one (and returns 0).
template <typename In = croq::f16, typename Out = croq::f16>
int run_gemm_sample(const char* name, const croq::Kernel& kernel, std::span<const GemmShape> shapes) {
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << name << ": compiled `" << kernel.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  check_gemm_shapes<In, Out>(name, kernel, shapes);
  std::cout << "Test Passed\n";
  return 0;
}
