// Host check of the attention backward (samples/attention_backward_source.hpp)
// and of the forward's log-sum-exp: a double-precision reference computed
// from Q, K, V and dO alone (the kernels get the forward's O and lse, as
// in training), per head:
//   P = softmax(Q Kᵀ / sqrt(D)) (causal: query i sees keys j <= i + T - S),
//   O = P V,  dV = Pᵀ dO,  dP = dO Vᵀ,  dS = P (dP - rowsum(dO O)),
//   dQ = dS K / sqrt(D),  dK = dSᵀ Q / sqrt(D),
//   lse = log2(sum_j exp(s_ij / sqrt(D))) (base 2, as the kernels keep it).
// Packed sequences of variable lengths: each sequence against its own
// reference (check_backward_varlen, PackedBackwardRun).
// Each gradient passes as compare_with_reference's GEMM outputs do
// (relative Frobenius error <= 1e-2, every element within 0.05 rms(ref) +
// 1e-2 |ref|); lse within 1e-3 (absolute, in log2 units) per row.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <croq/croq.hpp>

#include "attention_check.hpp"
#include "gemm_check.hpp"

namespace attention {

struct BackwardCheck {
  GemmCheck dq, dk, dv;
  double worst_lse_error = 0;  // max |lse - ref| over the rows (log2 units)
  bool passed() const { return dq.passed() && dk.passed() && dv.passed() && worst_lse_error <= 1e-3; }
  // "dQ 1.2e-03 (0.31), dK ..., dV ..., lse 2.0e-05": relative error (worst
  // element's share of its tolerance) of each.
  std::string summary() const {
    char line[256];
    std::snprintf(line, sizeof line, "dQ %.2e (%.2f), dK %.2e (%.2f), dV %.2e (%.2f), lse %.1e", dq.relative_error,
                  dq.worst_ratio, dk.relative_error, dk.worst_ratio, dv.relative_error, dv.worst_ratio,
                  worst_lse_error);
    return line;
  }
};

// The reference of one head: Q and dO [S, D], K and V [T, D] (row-major,
// double), the rows' lse (base 2) and dQ, dK, dV.
struct HeadGradients {
  std::vector<double> lse, dq, dk, dv;
};

inline HeadGradients head_gradients(const std::vector<double>& Q, const std::vector<double>& K,
                                    const std::vector<double>& V, const std::vector<double>& dO, int S, int T_, int d,
                                    bool causal) {
  const double inv_sqrt_d = 1 / std::sqrt(double(d));
  std::vector<double> P(std::size_t(S) * T_, 0.0), dS(std::size_t(S) * T_, 0.0);
  HeadGradients g{std::vector<double>(S), std::vector<double>(std::size_t(S) * d, 0.0),
                  std::vector<double>(std::size_t(T_) * d, 0.0), std::vector<double>(std::size_t(T_) * d, 0.0)};
  for (int i = 0; i < S; ++i) {
    const int visible = causal ? std::min(T_, i + T_ - S + 1) : T_;
    double* p = &P[std::size_t(i) * T_];
    double peak = -INFINITY;
    for (int j = 0; j < visible; ++j) {
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += Q[std::size_t(i) * d + c] * K[std::size_t(j) * d + c];
      p[j] = dot * inv_sqrt_d;
      peak = std::max(peak, p[j]);
    }
    double sum = 0;
    for (int j = 0; j < visible; ++j) sum += p[j] = std::exp(p[j] - peak);
    for (int j = 0; j < visible; ++j) p[j] /= sum;
    g.lse[i] = (peak + std::log(sum)) / std::log(2.0);
    // delta = rowsum(dO O) with O = P V; dS = P (dO Vᵀ - delta).
    double delta = 0;
    for (int c = 0; c < d; ++c) {
      double o = 0;
      for (int j = 0; j < visible; ++j) o += p[j] * V[std::size_t(j) * d + c];
      delta += o * dO[std::size_t(i) * d + c];
    }
    for (int j = 0; j < visible; ++j) {
      double dp = 0;
      for (int c = 0; c < d; ++c) dp += dO[std::size_t(i) * d + c] * V[std::size_t(j) * d + c];
      dS[std::size_t(i) * T_ + j] = p[j] * (dp - delta);
    }
  }
  for (int i = 0; i < S; ++i)
    for (int j = 0; j < T_; ++j) {
      const double pij = P[std::size_t(i) * T_ + j], ds = dS[std::size_t(i) * T_ + j] * inv_sqrt_d;
      if (pij == 0 && ds == 0) continue;
      for (int c = 0; c < d; ++c) {
        g.dq[std::size_t(i) * d + c] += ds * K[std::size_t(j) * d + c];
        g.dk[std::size_t(j) * d + c] += ds * Q[std::size_t(i) * d + c];
        g.dv[std::size_t(j) * d + c] += pij * dO[std::size_t(i) * d + c];
      }
    }
  return g;
}

// `rows` rows from row `first` of a row-major tensor of d columns, as double.
template <typename T>
std::vector<double> rows_of(const croq::spandata<T>& t, std::size_t first, int rows, int d) {
  std::vector<double> out(std::size_t(rows) * d);
  for (std::size_t e = 0; e < out.size(); ++e) out[e] = double(float(t.data()[first * d + e]));
  return out;
}

// The inputs and outputs of one backward call.
template <typename T>
struct Tensors {
  const croq::spandata<T>&q, &k, &v, &dout;
  const croq::spandata<float>& lse;
  const croq::spandata<T>&dq, &dk, &dv;
};

// What check_backward and check_backward_varlen gather head by head: the
// reference and the kernels' gradients, and the worst lse error.
struct GradientTally {
  std::vector<double> ref_dq, ref_dk, ref_dv, got_dq, got_dk, got_dv;
  double worst_lse = 0;

