// Croqtile source of the attention backward (FlashAttention-2's algorithm,
// with FlashAttention-3's warp-specialized TMA and WGMMA structure), shared
// by samples/flash_attention_backward.cpp, its tests and the bench.
//
// Given Q, K, V, O, dO ([B, H, S, D], K and V [B, H, T, D], f16 or bf16)
// and the forward's row log-sum-exp of the scaled scores in base 2 (`lse`
// [B, H, S, 8], column 0 read; written by attention::source(..., with_lse = true)), it
// writes dQ, dK and dV. One program of three kernels:
//   1. delta = rowsum(dO * O) per query row, into a program buffer;
//   2. per block a tile of 128 keys (64 per consumer warpgroup), walking
//      the query tiles that see them: Sᵀ = K Qᵀ and dPᵀ = V dOᵀ from
//      shared memory, Pᵀ = exp2(Sᵀ scale - lse) recomputed in registers,
//      dV += Pᵀ dO and dK += dSᵀ Q in RS form (dSᵀ = Pᵀ (dPᵀ - delta));
//   3. per block a tile of 128 queries (64 per consumer), walking the key
//      tiles they see: S and dP again, dS, and dQ += dS K in RS form.
// dQ takes this separate pass rather than f32 atomics from kernel 2:
// element stores and atomics in an `apply` over registers are one thread's
// (block scope), and dQ = dS K from kernel 2's registers needs dS as an
// M-major shared lhs, which WGMMA lowering does not take (lhs is [M, K]).
// Each kernel's producer warpgroup streams the walked tiles with TMA through
// two stages, as the forward (samples/attention_source.hpp) does K and V.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace attention {

namespace detail {

// Text generation shared by the three kernels: `#` in a line stands for
// the slab (64 columns of D, one 128-byte swizzle span).
struct Text {
  std::string s;
  int slabs;
  void add(const std::string& line) { s += line + "\n"; }
  void each_slab(const std::string& pattern) {
    for (int c = 0; c < slabs; ++c) {
      std::string line = pattern;
      for (std::size_t at; (at = line.find('#')) != std::string::npos;) line.replace(at, 1, std::to_string(c));
      add(line);
    }
  }
};

inline std::string float_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9ff", v);
  return text;
}

// The [S, D] (or [T, D]) slice of head (b, h) of a [B, H, rows, D] tensor.
inline std::string head(const std::string& name, const std::string& rows, const std::string& d) {
  return "    " + name + "h = " + name + ".subspan(1, 1, " + rows + ", " + d + ").at(b, h, 0, 0).sqz();";
}

