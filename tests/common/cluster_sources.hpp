// Croqtile kernels with a `: cluster` level, shared by
// tests/lower/cluster_test.cpp (launch shape, generated text, NVRTC),
// tests/interp/cluster_interp_test.cpp (interpret mode) and
// tests/gpu/cluster_gpu_test.cpp (run on an sm_90 device).
//
// Croqtile's clusters: `parallel c by C : cluster, b by B : block` launches
// B blocks (the whole grid) in clusters of C; a cluster is C consecutive
// values of the first block index, and `c` is the block's rank in it.
#pragma once

#include <cstdint>
#include <string>

namespace croq::test {

// out [B, T]: block b of the grid, in clusters of `cluster` blocks, thread t
// writes b * 1000 + c * 100 + t, where c (= b % cluster) is its rank.
inline std::string cluster_ids_source(std::int64_t cluster) {
  return "__co__ void ids(global s32 [B, T] out) {\n"
         "  parallel c by " + std::to_string(cluster) + " : cluster {\n"
         "    parallel b by B : block {\n"
         "      parallel t by T : thread\n"
         "        out.at(b, t) = b * 1000 + c * 100 + t;\n"
         "    }\n"
         "  }\n"
         "}\n";
}

// The comma form with multi-index levels: clusters of [2, 2] = 4 blocks,
// out [BX, BY, T] holds cm * 1000000 + cn * 100000 + bx * 1000 + by * 100 + t,
// where the rank bx % 4 decomposes row-major into {cm, cn}.
inline const char* const kClusterIds2d =
    "__co__ void ids2d(global s32 [BX, BY, T] out) {\n"
    "  parallel {cm, cn} by [2, 2] : cluster, {bx, by} by [BX, BY] : block {\n"
    "    parallel t by T : thread\n"
    "      out.at(bx, by, t) = cm * 1000000 + cn * 100000 + bx * 1000 + by * 100 + t;\n"
    "  }\n"
    "}\n";

// samples/matmul_wgmma's kernel (C = A * B^T, A [M, K], B [N, K], f16, one
// warpgroup per 64 x 128 tile, synchronous tma.copy, WGMMA) in clusters of
// two blocks: the two row tiles of a cluster share their rhs tile (an odd
// number of row tiles leaves the last cluster half empty). `comma`: the
// one-statement form `parallel c by 2 : cluster, {...} by [...] : block`;
// else the nested form. `multicast`: the rhs tile is a `.multicast` load.
inline std::string cluster_gemm_source(bool comma, bool multicast = false) {
  const std::string levels =
      comma ? "  parallel c by 2 : cluster, {block_m, block_n} by [cdiv(M, WM), cdiv(N, WN)] : block {\n"
            : "  parallel c by 2 : cluster {\n"
              "  parallel {block_m, block_n} by [cdiv(M, WM), cdiv(N, WN)] : block {\n";
  return "#define WM 64\n"
         "#define WN 128\n"
         "#define TK 64\n"
         "__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {\n" +
         levels +
         "    parallel p by 1 : group-4 {\n"
         "      mc = mma.fill.f32 0.0f;\n"
         "      foreach {iv_k} in [cdiv(K, TK)] {\n"
         "        a = tma.copy.swiz<128> lhs.subspan(WM, TK).at(block_m, iv_k).zfill => shared;\n"
         "        b_tile = tma.copy" + std::string(multicast ? ".multicast" : "") +
         ".swiz<128> rhs.subspan(WN, TK).at(block_n, iv_k).zfill => shared;\n"
         "        ma = mma.load.swiz<128> a.data;\n"
         "        mb = mma.load.swiz<128> b_tile.data;\n"
         "        mma.row.row mc, ma, mb;\n"
         "        mma.commit;\n"
         "      }\n"
         "      mma.store mc, output.subspan(WM, WN).at(block_m, block_n);\n"
         "    }\n" +
         std::string(comma ? "  }\n" : "  }\n  }\n") + "}\n";
}

// Warp-specialized GEMM in clusters of two blocks (as Croqtile's
// wgmma_ss.co writes one): a producer warpgroup loads two stages, the rhs
// tile `.multicast` (the two row tiles of a cluster share it), and the
// consumer frees a stage with `trigger.cluster`. M, N, K multiples of 64,
// 128 and 64.
inline const char* const kClusterWsGemm =
    "#define WM 64\n"
    "#define WN 128\n"
    "#define TK 64\n"
    "__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {\n"
    "  parallel c by 2 : cluster, {block_m, block_n} by [cdiv(M, WM), cdiv(N, WN)] : block {\n"
    "    shared event full[2], empty[2];\n"
    "    shared f16 [WM, TK] lhs_s[2];\n"
    "    shared f16 [WN, TK] rhs_s[2];\n"
    "    shared f16 [WM, WN] out_s;\n"
    "    parallel wg by 2 : group-4 {\n"
    "      inthreads.async (wg == 0) {\n"
    "        foreach {iv_k} in [cdiv(K, TK)] {\n"
    "          stage = iv_k % 2;\n"
    "          wait empty.at(iv_k);\n"
    "          a = tma.copy.async.swiz<128> lhs.subspan(WM, TK).at(block_m, iv_k) => lhs_s[stage];\n"
    "          b = tma.copy.async.multicast.swiz<128> rhs.subspan(WN, TK).at(block_n, iv_k) => rhs_s[stage];\n"
    "          trigger full.at(iv_k) after a, b;\n"
    "        }\n"
    "      }\n"
    "      inthreads.async (wg == 1) {\n"
    "        acc = mma.fill.f32 0.0f;\n"
    "        foreach {s} in [2] {\n"
    "          trigger.cluster empty[s];\n"
    "        }\n"
    "        foreach {iv_k} in [cdiv(K, TK)] {\n"
    "          stage = iv_k % 2;\n"
    "          wait full.at(iv_k);\n"
    "          mma.row.row acc, lhs_s[stage], rhs_s[stage];\n"
    "          trigger.cluster empty[stage];\n"
    "        }\n"
    "        mma.store acc, out_s;\n"
    "        tma.copy out_s => output.subspan(WM, WN).at(block_m, block_n);\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

}  // namespace croq::test
