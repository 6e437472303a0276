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
  double max_relative_error = 1e-2;
  bool passed() const { return relative_error <= max_relative_error && worst_ratio <= 1; }
};

// The row's scaled scores q . k_j / sqrt(d) of the first `visible` keys into p.
template <typename Q, typename K>
void scores_row(Q q, K k, int visible, int d, std::vector<double>& p) {
  for (int j = 0; j < visible; ++j) {
    double dot = 0;
    for (int c = 0; c < d; ++c) dot += q(c) * k(j, c);
    p[j] = dot / std::sqrt(double(d));
  }
}

// One query row of the reference: softmax over the first `visible` keys of
// q . k_j / sqrt(d), times V, appended to `out` (d values); `p` is scratch
// of at least `visible` entries. q(c), k(j, c), v(j, c) read the inputs. A
// row that sees no key is zeros, as FlashAttention's.
template <typename Q, typename K, typename V>
void reference_row(Q q, K k, V v, int visible, int d, std::vector<double>& p, std::vector<double>& out) {
  scores_row(q, k, visible, d, p);
  double peak = -INFINITY;
  for (int j = 0; j < visible; ++j) peak = std::max(peak, p[j]);
  double sum = 0;
  for (int j = 0; j < visible; ++j) sum += p[j] = std::exp(p[j] - peak);
  for (int c = 0; c < d; ++c) {
    double r = 0;
    for (int j = 0; j < visible; ++j) r += p[j] * v(j, c);
    out.push_back(visible > 0 ? r / sum : 0.0);
  }
}

// Every batch, head and query row against reference_row: q(b, h, i, c),
// k(b, kvh, j, c), v(b, kvh, j, c) and o(b, h, i, c) read the inputs and the
// output, with compare_with_reference's bounds.
template <typename Q, typename K, typename V, typename O>
Check check_rows(const Shape& s, int d, bool causal, Q q, K k, V v, O o) {
  std::vector<double> ref, got;
  std::vector<double> p(s.keys);
  const int group = s.heads / s.key_heads();
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      for (int i = 0; i < s.queries; ++i) {
        const int kvh = h / group;
        const int visible = causal ? std::min(s.keys, i + s.keys - s.queries + 1) : s.keys;
        reference_row([&](int c) { return q(b, h, i, c); }, [&](int j, int c) { return k(b, kvh, j, c); },
                      [&](int j, int c) { return v(b, kvh, j, c); }, visible, d, p, ref);
        for (int c = 0; c < d; ++c) got.push_back(o(b, h, i, c));
      }
  const GemmCheck c = compare_with_reference(got, ref, static_cast<std::size_t>(d));
  return Check{c.relative_error, c.worst_ratio, c.worst_got, c.worst_want};
}

// softmax(Q K^T / sqrt(D)) V per head in double; causal: query i sees keys
// j <= i + T - S (the last query row aligned with the last key). Query head
// h reads key/value head h / (heads / key_heads()).
template <typename T>
Check check(const croq::spandata<T>& q, const croq::spandata<T>& k, const croq::spandata<T>& v, const croq::spandata<T>& o, const Shape& s, int d, bool causal) {
  auto at = [d](const croq::spandata<T>& t, int rows, int heads) {
    return [&t, d, rows, heads](int b, int h, int r, int c) {
      return double(float(t.data()[((std::size_t(b) * heads + h) * rows + r) * d + c]));
    };
  };
  return check_rows(s, d, causal, at(q, s.queries, s.heads), at(k, s.keys, s.key_heads()), at(v, s.keys, s.key_heads()),
                    at(o, s.queries, s.heads));
}

// One query row of the FP8 forward's reference: the kernel's online softmax
// over key tiles of `bn` keys emulated in double, P rounded as the kernel
// rounds it before P V (`round`: to e4m3). Within a tile p_j = exp(s_j - m)
// against the running maximum m after that tile, the sum of the unrounded
// p_j (the kernel's f32 sum) and the products of the rounded ones both
// rescaled as m grows. `flip` (d values) gets, per output column, one e4m3
// step (1/8) of the row's largest |p_j v_jc| / sum: what a p_j computed in
// f32 that rounds the other way moves the element by.
template <typename Q, typename K, typename V, typename Round>
void reference_row_rounded_p(Q q, K k, V v, int visible, int d, int bn, Round round, std::vector<double>& p,
                             std::vector<double>& out, std::vector<double>& flip) {
  scores_row(q, k, visible, d, p);
  std::vector<double> acc(d, 0.0), largest(d, 0.0);
  double peak = -INFINITY, sum = 0;
  for (int first = 0; first < visible; first += bn) {
    const int last = std::min(visible, first + bn);
    double tile_peak = peak;
    for (int j = first; j < last; ++j) tile_peak = std::max(tile_peak, p[j]);
    const double rescale = std::exp(peak - tile_peak);  // 0 for the first tile
    sum *= rescale;
    for (int c = 0; c < d; ++c) acc[c] *= rescale, largest[c] *= rescale;
    for (int j = first; j < last; ++j) {
      const double pj = std::exp(p[j] - tile_peak), rounded = round(pj);
      sum += pj;
      for (int c = 0; c < d; ++c) {
        acc[c] += rounded * v(j, c);
        largest[c] = std::max(largest[c], std::abs(pj * v(j, c)));
      }
    }
    peak = tile_peak;
  }
  for (int c = 0; c < d; ++c) {
    out.push_back(visible > 0 ? acc[c] / sum : 0.0);
    flip.push_back(visible > 0 ? 0.125 * largest[c] / sum : 0.0);
  }
}

