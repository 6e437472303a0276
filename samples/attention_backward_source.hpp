// Croqtile source of the attention backward (FlashAttention-2's algorithm,
// with FlashAttention-3's warp-specialized TMA and WGMMA structure), shared
// by samples/flash_attention_backward.cpp, its tests and the bench.
//
// Given Q, K, V, O, dO ([B, H, S, D], K and V [B, H, T, D], f16 or bf16)
// and the forward's row log-sum-exp of the scaled scores in base 2 (`lse`
// [B, H, S, 8], column 0 read; written by attention::source(..., with_lse = true)), it
// writes dQ, dK and dV. One program of three kernels:
//   1. delta = rowsum(dO * O) per query row, into a program buffer;
//   2. per block a tile of 128 keys (64 per consumer warpgroup; above
//      D = 128, 64 keys, see detail::Tiling), walking
//      the query tiles that see them: Sᵀ = K Qᵀ and dPᵀ = V dOᵀ from
//      shared memory, Pᵀ = exp2(Sᵀ scale - lse) recomputed in registers,
//      dV += Pᵀ dO and dK += dSᵀ Q in RS form (dSᵀ = Pᵀ (dPᵀ - delta)),
//      and dQ += dS K: dSᵀ staged in shared memory is the M-major lhs
//      (mma.col.col, WGMMA's imm-trans-a), and each thread adds the
//      product's elements it holds to an f32 program buffer with atomics
//      (FlashAttention-2's five products instead of seven);
//   3. dQ = that buffer / sqrt(D), in the element type.
// With dq_pass (the default: on an H200 the atomic form above took twice
// its time, 9.9 against 5.0 ms at f16 B4 H16 S4096 D128, its two atomic
// adds per element and its fences before each staged multiply costing more
// than S and dP twice), kernel 2 leaves dQ out and kernel 3 is a pass per
// block of 128 queries (64 per consumer; above D = 128, 64) walking the key
// tiles they see: S and dP again, dS, and dQ += dS K in RS form.
// Each kernel's producer warpgroup streams the walked tiles with TMA through
// two stages, as the forward (samples/attention_source.hpp) does K and V.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace attention {

namespace detail {

// How a head dim is tiled. D in 64-column slabs (one 128-byte swizzle span
// each). Up to D = 128 each consumer warpgroup owns 64 rows of the block's
// tile (128 keys in kernel 2, 128 queries in kernel 3) and every slab of
// its gradients. At D = 256 ("wide") those accumulators (dK and dV of 64
// keys, or dQ of 64 queries, over all of D) would not fit a warpgroup's
// registers, nor two stages of the walked tiles and the staging a block's
// 227 KB of shared memory: the block's tile is 64 rows, both consumers
// compute its Sᵀ and dPᵀ (or S and dP) over all of D, and consumer p
// accumulates the gradients of slabs (p - 1) * 2 and (p - 1) * 2 + 1 (the
// registers of D = 128's consumers), staged out one slab at a time through
// one tile per consumer (the compiler waits for the previous slab's TMA
// store to read it). The walked tiles are then one array per operand,
// stage-major, so that a consumer's slabs are an index. (Two consumer
// regions with slabs of their own would trigger the stages' events from
// two sites of one warpgroup each, and the sites fix the count: one
// consumer's release would free a stage the other still reads.) Shared
// memory at D = 256: 64 KB of the block's own tile, 128 KB of two stages
// of the walked tiles and 16 KB of staging, 210 KB per kernel.
struct Tiling {
  int slabs;
  bool wide;
  int block_rows;  // the block's keys (kernel 2) or queries (kernel 3)
  int owned;       // the slabs of the gradients each consumer accumulates

  explicit Tiling(int head_dim)
      : slabs(head_dim / 64), wide(head_dim > 128), block_rows(wide ? 64 : 128), owned(wide ? slabs / 2 : slabs) {}

