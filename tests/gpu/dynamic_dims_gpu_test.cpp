// Dynamic dims on the device: one cubin, many values of M, including tails
// that are not multiples of the tile, with device and host arguments.
#include <gtest/gtest.h>

#include <random>

#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "jit/jit_compiler.hpp"

namespace croq {
namespace {

// Rows tiled by 16 through shared memory; the last tile is guarded by M.
const char* kRowSum = R"(__co__ f32 [M, 48] rowsum(f32 [M, 48] x, f32 [M, 48] y) {
  f32 [x.span] out;
  parallel t by cdiv(M, 16) : block {
    a = dma.copy x.subspan(16, 48).at(t, 0) => shared;
    b = dma.copy y.subspan(16, 48).at(t, 0) => shared;
    parallel r by 16 : thread {
      foreach c in [48]
        out.subspan(16, 48).at(t, 0).at(r, c) = a.data.at(r, c) + b.data.at(r, c);
    }
  }
  return out;
}
)";

// Both dims dynamic, one thread per element, in place.
const char* kAxpy = R"(__co__ void axpy(f32 [M, N] x, f32 [M, N] y) {
  parallel {i, j} by [M, N]
    y.at(i, j) = y.at(i, j) + 2.0f * x.at(i, j);
}
)";

std::uint64_t jit_requests() {
  auto s = jit::JitCompiler::global().stats();
  return s.nvrtc_compiles + s.memory_hits + s.disk_hits;
}

TEST(GpuDynamicDims, OneSpecializationServesEveryM) {
  CROQ_REQUIRE_GPU();
  CompileOptions options;
  options.dynamic_dims = {"M"};
  Kernel k = compile(kRowSum, options);
  std::uint64_t before = jit_requests();
  std::mt19937 rng(croq::test::next_seed());
  for (std::size_t m : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{1000},
                        std::size_t{4097}, std::size_t{1 + rng() % 3000}}) {
    auto x = make_spandata<float>(m, 48), y = make_spandata<float>(m, 48);
    x.fill_random(-50, 50, croq::test::next_seed());
    y.fill_random(-50, 50, croq::test::next_seed());
    Tensor dx = Tensor::copy_of(x.view()), dy = Tensor::copy_of(y.view());
    Tensor res = k(dx, dy);
    ASSERT_EQ(res.memory(), MemoryKind::device);
    ASSERT_EQ(res.shape(), (Shape{m, 48}));
    Tensor host = res.to_host();
    auto* got = static_cast<const float*>(host.data());
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < 48; ++j)
        ASSERT_EQ(got[i * 48 + j], static_cast<float>(x[i][j]) + static_cast<float>(y[i][j])) << "M=" << m;
  }
  EXPECT_EQ(jit_requests() - before, 1u);
}

TEST(GpuDynamicDims, BothDimsDynamicInPlaceWithHostArguments) {
  CROQ_REQUIRE_GPU();
  CompileOptions options;
  options.dynamic_dims = {"M", "N"};
  Kernel k = compile(kAxpy, options);
  std::mt19937 rng(croq::test::next_seed());
  std::uint64_t before = jit_requests();
  for (int trial = 0; trial < 5; ++trial) {
    std::size_t m = 1 + rng() % 700, n = 1 + rng() % 700;
    auto x = make_spandata<float>(m, n), y = make_spandata<float>(m, n);
    x.fill_random(-10, 10, croq::test::next_seed());
    y.fill_random(-10, 10, croq::test::next_seed());
    auto expect = make_spandata<float>(m, n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) expect[i][j] = static_cast<float>(y[i][j]) + 2.0f * static_cast<float>(x[i][j]);
    k(x.view(), y.view());
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        ASSERT_EQ(static_cast<float>(y[i][j]), static_cast<float>(expect[i][j])) << m << "x" << n;
  }
  EXPECT_EQ(jit_requests() - before, 1u);
}

}  // namespace
}  // namespace croq
