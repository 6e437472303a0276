// Croqtile source of forward attention, O = softmax(Q K^T / sqrt(D)) V per
// head, shared by samples/flash_attention.cpp and bench/attention_bench.cpp.
//
// Q, K, V and O are [B, H, S, D] (K and V [B, H, T, D]), f16 or bf16; each
// block takes BM query rows of one head, the query tile varying fastest
// across blocks, so the blocks resident at once share a few heads' K and V
// in L2 (with the head varying fastest, every head's K and V were live:
// Nsight Compute showed DRAM at 56% of peak, about 2.3 GB per call against
// 0.27 GB of Q, K, V and O, at B=4, H=16, S=4096, D=128). A producer warpgroup streams K
// and V tiles of 128 rows with TMA through two stages; the consumer
// warpgroups (two by default, BM = 128) own 64 query rows each and take
// turns issuing their multiplies (ping-pong): S = Q K^T with WGMMA from shared
// memory, the online softmax in registers (base 2: exp2 of the scaled
// score less the running row maximum), and O += P V with P as a register
// fragment (RS-mode WGMMA), issued together with the next tile's Q K^T
// so that it runs during that tile's softmax. D is handled in 64-column slabs (one 128-byte
// swizzled TMA box each), so the text is generated per head dim. Causal
// masking aligns the last query row with the last key (row i sees keys
// j <= i + T - S); the loop stops at the block's diagonal.
#pragma once

#include <cmath>
#include <string>

