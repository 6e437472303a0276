// A warp-specialized, block-scaled fp8 GEMM (scales as in DeepSeek's fp8
// GEMMs: one f32 per row of lhs and 128 columns of K, one per 128 x 128
// block of rhs), shared by tests/lower/block_scale_test.cpp (generated
// CUDA, NVRTC for sm_90a), tests/gpu/block_scale_gpu_test.cpp (against a
// host reference), tests/sema/valid_programs_test.cpp and the interpret-mode
// test (tests/interp/block_scale_interp_test.cpp).
//
// C [M, N] (f32) = sum over K blocks kb of (A[:, kb] * B[:, kb]^T) *
// scale_lhs[m][kb] * scale_rhs[n / 128][kb]. A producer warpgroup loads
// 128-wide K blocks into a ring of two stages (events full / empty ordered
// with `.at(k)`, the loads completing `full` through `trigger ... after`);
// the consumer multiplies each block into a partial and `mma.scale` adds it.
#pragma once

#include <string>

namespace croq::test {

// row_scale: each k32 chunk's multiply scaled on its own, `mma.row.row.scale
// mc, a, b, sa, sb` (Croqtile's block-scaled mma with the scales of both
// sides), instead of the four multiplies and one mma.scale: the same result.
inline std::string block_scaled_gemm_source(const std::string& acc = "f32", bool row_scale = false) {
  const std::string multiply =
      row_scale ? "          foreach {kk} in [4] {\n"
                  "            mma.row.row.scale mc, a_s[k % 2].chunkat(_, kk), b_s[k % 2].chunkat(_, kk),\n"
                  "              scale_lhs.subspan(64, 1).at(block_m, k), scale_rhs.at(block_n, k);\n"
                  "          }\n"
                : "          foreach {kk} in [4] {\n"
                  "            mma.row.row mc, a_s[k % 2].chunkat(_, kk), b_s[k % 2].chunkat(_, kk);\n"
                  "          }\n"
                  "          mma.scale mc, scale_lhs.subspan(64, 1).at(block_m, k), scale_rhs.at(block_n, k);\n";
  return "__co__ void scaled_matmul(global f8_e4m3 [M, K] lhs, global f32 [M, KB] scale_lhs, global f8_e4m3 [N, K] rhs,\n"
         "                          global f32 [NB, KB] scale_rhs, global f32 [M, N] output) {\n"
         "  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block {\n"
         "    shared event full[2], empty[2];\n"
         "    shared f8_e4m3 [64, 128] a_s[2];\n"
         "    shared f8_e4m3 [128, 128] b_s[2];\n"
         "    parallel wg by 2 : group-4, t by 128 : thread {\n"
         "      inthreads.async (wg == 0) {\n"
         "        foreach {k} in [cdiv(K, 128)] {\n"
         "          wait empty.at(k);\n"
         "          fa = tma.copy.async.swiz<128> lhs.subspan(64, 128).at(block_m, k) => a_s[k % 2];\n"
         "          fb = tma.copy.async.swiz<128> rhs.subspan(128, 128).at(block_n, k) => b_s[k % 2];\n"
         "          trigger full.at(k) after fa, fb;\n"
         "        }\n"
         "      }\n"
         "      inthreads.async (wg == 1) {\n"
         "        mc = mma.fill." + acc + " 0.0f;\n"
         "        foreach {s} in [2] { trigger empty.at(s); }\n"
         "        foreach {k} in [cdiv(K, 128)] {\n"
         "          wait full.at(k);\n" + multiply +
         "          trigger empty.at(k);\n"
         "        }\n"
         "        mma.store mc, output.subspan(64, 128).at(block_m, block_n);\n"
         "      }\n"
         "    }\n"
         "  }\n"
         "}\n";
}

}  // namespace croq::test
