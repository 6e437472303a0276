// The block-scale section of the device prelude: scale_accum<N> for
// mma.scale, over a warpgroup's WGMMA accumulator fragments.
#ifndef CROQ_PRELUDE_HOPPER_SCALE_CUH
#define CROQ_PRELUDE_HOPPER_SCALE_CUH
#include "hopper_accumulators.cuh"
// ===== croq hopper prelude: block scales (mma.scale) =====
namespace croq_dev {
// acc += partial * scale_a[row * stride] * scale_b over this thread's part
// of a warpgroup's 64 x N WGMMA fragments (rows accum_row(t, 0) and 8
// below); rows >= `rows` (past a tail) add nothing. f16 accumulators are
// widened, added in f32 and rounded back.
template <int N>
__device__ __forceinline__ void scale_accum(float (&acc)[N / 2], const float (&partial)[N / 2], const float* scale_a,
                                            long long stride, long long rows, float scale_b) {
  const int r0 = accum_row(static_cast<int>(threadIdx.x % 128), 0), r1 = r0 + 8;
  const float s0 = r0 < rows ? scale_a[r0 * stride] * scale_b : 0.0f;
  const float s1 = r1 < rows ? scale_a[r1 * stride] * scale_b : 0.0f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc[i] += partial[i] * (((i >> 1) & 1) ? s1 : s0);
}
template <int N>
__device__ __forceinline__ void scale_accum(u32 (&acc)[N / 4], const u32 (&partial)[N / 4], const float* scale_a,
                                            long long stride, long long rows, float scale_b) {
  const int r0 = accum_row(static_cast<int>(threadIdx.x % 128), 0), r1 = r0 + 8;
  const float s0 = r0 < rows ? scale_a[r0 * stride] * scale_b : 0.0f;
  const float s1 = r1 < rows ? scale_a[r1 * stride] * scale_b : 0.0f;
#pragma unroll
  for (int k = 0; k < N / 4; ++k) {  // register k: a pair of columns of row r0 (k even) or r1 (k odd)
    const float s = (k & 1) ? s1 : s0;
    const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&acc[k]));
    const float2 p = __half22float2(*reinterpret_cast<const __half2*>(&partial[k]));
    const __half2 r = __floats2half2_rn(a.x + p.x * s, a.y + p.y * s);
    acc[k] = *reinterpret_cast<const u32*>(&r);
  }
}
}  // namespace croq_dev
// ===== end of croq hopper prelude: block scales =====
#endif  // CROQ_PRELUDE_HOPPER_SCALE_CUH
