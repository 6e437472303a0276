// Croqtile kernels with register fragments inside thread levels (`frag` in
// `parallel t by T : thread`, `apply`, `copy`, `reduce_max` / `reduce_sum`),
// and a warpgroup's fragments with `mma.load src, frag`, `.async` mma and
// mma.store with their futures, and `all_reduce_sum`. Shared by
// tests/lower/frag_thread_test.cpp (NVRTC), tests/interp/frag_thread_interp_test.cpp
// and tests/gpu/frag_thread_gpu_test.cpp (the same results on a GPU).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace croq::test {

// y = softmax of each row of x [M, 64] (base e), 64 rows a block, spread
// over `threads` threads by rows (fewer threads than rows: each holds
// several; more: some hold none). Rows past M are read as 0 and not stored.
inline std::string thread_row_softmax(int threads) {
  return R"croq(
__co__ void row_softmax(global f32 [M, 64] x, global f32 [M, 64] y) {
  parallel b by cdiv(M, 64) : block {
    parallel t by )croq" +
         std::to_string(threads) + R"croq( : thread {
      frag f32 [64, 64] s {0.0f};
      frag f32 [64] row_max;
      frag f32 [64] row_sum;
      apply {i, j} in s.span {
        if (b * 64 + i < M) s.at(i, j) = x.at(b * 64 + i, j);
      }
      reduce_max(row_max, s, 1);
      apply {i, j} in s.span
        s.at(i, j) = __exp(s.at(i, j) - row_max.at(i));
      reduce_sum(row_sum, s, 1);
      all_reduce_sum(row_sum);
      apply {i, j} in s.span {
        if (b * 64 + i < M) y.at(b * 64 + i, j) = s.at(i, j) / row_sum.at(i);
      }
    }
  }
}
)croq";
}

// out[i] = a[i] * b[i] + 1 for 250 elements held by 96 threads (3 rows
// each, the last ones past the fragment): fragments filled from memory,
// one copied to another, `__fmaf` element by element.
inline constexpr const char* kThreadFragmentFma = R"croq(
__co__ void frag_fma(global f32 [250] a, global f32 [250] b, global f32 [250] out) {
  parallel t by 96 : thread {
    frag f32 [250] x;
    frag f32 [250] y {2.0f};
    frag f32 [250] z;
    apply {i} in x.span
      x.at(i) = a.at(i);
    apply {i} in y.span
      y.at(i) = b.at(i);
    copy(z, x);
    apply {i} in z.span
      z.at(i) = __fmaf(z.at(i), y.at(i), 1.0f);
    apply {i} in z.span
      out.at(i) = z.at(i);
  }
}
)croq";

// out = (A B^T) with each row divided by its sum, for A, B [64, 64]: A
// loaded into a declared fragment (`mma.load a_s, a_frag`, RS-mode WGMMA),
// the multiply `.async` and waited by its future, the row sums accumulated
// per lane by an apply and combined by all_reduce_sum, the result stored
// by `mma.store.async`.
inline constexpr const char* kRowNormalizedProduct = R"croq(
__co__ void row_normalized(global f16 [64, 64] a, global f16 [64, 64] b, global f32 [64, 64] out) {
  parallel blk by 1 : block {
    a_s = dma.copy.swiz<128> a.subspan(64, 64).at(0, 0) => shared;
    b_s = dma.copy.swiz<128> b.subspan(64, 64).at(0, 0) => shared;
    parallel p by 1 : group-4 {
      frag f16 [64, 64] a_frag;
      mma.load a_s.data, a_frag;
      acc = mma.fill.f32 0.0f;
      product = mma.row.row.async acc, a_frag, b_s.data;
      wait product;
      frag f32 [64] row_sum {0.0f};
      apply {i, j} in acc.span
        row_sum.at(i) = row_sum.at(i) + acc.at(i, j);
      all_reduce_sum(row_sum);
      apply {i, j} in acc.span
        acc.at(i, j) = acc.at(i, j) / row_sum.at(i);
      mma.store.async acc, out.subspan(64, 64).at(0, 0);
    }
  }
}
)croq";

// Host references, in double: the largest difference between y and the
// softmax of each row of x [rows, 64]; between out and (A B^T) with each
// row divided by its sum, for A, B [64, 64].
template <typename Data>
double softmax_rows_error(const Data& x, const Data& y, std::size_t rows) {
  double worst = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    double max = -1e30, sum = 0;
    for (std::size_t c = 0; c < 64; ++c) max = std::max(max, double(x.data()[r * 64 + c]));
    for (std::size_t c = 0; c < 64; ++c) sum += std::exp(double(x.data()[r * 64 + c]) - max);
    for (std::size_t c = 0; c < 64; ++c)
      worst = std::max(worst, std::fabs(y.data()[r * 64 + c] - std::exp(double(x.data()[r * 64 + c]) - max) / sum));
  }
  return worst;
}

template <typename Half, typename Out>
double row_normalized_error(const Half& a, const Half& b, const Out& out) {
  double worst = 0;
  for (int i = 0; i < 64; ++i) {
    std::vector<double> row(64);
    double sum = 0;
    for (int j = 0; j < 64; ++j) {
      for (int c = 0; c < 64; ++c) row[j] += double(float(a.data()[i * 64 + c])) * double(float(b.data()[j * 64 + c]));
      sum += row[j];
    }
    for (int j = 0; j < 64; ++j) worst = std::max(worst, std::fabs(out.data()[i * 64 + j] - row[j] / sum));
  }
  return worst;
}

}  // namespace croq::test