  // The slab of a consumer's c-th accumulator (of owned).
  std::string slab(int c) const {
    return wide ? "(p - 1) * " + std::to_string(owned) + " + " + std::to_string(c) : std::to_string(c);
  }
  // Slab `slab` of walked operand `name` in stage `stage`.
  std::string walked(const std::string& name, const std::string& stage, const std::string& slab) const {
    if (!wide) return name + slab + "[" + stage + "]";
    const std::string first = stage.find(' ') == std::string::npos ? stage : "(" + stage + ")";
    return name + "[" + (stage == "0" ? "" : first + " * " + std::to_string(slabs) + " + ") + slab + "]";
  }
  // Slab `slab` of the block's own tile `name` (k_s, v_s): wide, one array
  // (so that a consumer's owned slabs are an index), else one tile a slab.
  std::string block_tile(const std::string& name, const std::string& slab) const {
    return wide ? name + "[" + slab + "]" : name + slab;
  }
  // The consumer's 64 rows of the block's tile `buffer`.
  std::string rows(const std::string& buffer) const { return wide ? buffer : buffer + ".subspan(64, 64).at(p - 1, 0)"; }
  // The tile of the consumer's 64 gradient rows among the head's.
  std::string row_tile(const std::string& block) const { return wide ? block : block + " * 2 + p - 1"; }
  std::string first_row(const std::string& block) const {
    return wide ? block + " * 64" : block + " * 128 + (p - 1) * 64";
  }
  // The shared tile that stages slab c (of owned) of accumulator `name`.
  std::string staging(const std::string& name, int c) const {
    return wide ? "out_s[p - 1]" : name + "_s" + std::to_string(c) + "[p - 1]";
  }
};

// Text generation shared by the three kernels: `#` in a line stands for
// the slab (64 columns of D, one 128-byte swizzle span).
struct Text {
  std::string s;
  Tiling tiling;
  bool varlen = false;
  std::string element;
  bool dq_pass = false;  // dQ in a third pass (kernel 3) instead of atomics from kernel 2
  std::string pad;  // more indentation: a packed block's body, under its sequence's guard
  void add(const std::string& line) { s += (line.empty() ? line : pad + line) + "\n"; }
  // The query and key counts of the block's head: the dims, or its
  // sequence's.
  std::string sq() const { return varlen ? "seq_q" : "S"; }
  std::string sk() const { return varlen ? "seq_k" : "T"; }
  // Element (row, rest) of query row `row`'s `lse` or `delta`, a row past
  // the block's queries read at the last (`row` < `count`, else
  // `count` - 1), masked anyway. Packed, that row is read unclamped, within
  // the sequence's rows: past them it is another sequence's row (or,
  // past TQ, the element reads' tail guard gives 0), and the clamp's
  // arithmetic on the sequence's offsets spilled 72 bytes a thread at
  // D = 128.
  std::string query_row(const std::string& tensor, const std::string& row, const std::string& count,
                        const std::string& rest = "") const {
    if (varlen) return tensor + ".at(h, q_start + " + row + rest + ")";
    return tensor + ".at(b, h, " + row + " < " + count + " ? " + row + " : " + count + " - 1" + rest + ")";
  }
  // The `rows` x 64 tile `tile` (a row tile) of head view `view`, at slab #.
  std::string tile_of(const std::string& view, const std::string& rows, const std::string& tile) const {
    if (!varlen) return view + ".subspan(" + rows + ", 64).at(" + tile + ", #)";
    const std::string start = view == "kh" || view == "vh" ? "k_start" : "q_start";
    const std::string at = tile.find(' ') == std::string::npos ? tile : "(" + tile + ")";
    return view + ".view(" + rows + ", 64).from(" + start + " + " + at + " * " + rows + ", # * 64)";
  }
  // Causal: key `key` is past query `query`'s diagonal (key > query + T -
  // S). A register tile's row and column are unsigned (the thread index),
  // so no side may go below zero: packed, S is added on the left; dense,
  // the form is chosen by S > T, which the specialization folds (the dense
  // kernels keep the T >= S form ptxas allocates best: S on the left
  // spilled 36 bytes in kernel 2 at D128).
  std::string past_diagonal(const std::string& key, const std::string& query) const {
    if (varlen) return key + " + " + sq() + " > " + query + " + " + sk();
    return "(" + sq() + " > " + sk() + " ? " + key + " + " + sq() + " - " + sk() + " > " + query + " : " + key + " > " +
           query + " + " + sk() + " - " + sq() + ")";
  }
  // The [S, D] (or [T, D]) slice of head (b, h), `rows` its row count
  // (dense: S or T; packed: TQ or TK, every sequence's).
  void head(const std::string& name, const std::string& rows, const std::string& d) {
    if (varlen) add("    " + name + "h = " + name + ".subspan(1, " + rows + ", " + d + ").at(h, 0, 0).sqz();");
    else add("    " + name + "h = " + name + ".subspan(1, 1, " + rows + ", " + d + ").at(b, h, 0, 0).sqz();");
  }
  // Packed: the block's sequence b and its row tile `tile` there, from the
  // tiles of `rows` rows of the sequences before (offsets `cu`), and the
  // sequence's query and key rows; the rest of the block is under the
  // guard that b is a sequence (`end_sequence` closes it).
  void find_sequence(const std::string& cu, const std::string& rows, const std::string& tile) {
    if (!varlen) return;
    add("    mutable int b = 0;");
    add("    mutable int tiles_before = 0;");
    add("    foreach {i} in [B1 - 1] {");
    add("      tiles_of_i = cdiv(" + cu + ".at(i + 1) - " + cu + ".at(i), " + rows + ");");
    add("      step = b == i && g >= tiles_before + tiles_of_i ? 1 : 0;");
    add("      b += step;");
    add("      tiles_before += step * tiles_of_i;");
    add("    }");
    add("    if (b < B1 - 1) {");
    pad = "  ";
    add("    " + tile + " = g - tiles_before;");
    add("    q_start = cu_q.at(b);");
    add("    seq_q = cu_q.at(b + 1) - q_start;");
    add("    k_start = cu_k.at(b);");
    add("    seq_k = cu_k.at(b + 1) - k_start;");
  }
  void end_sequence() {
    if (!varlen) return;
    pad = "";
    add("    }");
  }
  // The pattern once per slab of D (`#`: its index), or, with `owned`, once
  // per accumulator of a consumer (`#`: the accumulator, `$`: its slab).
  void each(const std::string& pattern, bool owned = false) {
    for (int c = 0; c < (owned ? tiling.owned : tiling.slabs); ++c) {
      std::string line = pattern;
      const std::pair<char, std::string> fills[] = {{'#', std::to_string(c)}, {'$', owned ? tiling.slab(c) : std::to_string(c)}};
      for (const auto& [mark, text] : fills)
        for (std::size_t at; (at = line.find(mark)) != std::string::npos;) line.replace(at, 1, text);
      add(line);
    }
  }
  void each_slab(const std::string& pattern) { each(pattern); }
  void each_owned(const std::string& pattern) { each(pattern, true); }
  // The walked tiles `a` and `b` of element type t: `stages` stages of
  // each slab.
  void declare_walked(const std::string& t, const std::string& a, const std::string& b, int stages = 2) {
    const std::string wide_count = "[" + std::to_string(stages * tiling.slabs) + "]", count = "[" + std::to_string(stages) + "]";
    if (tiling.wide) add("    shared " + t + " [64, 64] " + a + wide_count + ", " + b + wide_count + ";");
    else each_slab("    shared " + t + " [64, 64] " + a + "#" + count + ", " + b + "#" + count + ";");
  }
  // The staging tiles of the gradients `names` (one per consumer, or one per
  // consumer and slab of each).
  void declare_staging(const std::string& t, const std::string& names) {
    if (tiling.wide) add("    shared " + t + " [64, 64] out_s[2];");
    else each_slab("    shared " + t + " [64, 64] " + names + ";");
  }
};

inline std::string float_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9ff", v);
  return text;
}

