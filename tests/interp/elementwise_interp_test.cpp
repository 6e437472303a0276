// Interpret mode (CompileOptions::interpret): the element-wise and scalar
// samples' kernels run on the CPU, compared with host references on small
// random shapes. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>

#include "common/files.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

const std::string kEleAdd = croq::test::sample_source("ele_add");

TEST(InterpretElementwise, EleAddMatchesTheHost) {
  auto k = interpreted(kEleAdd);
  auto lhs = croq::make_spandata<croq::s32>(37, 53);
  auto rhs = croq::make_spandata<croq::s32>(37, 53);
  lhs.fill_random(-100, 100);
  rhs.fill_random(-100, 100);
  croq::Tensor out = k(lhs.view(), rhs.view());
  ASSERT_EQ(out.memory(), croq::MemoryKind::host);
  for (std::size_t i = 0; i < 37; ++i)
    for (std::size_t j = 0; j < 53; ++j) ASSERT_EQ(out[i][j].as_int(), lhs[i][j] + rhs[i][j]) << i << ", " << j;
}

TEST(InterpretElementwise, TiledAddThroughSharedMemory) {
  auto k = interpreted(R"croq(
__co__ s32 [64, 128] tiled_add_2d(s32 [64, 128] lhs, s32 [64, 128] rhs) {
  s32 [lhs.span] output;
  parallel {tr, tc} by [4, 8] {
    lhs_load = dma.copy lhs.chunkat(tr, tc) => shared;
    rhs_load = dma.copy rhs.chunkat(tr, tc) => shared;
    foreach {i, j} in lhs_load.span
      output.at(tr # i, tc # j) = lhs_load.data.at(i, j) + rhs_load.data.at(i, j);
  }
  return output;
}
)croq");
  auto lhs = croq::make_spandata<croq::s32>(64, 128);
  auto rhs = croq::make_spandata<croq::s32>(64, 128);
  lhs.fill_random(-10, 10);
  rhs.fill_random(-10, 10);
  croq::Tensor out = k(lhs.view(), rhs.view());
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 128; ++j) ASSERT_EQ(out[i][j].as_int(), lhs[i][j] + rhs[i][j]);
}

TEST(InterpretElementwise, TransposeThroughSharedMemory) {
  auto k = interpreted(R"croq(
__co__ f32 [N, M] transpose(f32 [M, N] input) {
  f32 [input.span(1), input.span(0)] output;
  parallel {bm, bn} by [M / 32, N / 32] : block {
    tile = dma.transp<1, 0> input.chunkat(bm, bn) => shared;
    dma.copy tile.data => output.chunkat(bn, bm);
  }
  return output;
}
)croq");
  auto in = croq::make_spandata<croq::f32>(64, 96);
  in.fill_random(-1.0f, 1.0f);
  croq::Tensor out = k(in.view());
  ASSERT_EQ(out.shape()[0], 96u);
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 96; ++j) ASSERT_EQ(out[j][i].as_double(), in[i][j]);
}

TEST(InterpretElementwise, PadSumsEachPatch) {
  auto k = interpreted(R"croq(
#define TM 16
#define TN 32
__co__ f32 [M, N] patch_box_sum(f32 [M, N] input) {
  f32 [input.span] output;
  parallel {pm, pn} by [M / TM, N / TN] : block {
    padded = dma.pad<{1, 1}, {1, 1}, {0, 0}, 0.0f> input.chunkat(pm, pn) => shared;
    parallel {i, j} by [TM, TN] : thread {
      f32 acc = 0.0f;
      foreach {di, dj} in [3, 3]
        acc = acc + padded.data.at(i + di, j + dj);
      output.at(pm # i, pn # j) = acc;
    }
  }
  return output;
}
)croq");
  const std::size_t M = 32, N = 64;
  auto in = croq::make_spandata<croq::f32>(M, N);
  in.fill_random(-1.0f, 1.0f);
  croq::Tensor out = k(in.view());
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      // Each 16 x 32 patch sums its 3 x 3 neighbourhoods within the patch (zero outside it).
      const long pi = static_cast<long>(i / 16 * 16), pj = static_cast<long>(j / 32 * 32);
      float want = 0;
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj) {
          const long r = static_cast<long>(i) + di, c = static_cast<long>(j) + dj;
          if (r < pi || r >= pi + 16 || c < pj || c >= pj + 32) continue;
          want = want + static_cast<float>(in[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)]);
        }
      ASSERT_NEAR(out[i][j].as_double(), want, 1e-5) << i << ", " << j;
    }
}