namespace attention {

// `element`: "f16" or "bf16"; `head_dim`: a multiple of 64, at most 256;
// `ping_pong`: the consumers take turns issuing their multiplies;
// `consumers`: consumer warpgroups, 64 query rows each (BM = 64 consumers);
// `with_lse`: also write each row's log-sum-exp of the scaled scores, in
// base 2, to `lse` [B, H, S, 8] (8 copies a row: an accumulator's
// narrowest store), what the backward of
// samples/attention_backward_source.hpp recomputes the probabilities from.
inline std::string source(const std::string& element, int head_dim, bool ping_pong = true, int consumers = 2,
                          bool with_lse = false) {
  const int slabs = head_dim / 64;
  const double scale = 1.0 / std::sqrt(double(head_dim)) * 1.4426950408889634;  // log2(e) / sqrt(D)
  std::string s;
  auto add = [&](const std::string& line) { s += line + "\n"; };
  auto each_slab = [&](const std::string& pattern) {  // `#` stands for the slab
    for (int c = 0; c < slabs; ++c) {
      std::string line = pattern;
      for (std::size_t at; (at = line.find('#')) != std::string::npos;) line.replace(at, 1, std::to_string(c));
      add(line);
    }
  };
  const std::string t = element, d = std::to_string(head_dim);
  const std::string n_consumers = std::to_string(consumers);
  add("#define BM " + std::to_string(64 * consumers));
  add("#define BN 128");
  add("#define STAGES 2");
  add("__co__ void attention(global " + t + " [B, H, S, " + d + "] q, global " + t + " [B, H, T, " + d + "] k,");
  add("                      global " + t + " [B, H, T, " + d + "] v, global " + t + " [B, H, S, " + d + "] o," +
      (with_lse ? " global f32 [B, H, S, 8] lse," : "") + " bool causal) {");
  add("  parallel {b, h, bm} by [B, H, cdiv(S, BM)] : block {");
  add("    shared event q_full, k_full[STAGES], v_full[STAGES], k_empty[STAGES] = ready, v_empty[STAGES] = ready,");
  std::string turns = "turn1 = ready";
  for (int c = 2; c <= consumers; ++c) turns += ", turn" + std::to_string(c);
  add("                 " + turns + ";");
  each_slab("    shared " + t + " [BM, 64] q_s#;");
  each_slab("    shared " + t + " [BN, 64] k_s#[STAGES], v_s#[STAGES];");
  each_slab("    shared " + t + " [64, 64] o_s#[" + n_consumers + "];");
  add("    qh = q.subspan(1, 1, S, " + d + ").at(b, h, 0, 0).sqz();");
  add("    kh = k.subspan(1, 1, T, " + d + ").at(b, h, 0, 0).sqz();");
  add("    vh = v.subspan(1, 1, T, " + d + ").at(b, h, 0, 0).sqz();");
  add("    oh = o.subspan(1, 1, S, " + d + ").at(b, h, 0, 0).sqz();");
  // The block's query tile: causal blocks start from the last (the most
  // key tiles), so the blocks that start last are short and the grid's
  // tail is even.
  add("    qt = causal ? cdiv(S, BM) - 1 - bm : bm;");
  // Causal: key tiles up to the block's last row's diagonal, and at least
  // one (the consumers always take tile 0): with S - T >= 128 a block's rows
  // see no key, and softmax over no keys gives NaN, as in torch's math path.
  add("    diagonal = cdiv((qt + 1) * BM + T - S, BN);");
  add("    tiles = causal && diagonal < cdiv(T, BN) ? (diagonal > 1 ? diagonal : 1) : cdiv(T, BN);");
  add("    parallel p by " + std::to_string(consumers + 1) + " : group-4 {");
  add("      inthreads.async (p == 0) {");
  each_slab("        tma.copy.swiz<128> qh.subspan(BM, 64).at(qt, #) => q_s#;");
  add("        trigger q_full;");
  add("        foreach {bn} in [tiles] {");
  add("          stage = bn % STAGES;");
  add("          wait k_empty[stage];");
  each_slab("          tma.copy.swiz<128> kh.subspan(BN, 64).at(bn, #) => k_s#[stage];");
  add("          trigger k_full[stage];");
  add("          wait v_empty[stage];");
  each_slab("          tma.copy.swiz<128> vh.subspan(BN, 64).at(bn, #) => v_s#[stage];");
  add("          trigger v_full[stage];");
  add("        }");
  add("      }");
  add("      inthreads.async (p >= 1) {");
  add("        frag " + t + " [64, BN] probs;");
  add("        frag f32 [64] row_max {-inf};");
  add("        frag f32 [64] row_max_prev;");
  add("        frag f32 [64] row_sum {0.0f};");
  add("        frag f32 [64] tile_sum;");
  add("        frag f32 [64] rescale;");
  char scale_text[32];
  std::snprintf(scale_text, sizeof scale_text, "%.9ff", scale);
  add("        float scale = " + std::string(scale_text) + ";");
  add("        first_row = qt * BM + (p - 1) * 64;");
  each_slab("        acc# = mma.fill.f32 0.0f;");
  // S = Q K^T of key tile `tile` (in stage `stage`) into `scores`.
  auto scores_of = [&](const std::string& indent, const std::string& stage) {
    add(indent + "scores = mma.fill.f32 0.0f;");
    each_slab(indent + "mma.row.row scores, q_s#.subspan(64, 64).at(p - 1, 0), k_s#[" + stage + "];");
  };
  // The online softmax of key tile `tile`'s scores: masks (keys past T, the
  // zero rows TMA fills in, and past the diagonal), the running maximum and
  // sum, the output rescaled (after the previous P V completes) and the
  // probabilities as the next P V's lhs.
  auto softmax = [&](const std::string& indent, const std::string& tile) {
    add(indent + "if (" + tile + " * BN + BN > T || causal && " + tile + " * BN + BN > first_row + T - S + 1) {");
    add(indent + "  apply {i, j} in scores.span {");
    add(indent + "    if (" + tile + " * BN + j >= T || causal && " + tile + " * BN + j > first_row + i + T - S) scores.at(i, j) = -inf;");
    add(indent + "  }");
    add(indent + "}");
    add(indent + "copy(row_max_prev, row_max);");
    add(indent + "reduce_max(row_max, scores, 1);");
    add(indent + "apply {i} in row_max.span {");
    add(indent + "  row_max.at(i) = __max(row_max.at(i), row_max_prev.at(i));");
    add(indent + "  rescale.at(i) = __exp2f((row_max_prev.at(i) - row_max.at(i)) * scale);");
    add(indent + "}");
    add(indent + "apply {i, j} in scores.span");
    add(indent + "  scores.at(i, j) = __exp2f(scores.at(i, j) * scale - row_max.at(i) * scale);");
    add(indent + "reduce_sum(tile_sum, scores, 1);");
    add(indent + "apply {i} in row_sum.span");
    add(indent + "  row_sum.at(i) = row_sum.at(i) * rescale.at(i) + tile_sum.at(i);");
    for (int c = 0; c < slabs; ++c) {
      const std::string acc = "acc" + std::to_string(c);
      add(indent + "apply {i, j} in " + acc + ".span");
      add(indent + "  " + acc + ".at(i, j) = " + acc + ".at(i, j) * rescale.at(i);");
    }
    add(indent + "apply {i, j} in scores.span");
    add(indent + "  probs.at(i, j) = __to<" + t + ">(scores.at(i, j));");
  };
  // Ping-pong: the consumers take turns issuing their multiplies, so that
  // one's softmax runs while the tensor cores work on the other's (both
  // softmaxes at once leave the tensor cores idle).
  auto my_turn = [&](const std::string& indent) {
    if (!ping_pong) return;
    for (int c = 1; c <= consumers; ++c)
      add(indent + "inthreads (p == " + std::to_string(c) + ") { wait turn" + std::to_string(c) + "; }");
  };
  auto their_turn = [&](const std::string& indent) {
    if (!ping_pong) return;
    for (int c = 1; c <= consumers; ++c)
      add(indent + "inthreads (p == " + std::to_string(c) + ") { trigger turn" + std::to_string(c % consumers + 1) + "; }");
  };
  add("        wait q_full;");
  // Key tile 0; then each step multiplies P V of the previous tile while
  // its softmax runs on the next tile's scores (both WGMMA groups in flight).
  add("        wait k_full[0];");
  my_turn("        ");
  scores_of("        ", "0");
  their_turn("        ");
  softmax("        ", "0");
  add("        trigger k_empty[0];");
  add("        foreach {bn} in [tiles - 1] {");
  add("          next = bn + 1;");
  add("          wait k_full[next % STAGES];");
  add("          wait v_full[bn % STAGES];");
  my_turn("          ");
  scores_of("          ", "next % STAGES");
  each_slab("          mma.row.col acc#, probs, v_s#[bn % STAGES];");
  their_turn("          ");
  softmax("          ", "next");
  add("          trigger k_empty[next % STAGES];");
  add("          trigger v_empty[bn % STAGES];");
  add("        }");
  add("        wait v_full[(tiles - 1) % STAGES];");
  each_slab("        mma.row.col acc#, probs, v_s#[(tiles - 1) % STAGES];");
  add("        trigger v_empty[(tiles - 1) % STAGES];");
  if (with_lse) {
    // An accumulator is the register tile mma.store writes (element stores
    // in an `apply` are one thread's), and a multiply gives it its width:
    // an 8-column one (of Q's own rows, overwritten), each column the
    // row's log2-sum-exp2.
    add("        lse_rows = mma.fill.f32 0.0f;");
    add("        mma.row.row lse_rows, q_s0.subspan(64, 64).at(p - 1, 0), q_s0.subspan(8, 64).at(0, 0);");
    add("        apply {i, j} in lse_rows.span");
    add("          lse_rows.at(i, j) = row_max.at(i) * scale + __log(row_sum.at(i)) * 1.442695041f;");
    add("        mma.store lse_rows, lse.subspan(1, 1, S, 8).at(b, h, 0, 0).sqz().subspan(64, 8).at(qt * " + n_consumers +
        " + p - 1, 0);");
  }
  for (int c = 0; c < slabs; ++c) {
    const std::string a = "acc" + std::to_string(c), sl = std::to_string(c);
    add("        apply {i, j} in " + a + ".span");
    add("          " + a + ".at(i, j) = " + a + ".at(i, j) / row_sum.at(i);");
    add("        mma.store " + a + ", o_s" + sl + "[p - 1];");
    add("        tma.copy o_s" + sl + "[p - 1] => oh.subspan(64, 64).at(qt * " + n_consumers + " + p - 1, " + sl + ");");
  }
  add("      }");
  add("    }");
  add("  }");
  add("}");
  return s;
}

}  // namespace attention
