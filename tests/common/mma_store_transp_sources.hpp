// A warpgroup's accumulator stored transposed (`mma.store.transp`): C^T =
// (A * B^T)^T, A [M, K], B [N, K] f16, the output [N, M]. Shared by
// tests/interp/mma_store_transp_interp_test.cpp and
// tests/gpu/mma_store_transp_gpu_test.cpp.
#pragma once

#include <string>

namespace croq::test {

// `through_shared`: stored transposed into a shared [128, 64] tile, then
// copied out by TMA (as Croqtile's wgmma_ss.co does); else straight into the
// global tile, whose tails the store guards.
inline std::string transposed_store_source(bool through_shared) {
  std::string s =
      "__co__ void matmul_t(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [N, M] output) {\n"
      "  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block {\n"
      "    parallel p by 1 : group-4 {\n"
      "      acc = mma.fill.f32 0.0f;\n"
      "      foreach {iv_k} in [cdiv(K, 64)] {\n"
      "        a = tma.copy.swiz<128> lhs.subspan(64, 64).at(block_m, iv_k).zfill => shared;\n"
      "        b = tma.copy.swiz<128> rhs.subspan(128, 64).at(block_n, iv_k).zfill => shared;\n"
      "        ma = mma.load.swiz<128> a.data;\n"
      "        mb = mma.load.swiz<128> b.data;\n"
      "        mma.row.row acc, ma, mb;\n"
      "        mma.commit;\n"
      "      }\n";
  if (through_shared)
    s += "      shared f16 [128, 64] out_s;\n"
         "      mma.store.transp acc, out_s;\n"
         "      tma.copy out_s => output.subspan(128, 64).at(block_n, block_m);\n";
  else
    s += "      mma.store.transp acc, output.subspan(128, 64).at(block_n, block_m);\n";
  return s + "    }\n  }\n}\n";
}

}  // namespace croq::test
