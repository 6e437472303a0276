#include "passes/transpose_banks.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace croq::passes::transpose {

namespace {

constexpr std::int64_t kWarp = 32, kBanks = 32, kWordBytes = 4;

// Bank passes of one warp instruction: the most distinct words in one bank.
std::int64_t passes_of(const std::vector<std::int64_t>& byte_addresses) {
  std::map<std::int64_t, std::set<std::int64_t>> words;
  for (std::int64_t a : byte_addresses) words[(a / kWordBytes) % kBanks].insert(a / kWordBytes);
  std::size_t most = 0;
  for (const auto& [bank, set] : words) most = std::max(most, set.size());
  return static_cast<std::int64_t>(most);
}

}  // namespace

std::int64_t bank_passes(const TilePattern& p, std::int64_t row_elements) {
  const std::int64_t stride = row_elements * p.element_bytes;
  std::int64_t total = 0;
  for (bool store : {false, true}) {
    const LevelPattern& l = store ? p.store : p.load;
    const std::int64_t c = l.chunk;
    // Items of the level: (tile row r of the rows this level walks, item q).
    const std::int64_t width = l.window ? (store ? p.tile / c - 1 : p.tile / c + 1) : p.tile / c;
    const std::int64_t items = p.tile * width;
    for (std::int64_t first = 0; first < items; first += kWarp) {
      for (std::int64_t e = 0; e < c; ++e) {
        std::vector<std::int64_t> lanes;
        for (std::int64_t a = first; a < std::min(items, first + kWarp); ++a) {
          const std::int64_t r = a / width, q = a % width;
          // Where the walked row's piece starts within its first chunk.
          const std::int64_t off = l.window ? (r * l.row_length) % c : 0;
          const std::int64_t along = l.window ? (store ? (q + 1) * c : q * c) + e - off : q * c + e;
          if (along < 0 || along >= p.tile) continue;
          // Loads walk rows of x (tile rows); stores walk rows of y (tile columns).
          lanes.push_back(store ? along * stride + r * p.element_bytes : r * stride + along * p.element_bytes);
        }
        total += passes_of(lanes);
      }
    }
  }
  return total;
}

std::int64_t best_padding(const TilePattern& p) {
  const std::int64_t unit = std::max<std::int64_t>(1, kWordBytes / p.element_bytes);
  std::int64_t best = unit, fewest = -1;
  for (std::int64_t k = 1; k <= 4; ++k) {
    const std::int64_t passes = bank_passes(p, p.tile + k * unit);
    if (fewest < 0 || passes < fewest) {
      fewest = passes;
      best = k * unit;
    }
  }
  return best;
}

}  // namespace croq::passes::transpose
