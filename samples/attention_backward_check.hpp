// Host check of the attention backward (samples/attention_backward_source.hpp)
// and of the forward's log-sum-exp: a double-precision reference computed
// from Q, K, V and dO alone (the kernels get the forward's O and lse, as
// in training), per head:
//   P = softmax(Q Kᵀ / sqrt(D)) (causal: query i sees keys j <= i + T - S),
//   O = P V,  dV = Pᵀ dO,  dP = dO Vᵀ,  dS = P (dP - rowsum(dO O)),
//   dQ = dS K / sqrt(D),  dK = dSᵀ Q / sqrt(D),
//   lse = log2(sum_j exp(s_ij / sqrt(D))) (base 2, as the kernels keep it).
// Each gradient passes as compare_with_reference's GEMM outputs do
// (relative Frobenius error <= 1e-2, every element within 0.05 rms(ref) +
// 1e-2 |ref|); lse within 1e-3 (absolute, in log2 units) per row.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
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

// The reference gradients of one head against the kernels' (`got_*`, the
// whole [B, H, rows, D] tensors), appended per head to `ref` and `got`.
template <typename T>
BackwardCheck check_backward(const croq::spandata<T>& q, const croq::spandata<T>& k, const croq::spandata<T>& v,
                             const croq::spandata<T>& dout, const croq::spandata<float>& lse,
                             const croq::spandata<T>& dq, const croq::spandata<T>& dk, const croq::spandata<T>& dv,
                             const Shape& s, int d, bool causal) {
  const int S = s.queries, T_ = s.keys;
  auto load = [&](const croq::spandata<T>& t, int rows, int b, int h) {
    std::vector<double> out(std::size_t(rows) * d);
    const std::size_t base = (std::size_t(b) * s.heads + h) * rows * d;
    for (std::size_t e = 0; e < out.size(); ++e) out[e] = double(float(t.data()[base + e]));
    return out;
  };
  std::vector<double> ref_dq, ref_dk, ref_dv, got_dq, got_dk, got_dv;
  double worst_lse = 0;
  const double inv_sqrt_d = 1 / std::sqrt(double(d));
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h) {
      const auto Q = load(q, S, b, h), K = load(k, T_, b, h), V = load(v, T_, b, h), dO = load(dout, S, b, h);
      std::vector<double> P(std::size_t(S) * T_, 0.0), dS(std::size_t(S) * T_, 0.0);
      std::vector<double> hq(std::size_t(S) * d, 0.0), hk(std::size_t(T_) * d, 0.0), hv(std::size_t(T_) * d, 0.0);
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
        const double want_lse = (peak + std::log(sum)) / std::log(2.0);
        const double got_lse = lse.data()[((std::size_t(b) * s.heads + h) * S + i) * 8];
        worst_lse = std::max(worst_lse, std::isfinite(got_lse) ? std::abs(got_lse - want_lse) : INFINITY);
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
            hq[std::size_t(i) * d + c] += ds * K[std::size_t(j) * d + c];
            hk[std::size_t(j) * d + c] += ds * Q[std::size_t(i) * d + c];
            hv[std::size_t(j) * d + c] += pij * dO[std::size_t(i) * d + c];
          }
        }
      auto append = [](std::vector<double>& to, const std::vector<double>& from) { to.insert(to.end(), from.begin(), from.end()); };
      append(ref_dq, hq);
      append(ref_dk, hk);
      append(ref_dv, hv);
      append(got_dq, load(dq, S, b, h));
      append(got_dk, load(dk, T_, b, h));
      append(got_dv, load(dv, T_, b, h));
    }
  BackwardCheck c;
  c.dq = compare_with_reference(got_dq, ref_dq, std::size_t(d));
  c.dk = compare_with_reference(got_dk, ref_dk, std::size_t(d));
  c.dv = compare_with_reference(got_dv, ref_dv, std::size_t(d));
  c.worst_lse_error = worst_lse;
  return c;
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

}  // namespace attention
