// A kernel that declares shared tiles of shapes selected from another
// (`plane : x.span[1, (2)]`, `f32 [x.span[(1), (2)]]`), with its host
// reference: shared by the interpret-mode test (tests/interp) and the GPU
// test (tests/gpu).
#pragma once

#include <vector>

namespace croq::test {

inline const char* kShapeSelectionKernel = R"(__co__ void mix(f32 [R, 2, 32] x, f32 [R, 32] out) {
  parallel p by R : block {
    plane : x.span[1, (2)];
    shared f32 [plane] row;
    shared f32 [x.span[(1), (2)]] both;
    parallel t by 32 : thread {
      both.at(0, t) = x.at(p, 0, t);
      both.at(1, t) = x.at(p, 1, t);
    }
    sync.barrier : block;
    parallel t by 32 : thread {
      row.at(0, t) = both.at(0, t) + both.at(1, t) * 2.0f;
      out.at(p, t) = row.at(0, t) - 1.0f;
    }
  }
}
)";

inline std::vector<float> shape_selection_reference(const std::vector<float>& x, int rows) {
  std::vector<float> out(static_cast<std::size_t>(rows) * 32);
  for (int p = 0; p < rows; ++p)
    for (int t = 0; t < 32; ++t)
      out[p * 32 + t] = (x[(p * 2 + 0) * 32 + t] + x[(p * 2 + 1) * 32 + t] * 2.0f) - 1.0f;
  return out;
}

// Picks inside arithmetic: `part` is x.span[(0) / R, (1) / 2] = [1, 4], and
// u = t {(0) / 2, (1) + 1} = {2, 3}; out[p][c] = 2 x[p][c] + 3 x[p][c + 4].
inline const char* kPickArithmeticKernel = R"(__co__ void halves(f32 [R, 8] x, f32 [R, 4] out) {
  parallel p by R : block {
    t = {4, 2};
    part : x.span[(0) / R, (1) / 2];
    shared f32 [part] h;
    u = t {(0) / 2, (1) + 1};
    parallel c by 4 : thread
      h.at(0, c) = x.at(p, c) * u(0) + x.at(p, c + 4) * u(1);
    sync.barrier : block;
    parallel c by 4 : thread
      out.at(p, c) = h.at(0, c);
  }
}
)";

inline std::vector<float> pick_arithmetic_reference(const std::vector<float>& x, int rows) {
  std::vector<float> out(static_cast<std::size_t>(rows) * 4);
  for (int p = 0; p < rows; ++p)
    for (int c = 0; c < 4; ++c) out[p * 4 + c] = x[p * 8 + c] * 2.0f + x[p * 8 + c + 4] * 3.0f;
  return out;
}

}  // namespace croq::test
