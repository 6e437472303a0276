// Padding with dma.pad<low, high, mid, value>: each block stages one
// [16, 32] tile with a one-element border of zeros around it, so every
// thread can sum its 3 x 3 neighbourhood inside the tile without bounds
// checks (a per-patch box filter; patches do not see each other).
#include <croq/croq.hpp>

#include <cmath>
#include <iostream>

static const char* kSource = R"croq(
#define TM 16
#define TN 32

__co__ f32 [M, N] patch_box_sum(f32 [M, N] input) {
  f32 [input.span] output;

  parallel {pm, pn} by [M / TM, N / TN] : block {
    padded = dma.pad<{1, 1}, {1, 1}, {0, 0}, 0.0f> input.chunkat(pm, pn) => shared;
    parallel {i, j} by [TM, TN] : thread {
      f32 acc = 0.0f;
      foreach {di, dj} in [3, 3]
        acc = acc + padded.data.at(i + di, j + dj);
      output.at(pm # i, pn # j) = acc;
    }
  }

  return output;
}
)croq";

int main() {
  auto box_sum = croq::compile(kSource);
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "pad: compiled `" << box_sum.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  const size_t rows = 64, cols = 128, tm = 16, tn = 32;
  auto input = croq::make_spandata<float>(rows, cols);
  input.fill_random(-1, 1);

  auto res = box_sum(input.view());

  // Host reference: neighbours outside the element's own tile count as 0.
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j) {
      float ref = 0;
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj) {
          long r = static_cast<long>(i) + di, c = static_cast<long>(j) + dj;
          bool same_tile = r >= 0 && c >= 0 && static_cast<size_t>(r) / tm == i / tm && static_cast<size_t>(c) / tn == j / tn;
          if (same_tile) ref += static_cast<float>(input[r][c]);
        }
      croq::croq_assert(std::abs(static_cast<float>(res[i][j]) - ref) <= 1e-5f * (1 + std::abs(ref)), "values differ.");
    }

  std::cout << "pad: [64, 128] in [16, 32] tiles padded to [18, 34] with zeros; 3 x 3 patch sums match the host reference\n"
               "Test Passed\n";
}