// The FP8 forward (attention::fp8_source): q [B, H, S, D], k [B, HK, T, D]
// and vt (V transposed) [B, HK, D, T] of e4m3, each stored value times its
// descale factor, against the kernel's algorithm in double with P rounded
// to e4m3 as the kernel rounds it (reference_row_rounded_p; key tiles of
// 128 keys, 64 above D = 128). That rounding (3 mantissa bits, up to 6% an
// element) is the FP8 form's own error, so it is in the reference rather
// than in looser bounds: each element is held to the f16 check's bound plus
// one e4m3 step of its largest term (a p_j that rounds the other way in
// f32), so a wrong key, mask, scale or unwritten row still fails.
template <typename T, typename O>
Check check_fp8(const croq::spandata<T>& q, const croq::spandata<T>& k, const croq::spandata<T>& vt,
                const croq::spandata<O>& o, const Shape& s, int d, bool causal, double q_descale, double k_descale,
                double v_descale) {
  auto at = [d](const auto& t, int rows, int heads, double descale) {
    return [&t, d, rows, heads, descale](int b, int h, int r, int c) {
      return descale * double(float(t.data()[((std::size_t(b) * heads + h) * rows + r) * d + c]));
    };
  };
  const auto qa = at(q, s.queries, s.heads, q_descale), ka = at(k, s.keys, s.key_heads(), k_descale),
             oa = at(o, s.queries, s.heads, 1.0);
  const auto vt_at = [&](int b, int h, int j, int c) {
    return v_descale * double(float(vt.data()[((std::size_t(b) * s.key_heads() + h) * d + c) * s.keys + j]));
  };
  const auto round = [](double p) { return double(float(T(float(p)))); };
  const int bn = d > 128 ? 64 : 128, group = s.heads / s.key_heads();
  std::vector<double> ref, got, flip, p(s.keys);
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      for (int i = 0; i < s.queries; ++i) {
        const int kvh = h / group;
        const int visible = causal ? std::min(s.keys, i + s.keys - s.queries + 1) : s.keys;
        reference_row_rounded_p([&](int c) { return qa(b, h, i, c); }, [&](int j, int c) { return ka(b, kvh, j, c); },
                                [&](int j, int c) { return vt_at(b, kvh, j, c); }, visible, d, bn, round, p, ref, flip);
        for (int c = 0; c < d; ++c) got.push_back(oa(b, h, i, c));
      }
  const GemmCheck c = compare_with_reference(got, ref, static_cast<std::size_t>(d), &flip);
  return Check{c.relative_error, c.worst_ratio, c.worst_got, c.worst_want};
}

// Packed sequences (attention::varlen_source): Q and O [H, TQ, D], K and
// V [HK, TK, D], sequence b's queries rows cu_q[b] .. cu_q[b + 1] - 1 and
// keys cu_k[b] .. cu_k[b + 1] - 1; each sequence checked as its own
// attention (causal: its last query aligned with its last key), every
// output row against the reference.
template <typename T>
Check check_varlen(const croq::spandata<T>& q, const croq::spandata<T>& k, const croq::spandata<T>& v,
                   const croq::spandata<T>& o, const std::vector<int>& cu_q, const std::vector<int>& cu_k, int heads,
                   int kv_heads, int d, bool causal) {
  const std::size_t total_q = q.shape()[1], total_k = k.shape()[1];
  auto at = [d](const croq::spandata<T>& t, std::size_t rows, int h, int r, int c) {
    return double(float(t.data()[(std::size_t(h) * rows + r) * d + c]));
  };
  std::vector<double> ref, got, p;
  for (int h = 0; h < heads; ++h) {
    const int kvh = h / (heads / kv_heads);
    for (std::size_t b = 0; b + 1 < cu_q.size(); ++b) {
      const int q0 = cu_q[b], queries = cu_q[b + 1] - q0, k0 = cu_k[b], keys = cu_k[b + 1] - k0;
      p.assign(keys, 0);
      for (int i = 0; i < queries; ++i) {
        const int visible = causal ? std::min(keys, i + keys - queries + 1) : keys;
        reference_row([&](int c) { return at(q, total_q, h, q0 + i, c); },
                      [&](int j, int c) { return at(k, total_k, kvh, k0 + j, c); },
                      [&](int j, int c) { return at(v, total_k, kvh, k0 + j, c); }, visible, d, p, ref);
        for (int c = 0; c < d; ++c) got.push_back(at(o, total_q, h, q0 + i, c));
      }
    }
  }
  const GemmCheck c = compare_with_reference(got, ref, static_cast<std::size_t>(d));
  return Check{c.relative_error, c.worst_ratio, c.worst_got, c.worst_want};
}

}  // namespace attention
