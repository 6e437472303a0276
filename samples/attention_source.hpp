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
// swizzled TMA box each; a last slab of 32 columns with a 64-byte swizzle
// when D is an odd multiple of 32), so the text is generated per head dim. Causal
// masking aligns the last query row with the last key (row i sees keys
// j <= i + T - S); the loop stops at the block's diagonal.
//
// FP8 (Config::element "e4m3", `fp8_source`): Q and K f8_e4m3 [B, H, S, D]
// and [B, HK, T, D], V given transposed, f8_e4m3 [B, HK, D, T] (keys
// contiguous: fp8 WGMMA reads both operands K-major, and P V sums over the
// keys; the caller transposes V, e.g. torch's v.transpose(-1, -2).contiguous(),
// and T must be a multiple of 16 for TMA's row pitch), per-tensor descale
// factors q_descale, k_descale, v_descale (f32, as FlashAttention-3's: the
// stored values times the factor are the real ones) applied in f32 to the
// scores and the output, and O f16 or bf16 (Config::output). S = Q K^T and
// O += P V are fp8 WGMMA (k32), P rounded to e4m3 in registers as the lhs
// (the compiler repacks the fragment for the 8-bit A layout). Q and K are
// staged in slabs of up to 128 columns (128 bytes, one swizzle span), V^T in
// [64, BN] tiles, one per 64 output columns; D a multiple of 64.
//
// Variable lengths (`varlen_source`): the sequences of a batch packed one
// after another, head-major: Q and O [H, TQ, D], K and V [HK, TK, D], with
// the cumulative offsets cu_q [B + 1] and cu_k [B + 1] (int32, as
// FlashAttention's varlen API: sequence b's queries are rows cu_q[b] to
// cu_q[b + 1] - 1). The blocks walk the query tiles of every sequence in
// turn (the blocks past the last do nothing); key rows past the sequence are masked like the key tail; the
// output is stored from registers, row by row within the sequence, so that
// a tail tile never writes into the next sequence.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

namespace attention {

struct Config {
  std::string element = "f16";  // "f16", "bf16" or "e4m3" (FP8 inputs, see above)
  std::string output = "f16";   // e4m3: the output's element type, "f16" or "bf16"
  int head_dim = 128;           // a multiple of 32, at most 256
  bool ping_pong = true;        // the consumers take turns issuing their multiplies
  int consumers = 2;            // consumer warpgroups, 64 query rows each (BM = 64 consumers)
  // Grouped-query attention (GQA, and MQA with one key/value head): K and V
  // have HK heads, HK dividing H, and query head h reads key/value head
  // h / (H / HK), as torch's SDPA with enable_gqa.
  bool grouped = false;
  bool varlen = false;  // packed sequences of variable lengths (see above)
  // Also write each row's log-sum-exp of the scaled scores, in base 2, to
  // `lse` [B, H, S, 8] (8 copies a row: an accumulator's narrowest store;
  // packed: [H, TQ, 8]), what the backward of
  // samples/attention_backward_source.hpp recomputes the probabilities from.
  bool with_lse = false;
};

namespace detail {

// Writes the text of one configuration. Above D = 128 the key tile is 64
// rows (BN) and each consumer stages its output one 64-column slab at a
// time through one tile (the compiler waits for the previous slab's TMA
// store to read it before the next store), so that Q, two stages of K and
// V and the staging fit in shared memory (at D = 256: 200 KiB instead of 384;
// a last slab of 32 columns, at D = 160 or 224, has a staging tile of its own).
class SourceWriter {
 public:
  explicit SourceWriter(const Config& c)
      : c_(c), fp8_(c.element == "e4m3"), t_(fp8_ ? "f8_e4m3" : c.element), ot_(fp8_ ? c.output : c.element),
        d_(std::to_string(c.head_dim)), slabs_((c.head_dim + 63) / 64), wide_(c.head_dim > 128),
        sq_(c.varlen ? "seq_q" : "S"), sk_(c.varlen ? "seq_k" : "T") {}