// Kernel 2: dK and dV of 128 keys per block.
inline void key_tile_kernel(Text& x, const std::string& t, const std::string& d, const std::string& scale) {
  x.add("  parallel {b, h, kt} by [B, H, cdiv(T, 128)] : block {");
  x.add("    shared event kv_full, in_full[2], in_empty[2] = ready;");
  x.each_slab("    shared " + t + " [128, 64] k_s#, v_s#;");
  x.each_slab("    shared " + t + " [64, 64] q_s#[2], do_s#[2];");
  x.each_slab("    shared " + t + " [64, 64] dk_s#[2], dv_s#[2];");
  for (const char* n : {"q", "dout"}) x.add(head(n, "S", d));
  for (const char* n : {"k", "v", "dk", "dv"}) x.add(head(n, "T", d));
  // Causal: query row r sees key c when c <= r + T - S, so the first query
  // tile that sees the block's first key is (kt * 128 - T + S) / 64.
  x.add("    seen_from = kt * 128 - T + S;");
  x.add("    first = causal && seen_from > 0 ? seen_from / 64 : 0;");
  x.add("    tiles = cdiv(S, 64) > first ? cdiv(S, 64) - first : 0;");
  x.add("    parallel p by 3 : group-4 {");
  x.add("      inthreads.async (p == 0) {");
  x.each_slab("        tma.copy.swiz<128> kh.subspan(128, 64).at(kt, #) => k_s#;");
  x.each_slab("        tma.copy.swiz<128> vh.subspan(128, 64).at(kt, #) => v_s#;");
  x.add("        trigger kv_full;");
  x.add("        foreach {it} in [tiles] {");
  x.add("          stage = it % 2;");
  x.add("          wait in_empty[stage];");
  x.each_slab("          tma.copy.swiz<128> qh.subspan(64, 64).at(first + it, #) => q_s#[stage];");
  x.each_slab("          tma.copy.swiz<128> douth.subspan(64, 64).at(first + it, #) => do_s#[stage];");
  x.add("          trigger in_full[stage];");
  x.add("        }");
  x.add("      }");
  x.add("      inthreads.async (p >= 1) {");
  x.add("        frag " + t + " [64, 64] probs_t;");
  x.add("        frag " + t + " [64, 64] dscores_t;");
  x.add("        float scale = " + scale + ";");
  x.add("        first_key = kt * 128 + (p - 1) * 64;");
  x.each_slab("        dv# = mma.fill.f32 0.0f;");
  x.each_slab("        dk# = mma.fill.f32 0.0f;");
  // Sᵀ = K Qᵀ and dPᵀ = V dOᵀ of the query tile in `stage`.
  auto products = [&](const std::string& in, const std::string& stage) {
    x.add(in + "scores_t = mma.fill.f32 0.0f;");
    x.each_slab(in + "mma.row.row scores_t, k_s#.subspan(64, 64).at(p - 1, 0), q_s#[" + stage + "];");
    x.add(in + "dprobs_t = mma.fill.f32 0.0f;");
    x.each_slab(in + "mma.row.row dprobs_t, v_s#.subspan(64, 64).at(p - 1, 0), do_s#[" + stage + "];");
  };
  // Pᵀ (rows: keys, columns: queries), masked: queries past S (TMA's zero
  // rows), keys past T, and keys past a query's diagonal; lse and delta of
  // a query past S are read at S - 1 (masked anyway). Each apply is a
  // completion point for what it touches only: dV multiplies while dSᵀ
  // is computed.
  x.add("        wait kv_full;");
  x.add("        foreach {it} in [tiles] {");
  x.add("          stage = it % 2;");
  x.add("          first_query = (first + it) * 64;");
  x.add("          wait in_full[stage];");
  products("          ", "stage");
  x.add("          apply {i, j} in scores_t.span {");
  x.add("            scores_t.at(i, j) = first_query + j >= S || first_key + i >= T || causal && first_key + i > first_query + j + T - S");
  x.add("              ? 0.0f");
  x.add("              : __exp2f(scores_t.at(i, j) * scale - lse.at(b, h, first_query + j < S ? first_query + j : S - 1, 0));");
  x.add("            probs_t.at(i, j) = __to<" + t + ">(scores_t.at(i, j));");
  x.add("          }");
  x.each_slab("          mma.row.col dv#, probs_t, do_s#[stage];");
  x.add("          apply {i, j} in dprobs_t.span");
  x.add("            dscores_t.at(i, j) = __to<" + t + ">(scores_t.at(i, j) * (dprobs_t.at(i, j) -");
  x.add("              delta.at(b, h, first_query + j < S ? first_query + j : S - 1)));");
  x.each_slab("          mma.row.col dk#, dscores_t, q_s#[stage];");
  // Complete the multiplies before the stage is released: one left in
  // flight across the loop's back edge makes ptxas serialize every WGMMA
  // of the kernel (C7514). (Issuing the next tile's Sᵀ and dPᵀ with this
  // one's dV and dK, as kernel 3 does, needs more registers than the
  // consumers have at D = 128: ptxas spills; ping-pong turns spill too.)
  x.add("          mma.commit;");
  x.add("          trigger in_empty[stage];");
  x.add("        }");
  for (const char* acc : {"dk", "dv"})
    for (int c = 0; c < x.slabs; ++c) {
      const std::string a = acc + std::to_string(c), sl = std::to_string(c);
      if (std::string(acc) == "dk") {  // dK = dSᵀ Q / sqrt(D)
        x.add("        apply {i, j} in " + a + ".span");
        x.add("          " + a + ".at(i, j) = " + a + ".at(i, j) * " + float_text(1.0 / std::sqrt(std::stod(d))) + ";");
      }
      x.add("        mma.store " + a + ", " + acc + "_s" + sl + "[p - 1];");
      x.add("        tma.copy " + std::string(acc) + "_s" + sl + "[p - 1] => " + acc + "h.subspan(64, 64).at(kt * 2 + p - 1, " + sl + ");");
    }
  x.add("      }");
  x.add("    }");
  x.add("  }");
}

