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
#include <map>
#include <regex>
#include <string>

#include "common/bench_kernel_text.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/scoped_env.hpp"
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

std::size_t vector_stores(const std::string& ptx) {
  const std::regex vector_store("st\\.global\\.v4\\.");
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), vector_store), std::sregex_iterator()));
}

// The kernel for x [m, n] compiled for sm_90a; fails the test where ptxas
// spilled registers.
jit::NvrtcOutput compiled(const char* element, DType type, std::int64_t m, std::int64_t n, std::string* ir = nullptr) {
  GeneratedKernel k = generate(croq::test::bench_kernel_text("ew_transpose.co", "f32", element),
                               {tensor(type, {m, n}), tensor(type, {n, m})});
  if (ir) *ir = k.ir;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "transpose.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty()) << k.cuda_source;
  EXPECT_TRUE(out.resources.has_value());
  if (out.resources) {
    EXPECT_EQ(out.resources->spill_store_bytes, 0u) << element << " " << m << " x " << n;
    EXPECT_EQ(out.resources->spill_load_bytes, 0u) << element << " " << m << " x " << n;
  }
  return out;
}

// Rows of x that start off a 16-byte chunk (259 f16 elements): each row's
// piece is read as the aligned chunks of x's flat storage that cover it,
// still one vector load each. The block's 128 rows of 17 chunks are dealt
// over its 512 threads: 5 a thread (the fifth in a quarter of the warps),
// in whole tiles and 5 more in the tiles past N.
TEST(BenchTranspose, RowsOffAChunkLoadAlignedWindows) {
  const jit::NvrtcOutput out = compiled("f16", DType::f16, 256, 259);
  EXPECT_EQ(global_loads(out.ptx, "v4\\.(u32|b32|f32)").count, 10u) << out.ptx;
}

// Rows of y that start off a 16-byte chunk (130 f32 elements): of the
// aligned chunks covering each row's piece, the 15 inside it are stored as
// one vector each (64 rows of 15 over 256 threads: 4 a thread in whole
// tiles, as many in the tiles past M or N), the 4 elements at its ends one
// a thread.
TEST(BenchTranspose, RowsOfYOffAChunkStoreAlignedWindows) {
  std::string ir;
  const jit::NvrtcOutput out = compiled("f32", DType::f32, 130, 200, &ir);
  EXPECT_NE(ir.find("loads of 4, stores of 4 (windows) elements"), std::string::npos) << ir;
  EXPECT_EQ(vector_stores(out.ptx), 8u) << out.ptx;
}

// Every element size with rows off a chunk on both sides compiles without
// spills (the window registers: 5 chunks a thread of each input).
TEST(BenchTranspose, WindowsOnBothSidesCompileWithoutSpills) {
  compiled("f32", DType::f32, 131, 133);
  compiled("f16", DType::f16, 257, 261);
  compiled("s8", DType::s8, 135, 139);
  compiled("f64", DType::f64, 35, 37);
}

// Rows off a chunk on both sides: windows both ways (f16 259 x 261); with
// CROQ_TRANSPOSE_STORE_WINDOWS=0, element stores wherever rows of y are off
// a chunk (for timing one form against the other).
TEST(BenchTranspose, StoreWindowSwitchChoosesTheStoreForm) {
  std::string ir;
  const jit::NvrtcOutput both = compiled("f16", DType::f16, 259, 261, &ir);
  EXPECT_NE(ir.find("loads of 8 (windows), stores of 8 (windows) elements"), std::string::npos) << ir;
  EXPECT_EQ(vector_stores(both.ptx), 8u) << both.ptx;
  const croq::test::ScopedEnv element_stores(std::map<std::string, std::string>{{"CROQ_TRANSPOSE_STORE_WINDOWS", "0"}});
  compiled("f16", DType::f16, 259, 261, &ir);
  EXPECT_NE(ir.find("loads of 8 (windows), stores of 1 elements"), std::string::npos) << ir;
  compiled("f32", DType::f32, 130, 200, &ir);
  EXPECT_NE(ir.find("loads of 4, stores of 1 elements"), std::string::npos) << ir;
}

// The tile's padding: the bank model's pick for f32 rows of y 16381 long
// (3 words), and CROQ_TRANSPOSE_PAD_WORDS=1 for timing against one word.
TEST(BenchTranspose, PaddingFromTheBankModelOrTheSwitch) {
  std::string ir;
  compiled("f32", DType::f32, 16381, 16384, &ir);
  EXPECT_NE(ir.find("shared f32 [64, 67]"), std::string::npos) << ir;
  const croq::test::ScopedEnv one_word(std::map<std::string, std::string>{{"CROQ_TRANSPOSE_PAD_WORDS", "1"}});
  compiled("f32", DType::f32, 16381, 16384, &ir);
  EXPECT_NE(ir.find("shared f32 [64, 65]"), std::string::npos) << ir;
}

}  // namespace
}  // namespace croq::pipeline