  // One head's reference (of S queries from row q0 of the row-major
  // tensors, T keys from row k0) against the kernels' rows and lse.
  template <typename T>
  void add(const Tensors<T>& t, std::size_t q0, std::size_t k0, int S, int T_, int d, bool causal) {
    const HeadGradients ref = head_gradients(rows_of(t.q, q0, S, d), rows_of(t.k, k0, T_, d), rows_of(t.v, k0, T_, d),
                                             rows_of(t.dout, q0, S, d), S, T_, d, causal);
    auto append = [](std::vector<double>& to, const std::vector<double>& from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    for (int i = 0; i < S; ++i) {
      if (std::isinf(ref.lse[i])) continue;  // a row that sees no key: its gradients are 0, its lse unused
      const double got = t.lse.data()[(q0 + i) * 8];
      worst_lse = std::max(worst_lse, std::isfinite(got) ? std::abs(got - ref.lse[i]) : INFINITY);
    }
    append(ref_dq, ref.dq);
    append(ref_dk, ref.dk);
    append(ref_dv, ref.dv);
    append(got_dq, rows_of(t.dq, q0, S, d));
    append(got_dk, rows_of(t.dk, k0, T_, d));
    append(got_dv, rows_of(t.dv, k0, T_, d));
  }

  BackwardCheck result(int d) const {
    BackwardCheck c;
    c.dq = compare_with_reference(got_dq, ref_dq, std::size_t(d));
    c.dk = compare_with_reference(got_dk, ref_dk, std::size_t(d));
    c.dv = compare_with_reference(got_dv, ref_dv, std::size_t(d));
    c.worst_lse_error = worst_lse;
    return c;
  }
};

// The reference gradients of each head against the kernels' (`dq`, `dk`,
// `dv`: the whole [B, H, rows, D] tensors).
template <typename T>
BackwardCheck check_backward(const croq::spandata<T>& q, const croq::spandata<T>& k, const croq::spandata<T>& v,
                             const croq::spandata<T>& dout, const croq::spandata<float>& lse,
                             const croq::spandata<T>& dq, const croq::spandata<T>& dk, const croq::spandata<T>& dv,
                             const Shape& s, int d, bool causal) {
  const int S = s.queries, T_ = s.keys;
  GradientTally tally;
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h) {
      const std::size_t head = std::size_t(b) * s.heads + h;
      tally.add(Tensors<T>{q, k, v, dout, lse, dq, dk, dv}, head * S, head * T_, S, T_, d, causal);
    }
  return tally.result(d);
}

// Packed sequences (attention::backward_source(..., varlen = true)): Q, dO,
// dQ [H, TQ, D], K, V, dK, dV [H, TK, D], lse [H, TQ, 8], sequence b's
// queries rows cu_q[b] .. cu_q[b + 1] - 1 and keys cu_k[b] ..
// cu_k[b + 1] - 1; each sequence's gradients against its own reference.
template <typename T>
BackwardCheck check_backward_varlen(const croq::spandata<T>& q, const croq::spandata<T>& k,
                                    const croq::spandata<T>& v, const croq::spandata<T>& dout,
                                    const croq::spandata<float>& lse, const croq::spandata<T>& dq,
                                    const croq::spandata<T>& dk, const croq::spandata<T>& dv,
                                    const std::vector<int>& cu_q, const std::vector<int>& cu_k, int d, bool causal) {
  const std::size_t heads = q.shape()[0], total_q = q.shape()[1], total_k = k.shape()[1];
  GradientTally tally;
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t b = 0; b + 1 < cu_q.size(); ++b) {
      tally.add(Tensors<T>{q, k, v, dout, lse, dq, dk, dv}, h * total_q + cu_q[b], h * total_k + cu_k[b],
                cu_q[b + 1] - cu_q[b], cu_k[b + 1] - cu_k[b], d, causal);
    }
  return tally.result(d);
}

// The tensors of one forward and backward: random Q, K, V and dO (seeded
// from `seed` when it is not 0), every output poisoned (each element must
// be written); run() calls the forward (O and lse) and then the backward.
template <typename T>
struct BackwardRun {
  croq::spandata<T> q, k, v, o, dout;
  croq::spandata<float> lse;
  croq::spandata<T> dq, dk, dv;

