// Croqtile kernels with masked stores (`mma.store.mask acc, tile, rows[,
// cols]`), shared by tests/interp/mma_store_mask_interp_test.cpp and
// tests/gpu/mma_store_mask_gpu_test.cpp. Each computes C = A * B^T (A [M, K],
// B [N, K], f16; C f32) but writes only rows < `rows` and columns < `cols` of
// C (scalar arguments, which may cut inside the tensor): the rest of the
// output keeps what it held.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "croq/croq.hpp"

namespace croq::test {

// Where the accumulator lives and where the masked store goes.
enum class MaskedStore {
  warpgroup_rows,       // a warpgroup's 64 x 64 accumulator, rows guarded only
  warpgroup_rows_cols,  // the same, rows and columns guarded
  warpgroup_shared,     // into a shared tile holding 2 * A * B^T, then copied out
  warp_rows_cols,       // each warp's own 16 x 8 tile (`: group` level, mma.sync)
};

inline std::string masked_store_source(MaskedStore form) {
  if (form == MaskedStore::warp_rows_cols)
    return "__co__ void masked(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output, int rows, int cols) {\n"
           "  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 16)] : block {\n"
           "    parallel {g0, g1} by [4, 2] : group {\n"
           "      mc = mma.fill.f32 0.0f;\n"
           "      foreach {iv_k} in [cdiv(K, 16)] {\n"
           "        a = dma.copy lhs.subspan(64, 16).at(block_m, iv_k).zfill => shared;\n"
           "        b = dma.copy rhs.subspan(16, 16).at(block_n, iv_k).zfill => shared;\n"
           "        ma = mma.load a.data.subspan(16, 16).at(g0, 0);\n"
           "        mb = mma.load b.data.subspan(8, 16).at(g1, 0);\n"
           "        mma.row.row mc, ma, mb;\n"
           "      }\n"
           "      mma.store.mask mc, output.subspan(64, 16).at(block_m, block_n).subspan(16, 8).at(g0, g1),\n"
           "        rows - block_m * 64 - g0 * 16, cols - block_n * 16 - g1 * 8;\n"
           "    }\n"
           "  }\n"
           "}\n";
  const bool shared = form == MaskedStore::warpgroup_shared;
  std::string s =
      "__co__ void masked(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output, int rows, int cols) {\n"
      "  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block {\n";
  if (shared) s += "    shared f32 [64, 64] staged;\n";
  s += "    parallel p by 1 : group-4 {\n"
       "      mc = mma.fill.f32 0.0f;\n";
  if (shared) s += "      md = mma.fill.f32 0.0f;\n";
  s += "      foreach {iv_k} in [cdiv(K, 64)] {\n"
       "        a = dma.copy.swiz<128> lhs.subspan(64, 64).at(block_m, iv_k).zfill => shared;\n"
       "        b = dma.copy.swiz<128> rhs.subspan(64, 64).at(block_n, iv_k).zfill => shared;\n"
       "        ma = mma.load.swiz<128> a.data;\n"
       "        mb = mma.load.swiz<128> b.data;\n"
       "        mma.row.row mc, ma, mb;\n";
  if (shared) s += "        mma.row.row md, ma, mb;\n        mma.row.row md, ma, mb;\n";
  s += "        mma.commit;\n"
       "      }\n";
  const std::string guards = form == MaskedStore::warpgroup_rows ? "rows - block_m * 64"
                                                                 : "rows - block_m * 64, cols - block_n * 64";
  if (shared)
    s += "      mma.store md, staged;\n"
         "      mma.store.mask mc, staged, " + guards + ";\n"
         "    }\n"
         "    dma.copy staged => output.subspan(64, 64).at(block_m, block_n);\n";
  else
    s += "      mma.store.mask mc, output.subspan(64, 64).at(block_m, block_n), " + guards + ";\n"
         "    }\n";
  s += "  }\n"
       "}\n";
  return s;
}

inline const char* masked_store_name(MaskedStore form) {
  switch (form) {
    case MaskedStore::warpgroup_rows: return "WarpgroupRows";
    case MaskedStore::warpgroup_rows_cols: return "WarpgroupRowsCols";
    case MaskedStore::warpgroup_shared: return "WarpgroupShared";
    case MaskedStore::warp_rows_cols: return "WarpRowsCols";
  }
  return "";
}

// What the masked store leaves in output element (i, j): the product
// (`product`, A * B^T) inside the guards, else `before` (the poison, or for
// the shared form twice the product, which the staged tile held).
inline bool masked_store_writes(MaskedStore form, long long i, long long j, long long rows, long long cols) {
  return i < rows && (form == MaskedStore::warpgroup_rows || j < cols);
}

// Runs a masked_store_source kernel on fresh random A [m, k], B [n, k] (f16
// in [-1, 1], from `seed`) and C [m, n] poisoned with 1e4 + i, in `memory`,
// with guards `rows` and `cols`; checks every element of C against the host's
// A * B^T in double (inside the guards) or the value it must keep.
inline void expect_masked_store(const Kernel& kernel, MaskedStore form, std::size_t m, std::size_t n, std::size_t k,
                                int rows, int cols, unsigned seed, MemoryKind memory) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  auto random = [&](std::size_t r, std::size_t c, std::vector<double>& values) {
    Tensor t = Tensor::empty(DType::f16, {r, c}, MemoryKind::host);
    for (std::size_t i = 0; i < r * c; ++i) {
      const f16 v(value(gen));
      static_cast<f16*>(t.data())[i] = v;
      values.push_back(static_cast<float>(v));
    }
    return t;
  };
  std::vector<double> a, b;
  Tensor lhs = random(m, k, a), rhs = random(n, k, b);
  Tensor out = Tensor::empty(DType::f32, {m, n}, MemoryKind::host);
  for (std::size_t i = 0; i < m * n; ++i) static_cast<float*>(out.data())[i] = 1e4f + static_cast<float>(i % 4096);
  const Tensor dl = Tensor::copy_of(lhs.view(), memory), dr = Tensor::copy_of(rhs.view(), memory);
  Tensor dout = Tensor::copy_of(out.view(), memory);
  kernel(dl.view(), dr.view(), dout.view(), rows, cols);
  const Tensor got = dout.to_host();
  const float* c = static_cast<const float*>(got.data());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double product = 0;
      for (std::size_t x = 0; x < k; ++x) product += a[i * k + x] * b[j * k + x];
      const double poison = 1e4 + static_cast<double>((i * n + j) % 4096);
      const bool written = masked_store_writes(form, static_cast<long long>(i), static_cast<long long>(j), rows, cols);
      // The shared form copies its whole staged tile out: twice the product
      // where the mask kept the first store's values.
      const double want = written ? product : form == MaskedStore::warpgroup_shared ? 2 * product : poison;
      ASSERT_NEAR(c[i * n + j], want, 1e-3 * (1 + std::fabs(want)))
          << masked_store_name(form) << " element (" << i << ", " << j << "), guards " << rows << ", " << cols
          << (written ? ": written" : ": kept");
    }
}

}  // namespace croq::test
