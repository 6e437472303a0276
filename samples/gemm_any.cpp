// One GEMM for every shape (samples/gemm_any.hpp): C = A * B^T in f16 and
// bf16 at decode-like, prefill-like and awkward shapes, each run with the
// configuration chosen for its shape (split K for small M, smaller tiles
// where large ones leave SMs idle, 128 x 256 tiles for large M), and checked
// against a host reference on random data (samples/gemm_check.hpp:
// relative Frobenius error <= 1e-2 and every element within its bound).
#include <iostream>

#include <croq/croq.hpp>

#include "gemm_any.hpp"
#include "gemm_check.hpp"

int main() {
  std::string why;
  gemm_any::Gemm gemm;
  if (!croq::cuda_available(&why)) {
    gemm.kernel("f16", gemm.config_for(16, 4096, 4096));  // compiles the text of a split-K configuration
    std::cout << "gemm_any: compiled, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  // M = 1 and 16 (split K), 64 and 200 (a tail row of tiles), a tail in
  // every dimension, and a large M (128 x 256 tiles, several per block).
  const GemmShape shapes[] = {{1, 1024, 2048}, {16, 4096, 4096}, {64, 1536, 4096}, {200, 1000, 1032},
                              {333, 520, 776},  {1024, 2048, 1024}, {2304, 2304, 192}};
  for (const GemmShape& s : shapes)
    std::cout << "gemm_any: [" << s.m << ", " << s.k << "] x [" << s.n << ", " << s.k << "]^T runs "
              << gemm.config_for(s.m, s.n, s.k).name() << "\n";
  check_gemm_shapes<croq::f16, croq::f16>("gemm_any f16", gemm, shapes);
  check_gemm_shapes<croq::bf16, croq::bf16>("gemm_any bf16", gemm, shapes);
  std::cout << "Test Passed\n";
  return 0;
}
