// Writes croq::codegen::hopper_prelude() to stdout, so that the reference
// GEMM (gemm.cu) compiles against exactly the text generated kernels get.
#include <iostream>

#include "codegen/hopper_prelude.hpp"

int main() {
  std::cout << croq::codegen::hopper_prelude();
  return 0;
}
