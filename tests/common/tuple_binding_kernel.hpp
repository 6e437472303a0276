// A kernel whose tiles are named tuples and shapes (`tile = {4, 16}`,
// `whole = x.span`, `counts = cdiv(whole, tile)`, `{tile, counts(1)}`, the pick
// `bias {(2), (0), 7}`, a tuple of a run-time value, a tuple bound again in
// an inner scope), with its host reference: shared by the interpret-mode
// test (tests/interp) and the GPU test (tests/gpu).
#pragma once

#include <vector>

namespace croq::test {

inline const char* kTupleBindingKernel = R"(__co__ void tiles(f32 [M, 48] x, f32 [M, 48] out, int k) {
  tile = {4, 16};
  whole = x.span;
  counts = cdiv(whole, tile);
  bias = {tile, counts(1)};
  picked = bias {(2), (0), 7};
  amp = {k, 2};
  offs = {1, 0};
  parallel {pm, pn} by counts : block {
    offs = {0, 5};
    f = dma.copy x.subspan(tile).at(pm, pn) => shared;
    shared f32 [tile] t;
    parallel {i, j} by tile : thread {
      t.at(i, j) = f.data.at(i, j) * amp(0) + picked(0) + offs(1);
    }
    sync.barrier : block;
    dma.copy t => out.chunkat(pm, pn);
  }
}
)";

// out = x * k + 3 (picked(0): the count of 16-column tiles in 48) + 5 (the inner `offs`).
inline std::vector<float> tuple_binding_reference(const std::vector<float>& x, int k) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = x[i] * static_cast<float>(k) + 3.0f + 5.0f;
  return out;
}

}  // namespace croq::test
