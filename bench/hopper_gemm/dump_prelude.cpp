// Writes croq::backend::cuda::hopper_prelude() to stdout, so that the reference
// GEMM (gemm.cu) compiles against exactly the text generated kernels get.
#include <iostream>

#include "backend/cuda/hopper_prelude.hpp"

int main() {
  std::cout << croq::backend::cuda::hopper_prelude();
  return 0;
}
