// The benchmark's plain transpose (bench/harness/kernels/ew_transpose.co,
// `y.at(j, i) = x.at(i, j)` one element an instance) through the whole
// pipeline, no GPU: the tile_transposes pass moves it through shared tiles,
// each 16-byte chunk one vector load and one vector store, the
// tile loop unrolled into straight-line loads (4 a thread: 64 x 64 tiles of
// f32 in blocks of 256 threads, 128 x 128 tiles of 2-byte elements in blocks
// of 512), none waiting on another, so all are in flight before the shared
// stores; one barrier.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <regex>
#include <string>

#include "common/bench_kernel_text.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::count;
using test::generate;
using test::tensor;

// The PTX's global loads matching `kind` (e.g. "v4.u32"), and whether they
// all lie in one basic block (no label between the first and the last: the
// loop unrolled).
struct Loads {
  std::size_t count = 0;
  bool straight_line = false;
};

Loads global_loads(const std::string& ptx, const std::string& kind) {
  const std::regex load("ld\\.global(\\.nc)?\\." + kind + "\\b");
  Loads out;
  std::size_t first = std::string::npos, last = 0;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), load); it != std::sregex_iterator(); ++it) {
    ++out.count;
    first = std::min(first, static_cast<std::size_t>(it->position()));
    last = static_cast<std::size_t>(it->position());
  }
  out.straight_line = out.count > 0 && ptx.substr(first, last - first).find("$L__") == std::string::npos;
  return out;
}

void check(const std::string& source, DType type, std::int64_t m, std::int64_t n, unsigned threads,
           unsigned shared_bytes, bool edges = false) {
  GeneratedKernel k = generate(source, {tensor(type, {m, n}), tensor(type, {n, m})});
  EXPECT_EQ(k.launch.block[0] * k.launch.block[1] * k.launch.block[2], threads);
  EXPECT_EQ(k.launch.shared_bytes, shared_bytes);
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "transpose.cu", k.entry, {"sm_90a", false, {}});
  ASSERT_FALSE(out.cubin.empty()) << k.cuda_source;
  const Loads loads = global_loads(out.ptx, "v4\\.(u32|b32|f32)");
  // Tiles past M or N have a path of their own: four more chunks, each inside the bounds.
  const std::size_t chunks = edges ? 8 : 4;
  EXPECT_EQ(loads.count, chunks) << out.ptx;
  if (!edges) EXPECT_TRUE(loads.straight_line) << out.ptx;
  EXPECT_EQ(global_loads(out.ptx, "(u16|b16|f32|u32|b32)").count, 0u) << "a scalar global load\n" << out.ptx;
  const std::regex vector_store("st\\.global\\.v4\\.");
  EXPECT_EQ(std::distance(std::sregex_iterator(out.ptx.begin(), out.ptx.end(), vector_store), std::sregex_iterator()),
            static_cast<std::ptrdiff_t>(chunks))
      << out.ptx;
  EXPECT_EQ(count(out.ptx, "bar.sync"), 1u) << out.ptx;
}

TEST(BenchTranspose, F32SixtyFourSquareTilesInVectorChunks) {
  const std::string source = croq::test::bench_kernel_text("ew_transpose.co", "f32", "f32");
  check(source, DType::f32, 256, 512, 256, 64 * 65 * 4);
}

TEST(BenchTranspose, TwoByteElementsHundredTwentyEightSquareTilesInVectorChunks) {
  for (const char* element : {"f16", "bf16"}) {
    SCOPED_TRACE(element);
    const std::string source = croq::test::bench_kernel_text("ew_transpose.co", "f32", element);
    check(source, test::dtype_of(element), 256, 512, 512, 128 * 130 * 2);
  }
}

// Shapes past the last whole tile (rows still whole 16-byte chunks): the
// tiles at the edges move the chunks inside the bounds, vectors too (same
// launch, same shared tile).
TEST(BenchTranspose, TilesPastTheEdgesMoveTheChunksInside) {
  const std::string f32 = croq::test::bench_kernel_text("ew_transpose.co", "f32", "f32");
  check(f32, DType::f32, 136, 200, 256, 64 * 65 * 4, true);
  const std::string f16 = croq::test::bench_kernel_text("ew_transpose.co", "f32", "f16");
  check(f16, DType::f16, 264, 136, 512, 128 * 130 * 2, true);
}

// Rows of x that start off a 16-byte chunk (259 f16 elements): each row's
// piece is read as the aligned chunks of x's flat storage that cover it,
// still one vector load each (8 a thread in whole tiles, 8 more in the
// tiles past N).
TEST(BenchTranspose, RowsOffAChunkLoadAlignedWindows) {
  GeneratedKernel k = generate(croq::test::bench_kernel_text("ew_transpose.co", "f32", "f16"),
                               {tensor(DType::f16, {256, 259}), tensor(DType::f16, {259, 256})});
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "transpose.cu", k.entry, {"sm_90a", false, {}});
  ASSERT_FALSE(out.cubin.empty()) << k.cuda_source;
  EXPECT_EQ(global_loads(out.ptx, "v4\\.(u32|b32|f32)").count, 16u) << out.ptx;
}

// Rows of y that start off a 16-byte chunk (130 f32 elements): of the
// aligned chunks covering each row's piece, those inside it are stored as
// one vector each (8 a thread in whole tiles, as many in the tiles past M
// or N), the two at its ends element by element.
TEST(BenchTranspose, RowsOfYOffAChunkStoreAlignedWindows) {
  GeneratedKernel k = generate(croq::test::bench_kernel_text("ew_transpose.co", "f32", "f32"),
                               {tensor(DType::f32, {130, 200}), tensor(DType::f32, {200, 130})});
  EXPECT_NE(k.ir.find("loads of 4, stores of 4 (windows) elements"), std::string::npos) << k.ir;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "transpose.cu", k.entry, {"sm_90a", false, {}});
  ASSERT_FALSE(out.cubin.empty()) << k.cuda_source;
  const std::regex vector_store("st\\.global\\.v4\\.");
  EXPECT_EQ(std::distance(std::sregex_iterator(out.ptx.begin(), out.ptx.end(), vector_store), std::sregex_iterator()), 16)
      << out.ptx;
}

}  // namespace
}  // namespace croq::pipeline
