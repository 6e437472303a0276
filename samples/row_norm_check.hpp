// Host side shared by samples/row_norms.cpp and the interpret-mode test of
// its kernels (tests/interp/row_norms_interp_test.cpp): the double-precision
// reference of a row and the values of a tensor widened to double.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include <croq/croq.hpp>

#include "row_norm_source.hpp"

namespace row_norm {

// The reference row: softmax, x / rms(x) * w (eps 1e-6), or
// (x - mean) / sqrt(var + 1e-5) * w + b, in double from the rounded inputs.
inline std::vector<double> reference_row(Kind kind, const std::vector<double>& x, const std::vector<double>& w,
                                         const std::vector<double>& b) {
  const std::size_t n = x.size();
  std::vector<double> y(n);
  if (kind == Kind::softmax) {
    const double peak = *std::max_element(x.begin(), x.end());
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += y[i] = std::exp(x[i] - peak);
    for (double& v : y) v /= sum;
  } else if (kind == Kind::rmsnorm) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double scale = 1.0 / std::sqrt(ss / double(n) + 1e-6);
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] * scale * w[i];
  } else {
    double mean = 0, var = 0;
    for (double v : x) mean += v;
    mean /= double(n);
    for (double v : x) var += (v - mean) * (v - mean);
    const double scale = 1.0 / std::sqrt(var / double(n) + 1e-5);
    for (std::size_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * scale * w[i] + b[i];
  }
  return y;
}

template <typename T>
inline std::vector<double> values(const croq::spandata<T>& t, std::size_t from, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = double(float(t.data()[from + i]));
  return out;
}

}  // namespace row_norm