  std::string text() {
    if (fp8_ && (c_.varlen || c_.with_lse || c_.head_dim % 64 != 0 || (c_.output != "f16" && c_.output != "bf16")))
      throw std::invalid_argument("the e4m3 forward takes a head dim that is a multiple of 64 and an f16 or bf16 output, "
                                  "without packed sequences or the log-sum-exp");
    header();
    std::string body;
    std::swap(body, s_);
    block();  // into s_, then indented under the varlen guard
    std::string kernel;
    std::swap(kernel, s_);
    s_ = body;
    if (!c_.varlen) {
      s_ += kernel;
    } else {
      add("    if (b < B1 - 1) {");
      for (std::size_t at = 0; at < kernel.size();) {
        const std::size_t end = kernel.find('\n', at);
        s_ += "  " + kernel.substr(at, end - at + 1);
        at = end + 1;
      }
      add("    }");
    }
    add("  }");
    add("}");
    return s_;
  }

 private:
  void add(const std::string& line) { s_ += line + "\n"; }
  int slab_width(int c) const { return c * 64 + 64 <= c_.head_dim ? 64 : 32; }
  // `#` stands for the slab, `@` for its width in columns (64, or 32 for
  // the last slab of a head dim that is an odd multiple of 32), `$` for its
  // index among tiles of that width along D, `&` for its swizzle span in
  // bytes (the width of one row of 2-byte elements).
  void each_slab(const std::string& pattern) {
    for (int c = 0; c < slabs_; ++c) {
      const int width = slab_width(c);
      std::string line = pattern;
      const std::pair<char, std::string> fills[] = {{'#', std::to_string(c)},
                                                    {'@', std::to_string(width)},
                                                    {'$', std::to_string(c * 64 / width)},
                                                    {'&', std::to_string(width * 2)}};
      for (const auto& [mark, text] : fills)
        for (std::size_t at; (at = line.find(mark)) != std::string::npos;) line.replace(at, 1, text);
      add(line);
    }
  }

  // FP8: Q and K in slabs of up to 128 columns (one 128-byte swizzle span;
  // a last slab of 64). `#` the slab, `@` its width, `$` its index among
  // tiles of that width along D, `&` its swizzle span in bytes.
  void each_qk_slab(const std::string& pattern) {
    for (int c = 0; c * 128 < c_.head_dim; ++c) {
      const int width = std::min(128, c_.head_dim - c * 128);
      std::string line = pattern;
      const std::pair<char, std::string> fills[] = {{'#', std::to_string(c)},
                                                    {'@', std::to_string(width)},
                                                    {'$', std::to_string(c * 128 / width)},
                                                    {'&', std::to_string(width)}};
      for (const auto& [mark, text] : fills)
        for (std::size_t at; (at = line.find(mark)) != std::string::npos;) line.replace(at, 1, text);
      add(line);
    }
  }
  // The Q and K slabs: each_qk_slab for FP8, else each_slab.
  void each_input_slab(const std::string& pattern) { fp8_ ? each_qk_slab(pattern) : each_slab(pattern); }