// Kernel 3: dQ of 128 queries per block.
inline void query_tile_kernel(Text& x, const std::string& t, const std::string& d, const std::string& scale) {
  x.add("  parallel {b, h, bm} by [B, H, cdiv(S, 128)] : block {");
  x.add("    shared event q_full, kv_full[2], kv_empty[2] = ready;");
  x.each_slab("    shared " + t + " [128, 64] q_s#, do_s#;");
  x.each_slab("    shared " + t + " [64, 64] k_s#[2], v_s#[2];");
  x.each_slab("    shared " + t + " [64, 64] dq_s#[2];");
  for (const char* n : {"q", "dout", "dq"}) x.add(head(n, "S", d));
  for (const char* n : {"k", "v"}) x.add(head(n, "T", d));
  // Causal blocks start from the last query tile (the most key tiles).
  x.add("    qt = causal ? cdiv(S, 128) - 1 - bm : bm;");
  x.add("    diagonal = cdiv((qt + 1) * 128 + T - S, 64);");
  // At least one key tile (the consumers always take tile 0): rows that
  // see no key (causal, S - T >= 128) get dQ = 0.
  x.add("    tiles = causal && diagonal < cdiv(T, 64) ? (diagonal > 1 ? diagonal : 1) : cdiv(T, 64);");
  x.add("    parallel p by 3 : group-4 {");
  x.add("      inthreads.async (p == 0) {");
  x.each_slab("        tma.copy.swiz<128> qh.subspan(128, 64).at(qt, #) => q_s#;");
  x.each_slab("        tma.copy.swiz<128> douth.subspan(128, 64).at(qt, #) => do_s#;");
  x.add("        trigger q_full;");
  x.add("        foreach {kb} in [tiles] {");
  x.add("          stage = kb % 2;");
  x.add("          wait kv_empty[stage];");
  x.each_slab("          tma.copy.swiz<128> kh.subspan(64, 64).at(kb, #) => k_s#[stage];");
  x.each_slab("          tma.copy.swiz<128> vh.subspan(64, 64).at(kb, #) => v_s#[stage];");
  x.add("          trigger kv_full[stage];");
  x.add("        }");
  x.add("      }");
  x.add("      inthreads.async (p >= 1) {");
  x.add("        frag " + t + " [64, 64] dscores;");
  x.add("        frag f32 [64] row_lse;");
  x.add("        frag f32 [64] row_delta;");
  x.add("        float scale = " + scale + ";");
  x.add("        first_row = qt * 128 + (p - 1) * 64;");
  x.add("        apply {i} in row_lse.span {");
  x.add("          row_lse.at(i) = lse.at(b, h, first_row + i < S ? first_row + i : S - 1, 0);");
  x.add("          row_delta.at(i) = delta.at(b, h, first_row + i < S ? first_row + i : S - 1);");
  x.add("        }");
  x.each_slab("        dq# = mma.fill.f32 0.0f;");
  // S = Q Kᵀ and dP = dO Vᵀ of the key tile in `stage`, with dQ += dS K of
  // the previous tile (`previous`, or none) when there is one: it
  // multiplies during the next tile's exponentials. (Ping-pong turns
  // between the consumers, as the forward's, make ptxas serialize the
  // WGMMAs here, C7518.)
  auto products = [&](const std::string& in, const std::string& stage, const std::string& previous) {
    x.add(in + "scores = mma.fill.f32 0.0f;");
    x.each_slab(in + "mma.row.row scores, q_s#.subspan(64, 64).at(p - 1, 0), k_s#[" + stage + "];");
    x.add(in + "dprobs = mma.fill.f32 0.0f;");
    x.each_slab(in + "mma.row.row dprobs, do_s#.subspan(64, 64).at(p - 1, 0), v_s#[" + stage + "];");
    if (!previous.empty()) x.each_slab(in + "mma.row.col dq#, dscores, k_s#[" + previous + "];");
  };
  // P (masked: keys past T and past the row's diagonal), then dS; each
  // apply a completion point for what it touches only, so writing dscores
  // waits for the previous dQ multiply, the exponentials do not.
  auto gradients = [&](const std::string& in, const std::string& tile) {
    x.add(in + "apply {i, j} in scores.span");
    x.add(in + "  scores.at(i, j) = " + tile + " * 64 + j >= T || causal && " + tile + " * 64 + j > first_row + i + T - S");
    x.add(in + "    ? 0.0f : __exp2f(scores.at(i, j) * scale - row_lse.at(i));");
    x.add(in + "apply {i, j} in dprobs.span");
    x.add(in + "  dscores.at(i, j) = __to<" + t + ">(scores.at(i, j) * (dprobs.at(i, j) - row_delta.at(i)));");
  };
  x.add("        wait q_full;");
  x.add("        wait kv_full[0];");
  products("        ", "0", "");
  gradients("        ", "0");
  x.add("        foreach {kb} in [tiles - 1] {");
  x.add("          next = kb + 1;");
  x.add("          wait kv_full[next % 2];");
  products("          ", "next % 2", "kb % 2");
  gradients("          ", "next");
  x.add("          trigger kv_empty[kb % 2];");
  x.add("        }");
  x.each_slab("        mma.row.col dq#, dscores, k_s#[(tiles - 1) % 2];");
  x.add("        trigger kv_empty[(tiles - 1) % 2];");
  for (int c = 0; c < x.slabs; ++c) {
    const std::string a = "dq" + std::to_string(c), sl = std::to_string(c);
    x.add("        apply {i, j} in " + a + ".span");
    x.add("          " + a + ".at(i, j) = " + a + ".at(i, j) * " + float_text(1.0 / std::sqrt(std::stod(d))) + ";");
    x.add("        mma.store " + a + ", dq_s" + sl + "[p - 1];");
    x.add("        tma.copy dq_s" + sl + "[p - 1] => dqh.subspan(64, 64).at(qt * 2 + p - 1, " + sl + ");");
  }
  x.add("      }");
  x.add("    }");
  x.add("  }");
}

}  // namespace detail

