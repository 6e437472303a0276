// Interpret mode: a 2:4 sparse WGMMA (tests/common/sparse_mma_sources.hpp's
// kernel) against the dense product of the matrix its packed values and
// metadata bytes describe (the layout of include/croq/choreo_sparse.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/sparse_mma_sources.hpp"
#include "croq/croq.hpp"

namespace {

TEST(InterpretSparse, SparseWgmmaMatchesTheDenseProduct) {
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = "sm_90a";
  croq::test::SparseGemm gemm;  // f16, f32 accumulator, tile_k 64, tile_n 32
  croq::Kernel k = croq::compile(gemm.source(), options);
  const std::size_t M = 64, N = 40, K = 128;
  auto packed = croq::make_spandata<croq::f16>(M, K / 2);
  auto meta = croq::make_spandata<std::uint8_t>(M, K / 8);
  auto rhs = croq::make_spandata<croq::f16>(N, K);
  auto out = croq::make_spandata<croq::f32>(M, N);
  rhs.fill_random(-1.0f, 1.0f, 5);
  std::vector<float> dense(M * K, 0.0f);
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> position(0, 3);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (std::size_t r = 0; r < M; ++r)
    for (std::size_t g = 0; g < K / 4; ++g) {
      int first = position(gen), second = position(gen);
      while (second == first) second = position(gen);
      if (first > second) std::swap(first, second);
      const float a = static_cast<float>(croq::f16(value(gen))), b = static_cast<float>(croq::f16(value(gen)));
      dense[r * K + g * 4 + static_cast<std::size_t>(first)] = a;
      dense[r * K + g * 4 + static_cast<std::size_t>(second)] = b;
      packed[r][g * 2] = croq::f16(a);
      packed[r][g * 2 + 1] = croq::f16(b);
      const auto code = static_cast<std::uint8_t>(first | (second << 2));
      std::uint8_t byte = g % 2 == 0 ? 0 : static_cast<std::uint8_t>(meta[r][g / 2]);
      meta[r][g / 2] = static_cast<std::uint8_t>(g % 2 == 0 ? code : byte | (code << 4));
    }
  k(packed.view(), meta.view(), rhs.view(), out.view());
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double want = 0;
      for (std::size_t x = 0; x < K; ++x)
        want += static_cast<double>(dense[i * K + x]) * static_cast<float>(static_cast<croq::f16>(rhs[j][x]));
      ASSERT_NEAR(static_cast<float>(out[i][j]), want, 1e-4 * (1 + std::fabs(want))) << i << ", " << j;
    }
}

}  // namespace