  // The defines, the signature, the grid and the block's declarations.
  void header() {
    const std::string t = t_, d = d_, kv_heads = c_.grouped ? "HK" : "H";
    const std::string v_dims = fp8_ ? "[B, " + kv_heads + ", " + d + ", T]" : "[B, " + kv_heads + ", T, " + d + "]";
    const std::string descales = fp8_ ? " f32 q_descale, f32 k_descale, f32 v_descale," : "";
    add("#define BM " + std::to_string(64 * c_.consumers));
    add(wide_ ? "#define BN 64" : "#define BN 128");
    add("#define STAGES 2");
    if (c_.varlen) {
      add("__co__ void attention(global " + t + " [H, TQ, " + d + "] q, global " + t + " [" + kv_heads + ", TK, " + d + "] k,");
      add("                      global " + t + " [" + kv_heads + ", TK, " + d + "] v, global " + t + " [H, TQ, " + d +
          "] o," + (c_.with_lse ? " global f32 [H, TQ, 8] lse," : "") + " global s32 [B1] cu_q,");
      add("                      global s32 [B1] cu_k, bool causal) {");
    } else {
      add("__co__ void attention(global " + t + " [B, H, S, " + d + "] q, global " + t + " [B, " + kv_heads + ", T, " + d + "] k,");
      add("                      global " + t + " " + v_dims + " v, global " + ot_ + " [B, H, S, " + d + "] o," +
          (c_.with_lse ? " global f32 [B, H, S, 8] lse," : "") + descales + " bool causal) {");
    }
    if (c_.grouped) add("  assert(HK <= H && H % HK == 0, \"the query heads H must be a multiple of the key/value heads HK\");");
    // Varlen: the query tiles of every sequence, one after another (at
    // most cdiv(TQ, BM) + B1 - 1 of them); each block finds its sequence b
    // and its tile bm in it by counting the tiles of the sequences before.
    add(c_.varlen ? "  parallel {h, g} by [H, cdiv(TQ, BM) + B1 - 1] : block {"
                  : "  parallel {b, h, bm} by [B, H, cdiv(S, BM)] : block {");
    add("    shared event q_full, k_full[STAGES], v_full[STAGES], k_empty[STAGES] = ready, v_empty[STAGES] = ready,");
    std::string turns = "turn1 = ready";
    for (int c = 2; c <= c_.consumers; ++c) turns += ", turn" + std::to_string(c);
    add("                 " + turns + ";");
    each_input_slab("    shared " + t + " [BM, @] q_s#;");
    each_input_slab("    shared " + t + " [BN, @] k_s#[STAGES];");
    each_slab(fp8_ ? "    shared " + t + " [@, BN] vt_s#[STAGES];" : "    shared " + t + " [BN, @] v_s#[STAGES];");
    if (c_.varlen) {
      // The output leaves from registers: no staging tile.
    } else if (wide_) {
      add("    shared " + ot_ + " [64, 64] o_s[" + std::to_string(c_.consumers) + "];");
      // The last slab of 32 columns (D an odd multiple of 32) stages through
      // a tile of its own width and swizzle.
      if (c_.head_dim % 64 != 0) add("    shared " + ot_ + " [64, 32] o_s_last[" + std::to_string(c_.consumers) + "];");
    } else {
      each_slab("    shared " + ot_ + " [64, @] o_s#[" + std::to_string(c_.consumers) + "];");
    }
    const std::string kv_head = c_.grouped ? "h / (H / HK)" : "h";
    if (c_.varlen) {
      add("    mutable int b = 0;");
      add("    mutable int tiles_before = 0;");
      add("    foreach {i} in [B1 - 1] {");
      add("      tiles_of_i = cdiv(cu_q.at(i + 1) - cu_q.at(i), BM);");
      add("      step = b == i && g >= tiles_before + tiles_of_i ? 1 : 0;");
      add("      b += step;");
      add("      tiles_before += step * tiles_of_i;");
      add("    }");
      add("    qh = q.subspan(1, TQ, " + d + ").at(h, 0, 0).sqz();");
      add("    kh = k.subspan(1, TK, " + d + ").at(" + kv_head + ", 0, 0).sqz();");
      add("    vh = v.subspan(1, TK, " + d + ").at(" + kv_head + ", 0, 0).sqz();");
      add("    oh = o.subspan(1, TQ, " + d + ").at(h, 0, 0).sqz();");
    } else {
      add("    qh = q.subspan(1, 1, S, " + d + ").at(b, h, 0, 0).sqz();");
      add("    kh = k.subspan(1, 1, T, " + d + ").at(b, " + kv_head + ", 0, 0).sqz();");
      add(fp8_ ? "    vh = v.subspan(1, 1, " + d + ", T).at(b, " + kv_head + ", 0, 0).sqz();"  // V^T [D, T]
               : "    vh = v.subspan(1, 1, T, " + d + ").at(b, " + kv_head + ", 0, 0).sqz();");
      add("    oh = o.subspan(1, 1, S, " + d + ").at(b, h, 0, 0).sqz();");
    }
  }

  // The tile of `view` (qh, kh, vh) at tile row `row` of `rows` rows, in
  // each_slab's marks.
  std::string tile_of(const std::string& view, const std::string& rows, const std::string& row) const {
    if (!c_.varlen) return view + ".subspan(" + rows + ", @).at(" + row + ", $)";
    const std::string start = view == "qh" ? "q_start" : "k_start";
    return view + ".view(" + rows + ", @).from(" + start + " + " + row + " * " + rows + ", # * 64)";
  }

