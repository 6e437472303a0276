// The shared-memory bank pattern of a transpose's two thread levels
// (transpose_pass.cpp), modelled to choose the tile's row padding: each
// warp instruction that stores into the tile or gathers from it costs one
// pass of the banks per distinct 4-byte word that its lanes address in one
// bank. The pattern of rows that start off a chunk (window phases) depends
// on the row lengths modulo the chunk, so no one padding suits every shape.
#pragma once

#include <cstdint>

namespace croq::passes::transpose {

// How one thread level covers the tile: `chunk` elements a thread (1: one
// element a thread, a warp along each row), `window`: through the aligned
// chunks of rows of `row_length` elements, dealt over the block.
struct LevelPattern {
  std::int64_t chunk = 1;
  bool window = false;
  std::int64_t row_length = 0;
};

struct TilePattern {
  std::int64_t tile = 0, threads = 0, element_bytes = 4;
  LevelPattern load, store;
};

// Bank passes over every warp instruction of both levels for a tile whose
// rows are `row_elements` long.
std::int64_t bank_passes(const TilePattern& p, std::int64_t row_elements);

// The padding (elements a row) of the fewest bank passes among 1 to 4
// words (one element for elements wider than a word, and multiples).
std::int64_t best_padding(const TilePattern& p);

}  // namespace croq::passes::transpose