// A consumer's accumulators `acc`# ("dk", "dv", "dq"), scaled by `scale`
// when it is not empty, staged and stored to row tile `row_tile` of
// `acc`h; packed, from registers, each row only while inside the sequence
// (`first_row` its first, `start` and `count` the sequence's), so that a
// tail tile never writes into the next sequence.
inline void store_gradient(Text& x, const std::string& acc, const std::string& scale, const std::string& row_tile,
                           const std::string& first_row, const std::string& start, const std::string& count) {
  const Tiling& g = x.tiling;
  for (int c = 0; c < g.owned; ++c) {
    const std::string a = acc + std::to_string(c), staging = g.staging(acc, c);
    if (x.varlen) {
      const std::string first_column = g.wide ? "(p - 1) * " + std::to_string(g.owned * 64) : "";
      const std::string offset = c ? std::to_string(c * 64) + " + " : "";
      const std::string column = (first_column.empty() ? "" : first_column + " + ") + offset + "j";
      x.add("        apply {i, j} in " + a + ".span {");
      x.add("          if (" + first_row + " + i < " + count + ")");
      x.add("            " + acc + "h.at(" + start + " + " + first_row + " + i, " + column + ") = __to<" + x.element + ">(" + a +
            ".at(i, j)" + (scale.empty() ? "" : " * " + scale) + ");");
      x.add("        }");
      continue;
    }
    if (!scale.empty()) {
      x.add("        apply {i, j} in " + a + ".span");
      x.add("          " + a + ".at(i, j) = " + a + ".at(i, j) * " + scale + ";");
    }
    x.add("        mma.store " + a + ", " + staging + ";");
    x.add("        tma.copy " + staging + " => " + acc + "h.subspan(64, 64).at(" + row_tile + ", " + g.slab(c) + ");");
  }
}