  // The query tile, the key tiles, the producer and the consumers.
  void block() {
    const std::string sq = sq_, sk = sk_;
    if (c_.varlen) {
      add("    bm = g - tiles_before;");
      add("    q_start = cu_q.at(b);");
      add("    seq_q = cu_q.at(b + 1) - q_start;");
      add("    k_start = cu_k.at(b);");
      add("    seq_k = cu_k.at(b + 1) - k_start;");
    }
    // The block's query tile: causal blocks start from the last (the most
    // key tiles), so the blocks that start last are short and the grid's
    // tail is even.
    add("    qt = causal ? cdiv(" + sq + ", BM) - 1 - bm : bm;");
    // Causal: key tiles up to the block's last row's diagonal, and at least
    // one (the consumers always take tile 0; packed, a sequence of no keys
    // too): with S - T >= 128 a block's rows see no key, and their output
    // is 0 (store_output).
    const std::string key_tiles = c_.varlen ? "key_tiles" : "cdiv(" + sk + ", BN)";
    if (c_.varlen) add("    key_tiles = seq_k > BN ? cdiv(seq_k, BN) : 1;");
    add("    diagonal = cdiv((qt + 1) * BM + " + sk + " - " + sq + ", BN);");
    add("    tiles = causal && diagonal < " + key_tiles + " ? (diagonal > 1 ? diagonal : 1) : " + key_tiles + ";");
    add("    parallel p by " + std::to_string(c_.consumers + 1) + " : group-4 {");
    add("      inthreads.async (p == 0) {");
    each_input_slab("        tma.copy.swiz<&> " + tile_of("qh", "BM", "qt") + " => q_s#;");
    add("        trigger q_full;");
    add("        foreach {bn} in [tiles] {");
    add("          stage = bn % STAGES;");
    add("          wait k_empty[stage];");
    each_input_slab("          tma.copy.swiz<&> " + tile_of("kh", "BN", "bn") + " => k_s#[stage];");
    add("          trigger k_full[stage];");
    add("          wait v_empty[stage];");
    if (fp8_)  // V^T's rows are BN keys, BN bytes: the swizzle span
      each_slab("          tma.copy.swiz<" + std::string(wide_ ? "64" : "128") + "> vh.subspan(@, BN).at($, bn) => vt_s#[stage];");
    else
      each_slab("          tma.copy.swiz<&> " + tile_of("vh", "BN", "bn") + " => v_s#[stage];");
    add("          trigger v_full[stage];");
    add("        }");
    add("      }");
    consumers();
    add("    }");
  }

  void consumers() {
    add("      inthreads.async (p >= 1) {");
    add("        frag " + t_ + " [64, BN] probs;");
    add("        frag f32 [64] row_max {-inf};");
    add("        frag f32 [64] row_max_prev;");
    add("        frag f32 [64] row_sum {0.0f};");
    add("        frag f32 [64] tile_sum;");
    add("        frag f32 [64] rescale;");
    const double scale = 1.0 / std::sqrt(double(c_.head_dim)) * 1.4426950408889634;  // log2(e) / sqrt(D)
    char scale_text[32];
    std::snprintf(scale_text, sizeof scale_text, "%.9ff", scale);
    // FP8: the scores of the stored values times q_descale k_descale.
    add("        float scale = " + std::string(scale_text) + (fp8_ ? " * q_descale * k_descale" : "") + ";");
    add("        first_row = qt * BM + (p - 1) * 64;");
    each_slab("        acc# = mma.fill.f32 0.0f;");
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
    p_times_v("          ", "bn % STAGES");
    their_turn("          ");
    softmax("          ", "next");
    add("          trigger k_empty[next % STAGES];");
    add("          trigger v_empty[bn % STAGES];");
    add("        }");
    add("        wait v_full[(tiles - 1) % STAGES];");
    p_times_v("        ", "(tiles - 1) % STAGES");
    add("        trigger v_empty[(tiles - 1) % STAGES];");
    if (c_.with_lse) {
      // An accumulator is the register tile mma.store writes, and a multiply
      // gives it its width: an 8-column one (of Q's own rows, overwritten),
      // each column the row's log2-sum-exp2.
      add("        lse_rows = mma.fill.f32 0.0f;");
      add("        mma.row.row lse_rows, q_s0.subspan(64, 64).at(p - 1, 0), q_s0.subspan(8, 64).at(0, 0);");
      const std::string row_lse = "row_max.at(i) * scale + __log(row_sum.at(i)) * 1.442695041f";
      if (c_.varlen) {  // from registers, each row only while inside the sequence
        add("        apply {i, j} in lse_rows.span {");
        add("          if (first_row + i < seq_q)");
        add("            lse.at(h, q_start + first_row + i, j) = " + row_lse + ";");
        add("        }");
      } else {
        add("        apply {i, j} in lse_rows.span");
        add("          lse_rows.at(i, j) = " + row_lse + ";");
        add("        mma.store lse_rows, lse.subspan(1, 1, S, 8).at(b, h, 0, 0).sqz().subspan(64, 8).at(qt * " +
            std::to_string(c_.consumers) + " + p - 1, 0);");
      }
    }
    store_output();
    add("      }");
  }

