// Tiled addition through shared memory (chapter 2): chunkat selects a tile,
// dma.copy stages it in shared memory, # maps tile coordinates back.
#include <croq/croq.hpp>

#include <iostream>

static const char* kSource = R"croq(
__co__ s32 [64, 128] tiled_add_2d(s32 [64, 128] lhs, s32 [64, 128] rhs) {
  s32 [lhs.span] output;

  parallel {tr, tc} by [4, 8] {
    lhs_load = dma.copy lhs.chunkat(tr, tc) => shared;
    rhs_load = dma.copy rhs.chunkat(tr, tc) => shared;

    foreach {i, j} in lhs_load.span
      output.at(tr # i, tc # j) =
          lhs_load.data.at(i, j) + rhs_load.data.at(i, j);
  }

  return output;
}
)croq";

int main() {
  auto tiled_add = croq::compile(kSource);
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "tiled_add: compiled `" << tiled_add.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  auto lhs = croq::make_spandata<croq::s32>(64, 128);
  auto rhs = croq::make_spandata<croq::s32>(64, 128);
  lhs.fill_random(-10, 10);
  rhs.fill_random(-10, 10);

  auto res = tiled_add(lhs.view(), rhs.view());

  for (size_t i = 0; i < res.shape()[0]; ++i)
    for (size_t j = 0; j < res.shape()[1]; ++j)
      croq::croq_assert(lhs[i][j] + rhs[i][j] == res[i][j], "values are not equal.");

  std::cout << "tiled_add: [64, 128] tiles of [16, 16] through shared memory match the host reference\nTest Passed\n";
}
