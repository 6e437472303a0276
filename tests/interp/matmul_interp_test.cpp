// Interpret mode: tiled matmuls through shared memory and barriers, and the
// Hopper samples' TMA + WGMMA + event kernels (warp specialization
// included), on small shapes with tails, against host references.
#include <gtest/gtest.h>

#include <cmath>

#include "common/files.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

TEST(InterpretMatmul, ScalarMatmulMatchesTheHost) {
  auto k = interpreted(R"croq(
__co__ s32 [32, 64] matmul(s32 [32, 48] lhs, s32 [48, 64] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel {p, q} by [4, 8] {
    foreach index = {m, n, k} in [32 / #p, 64 / #q, 48]
      output.at(p#m, q#n) += lhs.at(p#m, k) * rhs.at(k, q#n);
  }
  return output;
}
)croq");
  auto lhs = croq::make_spandata<croq::s32>(32, 48);
  auto rhs = croq::make_spandata<croq::s32>(48, 64);
  lhs.fill_random(-9, 9);
  rhs.fill_random(-9, 9);
  croq::Tensor out = k(lhs.view(), rhs.view());
  for (std::size_t i = 0; i < 32; ++i)
    for (std::size_t j = 0; j < 64; ++j) {
      std::int64_t want = 0;
      for (std::size_t x = 0; x < 48; ++x) want += std::int64_t{lhs[i][x]} * rhs[x][j];
      ASSERT_EQ(out[i][j].as_int(), want) << i << ", " << j;
    }
}

TEST(InterpretMatmul, DmaMatmulThroughSharedMemoryAndBarriers) {
  auto k = interpreted(R"croq(
__co__ s32 [32, 64] matmul(s32 [32, 64] lhs, s32 [64, 64] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel {px, py} by [2, 4] : block {
    foreach {tile_k} in [4] {
      lhs_load = dma.copy lhs.chunkat(px, tile_k) => shared;
      rhs_load = dma.copy rhs.chunkat(tile_k, py) => shared;
      parallel {qx, qy} by [16, 16] : thread {
        foreach k in [64 / #tile_k]
          output.at(px#qx, py#qy) += lhs_load.data.at(qx, k) * rhs_load.data.at(k, qy);
      }
    }
  }
  return output;
}
)croq");
  auto lhs = croq::make_spandata<croq::s32>(32, 64);
  auto rhs = croq::make_spandata<croq::s32>(64, 64);
  lhs.fill_random(-9, 9);
  rhs.fill_random(-9, 9);
  croq::Tensor out = k(lhs.view(), rhs.view());
  for (std::size_t i = 0; i < 32; ++i)
    for (std::size_t j = 0; j < 64; ++j) {
      std::int64_t want = 0;
      for (std::size_t x = 0; x < 64; ++x) want += std::int64_t{lhs[i][x]} * rhs[x][j];
      ASSERT_EQ(out[i][j].as_int(), want) << i << ", " << j;
    }
}

// lhs [M, K] times rhs [N, K] (both K-major), as the Hopper samples multiply.
void expect_nt_product(croq::spandata<croq::f16>& lhs, croq::spandata<croq::f16>& rhs,
                       croq::spandata<croq::f16>& out, std::size_t M, std::size_t N, std::size_t K,
                       double tolerance, bool f16_accumulator = false) {
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double want = 0, step = 0;
      for (std::size_t x = 0; x < K; ++x) {
        step += static_cast<double>(static_cast<float>(static_cast<croq::f16>(lhs[i][x]))) *
                static_cast<float>(static_cast<croq::f16>(rhs[j][x]));
        // An f16 accumulator is rounded after each k = 16 instruction, as on the device.
        if (!f16_accumulator) want += step, step = 0;
        else if ((x + 1) % 16 == 0 || x + 1 == K) want = static_cast<float>(croq::f16(static_cast<float>(want + step))), step = 0;
      }
      ASSERT_NEAR(static_cast<float>(static_cast<croq::f16>(out[i][j])), want, tolerance * (1 + std::fabs(want))) << i << ", " << j;
    }
}

const std::string kMatmulWgmma = croq::test::sample_source("matmul_wgmma");

TEST(InterpretMatmul, WgmmaWithTmaAndTails) {
  auto k = interpreted(kMatmulWgmma);
  const std::size_t M = 80, N = 136, K = 72;
  auto lhs = croq::make_spandata<croq::f16>(M, K);
  auto rhs = croq::make_spandata<croq::f16>(N, K);
  auto out = croq::make_spandata<croq::f16>(M, N);
  lhs.fill_random(-1.0f, 1.0f);
  rhs.fill_random(-1.0f, 1.0f);
  k(lhs.view(), rhs.view(), out.view());
  expect_nt_product(lhs, rhs, out, M, N, K, 2e-3);
}

TEST(InterpretMatmul, WarpSpecializedTmaPipelineWithEvents) {
  auto k = interpreted(croq::test::sample_source("matmul_tma"));
  // Six k steps: the four-stage ring wraps, so the events' phases turn.
  const std::size_t M = 128, N = 128, K = 384;
  auto lhs = croq::make_spandata<croq::f16>(M, K);
  auto rhs = croq::make_spandata<croq::f16>(N, K);
  auto out = croq::make_spandata<croq::f16>(M, N);
  lhs.fill_random(-1.0f, 1.0f);
  rhs.fill_random(-1.0f, 1.0f);
  k(lhs.view(), rhs.view(), out.view());
  // An f16 accumulator rounds after every instruction: so does the reference.
  expect_nt_product(lhs, rhs, out, M, N, K, 2e-3, true);
}

TEST(InterpretMatmul, PersistentKernelWithReadyEventsAndTmaStores) {
  // samples/matmul_persistent.cpp's kernel: 132 persistent blocks, a
  // producer and two consumer warpgroups, `= ready` events, TMA stores.
  auto k = interpreted(croq::test::sample_source("matmul_persistent"));
  const std::size_t M = 200, N = 300, K = 136;
  auto lhs = croq::make_spandata<croq::f16>(M, K);
  auto rhs = croq::make_spandata<croq::f16>(N, K);
  auto out = croq::make_spandata<croq::f16>(M, N);
  lhs.fill_random(-1.0f, 1.0f);
  rhs.fill_random(-1.0f, 1.0f);
  k(lhs.view(), rhs.view(), out.view());
  expect_nt_product(lhs, rhs, out, M, N, K, 2e-3);
}

TEST(InterpretMatmul, Fp8InputsWithABf16Result) {
  // samples/matmul_fp8.cpp's kernel: e4m3 x e4m3 WGMMA, f32 accumulate, bf16 out.
  auto k = interpreted(croq::test::sample_source("matmul_fp8"));
  const std::size_t M = 150, N = 260, K = 160;
  auto lhs = croq::make_spandata<croq::f8_e4m3>(M, K);
  auto rhs = croq::make_spandata<croq::f8_e4m3>(N, K);
  auto out = croq::make_spandata<croq::bf16>(M, N);
  lhs.fill_random(-2.0f, 2.0f);
  rhs.fill_random(-2.0f, 2.0f);
  k(lhs.view(), rhs.view(), out.view());
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double want = 0;
      for (std::size_t x = 0; x < K; ++x)
        want += static_cast<double>(static_cast<float>(static_cast<croq::f8_e4m3>(lhs[i][x]))) *
                static_cast<float>(static_cast<croq::f8_e4m3>(rhs[j][x]));
      // bf16 keeps 8 bits of mantissa: within 2^-8 of the value.
      ASSERT_NEAR(static_cast<float>(static_cast<croq::bf16>(out[i][j])), want, 4e-3 * (1 + std::fabs(want)))
          << i << ", " << j;
    }
}

}  // namespace