// Kernel 2's share of dQ for its query tile: dQ += dS K over the
// consumer's keys, with dSᵀ ([keys, queries], staged in ds_s) as the
// M-major lhs (mma.col.col), one slab of D at a time through one
// accumulator, each element added to the f32 program buffer `dq_acc` with
// an atomic (red.global.add.f32) by the thread that holds it; queries past
// the head's (or the sequence's) rows add nothing.
inline void accumulate_dq(Text& x, const std::string& sq) {
  const Tiling& g = x.tiling;
  for (int c = 0; c < g.owned; ++c) {
    const std::string slab = "(" + g.slab(c) + ")";
    const std::string row = x.varlen ? "h, q_start + first_query + i" : "b, h, first_query + i";
    x.add("          mma.fill dq, 0.0f;");
    x.add("          mma.col.col dq, ds_s[p - 1], " + g.rows(g.block_tile("k_s", g.slab(c))) + ";");
    x.add("          apply {i, j} in dq.span {");
    x.add("            if (first_query + i < " + sq + ")");
    x.add("              __atomic_add(dq_acc.at(" + row + ", " + slab + " * 64 + j), dq.at(i, j));");
    x.add("          }");
  }
}

// Kernel 2: dK and dV of the block's keys, walking the query tiles that
// see them.
inline void key_tile_kernel(Text& x, const std::string& t, const std::string& d, const std::string& scale) {
  const Tiling& g = x.tiling;
  const std::string rows = std::to_string(g.block_rows);
  const std::string sq = x.sq(), sk = x.sk();
  x.add(x.varlen ? "  parallel {h, g} by [H, cdiv(TK, " + rows + ") + B1 - 1] : block {"
                 : "  parallel {b, h, kt} by [B, H, cdiv(T, " + rows + ")] : block {");
  // lse or delta of query column j of the walked tile.
  auto query_values = [&](const std::string& name) {
    if (!x.varlen) return name + "_s[stage].at(j, 0)";
    return x.query_row(name, "first_query + j", sq, name == "lse" ? ", 0" : "");
  };
  x.add("    shared event kv_full, in_full[2], in_empty[2] = ready;");
  if (g.wide) x.add("    shared " + t + " [64, 64] k_s[" + std::to_string(g.slabs) + "], v_s[" + std::to_string(g.slabs) + "];");
  else x.each_slab("    shared " + t + " [" + rows + ", 64] k_s#, v_s#;");
  x.declare_walked(t, "q_s", "do_s");
  // dSᵀ of each consumer's keys, the M-major lhs of its share of dQ.
  if (!x.dq_pass) x.add("    shared " + t + " [64, 64] ds_s[2];");
  if (!x.varlen) x.declare_staging(t, "dk_s#[2], dv_s#[2]");
  // Dense: the walked query tile's lse and delta (column 0 of rows of 8
  // and 4 f32) come with its stage, by TMA: read from global memory in the
  // consumers' applies, after the multiply they follow, their latency was
  // about a fifth of the consumers' stall samples (ncu, H200, D128).
  // Packed, they are read from global memory.
  if (!x.varlen) x.add("    shared f32 [64, 8] lse_s[2];");
  if (!x.varlen) x.add("    shared f32 [64, 4] delta_s[2];");
  for (const char* n : {"q", "dout"}) x.head(n, x.varlen ? "TQ" : "S", d);
  if (!x.varlen) {
    x.add("    lseh = lse.subspan(1, 1, S, 8).at(b, h, 0, 0).sqz();");
    x.add("    deltah = delta.subspan(1, 1, S, 4).at(b, h, 0, 0).sqz();");
  }
  for (const char* n : {"k", "v", "dk", "dv"}) x.head(n, x.varlen ? "TK" : "T", d);
  x.find_sequence("cu_k", rows, "kt");
  // Causal: query row r sees key c when c <= r + T - S, so the first query
  // tile that sees the block's first key is (kt * rows - T + S) / 64.
  x.add("    seen_from = kt * " + rows + " - " + sk + " + " + sq + ";");
  x.add("    first = causal && seen_from > 0 ? seen_from / 64 : 0;");
  x.add("    tiles = cdiv(" + sq + ", 64) > first ? cdiv(" + sq + ", 64) - first : 0;");
  x.add("    parallel p by 3 : group-4 {");
  x.add("      inthreads.async (p == 0) {");
  x.each_slab("        tma.copy.swiz<128> " + x.tile_of("kh", rows, "kt") + " => " + g.block_tile("k_s", "#") + ";");
  x.each_slab("        tma.copy.swiz<128> " + x.tile_of("vh", rows, "kt") + " => " + g.block_tile("v_s", "#") + ";");
  x.add("        trigger kv_full;");
  x.add("        foreach {it} in [tiles] {");
  x.add("          stage = it % 2;");
  x.add("          wait in_empty[stage];");
  x.each_slab("          tma.copy.swiz<128> " + x.tile_of("qh", "64", "first + it") + " => " + g.walked("q_s", "stage", "#") + ";");
  x.each_slab("          tma.copy.swiz<128> " + x.tile_of("douth", "64", "first + it") + " => " + g.walked("do_s", "stage", "#") + ";");
  if (!x.varlen) {
    x.add("          tma.copy lseh.subspan(64, 8).at(first + it, 0) => lse_s[stage];");
    x.add("          tma.copy deltah.subspan(64, 4).at(first + it, 0) => delta_s[stage];");
  }
  x.add("          trigger in_full[stage];");
  x.add("        }");
  x.add("      }");
  x.add("      inthreads.async (p >= 1) {");
  x.add("        frag " + t + " [64, 64] probs_t;");
  if (x.dq_pass) x.add("        frag " + t + " [64, 64] dscores_t;");
  x.add("        float scale = " + scale + ";");
  x.add("        first_key = " + g.first_row("kt") + ";");
  x.each_owned("        dv# = mma.fill.f32 0.0f;");
  x.each_owned("        dk# = mma.fill.f32 0.0f;");
  if (!x.dq_pass) x.add("        dq = mma.fill.f32 0.0f;");
  // Pᵀ (rows: keys, columns: queries), masked: queries past S (TMA's zero
  // rows), keys past T, and keys past a query's diagonal; lse and delta of
  // a query past S are TMA's zeros (dense) or read at S - 1 (packed),
  // masked anyway. Each apply is a
  // completion point for what it touches only: dV multiplies while dSᵀ
  // is computed.
  x.add("        wait kv_full;");
  x.add("        foreach {it} in [tiles] {");
  x.add("          stage = it % 2;");
  x.add("          first_query = (first + it) * 64;");
  x.add("          wait in_full[stage];");
  // Sᵀ = K Qᵀ and dPᵀ = V dOᵀ of the query tile in `stage`, over all of D.
  // Wide, packed or with dQ's share, dPᵀ is issued after the dV multiply:
  // both products in flight with the exponentials spill (16 bytes a thread
  // at D = 256; 304 at D = 128 packed, with the sequence's offsets live; 8
  // at D = 128 with the dQ accumulator).
  const bool late_dprobs = g.wide || x.varlen || !x.dq_pass;
  x.add("          scores_t = mma.fill.f32 0.0f;");
  x.each_slab("          mma.row.row scores_t, " + g.rows(g.block_tile("k_s", "#")) + ", " + g.walked("q_s", "stage", "#") + ";");
  auto dprobs = [&] {
    x.add("          dprobs_t = mma.fill.f32 0.0f;");
    x.each_slab("          mma.row.row dprobs_t, " + g.rows(g.block_tile("v_s", "#")) + ", " + g.walked("do_s", "stage", "#") + ";");
  };
  if (!late_dprobs) dprobs();
  x.add("          apply {i, j} in scores_t.span {");
  x.add("            scores_t.at(i, j) = first_query + j >= " + sq + " || first_key + i >= " + sk +
        " || causal && " + x.past_diagonal("first_key + i", "first_query + j"));
  x.add("              ? 0.0f");
  x.add("              : __exp2f(scores_t.at(i, j) * scale - " + query_values("lse") + ");");
  x.add("            probs_t.at(i, j) = __to<" + t + ">(scores_t.at(i, j));");
  x.add("          }");
  x.each_owned("          mma.row.col dv#, probs_t, " + g.walked("do_s", "stage", "$") + ";");
  if (late_dprobs) dprobs();
  if (x.dq_pass) {
    x.add("          apply {i, j} in dprobs_t.span");
    x.add("            dscores_t.at(i, j) = __to<" + t + ">(scores_t.at(i, j) * (dprobs_t.at(i, j) -");
    x.add("              " + query_values("delta") + "));");
    x.each_owned("          mma.row.col dk#, dscores_t, " + g.walked("q_s", "stage", "$") + ";");
  } else {
    // dSᵀ staged in shared memory (from f32, by mma.store) is the lhs of
    // dK (K-major, [keys, queries]) and of dQ (M-major): no fragment.
    x.add("          apply {i, j} in dprobs_t.span");
    x.add("            dprobs_t.at(i, j) = scores_t.at(i, j) * (dprobs_t.at(i, j) -");
    x.add("              " + query_values("delta") + ");");
    x.add("          mma.store.swiz<128> dprobs_t, ds_s[p - 1];");
    x.each_owned("          mma.row.col dk#, ds_s[p - 1], " + g.walked("q_s", "stage", "$") + ";");
    accumulate_dq(x, sq);
  }
  // Complete the multiplies before the stage is released: one left in
  // flight across the loop's back edge makes ptxas serialize every WGMMA
  // of the kernel (C7514). (Issuing the next tile's Sᵀ and dPᵀ with this
  // one's dV and dK, as kernel 3 does, needs more registers than the
  // consumers have at D = 128: ptxas spills; ping-pong turns spill too.)
  x.add("          mma.commit;");
  x.add("          trigger in_empty[stage];");
  x.add("        }");
  // dK = dSᵀ Q / sqrt(D)
  store_gradient(x, "dk", float_text(1.0 / std::sqrt(std::stod(d))), g.row_tile("kt"), "first_key", "k_start", sk);
  store_gradient(x, "dv", "", g.row_tile("kt"), "first_key", "k_start", sk);
  x.add("      }");
  x.add("    }");
  x.end_sequence();
  x.add("  }");
}

