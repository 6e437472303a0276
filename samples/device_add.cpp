// A __device__ function called from Croqtile (the shape of Croqtile's
// "Program Structure" example): each block stages tiles of both inputs in
// shared memory, a C++ function adds them element by element into a shared
// tile, and dma.copy writes that tile back. `call` passes each tile as the
// pointer to its first element and |t.span| as its element count.
#include <croq/croq.hpp>

#include <iostream>

static const char* kSource = R"croq(
__device__ void add_elements(const int* a, const int* b, int* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

__co__ s32 [4, 16, 64] device_add(s32 [4, 16, 64] lhs, s32 [4, 16, 64] rhs) {
  s32 [lhs.span] output;
  parallel p by 4 {
    with index in [16, 4] {
      foreach index {
        lhs_tile = dma.copy lhs.chunkat(p, index) => shared;
        rhs_tile = dma.copy rhs.chunkat(p, index) => shared;
        shared s32 [lhs_tile.span] sum;
        call add_elements(lhs_tile.data, rhs_tile.data, sum, |lhs_tile.span|);
        dma.copy sum => output.chunkat(p, index);
      }
    }
  }
  return output;
}
)croq";

int main() {
  auto device_add = croq::compile(kSource);
  std::string why;
  if (!croq::cuda_available(&why)) {
    std::cout << "device_add: compiled `" << device_add.name() << "`, but running it needs a CUDA GPU (" << why << ")\n";
    return 0;
  }

  auto lhs = croq::make_spandata<croq::s32>(4, 16, 64);
  auto rhs = croq::make_spandata<croq::s32>(4, 16, 64);
  lhs.fill_random(-1000, 1000);
  rhs.fill_random(-1000, 1000);

  auto res = device_add(lhs.view(), rhs.view());

  for (size_t p = 0; p < 4; ++p)
    for (size_t i = 0; i < 16; ++i)
      for (size_t j = 0; j < 64; ++j)
        croq::croq_assert(lhs[p][i][j] + rhs[p][i][j] == res[p][i][j], "values are not equal.");

  std::cout << "device_add: [4, 16, 64] + [4, 16, 64] through a __device__ function matches the host reference\n"
               "Test Passed\n";
}
