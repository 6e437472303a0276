// Transpose with dma.transp<1, 0>: each block moves one [32, 32] tile.
#include <croq/croq.hpp>

#include <iostream>

static const char* kSource = R"croq(
__co__ f32 [N, M] transpose(f32 [M, N] input) {
  f32 [input.span(1), input.span(0)] output;

  parallel {bm, bn} by [M / 32, N / 32] : block {
    tile = dma.transp<1, 0> input.chunkat(bm, bn) => shared;
    dma.copy tile.data => output.chunkat(bn, bm);
  }

  return output;
}
)croq";

int main() {
  auto transpose = croq::compile(kSource);
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "transpose: compiled `" << transpose.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  auto input = croq::make_spandata<float>(256, 512);
  input.fill_random(-1, 1);

  auto res = transpose(input.view());

  croq::croq_assert(res.shape()[0] == 512 && res.shape()[1] == 256, "wrong result shape.");
  for (size_t i = 0; i < 256; ++i)
    for (size_t j = 0; j < 512; ++j)
      croq::croq_assert(static_cast<float>(input[i][j]) == res[j][i], "values are not equal.");

  std::cout << "transpose: [256, 512] -> [512, 256] matches the host reference\nTest Passed\n";
}