// Kernel 3: dQ of the block's queries, walking the key tiles they see.
inline void query_tile_kernel(Text& x, const std::string& t, const std::string& d, const std::string& scale) {
  const Tiling& g = x.tiling;
  const std::string rows = std::to_string(g.block_rows);
  const std::string sq = x.sq(), sk = x.sk();
  x.add(x.varlen ? "  parallel {h, g} by [H, cdiv(TQ, " + rows + ") + B1 - 1] : block {"
                 : "  parallel {b, h, bm} by [B, H, cdiv(S, " + rows + ")] : block {");
  // Three stages of the key tiles (two at D = 256, where a third does not
  // fit): the consumers release a tile's stage one tile late (its dQ
  // multiply runs during the next tile's exponentials), so with two the
  // producer could load tile kb + 2 only once the consumers wait for it
  // (ncu, H200, D128: a fifth of the consumers' stall samples at that
  // wait).
  const int stage_count = g.wide ? 2 : 3;
  const std::string stages = std::to_string(stage_count);
  x.add("    shared event q_full, kv_full[" + stages + "], kv_empty[" + stages + "] = ready;");
  x.each_slab("    shared " + t + " [" + rows + ", 64] q_s#, do_s#;");
  x.declare_walked(t, "k_s", "v_s", stage_count);
  if (!x.varlen) x.declare_staging(t, "dq_s#[2]");
  for (const char* n : {"q", "dout", "dq"}) x.head(n, x.varlen ? "TQ" : "S", d);
  for (const char* n : {"k", "v"}) x.head(n, x.varlen ? "TK" : "T", d);
  x.find_sequence("cu_q", rows, "bm");
  // Causal blocks start from the last query tile (the most key tiles).
  x.add("    qt = causal ? cdiv(" + sq + ", " + rows + ") - 1 - bm : bm;");
  x.add("    diagonal = cdiv((qt + 1) * " + rows + " + " + sk + " - " + sq + ", 64);");
  // At least one key tile (the consumers always take tile 0): rows that
  // see no key (causal, S - T >= the block's rows; packed, a sequence of
  // no keys) get dQ = 0.
  const std::string key_tiles = x.varlen ? "key_tiles" : "cdiv(T, 64)";
  if (x.varlen) x.add("    key_tiles = seq_k > 64 ? cdiv(seq_k, 64) : 1;");
  x.add("    tiles = causal && diagonal < " + key_tiles + " ? (diagonal > 1 ? diagonal : 1) : " + key_tiles + ";");
  x.add("    parallel p by 3 : group-4 {");
  x.add("      inthreads.async (p == 0) {");
  x.each_slab("        tma.copy.swiz<128> " + x.tile_of("qh", rows, "qt") + " => q_s#;");
  x.each_slab("        tma.copy.swiz<128> " + x.tile_of("douth", rows, "qt") + " => do_s#;");
  x.add("        trigger q_full;");
  x.add("        foreach {kb} in [tiles] {");
  x.add("          stage = kb % " + stages + ";");
  x.add("          wait kv_empty[stage];");
  x.each_slab("          tma.copy.swiz<128> " + x.tile_of("kh", "64", "kb") + " => " + g.walked("k_s", "stage", "#") + ";");
  x.each_slab("          tma.copy.swiz<128> " + x.tile_of("vh", "64", "kb") + " => " + g.walked("v_s", "stage", "#") + ";");
  x.add("          trigger kv_full[stage];");
  x.add("        }");
  x.add("      }");
  x.add("      inthreads.async (p >= 1) {");
  x.add("        frag " + t + " [64, 64] dscores;");
  x.add("        frag f32 [64] row_lse;");
  x.add("        frag f32 [64] row_delta;");
  x.add("        float scale = " + scale + ";");
  x.add("        first_row = " + g.first_row("qt") + ";");
  x.add("        apply {i} in row_lse.span {");
  x.add("          row_lse.at(i) = " + x.query_row("lse", "first_row + i", sq, ", 0") + ";");
  x.add("          row_delta.at(i) = " + x.query_row("delta", "first_row + i", sq, x.varlen ? "" : ", 0") + ";");
  x.add("        }");
  x.each_owned("        dq# = mma.fill.f32 0.0f;");
  // S = Q Kᵀ and dP = dO Vᵀ of the key tile in `stage` (over all of D),
  // with dQ += dS K of the previous tile (`previous`, or none) when there
  // is one: it multiplies during the next tile's exponentials. (Ping-pong
  // turns between the consumers, as the forward's, make ptxas serialize
  // the WGMMAs here, C7518.)
  auto products = [&](const std::string& in, const std::string& stage, const std::string& previous) {
    x.add(in + "scores = mma.fill.f32 0.0f;");
    x.each_slab(in + "mma.row.row scores, " + g.rows("q_s#") + ", " + g.walked("k_s", stage, "#") + ";");
    x.add(in + "dprobs = mma.fill.f32 0.0f;");
    x.each_slab(in + "mma.row.row dprobs, " + g.rows("do_s#") + ", " + g.walked("v_s", stage, "#") + ";");
    if (!previous.empty()) x.each_owned(in + "mma.row.col dq#, dscores, " + g.walked("k_s", previous, "$") + ";");
  };
  // P (masked: keys past T and past the row's diagonal), then dS; each
  // apply a completion point for what it touches only, so writing dscores
  // waits for the previous dQ multiply, the exponentials do not.
  auto gradients = [&](const std::string& in, const std::string& tile) {
    x.add(in + "apply {i, j} in scores.span");
    x.add(in + "  scores.at(i, j) = " + tile + " * 64 + j >= " + sk + " || causal && " +
          x.past_diagonal(tile + " * 64 + j", "first_row + i"));
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
  x.add("          wait kv_full[next % " + stages + "];");
  products("          ", "next % " + stages, "kb % " + stages);
  gradients("          ", "next");
  x.add("          trigger kv_empty[kb % " + stages + "];");
  x.add("        }");
  x.each_owned("        mma.row.col dq#, dscores, " + g.walked("k_s", "(tiles - 1) % " + stages, "$") + ";");
  x.add("        trigger kv_empty[(tiles - 1) % " + stages + "];");
  // dQ = dS K / sqrt(D)
  store_gradient(x, "dq", float_text(1.0 / std::sqrt(std::stod(d))), g.row_tile("qt"), "first_row", "q_start", sq);
  x.add("      }");
  x.add("    }");
  x.end_sequence();
  x.add("  }");
}

// Kernel 3 of the atomic form: dQ = dq_acc / sqrt(D) in the element type,
// each thread a column of D over 16 rows (coalesced rows of D).
inline void convert_dq(Text& x, const std::string& t, const std::string& d) {
  const std::string rows = x.varlen ? "TQ" : "S", at = x.varlen ? "h, row, c" : "b, h, row, c";
  x.add(x.varlen ? "  parallel {h, rt} by [H, cdiv(TQ, 16)] : block {" : "  parallel {b, h, rt} by [B, H, cdiv(S, 16)] : block {");
  x.add("    parallel c by " + d + " : thread {");
  x.add("      foreach r in [16] {");
  x.add("        row = rt * 16 + r;");
  x.add("        if (row < " + rows + ")");
  x.add("          dq.at(" + at + ") = __to<" + t + ">(dq_acc.at(" + at + ") * " + float_text(1.0 / std::sqrt(std::stod(d))) + ");");
  x.add("      }");
  x.add("    }");
  x.add("  }");
}

// Kernel 1: delta = rowsum(dO * O) of every query row (packed: of every
// sequence's rows at once). A row's D / 8 threads each load 16 bytes of O
// and of dO (a warp reads whole rows: 16 rows a block), multiply in f32 and
// leave their partial sums in shared memory, where the row's first thread
// adds them. (One thread a row looping over its columns read 2 bytes at a
// 256-byte stride across the warp: 270 us on an H200 at B4 H16 S4096 D128,
// against 67 us for cuDNN's equivalent kernel.)
inline void delta_kernel(Text& x, int head_dim) {
  const std::string rows = x.varlen ? "TQ" : "S", at = x.varlen ? "h, row" : "b, h, row, 0";
  const std::string chunk = x.varlen ? ".subspan(1, 1, 8).at(h, row, c).zfill" : ".subspan(1, 1, 1, 8).at(b, h, row, c).zfill";
  const std::string elem = x.varlen ? "0, 0, e" : "0, 0, 0, e";
  const std::string per_row = std::to_string(head_dim / 8);
  x.add(x.varlen ? "  parallel {h, rt} by [H, cdiv(TQ, 16)] : block {"
                 : "  parallel {b, h, rt} by [B, H, cdiv(S, 16)] : block {");
  x.add("    shared f32 [16, " + per_row + "] partial;");
  x.add("    parallel {r, c} by [16, " + per_row + "] : thread {");
  x.add("      row = rt * 16 + r;");
  x.add("      f32 sum = 0.0f;");
  x.add("      if (row < " + rows + ") {");
  x.add("        ov = dma.copy o" + chunk + " => local;");
  x.add("        dov = dma.copy dout" + chunk + " => local;");
  x.add("        foreach e in [8]");
  x.add("          sum = sum + __to<f32>(ov.data.at(" + elem + ")) * __to<f32>(dov.data.at(" + elem + "));");
  x.add("      }");
  x.add("      partial.at(r, c) = sum;");
  x.add("      sync.shared;");
  x.add("      if (c == 0 && row < " + rows + ") {");
  x.add("        f32 total = 0.0f;");
  x.add("        foreach k in [" + per_row + "]");
  x.add("          total = total + partial.at(r, k);");
  x.add("        delta.at(" + at + ") = total;");
  x.add("      }");
  x.add("    }");
  x.add("  }");
}

}  // namespace detail

