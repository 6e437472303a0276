// Interpret mode: persistent GEMMs whose k loop lowering pipelines
// (synchronous TMA loads of whole shared tiles, then the warpgroup's
// multiplies), inside the block's tile loop and a branch, as Croqtile's
// end-to-end program wgmma_persis.co writes it. The accumulator is stored
// after the loop: its last WGMMA group must be complete first, or the
// interpreter reports the next tile's load overwriting a stage the multiply
// may still read (the pipelined loop of the K-slices form lost that wait).
// The GPU side is tests/gpu/block_accumulator_gpu_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "common/block_gemm_sources.hpp"
#include "common/gemm_run.hpp"
#include "interp/interp_test_util.hpp"

namespace {

// `source` with every `blocks` replaced by 3: a few blocks, so that a block
// runs several tiles (the next tile's loads then reuse the stages).
std::string on_three_blocks(std::string source, const std::string& blocks) {
  for (std::size_t at = source.find(blocks); at != std::string::npos; at = source.find(blocks, at + 1))
    source.replace(at, blocks.size(), "3");
  return source;
}

// `source` on [m, k] x [n, k]^T, its 64 x 128 tiles in row-major order.
GemmCheck persistent_gemm(const std::string& source, int m, int n, int k) {
  croq::Kernel kernel = croq::test::interpreted(source);
  const int tiles = (m + 63) / 64 * ((n + 127) / 128);
  auto order_m = croq::make_spandata<croq::s32>(tiles);
  auto order_n = croq::make_spandata<croq::s32>(tiles);
  for (int t = 0; t < tiles; ++t) {
    order_m[t] = t / ((n + 127) / 128);
    order_n[t] = t % ((n + 127) / 128);
  }
  auto gemm = [&](auto lhs, auto rhs, auto out) { kernel(lhs, rhs, out, order_m.view(), order_n.view()); };
  return croq::test::gemm_on_random_data<croq::f16>(gemm, m, n, k);
}

// 2 k passes (fewer than the ring's 4 stages) and 5 (the ring wraps); 4
// tiles on 3 blocks.
TEST(InterpretPipelinedLoop, KSlicesStoreTheAccumulatorAfterTheLastGroup) {
  for (int k : {128, 320}) {
    const GemmCheck check = persistent_gemm(on_three_blocks(croq::test::kKSlices, "100"), 128, 256, k);
    EXPECT_TRUE(check.passed()) << "k " << k << ": " << describe(check);
  }
}

TEST(InterpretPipelinedLoop, WholeTilesStoreTheAccumulatorAfterTheLastGroup) {
  const GemmCheck check = persistent_gemm(on_three_blocks(croq::test::kWholeTiles, "132"), 128, 256, 192);
  EXPECT_TRUE(check.passed()) << describe(check);
}

}  // namespace
