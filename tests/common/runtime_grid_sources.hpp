// Croqtile functions whose grid is counted at the launch: a parallel count
// computed from scalar arguments or a host program's scalars
// (abi::LaunchCount), shared by the interpret-mode and GPU tests, with
// their host references.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace croq::test {

// Rows [first, rows) of x doubled: one block per row, the count a local
// scalar computed from two arguments.
inline const char* kRuntimeRowsSource = R"(
__co__ void double_rows(f32 [R, 256] x, int first, int rows) {
  int count = rows - first;
  parallel r by count : block {
    parallel t by 64 : thread {
      foreach j in [4]
        x.at(r + first, t * 4 + j) = x.at(r + first, t * 4 + j) * 2.0f;
    }
  }
}
)";

inline std::vector<float> runtime_rows_reference(std::vector<float> x, int first, int rows) {
  for (int r = first; r < rows; ++r)
    for (int c = 0; c < 256; ++c) x[static_cast<std::size_t>(r) * 256 + static_cast<std::size_t>(c)] *= 2.0f;
  return x;
}

// The first min(n, N) elements of x plus v: a flat level (blocks of 256
// threads) whose count is a conditional of an argument and a dim.
inline const char* kRuntimeFlatSource = R"(
__co__ void add_head(f32 [N] x, int n, f32 v) {
  parallel i by (n > N ? N : n)
    x.at(i) = x.at(i) + v;
}
)";

inline std::vector<float> runtime_flat_reference(std::vector<float> x, std::int64_t n, float v) {
  const std::size_t count = static_cast<std::size_t>(std::min<std::int64_t>(n, static_cast<std::int64_t>(x.size())));
  for (std::size_t i = 0; i < count; ++i) x[i] += v;
  return x;
}

// A host loop launching a grid that grows with its index: launch k adds
// its count, #b = min(k + 1, N), to acc[0 .. #b).
inline const char* kRuntimeStairsSource = R"(
__co__ void stairs(s32 [N] acc, int steps) {
  foreach k in [steps] {
    parallel b by __min(k + 1, N) : block
      acc.at(b) = acc.at(b) + #b;
  }
}
)";

inline std::vector<std::int32_t> runtime_stairs_reference(std::vector<std::int32_t> acc, int steps) {
  for (int k = 0; k < steps; ++k) {
    const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(k) + 1, acc.size());
    for (std::size_t b = 0; b < count; ++b) acc[b] += static_cast<std::int32_t>(count);
  }
  return acc;
}

}  // namespace croq::test