  // O = acc / row_sum: through a shared tile and TMA, or, for packed
  // sequences, from registers, each row only while inside the sequence. A
  // row that sees no key (a packed sequence of no keys) has no maximum, and
  // its sum is NaN (exp2 of -inf less -inf): its output is 0, as
  // FlashAttention's.
  void store_output() {
    const std::string normalized = std::string(".at(i, j) ") + (fp8_ ? "* v_descale " : "") + "/ row_sum.at(i) : 0.0f";
    for (int c = 0; c < slabs_; ++c) {
      const std::string a = "acc" + std::to_string(c), sl = std::to_string(c), width = std::to_string(slab_width(c));
      if (c_.varlen) {
        add("        apply {i, j} in " + a + ".span {");
        add("          if (first_row + i < seq_q)");
        add("            oh.at(q_start + first_row + i, " + std::to_string(c * 64) + " + j) = __to<" + ot_ +
            ">(row_sum.at(i) > 0.0f ? " + a + normalized + ");");
        add("        }");
        continue;
      }
      add("        apply {i, j} in " + a + ".span");
      add("          " + a + ".at(i, j) = row_sum.at(i) > 0.0f ? " + a + normalized + ";");
      // The staging tile swizzled, as the TMA store reads it: the eight rows
      // a warp writes at once fall in different banks.
      const std::string staging = !wide_ ? "o_s" + sl + "[p - 1]" : slab_width(c) == 64 ? "o_s[p - 1]" : "o_s_last[p - 1]";
      const std::string swiz = ".swiz<" + std::to_string(slab_width(c) * 2) + ">";
      add("        mma.store" + swiz + " " + a + ", " + staging + ";");
      add("        tma.copy" + swiz + " " + staging + " => oh.subspan(64, " + width + ").at(qt * " +
          std::to_string(c_.consumers) + " + p - 1, " + std::to_string(c * 64 / slab_width(c)) + ");");
    }
  }

  // S = Q K^T of key tile `tile` (in stage `stage`) into `scores`.
  void scores_of(const std::string& indent, const std::string& stage) {
    add(indent + "scores = mma.fill.f32 0.0f;");
    each_input_slab(indent + "mma.row.row scores, q_s#.subspan(64, @).at(p - 1, 0), k_s#[" + stage + "];");
  }

  // O += P V of the key tile in stage `stage`: V [BN, D] as [K, N]
  // (row.col), or FP8's V^T [D, BN] as [N, K] (row.row, K-major).
  void p_times_v(const std::string& indent, const std::string& stage) {
    each_slab(indent + (fp8_ ? "mma.row.row acc#, probs, vt_s#[" : "mma.row.col acc#, probs, v_s#[") + stage + "];");
  }

