// Host check of forward attention (samples/attention_source.hpp's kernel):
// O against a double-precision reference of softmax(Q K^T / sqrt(D)) V per
// head. Passes when the relative Frobenius error is <= 1e-2 and every
// element is within 0.05 rms(ref) + 1e-2 |ref|: loose enough for P and O
// rounded to f16 / bf16, far below an element's typical size, so a wrong
// key, mask or unwritten row fails.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include <croq/croq.hpp>

#include "gemm_check.hpp"

namespace attention {

struct Shape {
  int batch, heads, queries, keys;
  int kv_heads = 0;  // K and V heads (grouped-query attention); 0: `heads`
  int key_heads() const { return kv_heads ? kv_heads : heads; }
};

struct Check {
  double relative_error = 0, worst_ratio = 0, worst_got = 0, worst_want = 0;
  bool passed() const { return relative_error <= 1e-2 && worst_ratio <= 1; }
};

// softmax(Q K^T / sqrt(D)) V per head in double; causal: query i sees keys
// j <= i + T - S (the last query row aligned with the last key). Query head
// h reads key/value head h / (heads / key_heads()).
template <typename T>
Check check(const croq::spandata<T>& q, const croq::spandata<T>& k, const croq::spandata<T>& v, const croq::spandata<T>& o, const Shape& s, int d, bool causal) {
  auto at = [d](const croq::spandata<T>& t, int rows, int b, int h, int r, int c, int heads) {
    return double(float(t.data()[((std::size_t(b) * heads + h) * rows + r) * d + c]));
  };
  std::vector<double> ref, got;
  std::vector<double> p(s.keys);
  const int group = s.heads / s.key_heads();
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      for (int i = 0; i < s.queries; ++i) {
        const int kvh = h / group;
        const int visible = causal ? std::min(s.keys, i + s.keys - s.queries + 1) : s.keys;
        double peak = -INFINITY;
        for (int j = 0; j < visible; ++j) {
          double dot = 0;
          for (int c = 0; c < d; ++c) dot += at(q, s.queries, b, h, i, c, s.heads) * at(k, s.keys, b, kvh, j, c, s.key_heads());
          p[j] = dot / std::sqrt(double(d));
          peak = std::max(peak, p[j]);
        }
        double sum = 0;
        for (int j = 0; j < visible; ++j) sum += p[j] = std::exp(p[j] - peak);
        for (int c = 0; c < d; ++c) {
          double r = 0;
          for (int j = 0; j < visible; ++j) r += p[j] * at(v, s.keys, b, kvh, j, c, s.key_heads());
          ref.push_back(r / sum);
          got.push_back(at(o, s.queries, b, h, i, c, s.heads));
        }
      }
  const GemmCheck c = compare_with_reference(got, ref, static_cast<std::size_t>(d));
  return Check{c.relative_error, c.worst_ratio, c.worst_got, c.worst_want};
}

}  // namespace attention
