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

// Intrinsic passthrough (`#pragma croq intrinsic`): bare calls whose name a
// registration in scope matches go to the CUDA text verbatim. A prefix
// registered at file scope (`hw_`, a __device__ function of the source) and
// a namespace registered in the function (`lanes`, of a __cok__ block).
// `hw_scale` is line 17, `lanes::add` line 18.
inline const std::string kIntrinsicCalls = R"(__device__ void hw_scale(float* p, int n, float s) {
  for (int i = 0; i < n; ++i) p[i] = p[i] * s;
}

__cok__ {
namespace lanes {
__device__ void add(float* p, int n, float v) { for (int i = 0; i < n; ++i) p[i] += v; }
}
}

#pragma croq intrinsic prefix hw_

__co__ void scaled(f32 [256] x, f32 [256] y) {
  #pragma croq intrinsic namespace lanes
  parallel p by 4 {
    x_tile = dma.copy x.chunkat(p) => shared;
    hw_scale(x_tile.data, |x_tile.span|, 2.5f);
    lanes::add(x_tile.data, |x_tile.span|, 1.0f);
    dma.copy x_tile.data => y.chunkat(p);
  }
}
)";

// A warpgroup's accumulator and a register fragment passed to a __device__
// function: by reference, each thread its own registers (64 of the [64, 128]
// accumulator, 2 of the [64] fragment). C = A * B^T + 0.5 + 2 * 0.25: an
// apply reads the fragment's rows after the call wrote them.
inline const std::string kRegistersByReference = R"(__device__ void add_bias(float* registers, int n, float bias) {
  for (int i = 0; i < n; ++i) registers[i] += bias;
}

__co__ void biased_gemm(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block {
    parallel p by 1 : group-4 {
      frag f32 [64] quarter {0.0f};
      call add_bias(quarter, 2, 0.25f);
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 64)] {
        a = dma.copy.swiz<128> lhs.subspan(64, 64).at(block_m, iv_k).zfill => shared;
        b = dma.copy.swiz<128> rhs.subspan(128, 64).at(block_n, iv_k).zfill => shared;
        mma.row.row mc, a.data, b.data;
        mma.commit;
      }
      call add_bias(mc, 64, 0.5f);
      apply {i, j} in mc.span
        mc.at(i, j) += 2.0f * quarter.at(i);
      mma.store mc, output.subspan(64, 128).at(block_m, block_n);
    }
  }
}
)";

}  // namespace croq::test
