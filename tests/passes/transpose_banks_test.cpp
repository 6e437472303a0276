// The bank model that picks the transpose tile's row padding
// (src/passes/transpose_banks.hpp): counted by hand for small cases, and
// the paddings it picks for the benchmark's shapes.
#include <gtest/gtest.h>

#include "passes/transpose_banks.hpp"

namespace croq::passes::transpose {
namespace {

TilePattern pattern(std::int64_t tile, std::int64_t threads, std::int64_t bytes, LevelPattern load, LevelPattern store) {
  return TilePattern{tile, threads, bytes, load, store};
}

TilePattern f32_tile(LevelPattern load, LevelPattern store) { return pattern(64, 256, 4, load, store); }

// Whole chunks of 4 f32 both ways, rows of 65 words: a warp is 2 rows of
// 16 chunks. Storing element e of each chunk, lanes of one row hit banks
// 4c + e (c and c + 8 share one), the next row's are one bank on: 2 passes
// an instruction; the gather reads down columns 4 rows apart (4 * 65 = 4
// mod 32): 2 as well. 64 x 16 chunks are 32 warp-rows of 4 instructions,
// each way: 2 * 32 * 4 * 2 passes.
TEST(TransposeBanks, WholeChunksTwoPassesAnInstruction) {
  const TilePattern p = f32_tile({4, false, 0}, {4, false, 0});
  EXPECT_EQ(bank_passes(p, 65), 2 * 32 * 4 * 2);
  EXPECT_EQ(best_padding(p), 1);
}

// One element a thread, a warp along a row: stores hit 32 banks of one row
// (1 pass); the gather reads 32 rows of one column, 65 words apart: 32
// banks (1 pass). A stride of 64 words would put the gather in one bank.
TEST(TransposeBanks, ElementsAlongRowsOnePass) {
  const TilePattern p = f32_tile({1, false, 0}, {1, false, 0});
  const std::int64_t instructions = 64 * 64 / 32;
  EXPECT_EQ(bank_passes(p, 65), 2 * instructions);
  EXPECT_EQ(bank_passes(p, 64), instructions + 32 * instructions);
}

// Rows of y 16381 long (1 past a chunk of 4): successive rows' pieces
// start one element further into their chunk, and one column on, so with
// rows of 65 words a warp's two or three rows of the gather land on the
// same 8 banks; 67 words spread them (the model's pick).
TEST(TransposeBanks, StoreWindowsPickAPaddingForTheRowLength) {
  const TilePattern p = f32_tile({4, false, 0}, {4, true, 16381});
  EXPECT_LT(bank_passes(p, 67), bank_passes(p, 65));
  EXPECT_EQ(best_padding(p), 3);
  // Rows 3 past a chunk: the offsets step the other way, 65 words suit.
  EXPECT_EQ(best_padding(f32_tile({4, false, 0}, {4, true, 16387})), 1);
}

// 2-byte elements pad by whole words (2 elements), 8-byte by one element.
TEST(TransposeBanks, PaddingInWholeWords) {
  EXPECT_EQ(best_padding(pattern(128, 512, 2, {8, false, 0}, {8, false, 0})), 2);
  EXPECT_EQ(best_padding(pattern(128, 512, 2, {8, true, 16387}, {8, false, 0})) % 2, 0);
  EXPECT_EQ(best_padding(pattern(32, 128, 8, {2, false, 0}, {2, false, 0})), 1);
}

}  // namespace
}  // namespace croq::passes::transpose
