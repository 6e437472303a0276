// Interpret mode: tiled matmuls through shared memory and barriers, and the
// Hopper samples' TMA + WGMMA + event kernels (warp specialization
// included), on small shapes with tails, against host references.
#include <gtest/gtest.h>

#include <cmath>

#include "croq/croq.hpp"

namespace {

croq::Kernel interpreted(const char* source) {
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = "sm_90a";
  return croq::compile(source, options);
}

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

const char* kMatmulWgmma = R"croq(
#define WM 64
#define WN 128
#define TK 64

__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, WM), cdiv(N, WN)] : block {
    parallel p by 1 : group-4 {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, TK)] {
        a = tma.copy.swiz<128> lhs.subspan(WM, TK).at(block_m, iv_k).zfill => shared;
        b = tma.copy.swiz<128> rhs.subspan(WN, TK).at(block_n, iv_k).zfill => shared;
        ma = mma.load.swiz<128> a.data;
        mb = mma.load.swiz<128> b.data;
        mma.row.row mc, ma, mb;
        mma.commit;
      }
      mma.store mc, output.subspan(WM, WN).at(block_m, block_n);
    }
  }
}
)croq";

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
  auto k = interpreted(R"croq(
#define WARP_M 64
#define WARP_N 128
#define TILE_K 64
#define WARP_K 16
#define STAGES 4

__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, WARP_M), cdiv(N, WARP_N)] : block {
    shared event full[STAGES], empty[STAGES];
    shared f16 [WARP_M, TILE_K] lhs_load_s[STAGES];
    shared f16 [WARP_N, TILE_K] rhs_load_s[STAGES];
    shared f16 [WARP_M, WARP_N] output_s;
    parallel p1 by 2 : group-4 {
      inthreads.async (p1 == 0) {
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          stage = iv_k % STAGES;
          wait empty[stage];
          tma.copy.swiz<3> lhs.subspan(WARP_M, TILE_K).at(block_m, iv_k) => lhs_load_s[stage];
          tma.copy.swiz<3> rhs.subspan(WARP_N, TILE_K).at(block_n, iv_k) => rhs_load_s[stage];
          trigger full[stage];
        }
      }
      inthreads.async (p1 == 1) {
        mc = mma.fill.f16 0.0f;
        foreach {s} in [STAGES] { trigger empty[s]; }
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          stage = iv_k % STAGES;
          wait full[stage];
          foreach {iv_warp} in [cdiv(TILE_K, WARP_K)] {
            ma = mma.load.swiz<3> lhs_load_s[stage].chunkat(_, iv_warp);
            mb = mma.load.swiz<3> rhs_load_s[stage].chunkat(_, iv_warp);
            mma.row.row mc, ma, mb;
          }
          mma.commit;
          trigger empty[stage];
        }
        mma.store mc, output_s;
        dma.copy output_s => output.subspan(WARP_M, WARP_N).at(block_m, block_n);
      }
    }
  }
}
)croq");
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
  auto k = interpreted(R"croq(
#define BM 128
#define BN 256
#define TK 64
#define STAGES 3
#define NUM_SMS 132
#define GROUP 8

__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel block_id by NUM_SMS : block {
    shared event full[STAGES], empty[STAGES] = ready;
    shared f16 [BM, TK] lhs_s[STAGES];
    shared f16 [BN, TK] rhs_s[STAGES];
    shared f16 [BM, BN] out_s;
    parallel p by 3 : group-4 {
      inthreads.async (p == 0) {
        foreach {tile_iter} in [cdiv(cdiv(M, BM) * cdiv(N, BN), NUM_SMS)] {
          tile = tile_iter # block_id;
          if (tile < cdiv(M, BM) * cdiv(N, BN)) {
            first_m = tile / (GROUP * cdiv(N, BN)) * GROUP;
            rows = cdiv(M, BM) - first_m < GROUP ? cdiv(M, BM) - first_m : GROUP;
            bm = first_m + tile % (GROUP * cdiv(N, BN)) % rows;
            bn = tile % (GROUP * cdiv(N, BN)) / rows;
            foreach {iv_k} in [cdiv(K, TK)] {
              stage = iv_k % STAGES;
              wait empty[stage];
              tma.copy.swiz<128> lhs.subspan(BM, TK).at(bm, iv_k).zfill => lhs_s[stage];
              tma.copy.swiz<128> rhs.subspan(BN, TK).at(bn, iv_k).zfill => rhs_s[stage];
              trigger full[stage];
            }
          }
        }
      }
      inthreads.async (p >= 1) {
        foreach {tile_iter} in [cdiv(cdiv(M, BM) * cdiv(N, BN), NUM_SMS)] {
          tile = tile_iter # block_id;
          if (tile < cdiv(M, BM) * cdiv(N, BN)) {
            first_m = tile / (GROUP * cdiv(N, BN)) * GROUP;
            rows = cdiv(M, BM) - first_m < GROUP ? cdiv(M, BM) - first_m : GROUP;
            bm = first_m + tile % (GROUP * cdiv(N, BN)) % rows;
            bn = tile % (GROUP * cdiv(N, BN)) / rows;
            mc = mma.fill.f32 0.0f;
            foreach {iv_k} in [cdiv(K, TK)] {
              stage = iv_k % STAGES;
              wait full[stage];
              mma.row.row mc, lhs_s[stage].subspan(64, TK).at(p - 1, 0), rhs_s[stage];
              trigger empty[stage];
            }
            // Through shared memory and a TMA store: the warpgroup goes on to
            // the next tile while the copy engine writes this one.
            mma.store mc, out_s.subspan(64, BN).at(p - 1, 0);
            tma.copy out_s.subspan(64, BN).at(p - 1, 0) => output.subspan(BM, BN).at(bm, bn).subspan(64, BN).at(p - 1, 0);
          }
        }
      }
    }
  }
}
)croq");
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
  auto k = interpreted(R"croq(
#define BM 128
#define BN 256
#define TK 128
#define STAGES 3
#define NUM_SMS 132
#define GROUP 8

__co__ void matmul(global f8_e4m3 [M, K] lhs, global f8_e4m3 [N, K] rhs, global bf16 [M, N] output) {
  parallel block_id by NUM_SMS : block {
    shared event full[STAGES], empty[STAGES] = ready;
    shared f8_e4m3 [BM, TK] lhs_s[STAGES];
    shared f8_e4m3 [BN, TK] rhs_s[STAGES];
    shared bf16 [BM, BN] out_s;
    parallel p by 3 : group-4 {
      inthreads.async (p == 0) {
        foreach {tile_iter} in [cdiv(cdiv(M, BM) * cdiv(N, BN), NUM_SMS)] {
          tile = tile_iter # block_id;
          if (tile < cdiv(M, BM) * cdiv(N, BN)) {
            first_m = tile / (GROUP * cdiv(N, BN)) * GROUP;
            rows = cdiv(M, BM) - first_m < GROUP ? cdiv(M, BM) - first_m : GROUP;
            bm = first_m + tile % (GROUP * cdiv(N, BN)) % rows;
            bn = tile % (GROUP * cdiv(N, BN)) / rows;
            foreach {iv_k} in [cdiv(K, TK)] {
              stage = iv_k % STAGES;
              wait empty[stage];
              tma.copy.swiz<128> lhs.subspan(BM, TK).at(bm, iv_k).zfill => lhs_s[stage];
              tma.copy.swiz<128> rhs.subspan(BN, TK).at(bn, iv_k).zfill => rhs_s[stage];
              trigger full[stage];
            }
          }
        }
      }
      inthreads.async (p >= 1) {
        foreach {tile_iter} in [cdiv(cdiv(M, BM) * cdiv(N, BN), NUM_SMS)] {
          tile = tile_iter # block_id;
          if (tile < cdiv(M, BM) * cdiv(N, BN)) {
            first_m = tile / (GROUP * cdiv(N, BN)) * GROUP;
            rows = cdiv(M, BM) - first_m < GROUP ? cdiv(M, BM) - first_m : GROUP;
            bm = first_m + tile % (GROUP * cdiv(N, BN)) % rows;
            bn = tile % (GROUP * cdiv(N, BN)) / rows;
            mc = mma.fill.f32 0.0f;
            foreach {iv_k} in [cdiv(K, TK)] {
              stage = iv_k % STAGES;
              wait full[stage];
              mma.row.row mc, lhs_s[stage].subspan(64, TK).at(p - 1, 0), rhs_s[stage];
              trigger empty[stage];
            }
            mma.store mc, out_s.subspan(64, BN).at(p - 1, 0);
            tma.copy out_s.subspan(64, BN).at(p - 1, 0) => output.subspan(BM, BN).at(bm, bn).subspan(64, BN).at(p - 1, 0);
          }
        }
      }
    }
  }
}
)croq");
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