  // The online softmax of key tile `tile`'s scores: masks (keys past T, the
  // zero rows TMA fills in, and past the diagonal), the running maximum and
  // sum, the output rescaled (after the previous P V completes) and the
  // probabilities as the next P V's lhs.
  void softmax(const std::string& indent, const std::string& tile) {
    const std::string sq = sq_, sk = sk_;
    add(indent + "if (" + tile + " * BN + BN > " + sk + " || causal && " + tile + " * BN + BN > first_row + " + sk + " - " +
        sq + " + 1) {");
    add(indent + "  apply {i, j} in scores.span {");
    // S is added on the left rather than taken from the right: a register
    // tile's row and column are unsigned (the thread index), so with T < S
    // the right would wrap and the rows that see no key would see every
    // key (found on an H200: the FP8 forward at S 777, T 528).
    const std::string past_diagonal = tile + " * BN + j + " + sq + " > first_row + i + " + sk;
    add(indent + "    if (" + tile + " * BN + j >= " + sk + " || causal && " + past_diagonal + ") scores.at(i, j) = -inf;");
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
    for (int c = 0; c < slabs_; ++c) {
      const std::string acc = "acc" + std::to_string(c);
      add(indent + "apply {i, j} in " + acc + ".span");
      add(indent + "  " + acc + ".at(i, j) = " + acc + ".at(i, j) * rescale.at(i);");
    }
    add(indent + "apply {i, j} in scores.span");
    add(indent + "  probs.at(i, j) = __to<" + t_ + ">(scores.at(i, j));");
  }

  // Ping-pong: the consumers take turns issuing their multiplies, so that
  // one's softmax runs while the tensor cores work on the other's (both
  // softmaxes at once leave the tensor cores idle).
  void my_turn(const std::string& indent) {
    if (!c_.ping_pong) return;
    for (int c = 1; c <= c_.consumers; ++c)
      add(indent + "inthreads (p == " + std::to_string(c) + ") { wait turn" + std::to_string(c) + "; }");
  }
  void their_turn(const std::string& indent) {
    if (!c_.ping_pong) return;
    for (int c = 1; c <= c_.consumers; ++c)
      add(indent + "inthreads (p == " + std::to_string(c) + ") { trigger turn" + std::to_string(c % c_.consumers + 1) +
          "; }");
  }

  const Config c_;
  const bool fp8_;                 // e4m3 inputs (see the top of this file)
  const std::string t_, ot_, d_;   // the input and output element types, D
  const int slabs_;
  const bool wide_;
  const std::string sq_, sk_;  // the query and key counts: dims, or the sequence's
  std::string s_;
};

}  // namespace detail

inline std::string source(const Config& config) { return detail::SourceWriter(config).text(); }

// `element`: "f16" or "bf16"; `head_dim`: a multiple of 32, at most 256;
// the rest as Config's fields.
inline std::string source(const std::string& element, int head_dim, bool ping_pong = true, int consumers = 2,
                          bool with_lse = false) {
  Config c;
  c.element = element;
  c.head_dim = head_dim;
  c.ping_pong = ping_pong;
  c.consumers = consumers;
  c.with_lse = with_lse;
  return source(c);
}

// Grouped-query attention (Config::grouped), the defaults otherwise.
inline std::string grouped_source(const std::string& element, int head_dim) {
  Config c;
  c.element = element;
  c.head_dim = head_dim;
  c.grouped = true;
  return source(c);
}

// The FP8 forward (see the top of this file): e4m3 Q, K and V^T with
// descale factors, an `output` of "f16" or "bf16", `head_dim` 64, 128, 192
// or 256; grouped-query attention as Config::grouped.
inline std::string fp8_source(int head_dim, const std::string& output = "f16", bool grouped = false) {
  Config c;
  c.element = "e4m3";
  c.output = output;
  c.head_dim = head_dim;
  c.grouped = grouped;
  return source(c);
}

// Packed sequences of variable lengths (see the top of this file), with
// the rows' log-sum-exp too when `with_lse`.
inline std::string varlen_source(const std::string& element, int head_dim, bool grouped = false,
                                 bool with_lse = false) {
  Config c;
  c.element = element;
  c.head_dim = head_dim;
  c.grouped = grouped;
  c.varlen = true;
  c.with_lse = with_lse;
  return source(c);
}

}  // namespace attention
