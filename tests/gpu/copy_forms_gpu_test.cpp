// Copy and loop forms of Croqtile's end-to-end programs on the device:
// `.subspan` copies without `.at`, zero-filled larger destinations, one
// loop index over several dimensions, group levels outside any block, TMA
// in a one-thread level and into the returned tensor, swapped and rotated
// futures, `y(-1)`, range loops. Random
// inputs, outputs poisoned before each launch, exact host references.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "common/chunk_kernel.hpp"
#include "common/foreach_local_name_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

// Launches `k` on `args` into a device output of `shape`, filled with 0xff
// bytes first so an element the kernel does not write cannot pass.
template <std::size_t N>
Tensor run_poisoned(Kernel& k, const std::array<Arg, N>& args, DType dtype, Shape shape) {
  Tensor out = Tensor::empty(dtype, shape, MemoryKind::device);
  CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(out.data()), 0xff, out.bytes());
  TensorView out_view = out.view();
  LaunchOptions options;
  options.output = &out_view;
  k.launch(args, options);
  CROQ_CU(cuCtxSynchronize);
  return out.to_host();
}

TEST(GpuCopyForms, SubspanWithoutAtCopiesTheFirstTile) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [3, 4, 8] first(s32 [5, 4, 16] a) {
  s32 [3, 4, 8] out;
  parallel p by 1 : block
    parallel q by 32 : thread {
      t = dma.copy a.subspan(3, 4, 8) => shared;
      dma.copy t => out;
    }
  return out;
}
)");
  auto a = make_spandata<s32>(5, 4, 16);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{3, 4, 8});
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t l = 0; l < 8; ++l) ASSERT_EQ(got[i][j][l], a[i][j][l]) << i << "," << j << "," << l;
}

// The row the source does not cover is zero; a runtime-sized source too.
TEST(GpuCopyForms, LargerDestinationIsZeroFilled) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ f32 [16, 32] grow(f32 [M, N] a) {
  f32 [16, 32] out;
  parallel p by 1 : block
    parallel q by 32 : thread {
      shared f32 [16, 32] buf;
      dma.copy a.subspan(13, 32) => buf.subspan(16, 32);
      dma.copy buf => out;
    }
  return out;
}
)");
  auto a = make_spandata<float>(20, 40);
  a.fill_random(-10, 10, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::f32, Shape{16, 32});
  for (std::size_t i = 0; i < 16; ++i)
    for (std::size_t j = 0; j < 32; ++j)
      ASSERT_EQ(static_cast<float>(got[i][j]), i < 13 ? static_cast<float>(a[i][j]) : 0.0f) << i << "," << j;
}

// `foreach x in t.span`: one index for the three dimensions of a local tile.
TEST(GpuCopyForms, OneLoopIndexOverATileAddsLocalTiles) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [6, 17, 64] add(s32 [6, 17, 64] lhs, s32 [6, 17, 64] rhs) {
  s32 [lhs.span] out;
  parallel p by 6, q by 64 {
    l = dma.copy lhs.chunkat(p, _, q) => local;
    r = dma.copy rhs.chunkat(p, _, q) => local;
    local s32 [l.span] sum;
    foreach x in l.span
      sum.at(x) = l.data.at(x) + r.data.at(x) * 3;
    dma.copy sum => out.chunkat(p, _, q);
  }
  return out;
}
)");
  auto a = make_spandata<s32>(6, 17, 64), b = make_spandata<s32>(6, 17, 64);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  b.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device), db = Tensor::copy_of(b.view(), MemoryKind::device);
  Tensor got = run_poisoned<2>(k, {Arg(da), Arg(db)}, DType::s32, Shape{6, 17, 64});
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 17; ++j)
      for (std::size_t l = 0; l < 64; ++l)
        ASSERT_EQ(got[i][j][l], a[i][j][l] + b[i][j][l] * 3) << i << "," << j << "," << l;
}

// A named tuple of parallel indices indexes elements as its indices do.
TEST(GpuCopyForms, ParallelIndexTupleIndexesElements) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ f32 [33, 70] shift(f32 [33, 70] a) {
  f32 [33, 70] out;
  parallel p = {i, j} by [33, 70]
    out.at(p) = a.at(p) + i;
  return out;
}
)");
  auto a = make_spandata<float>(33, 70);
  a.fill_random(-10, 10, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::f32, Shape{33, 70});
  for (std::size_t i = 0; i < 33; ++i)
    for (std::size_t j = 0; j < 70; ++j)
      ASSERT_EQ(static_cast<float>(got[i][j]), static_cast<float>(a[i][j]) + static_cast<float>(i)) << i << "," << j;
}

