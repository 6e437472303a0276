// Croqtile kernels with register fragments (`frag`, `mma.load.frag`, RS-mode
// WGMMA), shared by tests/lower/fragment_test.cpp (NVRTC for sm_90a)
// and tests/gpu/fragment_gpu_test.cpp (run on an H100).
#pragma once

#include <string>

namespace croq::test {

// C = A * B^T, A [M, K] loaded into a register fragment per k-step (RS
// mode), B [N, K] read from shared memory; tiles 64 x 128, K in steps of 64.
inline constexpr const char* kRsGemmFromLoadedFragment = R"croq(
__co__ void rs_gemm(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block {
    parallel p by 1 : group-4 {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 64)] {
        a = dma.copy.swiz<128> lhs.subspan(64, 64).at(block_m, iv_k).zfill => shared;
        b = dma.copy.swiz<128> rhs.subspan(128, 64).at(block_n, iv_k).zfill => shared;
        ma = mma.load.frag a.data;
        mma.row.row mc, ma, b.data;
        mma.commit;
      }
      mma.store mc, output.subspan(64, 128).at(block_m, block_n);
    }
  }
}
)croq";

// The same product with the lhs read from global memory straight into the
// registers (a warpgroup's mma.load of a global tile: RS mode, no `.frag`
// and no shared copy of A); tiles past M's or K's edge read 0.
inline constexpr const char* kRsGemmFromGlobalLhs = R"croq(
__co__ void rs_gemm_global_lhs(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block {
    parallel p by 1 : group-4 {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 64)] {
        b = dma.copy.swiz<128> rhs.subspan(128, 64).at(block_n, iv_k).zfill => shared;
        ma = mma.load lhs.subspan(64, 64).at(block_m, iv_k);
        mma.row.row mc, ma, b.data;
        mma.commit;
      }
      mma.store mc, output.subspan(64, 128).at(block_m, block_n);
    }
  }
}
)croq";

// C = A * B with B [K, N] (N contiguous): mma.row.col of two shared tiles,
// WGMMA reading B N-major (imm-trans-b); tiles 64 x 64, K in steps of 64.
inline constexpr const char* kRowColGemm = R"croq(
__co__ void row_col_gemm(global f16 [M, K] lhs, global f16 [K, N] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block {
    parallel p by 1 : group-4 {
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 64)] {
        a = dma.copy.swiz<128> lhs.subspan(64, 64).at(block_m, iv_k).zfill => shared;
        b = dma.copy.swiz<128> rhs.subspan(64, 64).at(iv_k, block_n).zfill => shared;
        mma.row.col mc, a.data, b.data;
        mma.commit;
      }
      mma.store mc, output.subspan(64, 64).at(block_m, block_n);
    }
  }
}
)croq";

// C = A B with A given transposed, lhs_t [K, M]: an M-major lhs
// (mma.col.col, WGMMA's imm-trans-a), rhs [K, N] (N-major) or, with
// mma.col.row, [N, K].
inline std::string col_major_lhs_gemm(bool rhs_n_major) {
  const std::string rhs = rhs_n_major ? "[K, N]" : "[N, K]";
  const std::string tile = rhs_n_major ? "at(iv_k, block_n)" : "at(block_n, iv_k)";
  return "__co__ void col_gemm(global f16 [K, M] lhs_t, global f16 " + rhs + " rhs, global f32 [M, N] output) {\n"
         "  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block {\n"
         "    parallel p by 1 : group-4 {\n"
         "      mc = mma.fill.f32 0.0f;\n"
         "      foreach {iv_k} in [cdiv(K, 64)] {\n"
         "        a = dma.copy.swiz<128> lhs_t.subspan(64, 64).at(iv_k, block_m).zfill => shared;\n"
         "        b = dma.copy.swiz<128> rhs.subspan(64, 64)." + tile + ".zfill => shared;\n"
         "        mma." + (rhs_n_major ? "col.col" : "col.row") + " mc, a.data, b.data;\n"
         "        mma.commit;\n"
         "      }\n"
         "      mma.store mc, output.subspan(64, 64).at(block_m, block_n);\n"
         "    }\n"
         "  }\n"
         "}\n";
}

// C = A Bᵀ staged in shared memory by mma.store (f16, swizzled), then
// out = Cᵀ B with the staged tile as an M-major lhs (mma.col.col): the
// threads' generic writes are fenced for WGMMA's async reads. A and B
// [64, 64].
inline constexpr const char* kStagedTransposedLhs = R"croq(
__co__ void staged(global f16 [64, 64] a, global f16 [64, 64] b, global f32 [64, 64] output) {
  parallel blk by 1 : block {
    a_s = dma.copy.swiz<128> a.subspan(64, 64).at(0, 0) => shared;
    b_s = dma.copy.swiz<128> b.subspan(64, 64).at(0, 0) => shared;
    shared f16 [64, 64] c_s;
    parallel p by 1 : group-4 {
      c = mma.fill.f32 0.0f;
      mma.row.row c, a_s.data, b_s.data;
      mma.store.swiz<128> c, c_s;
      d = mma.fill.f32 0.0f;
      mma.col.col d, c_s, b_s.data;
      mma.store d, output.subspan(64, 64).at(0, 0);
    }
  }
}
)croq";