// The head dims the program is written for; croqjit.attention runs the
// others (96, 160, 192, 224) on operands padded with zero columns to the next.
inline constexpr int backward_head_dims[] = {64, 128, 256};

// The backward program for `element` ("f16" or "bf16") and `head_dim` (one
// of backward_head_dims): attention_backward(q, k, v, o, dout, lse, dq, dk,
// dv, causal). `varlen`: packed sequences of variable lengths, as the
// forward's varlen_source takes them (q, o, dout and dq [H, TQ, D], k, v,
// dk and dv [H, TK, D], lse [H, TQ, 8] from varlen_source(..., with_lse),
// then the offsets cu_q and cu_k [B1]): each block finds its sequence from
// the offsets on the device, as the forward's do, walks that sequence's
// tiles only (the rows past it masked like a tail) and stores its
// gradients from registers, row by row within the sequence. `dq_pass`:
// dQ from a third pass over the query tiles (seven products per pair of
// tiles; the faster measured, see the top), else kernel 2's atomics (five).
inline std::string backward_source(const std::string& element, int head_dim, bool varlen = false, bool dq_pass = true) {
  detail::Text x{"", detail::Tiling(head_dim), varlen, element, dq_pass};
  const std::string t = element, d = std::to_string(head_dim);
  const std::string scale = detail::float_text(1.0 / std::sqrt(double(head_dim)) * 1.4426950408889634);  // log2(e) / sqrt(D)
  const std::string rows_q = varlen ? "[H, TQ, " : "[B, H, S, ", rows_k = varlen ? "[H, TK, " : "[B, H, T, ";
  const std::string qs = "global " + t + " " + rows_q + d + "] ", ks = "global " + t + " " + rows_k + d + "] ";
  x.add("__co__ void attention_backward(" + qs + "q, " + ks + "k, " + ks + "v, " + qs + "o, " + qs + "dout,");
  x.add("                               global f32 " + rows_q + "8] lse, " + qs + "dq, " + ks + "dk, " + ks + "dv,");
  x.add(varlen ? "                               global s32 [B1] cu_q, global s32 [B1] cu_k, bool causal) {"
               : "                               bool causal) {");
  // Kernel 1: delta of every row (packed: of every sequence's rows at once).
  // Dense: delta is [B, H, S, 4] (column 0 used): rows of 16 bytes, so
  // that the key-tile kernel's producer moves a query tile's values by TMA
  // (a TMA tensor's strides are multiples of 16 bytes).
  x.add(varlen ? "  global f32 [H, TQ] delta;" : "  global f32 [B, H, S, 4] delta;");
  if (!dq_pass) x.add(varlen ? "  global f32 [H, TQ, " + d + "] dq_acc;" : "  global f32 [B, H, S, " + d + "] dq_acc;");
  detail::delta_kernel(x, head_dim);
  detail::key_tile_kernel(x, t, d, scale);
  if (dq_pass) detail::query_tile_kernel(x, t, d, scale);
  else detail::convert_dq(x, t, d);
  x.add("}");
  return x.s;
}

}  // namespace attention
