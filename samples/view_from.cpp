// Irregular tiles with view(...).from(...): each block sums a [ROWS, COLS]
// window that starts at a runtime offset, including a partial last window
// (the copy is guarded automatically and .zfill zeroes the uncovered part).
#include <croq/croq.hpp>

#include <iostream>

static const char* kSource = R"croq(
#define ROWS 48
#define COLS 64

__co__ f32 [W] window_sums(f32 [R, C] input, f32 [W] unused_shape) {
  f32 [unused_shape.span] output;

  parallel w by W : block {
    tile = dma.copy.zfill input.view(ROWS, COLS).from(w * 40, 3) => shared;
    parallel t by 1 : thread {
      f32 acc = 0.0f;
      foreach {i, j} in tile.span
        acc = acc + tile.data.at(i, j);
      output.at(w) = acc;
    }
  }

  return output;
}
)croq";

int main() {
  auto window_sums = croq::compile(kSource);
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "view_from: compiled `" << window_sums.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  const size_t rows = 300, cols = 70, windows = 8;  // window 7 starts at row 280: 20 valid rows
  auto input = croq::make_spandata<float>(rows, cols);
  auto shape_only = croq::make_spandata<float>(windows);
  input.fill_random(-1, 1);

  auto res = window_sums(input.view(), shape_only.view());

  for (size_t w = 0; w < windows; ++w) {
    double ref = 0;
    for (size_t i = w * 40; i < std::min(rows, w * 40 + 48); ++i)
      for (size_t j = 3; j < 3 + 64; ++j) ref += static_cast<float>(input[i][j]);
    double got = res[w];
    croq::croq_assert(std::abs(got - ref) <= 1e-3 * (1 + std::abs(ref)), "window sums differ.");
  }
  std::cout << "view_from: 8 windows of [48, 64] at runtime offsets (the last one partial) match the host reference\n"
               "Test Passed\n";
}
