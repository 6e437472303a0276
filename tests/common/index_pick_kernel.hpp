// Values picked from a tuple of bounded indices and then from the index
// (`index(1)(-1)`: element 1 of `index`, its last value), shared by the
// interpret-mode and GPU tests, with the host reference.
#pragma once

#include <cstdint>
#include <vector>

namespace croq::test {

inline const char* kIndexPickKernel = R"(
__co__ void picks(s32 [N, 8] out) {
  parallel p by 1 : block {
    with index = {x, y} in [N, 8] {
      foreach index
        out.at(x, y) = index(1)(-1) * 100000 + index(0)(-2) * 100 + x * 10 + y;
    }
  }
}
)";

// `out` after kIndexPickKernel for N rows.
inline std::vector<std::int32_t> index_pick_reference(std::int32_t n) {
  std::vector<std::int32_t> out;
  for (std::int32_t x = 0; x < n; ++x)
    for (std::int32_t y = 0; y < 8; ++y) out.push_back(7 * 100000 + (n - 2) * 100 + x * 10 + y);
  return out;
}

}  // namespace croq::test
