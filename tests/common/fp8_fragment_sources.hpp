// A chain of two GEMMs through an fp8 register fragment, shared by
// tests/interp/fp8_fragment_interp_test.cpp, tests/lower/fp8_fragment_test.cpp
// (generated CUDA and PTX) and tests/gpu/fp8_fragment_gpu_test.cpp:
// C1 = A B^T accumulated in f32 (64 x 128 per warpgroup), converted element
// by element to an fp8 fragment, then C2 = fp8(C1) D^T with that fragment as
// the lhs of an RS-mode fp8 WGMMA (k32; the fragment repacked from the
// accumulator layout), D [N, 128] K-major. A [M, K], B [128, K], C2 [M, N].
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "croq/croq.hpp"

namespace croq::test {

// `frag_type`: the fragment's element type, f8_e4m3 or f8_e5m2 (A, B and D
// are e4m3).
inline std::string fp8_chain_source(const std::string& frag_type = "f8_e4m3") {
  return R"croq(
__co__ void chain(global f8_e4m3 [M, K] a, global f8_e4m3 [128, K] b, global f8_e4m3 [N, 128] d, global f32 [M, N] out) {
  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 64)] : block {
    parallel p by 1 : group-4 {
      frag )croq" + frag_type + R"croq( [64, 128] c1_8;
      c1 = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 64)] {
        a_s = dma.copy.swiz<64> a.subspan(64, 64).at(bm, iv_k).zfill => shared;
        b_s = dma.copy.swiz<64> b.subspan(128, 64).at(0, iv_k).zfill => shared;
        mma.row.row c1, a_s.data, b_s.data;
        mma.commit;
      }
      apply {i, j} in c1.span
        c1_8.at(i, j) = __to<)croq" + frag_type + R"croq(>(c1.at(i, j));
      d_s = dma.copy.swiz<128> d.subspan(64, 128).at(bn, 0).zfill => shared;
      c2 = mma.fill.f32 0.0f;
      mma.row.row c2, c1_8, d_s.data;
      mma.commit;
      mma.store c2, out.subspan(64, 64).at(bm, bn);
    }
  }
}
)croq";
}

// Random e4m3 inputs of the chain in [-1, 1]: A [M, K], B [128, K] and
// D [N, 128], drawn with seeds `seed`, `seed` + 1 and `seed` + 2.
inline auto fp8_chain_inputs(std::size_t m, std::size_t k, std::size_t n, std::uint64_t seed) {
  auto a = croq::make_spandata<croq::f8_e4m3>(m, k);
  auto b = croq::make_spandata<croq::f8_e4m3>(128, k);
  auto d = croq::make_spandata<croq::f8_e4m3>(n, 128);
  a.fill_random(-1, 1, seed);
  b.fill_random(-1, 1, seed + 1);
  d.fill_random(-1, 1, seed + 2);
  return std::make_tuple(std::move(a), std::move(b), std::move(d));
}

struct Fp8ChainCheck {
  double relative_error = 0;  // Frobenius, of the whole output
  double worst_ratio = 0;     // the largest |got - want| over its element's tolerance
  std::size_t worst_row = 0, worst_col = 0;
  bool passed() const { return relative_error <= 1e-2 && worst_ratio <= 1; }
};

// The chain on the host in double precision from the stored fp8 inputs, C1
// rounded to the fragment's type `Frag` as the kernel rounds it (to nearest
// even, as cvt.rn.satfinite; tests/core/dtype_test.cpp and
// fp8_rounding_*_test.cpp pin that the host, the interpreter and the device
// agree, ties and saturation included). The device's C1 is not the exact
// sum, though: fp8 WGMMA keeps only about 13-14 bits of its running sum
// (truncating), so an element of C1 that lies that close to an fp8
// rounding boundary may round the other way there. At K 512 that is a few
// hundred of 81920 elements (a model of the accumulation on the host
// reproduces the H200's 6.3e-3 relative error), and one output element
// can take several of them: a bound of one fp8 step of the largest term
// failed the e5m2 chain at 1.59x on the H200. So each term of C1 whose
// exact value is within 2^-12 of its sum of magnitudes of a boundary (the
// device's truncations, with margin: the model passes at 12 bits) is
// allowed the other rounding, and each element's tolerance is the sum of
// those terms' moves plus 1e-3 of its sum of magnitudes (C2's own
// accumulation). A conversion that truncated instead of rounding stays
// several times outside it, and a misplaced element far outside.
template <typename Frag, typename A, typename B, typename D, typename Out>
Fp8ChainCheck check_fp8_chain(const A& a, const B& b, const D& d, const Out& out, std::size_t m, std::size_t k,
                              std::size_t n) {
  const auto rounded = [](double x) { return double(float(Frag(float(x)))); };
  std::vector<double> c1(m * 128), other_rounding(m * 128);  // C1 as rounded, and how far it could round instead
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < 128; ++j) {
      double sum = 0, magnitude = 0;
      for (std::size_t x = 0; x < k; ++x) {
        const double term = double(float(a.data()[i * k + x])) * double(float(b.data()[j * k + x]));
        sum += term;
        magnitude += std::fabs(term);
      }
      const double nearest = rounded(sum), reach = std::ldexp(magnitude, -12);
      c1[i * 128 + j] = nearest;
      other_rounding[i * 128 + j] =
          std::max(std::fabs(rounded(sum + reach) - nearest), std::fabs(nearest - rounded(sum - reach)));
    }
  Fp8ChainCheck c;
  double err2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0, magnitude = 0, ambiguity = 0;
      for (std::size_t x = 0; x < 128; ++x) {
        const double dx = double(float(d.data()[j * 128 + x])), term = c1[i * 128 + x] * dx;
        want += term;
        magnitude += std::fabs(term);
        ambiguity += other_rounding[i * 128 + x] * std::fabs(dx);
      }
      const double got = double(float(out.data()[i * n + j]));
      err2 += (got - want) * (got - want);
      ref2 += want * want;
      const double ratio = std::fabs(got - want) / (ambiguity + 1e-3 * magnitude + 1e-6);
      if (!(ratio <= c.worst_ratio)) {
        c.worst_ratio = std::isnan(ratio) ? INFINITY : ratio;
        c.worst_row = i;
        c.worst_col = j;
      }
    }
  c.relative_error = std::sqrt(err2 / std::max(ref2, 1e-30));
  return c;
}

}  // namespace croq::test
