// A kernel that calls __co_device__ functions (Croqtile functions expanded
// where they are called): as statements at block and thread scope, and as
// values in declarations, assignments and conditions, with its host
// reference. Shared by the interpret-mode test (tests/interp) and the GPU
// test (tests/gpu).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace croq::test {

inline const char* kDeviceCallKernel = R"(__co_device__ s32 clamp_to(s32 x, s32 lo, s32 hi) {
  mutable s32 v = x;
  if (v < lo) {
    v = lo;
  }
  if (v > hi) {
    v = hi;
  }
  return v;
}

// Row r of a against b: the tensors' dims bind R and K at each call.
__co_device__ f32 row_dot(f32 [R, K] a, f32 [K] b, int r) {
  mutable f32 total = 0.0f;
  foreach k in [K] {
    total += a.at(r, k) * b.at(k);
  }
  return total;
}

__co_device__ void scale_row(f32 [K] row, f32 factor) {
  foreach k in [K] {
    row.at(k) = row.at(k) * factor;
  }
}

__co__ void device_calls(f32 [8, 32] x, f32 [32] w, s32 [8, 32] codes, f32 [8, 32] scaled, s32 [8, 32] clamped,
                         f32 [8] dots) {
  parallel b by 8 : block {
    shared f32 [32] row;
    parallel t by 32 : thread {
      row.at(t) = x.at(b, t);
    }
    sync.barrier : block;
    call scale_row(row, 0.5f);
    sync.barrier : block;
    parallel t by 32 : thread {
      scaled.at(b, t) = row.at(t);
      mutable s32 c = call clamp_to(codes.at(b, t), -50, 50);
      clamped.at(b, t) = c * 1000 + call clamp_to(codes.at(b, t), 0, t);
      if (call clamp_to(t, 0, 0) == t) {
        dots.at(b) = call row_dot(x, w, b);
      }
    }
  }
}
)";

inline std::int32_t clamp_reference(std::int32_t x, std::int32_t lo, std::int32_t hi) {
  return std::min(std::max(x, lo), hi);
}

struct DeviceCallResult {
  std::vector<float> scaled, dots;
  std::vector<std::int32_t> clamped;
};

inline DeviceCallResult device_call_reference(const std::vector<float>& x, const std::vector<float>& w,
                                              const std::vector<std::int32_t>& codes) {
  DeviceCallResult r;
  r.scaled.resize(8 * 32);
  r.clamped.resize(8 * 32);
  r.dots.assign(8, 0.0f);
  for (int b = 0; b < 8; ++b) {
    for (int t = 0; t < 32; ++t) {
      const int i = b * 32 + t;
      r.scaled[i] = x[i] * 0.5f;
      r.clamped[i] = clamp_reference(codes[i], -50, 50) * 1000 + clamp_reference(codes[i], 0, t);
      r.dots[b] += x[i] * w[t];
    }
  }
  return r;
}

// A TMA copy inside a called function: the kernel needs what the body uses
// (the Hopper prelude), as if the copy stood at the call.
inline const char* kDeviceCallTmaKernel = R"(__co_device__ void stage(f16 [64, 64] src, f16 [64, 64] dst) {
  t = tma.copy src => shared;
  dma.copy t.data => dst;
}

__co__ void h(f16 [64, 64] a, f16 [64, 64] b) {
  parallel p by 1 : block {
    call stage(a, b);
  }
}
)";

// The outputs of a run of kDeviceCallKernel against the host reference for its inputs.
inline void expect_device_call_results(const float* x, const float* w, const std::int32_t* codes, const float* scaled,
                                       const std::int32_t* clamped, const float* dots) {
  const DeviceCallResult want = device_call_reference(std::vector<float>(x, x + 8 * 32), std::vector<float>(w, w + 32),
                                                      std::vector<std::int32_t>(codes, codes + 8 * 32));
  for (std::size_t i = 0; i < 8 * 32; ++i) {
    ASSERT_EQ(scaled[i], want.scaled[i]) << "element " << i;
    ASSERT_EQ(clamped[i], want.clamped[i]) << "element " << i << ", code " << codes[i];
  }
  for (std::size_t b = 0; b < 8; ++b) EXPECT_NEAR(dots[b], want.dots[b], 1e-3f) << "row " << b;
}

}  // namespace croq::test