TEST(InterpretElementwise, RowScaleRunsThreeKernelsWithGlobalBuffers) {
  auto k = interpreted(R"croq(
__co__ f32 [M, N] row_scale(f32 [M, N] x) {
  global f32 [M] mean;
  global f32 [M] peak;
  f32 [x.span] out;
  parallel r by M {
    f32 sum = 0.0f;
    foreach c in [N]
      sum += x.at(r, c);
    mean.at(r) = sum / N;
  }
  parallel r by M {
    f32 top = 0.0f;
    foreach c in [N] {
      f32 d = x.at(r, c) - mean.at(r);
      f32 a = d < 0.0f ? 0.0f - d : d;
      if (a > top) top = a;
    }
    peak.at(r) = top;
  }
  parallel {i, j} by [M, N]
    out.at(i, j) = (x.at(i, j) - mean.at(i)) / peak.at(i);
  return out;
}
)croq");
  const std::size_t M = 9, N = 40;
  auto x = croq::make_spandata<croq::f32>(M, N);
  x.fill_random(-2.0f, 2.0f);
  croq::Tensor out = k(x.view());
  for (std::size_t i = 0; i < M; ++i) {
    float sum = 0;
    for (std::size_t j = 0; j < N; ++j) sum += static_cast<float>(x[i][j]);
    const float mean = sum / static_cast<float>(N);
    float top = 0;
    for (std::size_t j = 0; j < N; ++j) top = std::max(top, std::fabs(static_cast<float>(x[i][j]) - mean));
    for (std::size_t j = 0; j < N; ++j)
      ASSERT_NEAR(out[i][j].as_double(), (static_cast<float>(x[i][j]) - mean) / top, 1e-5);
  }
}

TEST(InterpretElementwise, ViewFromZeroFillsPastTheTensor) {
  auto k = interpreted(R"croq(
#define ROWS 48
#define COLS 64
__co__ f32 [W] window_sums(f32 [R, C] input, f32 [W] unused_shape) {
  f32 [unused_shape.span] output;
  parallel w by W : block {
    tile = dma.copy.zfill input.view(ROWS, COLS).from(w * 40, 3) => shared;
    parallel t by 1 : thread {
      f32 acc = 0.0f;
      foreach {i, j} in tile.span
        acc = acc + tile.data.at(i, j);
      output.at(w) = acc;
    }
  }
  return output;
}
)croq");
  const std::size_t R = 100, C = 60, W = 3;
  auto in = croq::make_spandata<croq::f32>(R, C);
  in.fill_random(-1.0f, 1.0f);
  auto shape = croq::make_spandata<croq::f32>(W);
  croq::Tensor out = k(in.view(), shape.view());
  for (std::size_t w = 0; w < W; ++w) {
    double want = 0;
    for (std::size_t i = w * 40; i < w * 40 + 48 && i < R; ++i)
      for (std::size_t j = 3; j < 3 + 64 && j < C; ++j) want += static_cast<double>(in[i][j]);
    ASSERT_NEAR(out[w].as_double(), want, 1e-3) << w;
  }
}

TEST(InterpretElementwise, DeviceTensorsAreRefusedWithAClearMessage) {
  auto k = interpreted(kEleAdd);
  int dummy[4] = {};
  croq::TensorView device = croq::TensorView::contiguous(dummy, croq::DType::s32, {2, 2}, croq::MemoryKind::device);
  try {
    k(device, device);
    FAIL() << "expected an ArgumentError";
  } catch (const croq::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 'lhs': s32 [2, 2] (device 0) is device memory; interpret mode "
                                         "(CROQ_INTERPRET, CompileOptions::interpret) runs on the CPU and takes host "
                                         "tensors"),
              std::string::npos)
        << e.what();
  }
}

TEST(InterpretElementwise, CooperativeLaunchSeesTheOtherBlocksWrites) {
  // Each block reads what the other wrote before the grid barrier.
  auto k = interpreted(R"croq(
__co__ s32[2] coop_grid_sync() {
  s32[2] a;
  s32[2] b;
  parallel bx by 2 : block<cooperative> {
    a.at(bx) = bx + 1;
    sync.barrier : block;
    b.at(bx) = a.at(1 - bx);
  }
  return b;
}
)croq");
  croq::Tensor out = k();
  EXPECT_EQ(out[0].as_int(), 2);
  EXPECT_EQ(out[1].as_int(), 1);
}

TEST(InterpretElementwise, InlinePtxIsRefusedAtItsLine) {
  auto k = interpreted(R"croq(
__co__ s32 [1] copy(s32 val) {
  s32[1] output;
  parallel p by 1 {
    __asm__ volatile("mov.u32 %0, %1;" : "=r"(output.at(p)) : "r"(val) : "memory");
  }
  return output;
}
)croq");
  try {
    k(7);
    FAIL() << "expected an InterpretError";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), 5) << e.what();
    EXPECT_NE(std::string(e.what()).find("interpret mode cannot run inline PTX (__asm__); run this program on the GPU"),
              std::string::npos)
        << e.what();
  }
}

TEST(InterpretHazards, OutOfBoundsReadIsAnErrorAtItsLine) {
  auto k = interpreted(R"croq(
__co__ s32 [M, N] shifted(s32 [M, N] lhs, int off) {
  s32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j + off);
  return output;
}
)croq");
  auto lhs = croq::make_spandata<croq::s32>(4, 8);
  lhs.fill_random(-10, 10);
  try {
    k(lhs.view(), -1);  // lowering guards the high side of the read, not the low one
    FAIL() << "expected an InterpretError";
  } catch (const croq::InterpretError& e) {
    EXPECT_EQ(e.line(), 5) << e.what();
    EXPECT_NE(std::string(e.what()).find("out-of-bounds read of `lhs` at [0, -1]: dimension 1 has 8 elements"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
