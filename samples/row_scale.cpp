// A program of three kernels: center each row of x on its mean and scale it
// into [-1, 1] by its largest deviation. The kernels run in source order on
// one stream and pass the row means and peaks through `global` buffers that
// the runtime allocates for the call.
#include <croq/croq.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

static const char* kSource = R"croq(
__co__ f32 [M, N] row_scale(f32 [M, N] x) {
  global f32 [M] mean;
  global f32 [M] peak;
  f32 [x.span] out;

  // Kernel 1: the mean of each row.
  parallel r by M {
    f32 sum = 0.0f;
    foreach c in [N]
      sum += x.at(r, c);
    mean.at(r) = sum / N;
  }

  // Kernel 2: the largest deviation from it.
  parallel r by M {
    f32 top = 0.0f;
    foreach c in [N] {
      f32 d = x.at(r, c) - mean.at(r);
      f32 a = d < 0.0f ? 0.0f - d : d;
      if (a > top) top = a;
    }
    peak.at(r) = top;
  }

  // Kernel 3: every element, centered and scaled.
  parallel {i, j} by [M, N]
    out.at(i, j) = (x.at(i, j) - mean.at(i)) / peak.at(i);

  return out;
}
)croq";

int main() {
  auto row_scale = croq::compile(kSource);
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "row_scale: compiled `" << row_scale.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  const std::size_t m = 300, n = 517;  // neither a multiple of a block
  auto x = croq::make_spandata<float>(m, n);
  x.fill_random(-50, 50);
  auto res = row_scale(x.view());
  croq::croq_assert(res.shape() == croq::Shape{m, n}, "the result has the shape of x");

  // Host reference, summing in the kernel's order.
  double worst = 0;
  for (std::size_t i = 0; i < m; ++i) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) sum += static_cast<float>(x[i][j]);
    const float mean = sum / static_cast<float>(n);
    float peak = 0.0f;
    for (std::size_t j = 0; j < n; ++j) peak = std::max(peak, std::fabs(static_cast<float>(x[i][j]) - mean));
    for (std::size_t j = 0; j < n; ++j) {
      const double want = (static_cast<float>(x[i][j]) - mean) / peak;
      worst = std::max(worst, std::fabs(want - static_cast<float>(res[i][j])));
    }
  }
  croq::croq_assert(worst < 1e-5, "row_scale differs from the host reference");
  std::cout << "row_scale: [" << m << ", " << n << "] in three kernels matches the host reference (max error " << worst
            << ")\nTest Passed\n";
}