  BackwardRun(const Shape& s, int d, unsigned seed = 0)
      : q(croq::make_spandata<T>(s.batch, s.heads, s.queries, d)),
        k(croq::make_spandata<T>(s.batch, s.heads, s.keys, d)),
        v(croq::make_spandata<T>(s.batch, s.heads, s.keys, d)),
        o(croq::make_spandata<T>(s.batch, s.heads, s.queries, d)),
        dout(croq::make_spandata<T>(s.batch, s.heads, s.queries, d)),
        lse(croq::make_spandata<float>(s.batch, s.heads, s.queries, 8)),
        dq(croq::make_spandata<T>(s.batch, s.heads, s.queries, d)),
        dk(croq::make_spandata<T>(s.batch, s.heads, s.keys, d)),
        dv(croq::make_spandata<T>(s.batch, s.heads, s.keys, d)) {
    auto fill = [&](auto& t, double lo, double hi) {
      if (seed) t.fill_random(lo, hi, seed++);
      else t.fill_random(lo, hi);
    };
    fill(q, -2, 2);  // scores of a few units: a peaked softmax, so a wrong key or mask shows
    fill(k, -2, 2);
    fill(v, -1, 1);
    fill(dout, -1, 1);
    for (auto* poisoned : {&o, &dq, &dk, &dv}) fill(*poisoned, 1e4, 2e4);
    fill(lse, 1e4, 2e4);
  }

  BackwardCheck run(const croq::Kernel& forward, const croq::Kernel& backward, const Shape& s, int d, bool causal) {
    forward(q.view(), k.view(), v.view(), o.view(), lse.view(), causal ? 1 : 0);
    backward(q.view(), k.view(), v.view(), o.view(), dout.view(), lse.view(), dq.view(), dk.view(), dv.view(),
             causal ? 1 : 0);
    return check_backward(q, k, v, dout, lse, dq, dk, dv, s, d, causal);
  }
};

// The packed tensors of one forward and backward (attention::varlen_source
// with the lse, then backward_source(..., varlen = true)) over the sequences
// of offsets cu_q and cu_k, `heads` heads of each: random Q, K, V and dO
// from `seed`, the outputs poisoned.
template <typename T>
struct PackedBackwardRun {
  std::vector<int> cu_q, cu_k;
  croq::spandata<T> q, k, v, o, dout;
  croq::spandata<float> lse;
  croq::spandata<T> dq, dk, dv;
  croq::spandata<std::int32_t> offsets_q, offsets_k;

  PackedBackwardRun(std::vector<int> cu_q_, std::vector<int> cu_k_, int heads, int d, unsigned seed)
      : cu_q(std::move(cu_q_)),
        cu_k(std::move(cu_k_)),
        q(croq::make_spandata<T>(heads, cu_q.back(), d)),
        k(croq::make_spandata<T>(heads, cu_k.back(), d)),
        v(croq::make_spandata<T>(heads, cu_k.back(), d)),
        o(croq::make_spandata<T>(heads, cu_q.back(), d)),
        dout(croq::make_spandata<T>(heads, cu_q.back(), d)),
        lse(croq::make_spandata<float>(heads, cu_q.back(), 8)),
        dq(croq::make_spandata<T>(heads, cu_q.back(), d)),
        dk(croq::make_spandata<T>(heads, cu_k.back(), d)),
        dv(croq::make_spandata<T>(heads, cu_k.back(), d)),
        offsets_q(croq::make_spandata<std::int32_t>(cu_q.size())),
        offsets_k(croq::make_spandata<std::int32_t>(cu_k.size())) {
    std::copy(cu_q.begin(), cu_q.end(), offsets_q.data());
    std::copy(cu_k.begin(), cu_k.end(), offsets_k.data());
    q.fill_random(-2, 2, seed);
    k.fill_random(-2, 2, seed + 1);
    v.fill_random(-1, 1, seed + 2);
    dout.fill_random(-1, 1, seed + 3);
    for (auto* poisoned : {&o, &dq, &dk, &dv}) poisoned->fill_random(1e4, 2e4, seed + 4);
    lse.fill_random(1e4, 2e4, seed + 5);
  }

  BackwardCheck run(const croq::Kernel& forward, const croq::Kernel& backward, int d, bool causal) {
    forward(q.view(), k.view(), v.view(), o.view(), lse.view(), offsets_q.view(), offsets_k.view(), causal ? 1 : 0);
    backward(q.view(), k.view(), v.view(), o.view(), dout.view(), lse.view(), dq.view(), dk.view(), dv.view(),
             offsets_q.view(), offsets_k.view(), causal ? 1 : 0);
    return check_backward_varlen(q, k, v, dout, lse, dq, dk, dv, cu_q, cu_k, d, causal);
  }
};

}  // namespace attention