// C[m][n] = 0.5 * sum_k B[n][k]: a constant fragment as A (RS mode).
inline constexpr const char* kRsGemmConstantFragment = R"croq(
__co__ void rs_const(global f16 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block {
    parallel p by 1 : group-4 {
      frag f16 [64, 32] halves {0.5f};
      mc = mma.fill.f32 0.0f;
      foreach {iv_k} in [cdiv(K, 32)] {
        b = dma.copy.swiz<64> rhs.subspan(64, 32).at(block_n, iv_k).zfill => shared;
        mma.row.row mc, halves, b.data;
        mma.commit;
      }
      mma.store mc, output.subspan(64, 64).at(block_m, block_n);
    }
  }
}
)croq";

// One 64 x 64 tile of attention, O = softmax(Q K^T * scale) V with the
// softmax in base 2 (exp2 of scaled scores less the row maximum), the
// probabilities rounded to f16 as the lhs of the second mma (RS mode, V as
// [K, N]: mma.row.col). `causal`: scores above the diagonal are -inf.
inline std::string attention_source(bool causal) {
  std::string s = R"croq(
__co__ void attention(global f16 [64, 64] q, global f16 [64, 64] k, global f16 [64, 64] v, global f32 [64, 64] o) {
  parallel b by 1 : block {
    q_s = dma.copy.swiz<128> q.subspan(64, 64).at(0, 0) => shared;
    k_s = dma.copy.swiz<128> k.subspan(64, 64).at(0, 0) => shared;
    v_s = dma.copy.swiz<128> v.subspan(64, 64).at(0, 0) => shared;
    parallel p by 1 : group-4 {
      frag f16 [64, 64] probs;
      frag f32 [64] row_max {-inf};
      frag f32 [64] row_sum;
      float scale = 0.18033688f;
      s = mma.fill.f32 0.0f;
      mma.row.row s, q_s.data, k_s.data;
)croq";
  if (causal)
    s += R"croq(
      apply {i, j} in s.span {
        if (j > i) s.at(i, j) = -inf;
      }
)croq";
  s += R"croq(
      reduce_max(row_max, s, 1);
      apply {i, j} in s.span
        s.at(i, j) = __exp2f(s.at(i, j) * scale - row_max.at(i) * scale);
      reduce_sum(row_sum, s, 1);
      apply {i, j} in s.span
        probs.at(i, j) = __to<f16>(s.at(i, j));
      acc = mma.fill.f32 0.0f;
      mma.row.col acc, probs, v_s.data;
      apply {i, j} in acc.span
        acc.at(i, j) /= row_sum.at(i);
      mma.store acc, o.subspan(64, 64).at(0, 0);
    }
  }
}
)croq";
  return s;
}

// Attention over many key tiles with an online softmax (the running row
// maximum and sum rescale the output accumulator each step): O [S, 64] for
// Q [S, 64], K and V [T, 64], S and T multiples of 64, one block per 64
// query rows. `causal` (S == T): key tiles up to the diagonal, scores above
// it -inf. The output accumulator is rescaled before the first mma that
// writes it in the source.
inline std::string online_attention_source(bool causal) {
  std::string s = R"croq(
__co__ void online_attention(global f16 [S, 64] q, global f16 [T, 64] k, global f16 [T, 64] v, global f32 [S, 64] o) {
  parallel bm by cdiv(S, 64) : block {
    q_s = dma.copy.swiz<128> q.subspan(64, 64).at(bm, 0) => shared;
    parallel p by 1 : group-4 {
      frag f16 [64, 64] probs;
      frag f32 [64] m {-inf};
      frag f32 [64] m_prev;
      frag f32 [64] l {0.0f};
      frag f32 [64] tile_sum;
      frag f32 [64] rescale;
      float scale = 0.18033688f;
      acc = mma.fill.f32 0.0f;
)croq";
  s += causal ? "      foreach {bn} in [bm + 1] {\n" : "      foreach {bn} in [cdiv(T, 64)] {\n";
  s += R"croq(
        k_s = dma.copy.swiz<128> k.subspan(64, 64).at(bn, 0) => shared;
        sc = mma.fill.f32 0.0f;
        mma.row.row sc, q_s.data, k_s.data;
)croq";
  if (causal)
    s += R"croq(
        apply {i, j} in sc.span {
          if (bn * 64 + j > bm * 64 + i) sc.at(i, j) = -inf;
        }
)croq";
  s += R"croq(
        copy(m_prev, m);
        reduce_max(m, sc, 1);
        apply {i} in m.span {
          m.at(i) = __max(m.at(i), m_prev.at(i));
          rescale.at(i) = __exp2f(m_prev.at(i) * scale - m.at(i) * scale);
        }
        apply {i, j} in sc.span
          sc.at(i, j) = __exp2f(sc.at(i, j) * scale - m.at(i) * scale);
        reduce_sum(tile_sum, sc, 1);
        apply {i} in l.span
          l.at(i) = l.at(i) * rescale.at(i) + tile_sum.at(i);
        apply {i, j} in acc.span
          acc.at(i, j) = acc.at(i, j) * rescale.at(i);
        apply {i, j} in sc.span
          probs.at(i, j) = __to<f16>(sc.at(i, j));
        v_s = dma.copy.swiz<128> v.subspan(64, 64).at(bn, 0) => shared;
        mma.row.col acc, probs, v_s.data;
      }
      apply {i, j} in acc.span
        acc.at(i, j) /= l.at(i);
      mma.store acc, o.subspan(64, 64).at(bm, 0);
    }
  }
}
)croq";
  return s;
}

