// Element-wise u8 kernels (out = a + b) in every mapping lowering has, for
// the tensors past 2^31 elements of tests/gpu/large_tensor_gpu_test.cpp and
// tests/lower/large_index_emulation_test.cpp.
#pragma once

namespace croq::test {

// One thread per element, 256 per block (flat).
inline constexpr const char* kLargeFlatAdd = R"(__co__ void add(u8 [N] a, u8 [N] b, u8 [N] out) {
  parallel i by N
    out.at(i) = a.at(i) + b.at(i);
}
)";

// One block per element: past 2^31 - 1 blocks the kernel loops over block indices.
inline constexpr const char* kLargeBlockAdd = R"(__co__ void add(u8 [N] a, u8 [N] b, u8 [N] out) {
  parallel p by N : block
    out.at(p) = a.at(p) + b.at(p);
}
)";

// Tiles of 4096 through shared memory: origins t * 4096 pass 2^31 and the
// last tile is a guarded tail.
inline constexpr const char* kLargeTiledAdd = R"(__co__ void add(u8 [N] a, u8 [N] b, u8 [N] out) {
  parallel t by cdiv(N, 4096) : block {
    ta = dma.copy a.subspan(4096).at(t).zfill => shared;
    tb = dma.copy b.subspan(4096).at(t).zfill => shared;
    parallel r by 256 : thread {
      foreach k in [16]
        out.subspan(4096).at(t).at(k # r) = ta.data.at(k # r) + tb.data.at(k # r);
    }
  }
}
)";

// Two dims whose product passes 2^31: row-major decomposition and strides.
inline constexpr const char* kLargeTwoDimAdd = R"(__co__ void add(u8 [M, N] a, u8 [M, N] b, u8 [M, N] out) {
  parallel {i, j} by [M, N]
    out.at(i, j) = a.at(i, j) + b.at(i, j);
}
)";

}  // namespace croq::test