// Groups outside any block level share one block: each group adds its own
// slice into a shared tile that the block then stores whole.
TEST(GpuCopyForms, GroupLevelWithoutABlockStagesThroughShared) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [6, 17, 32] add(s32 [6, 17, 32] a, s32 [6, 17, 32] b) {
  s32 [a.span] out;
  parallel g by 17 : group {
    fa = dma.copy.async a => shared;
    fb = dma.copy.async b => shared;
    wait fb, fa;
    shared s32 [fa.span] sum;
    foreach x in [6]
      parallel {l} by [32]
        sum.at(x, g, l) = fa.data.at(x, g, l) - fb.data.at(x, g, l);
    dma.copy sum => out;
  }
  return out;
}
)");
  auto a = make_spandata<s32>(6, 17, 32), b = make_spandata<s32>(6, 17, 32);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  b.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device), db = Tensor::copy_of(b.view(), MemoryKind::device);
  Tensor got = run_poisoned<2>(k, {Arg(da), Arg(db)}, DType::s32, Shape{6, 17, 32});
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 17; ++j)
      for (std::size_t l = 0; l < 32; ++l)
        ASSERT_EQ(got[i][j][l], a[i][j][l] - b[i][j][l]) << i << "," << j << "," << l;
}

// Tiles of tiles with `_` extents; the last one reaches past the tensor and
// reads zeros there.
TEST(GpuCopyForms, TilesOfTilesWithWholeDimensions) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [3, 4, 64] nested(s32 [3, 10, 64] a) {
  s32 [3, 4, 64] out;
  parallel p by 3 : block {
    foreach y in [2] {
      t = dma.copy.zfill a.subspan(1, _, _).at(p, 0, 0).subspan(_, 4, 32).at(0, 2, y) => shared;
      dma.copy t.data => out.subspan(1, 4, 32).at(p, 0, y);
    }
  }
  return out;
}
)");
  auto a = make_spandata<s32>(3, 10, 64);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{3, 4, 64});
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t l = 0; l < 64; ++l)
        ASSERT_EQ(got[i][j][l], 8 + j < 10 ? static_cast<s32>(a[i][8 + j][l]) : 0) << i << "," << j << "," << l;
}

// Double buffering with dma.any and swap: each block streams its row of
// tiles, storing tile k while tile k + 1 loads; the last tile after the loop.
TEST(GpuCopyForms, SwappedDmaFuturesStreamTiles) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [64, 128] stream(s32 [64, 128] a) {
  s32 [a.span] out;
  parallel p by 4 : block {
    cur = dma.copy.async a.subspan(16, 16).at(p, 0) => shared;
    nxt = dma.any;
    foreach k in [7] {
      nxt = dma.copy.async a.subspan(16, 16).at(p, k + 1) => shared;
      wait cur;
      parallel {i, j} by [16, 16]
        out.at(p # i, k # j) = cur.data.at(i, j) * 2 + k;
      swap cur, nxt;
    }
    wait cur;
    parallel {i, j} by [16, 16]
      out.at(p # i, 112 + j) = cur.data.at(i, j) * 2 + 7;
  }
  return out;
}
)");
  auto a = make_spandata<s32>(64, 128);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{64, 128});
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 128; ++j)
      ASSERT_EQ(got[i][j], a[i][j] * 2 + static_cast<s32>(j / 16)) << i << "," << j;
}

// Three futures rotate; `y(-1)` names the last tile.
TEST(GpuCopyForms, RotatedFuturesAndTheLastValueOfAnIndex) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ f32 [8, 96] rot(f32 [8, 96] a) {
  f32 [a.span] out;
  parallel p by 8 : block {
    f0 = dma.copy a.subspan(1, 32).at(p, 0) => shared;
    f1 = dma.copy a.subspan(1, 32).at(p, 1) => shared;
    f2 = dma.copy a.subspan(1, 32).at(p, 2) => shared;
    rotate f0, f1, f2;
    foreach y in [3] {
      dma.copy f0.data => out.subspan(1, 32).at(p, y(-1));
    }
    dma.copy f2.data => out.subspan(1, 32).at(p, 1);
    dma.copy f1.data => out.subspan(1, 32).at(p, 0);
  }
  return out;
}
)");
  auto a = make_spandata<float>(8, 96);
  a.fill_random(-10, 10, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::f32, Shape{8, 96});
  // After the rotation f0 holds tile 1, f1 tile 2 and f2 tile 0.
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 96; ++j) {
      const std::size_t from_tile = j / 32 == 2 ? 1 : j / 32 == 1 ? 0 : 2;
      ASSERT_EQ(static_cast<float>(got[i][j]), static_cast<float>(a[i][from_tile * 32 + j % 32])) << i << "," << j;
    }
}

