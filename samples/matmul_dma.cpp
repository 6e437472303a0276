// The tutorial's DMA matmul (chapter 3): K-tiles of lhs and rhs staged in
// shared memory by dma.copy, 128 blocks of 256 threads. The host code is the
// tutorial's, plus the line that compiles the kernel.
#include <croq/croq.hpp>

#include <iostream>

static const char* kSource = R"croq(
__co__ s32 [128, 256] matmul(s32 [128, 256] lhs, s32 [256, 256] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;

  parallel {px, py} by [8, 16] : block {
    foreach {tile_k} in [16] {
      lhs_load = dma.copy lhs.chunkat(px, tile_k) => shared;
      rhs_load = dma.copy rhs.chunkat(tile_k, py) => shared;

      parallel {qx, qy} by [16, 16] : thread {
        foreach k in [256 / #tile_k]
          output.at(px#qx, py#qy) += lhs_load.data.at(qx, k) * rhs_load.data.at(k, qy);
      }
    }
  }

  return output;
}
)croq";

int main() {
  auto matmul = croq::compile(kSource);  // the one added line
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "matmul_dma: compiled `" << matmul.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  auto lhs = croq::make_spandata<croq::s32>(128, 256);
  auto rhs = croq::make_spandata<croq::s32>(256, 256);
  lhs.fill_random(-10, 10);
  rhs.fill_random(-10, 10);

  auto res = matmul(lhs.view(), rhs.view());

  for (size_t i = 0; i < res.shape()[0]; ++i)
    for (size_t j = 0; j < res.shape()[1]; ++j) {
      int ref = 0;
      for (size_t k = 0; k < lhs.shape()[1]; ++k)
        ref += lhs[i][k] * rhs[k][j];
      croq::croq_assert(ref == res[i][j], "values are not equal.");
    }

  std::cout << "matmul_dma: [128, 256] x [256, 256] on the GPU matches the host reference; res[37][50] = "
            << res[37][50].as<int>() << "\nTest Passed\n";
}