// The online attention per head of [B, H, S, 64] tensors (`.sqz()` heads),
// causal masking chosen at run time by a `bool` argument; S == T.
inline std::string multi_head_attention_source() {
  std::string s = online_attention_source(true);
  auto replace = [&](const std::string& from, const std::string& to) { s.replace(s.find(from), from.size(), to); };
  replace("global f16 [S, 64] q, global f16 [T, 64] k, global f16 [T, 64] v, global f32 [S, 64] o",
          "global f16 [B, H, S, 64] qs, global f16 [B, H, S, 64] ks, global f16 [B, H, S, 64] vs, "
          "global f32 [B, H, S, 64] os, bool causal");
  replace("parallel bm by cdiv(S, 64) : block {\n",
          "parallel {bm, h, bb} by [cdiv(S, 64), H, B] : block {\n"
          "    q = qs.subspan(1, 1, S, 64).at(bb, h, 0, 0).sqz();\n"
          "    k = ks.subspan(1, 1, S, 64).at(bb, h, 0, 0).sqz();\n"
          "    v = vs.subspan(1, 1, S, 64).at(bb, h, 0, 0).sqz();\n"
          "    o = os.subspan(1, 1, S, 64).at(bb, h, 0, 0).sqz();\n");
  replace("foreach {bn} in [bm + 1] {", "tiles = causal ? bm + 1 : cdiv(S, 64);\n      foreach {bn} in [tiles] {");
  replace("        apply {i, j} in sc.span {\n          if (bn * 64 + j > bm * 64 + i) sc.at(i, j) = -inf;\n        }\n",
          "        if (causal) {\n          apply {i, j} in sc.span {\n            if (bn * 64 + j > bm * 64 + i) sc.at(i, j) = -inf;\n"
          "          }\n        }\n");
  return s;
}

// `.sqz()`: each head of x [H, S, 16] as a [S, 16] tensor; 32-row tiles of
// it doubled into y's head. S need not be a multiple of 32: the last tile's
// rows past S belong to no head and must be neither read nor written.
inline constexpr const char* kHeadsBySqueeze = R"croq(
__co__ void double_heads(global f32 [H, S, 16] x, global f32 [H, S, 16] y) {
  parallel {bs, h} by [cdiv(S, 32), H] : block {
    xh = x.subspan(1, S, 16).at(h, 0, 0).sqz();
    yh = y.subspan(1, S, 16).at(h, 0, 0).sqz();
    t = dma.copy xh.subspan(32, 16).at(bs, 0).zfill => shared;
    parallel r by 32 : thread {
      foreach c in [16]
        yh.at(bs # r, c) = t.data.at(r, c) * 2.0f;
    }
  }
}
)croq";

// The same through TMA: heads of [B, H, S, 32] tensors, 32-row tiles
// loaded and stored by tma.copy on the `.sqz()` views. The copies address
// the whole tensor (box [1, 1, 32, 32] at (b, h, row, 0)), so rows past S
// read as zeros and are not stored: the next head stays as it was.
inline constexpr const char* kHeadsBySqueezeTma = R"croq(
__co__ void double_heads_tma(global f32 [B, H, S, 32] x, global f32 [B, H, S, 32] y) {
  parallel {bs, h, b} by [cdiv(S, 32), H, B] : block {
    shared f32 [32, 32] x_s, y_s;
    xh = x.subspan(1, 1, S, 32).at(b, h, 0, 0).sqz();
    yh = y.subspan(1, 1, S, 32).at(b, h, 0, 0).sqz();
    tma.copy xh.subspan(32, 32).at(bs, 0) => x_s;
    parallel r by 32 : thread {
      foreach c in [32]
        y_s.at(r, c) = x_s.at(r, c) * 2.0f;
    }
    tma.copy y_s => yh.subspan(32, 32).at(bs, 0);
  }
}
)croq";

}  // namespace croq::test