// A range loop copies every other tile, one tile to the left; the rest of
// the output stays as the poison left it, and is not compared.
TEST(GpuCopyForms, RangeLoopVisitsStartEndAndStride) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [4, 64] shift(s32 [4, 64] a) {
  s32 [a.span] out;
  parallel p by 4 : block {
    foreach y(1:-1:2) in [16] {
      t = dma.copy a.chunkat(p, y) => shared;
      dma.copy t.data => out.chunkat(p, y - 1);
    }
  }
  return out;
}
)");
  auto a = make_spandata<s32>(4, 64);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{4, 64});
  // y = 1, 3, ..., 13 writes tiles 0, 2, ..., 12 (4 elements each).
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t tile = 0; tile <= 12; tile += 2)
      for (std::size_t e = 0; e < 4; ++e)
        ASSERT_EQ(got[i][tile * 4 + e], a[i][(tile + 1) * 4 + e]) << i << "," << tile << "," << e;
  // Tile 14 (y = 15 is past the end 16 - 1) is not written: still poison.
  ASSERT_EQ(got[0][56], static_cast<s32>(-1));
}

// `foreach k(1:)` walks a `with`-bound index from 1; after the loop `k(-1)`
// is the index's last value.
TEST(GpuCopyForms, RangeOverAWithBoundIndexStartsWhereItSays) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(R"(
__co__ s32 [4, 64] rotate_tiles(s32 [4, 64] a) {
  s32 [a.span] out;
  parallel p by 4 : block {
    with k in [16] {
      foreach k(1:) {
        t = dma.copy a.chunkat(p, k) => shared;
        dma.copy t.data => out.chunkat(p, k - 1);
      }
      first = dma.copy a.subspan(1, 4).at(p, 0) => shared;
      dma.copy first.data => out.chunkat(p, k(-1));
    }
  }
  return out;
}
)");
  auto a = make_spandata<s32>(4, 64);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{4, 64});
  // Output tile j holds input tile j + 1; the last holds tile 0.
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t tile = 0; tile < 16; ++tile)
      for (std::size_t e = 0; e < 4; ++e)
        ASSERT_EQ(got[i][tile * 4 + e], a[i][((tile + 1) % 16) * 4 + e]) << i << "," << tile << "," << e;
}

// The same loop with a local name for its index (`foreach c = k(1:)`).
TEST(GpuCopyForms, ALoopNamesItsIndexLocally) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kForeachLocalName);
  auto a = make_spandata<s32>(4, 64);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{4, 64});
  test::expect_rotated_tiles(a, static_cast<const s32*>(got.data()));
}

// `.chunk(...).at(...)`: counted chunks, the last of a dimension guarded.
TEST(GpuCopyForms, ChunksOfCountedExtents) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kReverseChunks);
  auto a = make_spandata<s32>(10, 64);
  a.fill_random(-1000, 1000, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::s32, Shape{10, 64});
  test::expect_reversed_chunks(a, static_cast<const s32*>(got.data()));
}

#define CROQ_REQUIRE_TMA()                                                              \
  do {                                                                                  \
    CROQ_REQUIRE_GPU();                                                                 \
    if (::croq::jit::device_info(0).cc_major < 9) GTEST_SKIP() << "TMA needs sm_90 or newer"; \
  } while (0)

// The one thread of `parallel by 1, by 1` loads the whole tensor with TMA
// and stores it into the returned tensor.
TEST(GpuCopyForms, TmaInAOneThreadLevelRoundTrips) {
  CROQ_REQUIRE_TMA();
  Kernel k = compile(R"(
__co__ f32 [6, 16, 64] round_trip(f32 [6, 16, 64] a) {
  f32 [a.span] out;
  parallel by 1, by 1 {
    t = tma.copy.async a => shared;
    wait t;
    tma.copy t.data => out;
  }
  return out;
}
)");
  auto a = make_spandata<float>(6, 16, 64);
  a.fill_random(-10, 10, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::f32, Shape{6, 16, 64});
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 16; ++j)
      for (std::size_t l = 0; l < 64; ++l)
        ASSERT_EQ(static_cast<float>(got[i][j][l]), static_cast<float>(a[i][j][l])) << i << "," << j << "," << l;
  // The returned tensor the call allocates gets its descriptor too.
  Tensor fresh = k(a.view());
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t l = 0; l < 64; ++l) ASSERT_EQ(static_cast<float>(fresh[i][15][l]), static_cast<float>(a[i][15][l]));
}

