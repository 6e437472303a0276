// samples/multi_gpu_allgather_gemm.cpp's kernels in interpret mode, the
// GPUs played on the host one after another: its peer_copy kernel (the
// sample's own Croqtile text), and its two ways to compute GPU i's columns
// C_i = A * B_i^T with samples/matmul_persistent.cpp's GEMM over every
// gathered row at once (allgather_then_gemm) or one shard of rows after
// another (fused: each shard's GEMM on its rows of A and C), checked as the
// GEMM samples check C (samples/gemm_check.hpp: the double reference of the
// rounded inputs, relative Frobenius error and every element's tolerance).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../../samples/gemm_check.hpp"
#include "common/files.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

TEST(InterpretMultiGpuSample, PeerCopyMovesEveryWord) {
  auto copy = interpreted(croq::test::sample_source("multi_gpu_allgather_gemm"));
  const std::size_t words = 2 * 4096;  // two blocks
  auto src = croq::make_spandata<croq::u64>(words);
  auto dst = croq::make_spandata<croq::u64>(words);
  src.fill_random(0, 1e15);
  dst.fill_random(0, 1e15);
  copy(src.view(), dst.view());
  EXPECT_EQ(std::memcmp(src.data(), dst.data(), words * sizeof(std::uint64_t)), 0);
}

// A view of rows [row0, row0 + rows) of a row-major [*, cols] f16 tensor.
croq::TensorView rows_of(croq::spandata<croq::f16>& t, std::size_t row0, std::size_t rows) {
  const std::size_t cols = t.shape()[1];
  return croq::TensorView::contiguous(t.data() + row0 * cols, croq::DType::f16, {rows, cols}, croq::MemoryKind::host);
}

TEST(InterpretMultiGpuSample, AllGatherThenGemmAndFusedGiveEachGpuItsColumns) {
  auto gemm = interpreted(croq::test::sample_source("matmul_persistent"));
  // P = 2 GPUs: A [M, K] in two shards of rows, B in two shards of columns.
  const std::size_t P = 2, M = 256, N = 256, K = 64, rows = M / P, cols = N / P;
  auto a = croq::make_spandata<croq::f16>(M, K);  // every shard, gathered
  a.fill_random(-1.0f, 1.0f);
  for (std::size_t gpu = 0; gpu < P; ++gpu) {
    SCOPED_TRACE("GPU " + std::to_string(gpu));
    auto b = croq::make_spandata<croq::f16>(cols, K);
    b.fill_random(-1.0f, 1.0f);
    // allgather_then_gemm: one GEMM over all M rows.
    auto c = croq::make_spandata<croq::f16>(M, cols);
    c.fill_random(1e4, 2e4);  // poison: every element must be written
    gemm(a.view(), b.view(), c.view());
    GemmCheck check = check_gemm(a, b, c);
    EXPECT_TRUE(check.passed()) << "allgather_then_gemm: " << describe(check);
    // fused: the local shard first, then each peer's, each on its rows.
    auto fused = croq::make_spandata<croq::f16>(M, cols);
    fused.fill_random(1e4, 2e4);
    for (std::size_t step = 0; step < P; ++step) {
      const std::size_t shard = (gpu + step) % P;
      const croq::Arg args[] = {rows_of(a, shard * rows, rows), b.view(), rows_of(fused, shard * rows, rows)};
      gemm.launch(args);
    }
    check = check_gemm(a, b, fused);
    EXPECT_TRUE(check.passed()) << "fused: " << describe(check);
  }
}

}  // namespace
