// Croqtile kernels with a `: cluster` level, shared by
// tests/lower/cluster_test.cpp (launch shape, generated text, NVRTC) and
// tests/gpu/cluster_gpu_test.cpp (run on an sm_90 device).
#pragma once

#include <string>

namespace croq::test {

// out [C, B, T]: cluster c, block b of the cluster, thread t writes
// c * 10000 + b * 100 + t. C clusters of B blocks of T threads.
inline const char* const kClusterIds =
    "__co__ void ids(global s32 [C, B, T] out) {\n"
    "  parallel c by C : cluster {\n"
    "    parallel b by B : block {\n"
    "      parallel t by T : thread\n"
    "        out.at(c, b, t) = c * 10000 + b * 100 + t;\n"
    "    }\n"
    "  }\n"
    "}\n";

// The comma form with multi-index levels: out [CM, CN, BX, BY, T] holds
// cm * 1000000 + cn * 10000 + bx * 1000 + by * 100 + t.
inline const char* const kClusterIds2d =
    "__co__ void ids2d(global s32 [CM, CN, BX, BY, T] out) {\n"
    "  parallel {cm, cn} by [CM, CN] : cluster, {bx, by} by [BX, BY] : block {\n"
    "    parallel t by T : thread\n"
    "      out.at(cm, cn, bx, by, t) = cm * 1000000 + cn * 10000 + bx * 1000 + by * 100 + t;\n"
    "  }\n"
    "}\n";

// samples/matmul_wgmma's kernel (C = A * B^T, A [M, K], B [N, K], f16, one
// warpgroup per 64 x 128 tile, synchronous tma.copy, WGMMA) with the row
// tiles paired into clusters of two blocks: block b of cluster cm computes
// row tile cm # b = cm * 2 + b. `comma`: the one-statement form
// `parallel ... : cluster, b by 2 : block`; else the nested form.
inline std::string cluster_gemm_source(bool comma) {
  const std::string levels =
      comma ? "  parallel {cm, block_n} by [cdiv(M, WM * 2), cdiv(N, WN)] : cluster, b by 2 : block {\n"
            : "  parallel {cm, block_n} by [cdiv(M, WM * 2), cdiv(N, WN)] : cluster {\n"
              "  parallel b by 2 : block {\n";
  return "#define WM 64\n"
         "#define WN 128\n"
         "#define TK 64\n"
         "__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {\n" +
         levels +
         "    parallel p by 1 : group-4 {\n"
         "      mc = mma.fill.f32 0.0f;\n"
         "      foreach {iv_k} in [cdiv(K, TK)] {\n"
         "        a = tma.copy.swiz<128> lhs.subspan(WM, TK).at(cm # b, iv_k).zfill => shared;\n"
         "        b_tile = tma.copy.swiz<128> rhs.subspan(WN, TK).at(block_n, iv_k).zfill => shared;\n"
         "        ma = mma.load.swiz<128> a.data;\n"
         "        mb = mma.load.swiz<128> b_tile.data;\n"
         "        mma.row.row mc, ma, mb;\n"
         "        mma.commit;\n"
         "      }\n"
         "      mma.store mc, output.subspan(WM, WN).at(cm # b, block_n);\n"
         "    }\n" +
         std::string(comma ? "  }\n" : "  }\n  }\n") + "}\n";
}

}  // namespace croq::test