// Block-scope TMA stores of tiles into the returned tensor.
TEST(GpuCopyForms, TmaStoresTilesIntoTheReturnedTensor) {
  CROQ_REQUIRE_TMA();
  Kernel k = compile(R"(
__co__ f32 [6, 16, 128] tiles(f32 [6, 16, 128] a) {
  f32 [a.span] out;
  parallel p by 32 : block {
    t = tma.copy.async a.chunkat(_, _, p) => shared;
    wait t;
    tma.copy t.data => out.chunkat(_, _, p);
  }
  return out;
}
)");
  auto a = make_spandata<float>(6, 16, 128);
  a.fill_random(-10, 10, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::f32, Shape{6, 16, 128});
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 16; ++j)
      for (std::size_t l = 0; l < 128; ++l)
        ASSERT_EQ(static_cast<float>(got[i][j][l]), static_cast<float>(a[i][j][l])) << i << "," << j << "," << l;
}

// A store without `.swiz` of a tile loaded with `.swiz<128>` reads it in
// that layout (as Croqtile's compiler does): the tensor comes back as it was.
TEST(GpuCopyForms, TmaStoreReadsASwizzledTileInItsLayout) {
  CROQ_REQUIRE_TMA();
  Kernel k = compile(R"(
__co__ f16 [256, 64] swizzled(f16 [256, 64] a) {
  f16 [a.span] out;
  parallel p by 4 : block {
    shared f16 [64, 64] t;
    tma.copy.swiz<128> a.subspan(64, 64).at(p, 0) => t;
    tma.copy t => out.subspan(64, 64).at(p, 0);
  }
  return out;
}
)");
  auto a = make_spandata<f16>(256, 64);
  a.fill_random(-10, 10, croq::test::next_seed());
  Tensor da = Tensor::copy_of(a.view(), MemoryKind::device);
  Tensor got = run_poisoned<1>(k, {Arg(da)}, DType::f16, Shape{256, 64});
  for (std::size_t i = 0; i < 256; ++i)
    for (std::size_t j = 0; j < 64; ++j)
      ASSERT_EQ(got[i][j].as_double(), static_cast<double>(static_cast<float>(a[i][j].get()))) << i << "," << j;
}

// Double-buffered TMA loads through a ring of two slots, each completing on
// its slot's barrier; the loop's last swap leaves the last tile in `l0`.
TEST(GpuCopyForms, SwappedTmaFuturesAddTwoStreams) {
  CROQ_REQUIRE_TMA();
  Kernel k = compile(R"(
__co__ f32 [8, 16, 32] add(f32 [8, 16, 32] l, f32 [8, 16, 32] r) {
  f32 [l.span] output;
  parallel p by 4 : block {
    l0 = tma.copy.async l.subspan(8, 1, 8).at(0, 0, p) => shared;
    r0 = tma.copy.async r.subspan(8, 1, 8).at(0, 0, p) => shared;
    l1 = tma.any;
    r1 = tma.any;
    shared f32 [l0.span] out;
    foreach k in [15] {
      l1 = tma.copy.async l.subspan(8, 1, 8).at(0, k + 1, p) => shared;
      r1 = tma.copy.async r.subspan(8, 1, 8).at(0, k + 1, p) => shared;
      wait l0, r0;
      foreach index in [l0.span]
        out.at(index) = l0.data.at(index) + r0.data.at(index);
      tma.copy out => output.subspan(8, 1, 8).at(0, k, p);
      swap l0, l1;
      swap r0, r1;
    }
    wait l0, r0;
    foreach index in [l0.span]
      out.at(index) = l0.data.at(index) + r0.data.at(index);
    tma.copy out => output.subspan(8, 1, 8).at(0, 15, p);
  }
  return output;
}
)");
  auto l = make_spandata<float>(8, 16, 32), r = make_spandata<float>(8, 16, 32);
  l.fill_random(-10, 10, croq::test::next_seed());
  r.fill_random(-10, 10, croq::test::next_seed());
  Tensor dl = Tensor::copy_of(l.view(), MemoryKind::device), dr = Tensor::copy_of(r.view(), MemoryKind::device);
  Tensor got = run_poisoned<2>(k, {Arg(dl), Arg(dr)}, DType::f32, Shape{8, 16, 32});
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 16; ++j)
      for (std::size_t m = 0; m < 32; ++m)
        ASSERT_EQ(static_cast<float>(got[i][j][m]), static_cast<float>(l[i][j][m]) + static_cast<float>(r[i][j][m]))
            << i << "," << j << "," << m;
}

}  // namespace
}  // namespace croq
