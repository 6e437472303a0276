// The host reference of kStagedTransposedLhs (fragment_sources.hpp), shared
// by its interpret-mode and GPU tests: C = A Bᵀ rounded to f16 (the staged
// tile), then out = Cᵀ B, in double; A and B [64, 64] row-major.
#pragma once

#include <vector>

#include "croq/croq.hpp"

namespace croq::test {

inline std::vector<double> staged_lhs_reference(const croq::spandata<croq::f16>& a, const croq::spandata<croq::f16>& b) {
  std::vector<double> c(64 * 64), out(64 * 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double sum = 0;
      for (int x = 0; x < 64; ++x) sum += double(float(a.data()[i * 64 + x])) * double(float(b.data()[j * 64 + x]));
      c[i * 64 + j] = double(float(croq::f16(float(sum))));
    }
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      double want = 0;
      for (int x = 0; x < 64; ++x) want += c[x * 64 + m] * double(float(b.data()[x * 64 + n]));
      out[m * 64 + n] = want;
    }
  return out;
}

}  // namespace croq::test
