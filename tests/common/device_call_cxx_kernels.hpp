// Kernels that call C++ functions their source defines (__device__, a
// __cok__ block), shared by the lowering, interpret-mode and GPU tests.
#pragma once

#include <string>

namespace croq::test {

// Croqtile's "Program Structure" example in our shape: f32 tiles of both
// inputs in shared memory, a __device__ loop adds them into a shared tile.
// `call add_rows` is line 12.
inline const std::string kDeviceAddRows = R"(__device__ void add_rows(float* a, float* b, float* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

__co__ void ele_add(f32 [6, 17, 128] lhs, f32 [6, 17, 128] rhs, f32 [6, 17, 128] output) {
  parallel p by 6 {
    with index in [17, 4] {
      foreach index {
        lhs_load = dma.copy lhs.chunkat(p, index) => shared;
        rhs_load = dma.copy rhs.chunkat(p, index) => shared;
        shared f32 [lhs_load.span] l1_out;
        call add_rows(lhs_load.data, rhs_load.data, l1_out, |lhs_load.span|);
        dma.copy l1_out => output.chunkat(p, index);
      }
    }
  }
}
)";

// A template function of a __cok__ block, called with a type and a constant.
inline const std::string kDeviceTemplate = R"(__cok__ {
template <typename T, int N>
__device__ void bump(T* c, const T* a) {
  for (int i = 0; i < N; ++i) c[i] = a[i] + T(N);
}
}

__co__ void bumped(f32 [256] x, f32 [256] y) {
  parallel p by 4 {
    x_tile = dma.copy x.chunkat(p) => shared;
    shared f32 [x_tile.span] out;
    call bump<f32, 64>(out, x_tile.data);
    dma.copy out => y.chunkat(p);
  }
}
)";

// Values of C++ functions: with `call` and a template constant, and without.
inline const std::string kDeviceValues = R"(template <int K>
__device__ float weighted(float v) { return v * K; }

__device__ int clamp_code(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__co__ void mix(f32 [256] x, s32 [256] codes, f32 [256] scaled, s32 [256] clamped) {
  parallel q by 2 : block {
    parallel t by 128 : thread {
      scaled.at(q # t) = call weighted<3>(x.at(q # t));
      clamped.at(q # t) = clamp_code(codes.at(q # t), -50, 50);
    }
  }
}
)";

}  // namespace croq::test