// The backward program for `element` ("f16" or "bf16") and `head_dim` (64
// or 128): attention_backward(q, k, v, o, dout, lse, dq, dk, dv, causal).
inline std::string backward_source(const std::string& element, int head_dim) {
  detail::Text x{"", head_dim / 64};
  const std::string t = element, d = std::to_string(head_dim);
  const std::string scale = detail::float_text(1.0 / std::sqrt(double(head_dim)) * 1.4426950408889634);  // log2(e) / sqrt(D)
  const std::string qs = "global " + t + " [B, H, S, " + d + "] ", ks = "global " + t + " [B, H, T, " + d + "] ";
  x.add("__co__ void attention_backward(" + qs + "q, " + ks + "k, " + ks + "v, " + qs + "o, " + qs + "dout,");
  x.add("                               global f32 [B, H, S, 8] lse, " + qs + "dq, " + ks + "dk, " + ks + "dv,");
  x.add("                               bool causal) {");
  x.add("  global f32 [B, H, S] delta;");
  x.add("  parallel {b, h, rt} by [B, H, cdiv(S, 128)] : block {");
  x.add("    parallel r by 128 : thread {");
  x.add("      row = rt * 128 + r;");
  x.add("      if (row < S) {");
  x.add("        f32 sum = 0.0f;");
  x.add("        foreach c in [" + d + "]");
  x.add("          sum = sum + __to<f32>(o.at(b, h, row, c)) * __to<f32>(dout.at(b, h, row, c));");
  x.add("        delta.at(b, h, row) = sum;");
  x.add("      }");
  x.add("    }");
  x.add("  }");
  detail::key_tile_kernel(x, t, d, scale);
  detail::query_tile_kernel(x, t, d, scale);
  x.add("}");
  return x.s;
}

}  // namespace attention
