// Warp-level mma whose accumulators start from memory (`mc = mma.load
// tile;`: the tile as C): shared by tests/interp/mma_accumulator_load_interp_test.cpp
// and tests/gpu/mma_accumulator_load_gpu_test.cpp.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

namespace croq::test {

// An element as a double: integers exactly, f16 and the like through float.
template <typename T>
double element_value(T v) {
  if constexpr (std::is_integral_v<T>) return static_cast<double>(v);
  else return static_cast<double>(static_cast<float>(v));
}

// before + lhs * rhs^T in double, element (i, j) at i * n + j: lhs [m, k]
// and rhs [n, k] (or [k, n] with rhs_k_by_n), any element types that convert
// to double (f16 through float).
template <typename A, typename B, typename C>
std::vector<double> accumulated_product(const A* lhs, const B* rhs, const C* before, std::size_t m, std::size_t n,
                                        std::size_t k, bool rhs_k_by_n = false) {
  std::vector<double> want(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double sum = before ? element_value(before[i * n + j]) : 0.0;
      for (std::size_t x = 0; x < k; ++x)
        sum += element_value(lhs[i * k + x]) * element_value(rhs_k_by_n ? rhs[x * n + j] : rhs[j * k + x]);
      want[i * n + j] = sum;
    }
  return want;
}

// out += lhs * rhs^T (lhs [M, K], rhs [N, K] f16, out f32): each warp of a
// `: group` level loads its 16 x 8 tile of out as the accumulator, multiplies
// the tiles of lhs and rhs into it (copied to local memory, zero-filled past
// the edges) and stores it back. M, N and K may have tails: the load reads 0
// past out's edges, the store writes nothing there.
inline const char* const kAccumulateIntoOutput = R"croq(__co__ void accumulate(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] out) {
  parallel {block_m, block_n} by [cdiv(M, 32), cdiv(N, 16)] : block {
    parallel {g0, g1} by [2, 2] : group {
      mc = mma.load out.subspan(16, 8).at(block_m * 2 + g0, block_n * 2 + g1);
      foreach {iv_k} in [cdiv(K, 16)] {
        la = dma.copy lhs.subspan(16, 16).at(block_m * 2 + g0, iv_k).zfill => local;
        lb = dma.copy rhs.subspan(8, 16).at(block_n * 2 + g1, iv_k).zfill => local;
        ma = mma.load la.data;
        mb = mma.load lb.data;
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.subspan(16, 8).at(block_m * 2 + g0, block_n * 2 + g1);
    }
  }
}
)croq";

// The integer form: out += lhs * rhs^T with s8 operands and an s32 tile as
// the accumulator's initial value (mma.sync m16n8k32 s8, exact).
inline const char* const kAccumulateIntegers = R"croq(__co__ void accumulate_s8(global s8 [M, K] lhs, global s8 [N, K] rhs, global s32 [M, N] out) {
  parallel {block_m, block_n} by [cdiv(M, 16), cdiv(N, 16)] : block {
    parallel {g1} by [2] : group {
      mc = mma.load out.subspan(16, 8).at(block_m, block_n * 2 + g1);
      foreach {iv_k} in [cdiv(K, 32)] {
        la = dma.copy lhs.subspan(16, 32).at(block_m, iv_k).zfill => local;
        lb = dma.copy rhs.subspan(8, 32).at(block_n * 2 + g1, iv_k).zfill => local;
        ma = mma.load la.data;
        mb = mma.load lb.data;
        mma.row.row mc, ma, mb;
      }
      mma.store mc, out.subspan(16, 8).at(block_m, block_n * 2 + g1);
    }
  }
}
)croq";

// A product accumulated into its own output, one K tile per step: each step
// copies the tiles of lhs [M, K] and rhs [K, N] (f16) to shared memory, and
// each warp loads its 8 x 8 tile of the output (initially zero) as the
// accumulator, multiplies an 8 x 4 by a 4 x 8 tile (row.col) into it four
// times and stores it back: the output is lhs * rhs, accumulated in `T`.
inline const char* const kAccumulateStepwise = R"croq(__co__ auto stepwise(f16 [M, K] lhs, f16 [K, N] rhs) {
  T [M, N] output{0.0f};
  parallel {block_m, block_n} by [cdiv(M, 32), cdiv(N, 32)] : block {
    foreach {iv_k} in [cdiv(K, 16)] {
      lhs_s = dma.copy lhs.chunkat(block_m, iv_k) => shared;
      rhs_s = dma.copy rhs.chunkat(iv_k, block_n) => shared;
      parallel {wm, wn} by [4, 4] : group {
        mc = mma.load output.chunkat(block_m#wm, block_n#wn);
        foreach iv_warp_k in [4] {
          ma = mma.load lhs_s.chunkat(wm, iv_warp_k);
          mb = mma.load rhs_s.chunkat(iv_warp_k, wn);
          mma.row.col mc, ma, mb;
        }
        mma.store mc, output.chunkat(block_m#wm, block_n#wn);
      }
    }
  }
  return output;
}
)croq";

}  // namespace croq::test
