// Croqtile source of the row reductions over x [T, H] (T tokens, H hidden):
// softmax, RMSNorm and LayerNorm, f16 or bf16 in and out, f32 math. Shared
// by samples/row_norms.cpp, the GPU tests and bench/harness/bench_rows.py
// (through the kernel_sources tool).
//
// One block per row. Its THREADS threads each load CHUNKS 8-element chunks
// of the row, 16 bytes each (thread t takes chunks t, THREADS + t, ..., so a
// warp reads 512 contiguous bytes per load), keep the row in registers and
// read DRAM once: the row is reduced, then normalized from the registers.
// A reduction folds the thread's values, then the warp's 32 lanes with
// butterfly shuffles (`shfl.sync.bfly` in inline PTX), then the block's
// warps through one shared f32 per warp and a barrier.
//
// Softmax and RMSNorm: CHUNKS = 2 (THREADS = H / 16, 32 to 1024), the row
// kept as f32; softmax over rows of 16384 takes CHUNKS = 8 (256 threads of
// 64 elements). A block of 1024 threads is as large as blocks get, so few
// fit an SM and its loads wait while the block reduces; smaller blocks
// overlap in finer steps (as LayerNorm's do). Measured on one H200 against
// Triton's tutorial kernel in the same run, f16 [4096, 16384]: 1024 threads
// 0.89x, 512 threads 1.02x, 256 threads 1.06x. Softmax's exponential is
// exp2 of x * log2(e) (ex2.approx, as Triton's and FlashAttention's are):
// CUDA's accurate expf costs a few percent at these rows (1.04x against
// 1.02x at 512 threads). LayerNorm keeps the row in its element type (half the
// registers) and reduces once: each thread's mean and sum of squared
// deviations (from its own registers), merged over lanes and warps with
// Chan's formula for equal counts, so the variance stays two-pass accurate
// with one barrier. Its blocks hold at most 256 threads (CHUNKS = H / 2048
// or the next divisor that keeps whole warps): at H = 16384 a block of 1024
// threads at 44 registers left one block an SM, no row loading while
// another reduces; 256 threads of 64 elements let several blocks overlap,
// as Triton's tutorial kernel (8 warps) does.
//
// Softmax and RMSNorm take several rows a block where a row's threads are
// few (`rows_per_block`: 4 rows of at most 64 threads; bench_rows.py --rows
// compares the forms): a block of one short row is 64 threads, and the SM's
// limit of resident blocks, not its threads, bounds the loads in flight.
// Measured on one H200, softmax f16 [32768, 1024]: 3149 GB/s with a row a
// block, 3619 with 4 (Triton's tutorial kernel 3498 and 3488 in those runs);
// [4096, 1024] unchanged; at rows of 256 threads 4 rows a block lost 8%
// ([4096, 4096]) to 37% ([4096, 16384]).
//
// H must be a multiple of 512 (whole warps, two whole chunks a thread), from
// 512 to 16384 (a block holds 1024 threads); `supported` says so.
#pragma once

#include <string>

namespace row_norm {

enum class Kind { softmax, rmsnorm, layernorm };

inline bool supported(long long hidden) { return hidden >= 512 && hidden <= 16384 && hidden % 512 == 0; }

// Softmax rows at least this long keep 8 chunks (64 elements) a thread.
inline constexpr long long kLongSoftmaxRow = 16384;

// The 8-element chunks each thread holds for rows of `hidden` (supported).
inline long long chunks_per_thread(Kind kind, long long hidden) {
  if (kind == Kind::softmax) return hidden >= kLongSoftmaxRow ? 8 : 2;
  if (kind != Kind::layernorm) return 2;
  const long long per_lane = hidden / 256;  // chunks a warp-wide row slice gives each lane
  for (long long c = 2; c < per_lane; ++c)
    if (per_lane % c == 0 && 32 * (per_lane / c) <= 256) return c;
  return per_lane;
}

// Whether rows of `hidden` split into whole warps of threads holding
// `chunks` chunks each, at most 1024 threads.
inline bool chunks_fit(long long hidden, long long chunks) {
  return chunks > 0 && hidden % (256 * chunks) == 0 && hidden / (8 * chunks) <= 1024;
}

// The block's threads for rows of `hidden` (supported): whole warps.
inline long long threads_per_row(Kind kind, long long hidden) { return hidden / (8 * chunks_per_thread(kind, hidden)); }

// Softmax's and RMSNorm's rows a block (see the header): 4 where a row
// takes at most 64 threads, else 1. LayerNorm: 1.
inline long long rows_per_block(Kind kind, long long hidden) {
  return kind != Kind::layernorm && threads_per_row(kind, hidden) <= 64 ? 4 : 1;
}

inline const char* name(Kind kind) {
  return kind == Kind::softmax ? "softmax" : kind == Kind::rmsnorm ? "rmsnorm" : "layernorm";
}

namespace detail {

// How a warp folds its lanes: butterfly shuffles (inline PTX), or, for the
// interpreter, which runs no inline PTX, each lane's value through shared
// memory (`lanes`) and a barrier; the same fold of the same 32 values into
// every lane, in another order.
enum class WarpFolds { shuffles, shared };

// Folds `v` over the warp's lanes with `op` ("sum" or "max") into every lane.
inline std::string warp_fold(const std::string& v, const std::string& op, WarpFolds folds, const std::string& row = "") {
  std::string s;
  auto fold = [&](const std::string& a, const std::string& b) {
    return op == "max" ? "__max(" + a + ", " + b + ")" : a + " + " + b;
  };
  if (folds == WarpFolds::shared) {
    s += "      lanes.at(" + row + "t) = " + v + ";\n";
    s += "      sync.shared;\n";
    s += "      " + v + " = lanes.at(" + row + "t / 32 * 32);\n";
    s += "      foreach l in [31]\n";
    s += "        " + v + " = " + fold(v, "lanes.at(" + row + "t / 32 * 32 + 1 + l)") + ";\n";
    return s;
  }
  for (int lane : {16, 8, 4, 2, 1}) {
    s += "      __asm__ volatile(\"shfl.sync.bfly.b32 %0, %1, " + std::to_string(lane) +
         ", 31, -1;\" : \"=f\"(other) : \"f\"(" + v + "));\n";
    s += "      " + v + " = " + fold(v, "other") + ";\n";
  }
  return s;
}

// `v` folded over the row's threads into `into` (every thread), through
// `part`; `row` selects the row's part (`g, ` when a block takes several
// rows, else empty).
inline std::string block_fold(const std::string& v, const std::string& op, const std::string& part,
                              const std::string& into, WarpFolds folds, const std::string& row = "") {
  std::string s = warp_fold(v, op, folds, row);
  s += "      if (t % 32 == 0) " + part + ".at(" + row + "t / 32) = " + v + ";\n";
  s += "      sync.shared;\n";
  s += "      f32 " + into + " = " + (op == "max" ? "-3.0e38f" : "0.0f") + ";\n";
  s += "      foreach q in [THREADS / 32]\n";
  const std::string at = part + ".at(" + row + "q)";
  s += "        " + into + " = " + (op == "max" ? "__max(" + into + ", " + at + ")" : into + " + " + at) + ";\n";
  return s;
}

// Ends the output loop of a chunk (its 8 elements computed into `out`):
// the chunk's store into row `row` and the closing braces.
inline std::string closing_store(const std::string& row = "r") {
  return "        }\n"
         "        dma.copy out => y.subspan(1, 8).at(" + row + ", c # t);\n"
         "      }\n"
         "    }\n"
         "  }\n"
         "}\n";
}

// LayerNorm (see the header): the row kept in the element type, one
// reduction of (mean, sum of squared deviations) per row.
inline std::string layernorm_source(const std::string& DT, long long hidden) {
  const long long chunks = chunks_per_thread(Kind::layernorm, hidden);
  std::string s = "#define THREADS " + std::to_string(threads_per_row(Kind::layernorm, hidden)) + "\n";
  s += "#define CHUNKS " + std::to_string(chunks) + "\n";
  s += "__co__ void layernorm(" + DT + " [T, H] x, " + DT + " [H] w, " + DT + " [H] b, " + DT + " [T, H] y) {\n";
  s += "  parallel r by T : block {\n";
  s += "    shared f32 [THREADS / 32] part_mean;\n";
  s += "    shared f32 [THREADS / 32] part_m2;\n";
  s += "    parallel t by THREADS : thread {\n";
  s += "      local " + DT + " [CHUNKS, 8] xs;\n";
  s += "      local " + DT + " [1, 8] out;\n";
  s += "      f32 other = 0.0f;\n";
  s += "      f32 other_m2 = 0.0f;\n";
  s += "      f32 sum = 0.0f;\n";
  s += "      foreach c in [CHUNKS] {\n";
  s += "        xv = dma.copy x.subspan(1, 8).at(r, c # t) => local;\n";
  s += "        foreach e in [8] {\n";
  s += "          xs.at(c, e) = xv.data.at(0, e);\n";
  s += "          f32 a = xv.data.at(0, e);\n";
  s += "          sum += a;\n";
  s += "        }\n";
  s += "      }\n";
  // The thread's own mean and squared deviations, then merged pairwise:
  // (m_a + m_b) / 2 and M2_a + M2_b + (m_b - m_a)^2 n / 2 for halves of n
  // values each, written symmetrically so both lanes get the same bits.
  s += "      f32 mean = sum / (CHUNKS * 8);\n";
  s += "      f32 m2 = 0.0f;\n";
  s += "      foreach c in [CHUNKS] {\n";
  s += "        foreach e in [8] {\n";
  s += "          f32 a = xs.at(c, e);\n";
  s += "          f32 d = a - mean;\n";
  s += "          m2 += d * d;\n";
  s += "        }\n";
  s += "      }\n";
  long long half = chunks * 8 / 2;
  for (int lane : {16, 8, 4, 2, 1}) {
    const std::string l = std::to_string(lane);
    s += "      __asm__ volatile(\"shfl.sync.bfly.b32 %0, %1, " + l + ", 31, -1;\" : \"=f\"(other) : \"f\"(mean));\n";
    s += "      __asm__ volatile(\"shfl.sync.bfly.b32 %0, %1, " + l + ", 31, -1;\" : \"=f\"(other_m2) : \"f\"(m2));\n";
    s += "      f32 delta_" + l + " = other - mean;\n";
    s += "      mean = (mean + other) * 0.5f;\n";
    s += "      m2 = (m2 + other_m2) + delta_" + l + " * delta_" + l + " * " + std::to_string(half) + ".0f;\n";
    half *= 2;
  }
  s += "      if (t % 32 == 0) {\n";
  s += "        part_mean.at(t / 32) = mean;\n";
  s += "        part_m2.at(t / 32) = m2;\n";
  s += "      }\n";
  s += "      sync.shared;\n";
  s += "      f32 row_mean = 0.0f;\n";
  s += "      foreach q in [THREADS / 32]\n";
  s += "        row_mean = row_mean + part_mean.at(q);\n";
  s += "      row_mean = row_mean / (THREADS / 32);\n";
  s += "      f32 var_sum = 0.0f;\n";
  s += "      foreach q in [THREADS / 32] {\n";
  s += "        f32 dq = part_mean.at(q) - row_mean;\n";
  s += "        var_sum = var_sum + part_m2.at(q) + dq * dq * (CHUNKS * 256);\n";
  s += "      }\n";
  s += "      f32 scale = __rsqrt(var_sum / H + 1e-5f);\n";
  s += "      foreach c in [CHUNKS] {\n";
  s += "        wv = dma.copy w.subspan(8).at(c # t) => local;\n";
  s += "        bv = dma.copy b.subspan(8).at(c # t) => local;\n";
  s += "        foreach e in [8] {\n";
  s += "          f32 a = xs.at(c, e);\n";
  s += "          f32 gain = wv.data.at(e);\n";
  s += "          f32 bias = bv.data.at(e);\n";
  s += "          out.at(0, e) = (a - row_mean) * scale * gain + bias;\n";
  return s + closing_store();
}

}  // namespace detail

// The kernel's text for `element` ("f16" or "bf16") and row length `hidden`
// (supported(hidden)). softmax(x, y); rmsnorm(x, w, y) with eps 1e-6;
// layernorm(x, w, b, y) with eps 1e-5 (w, b: [H]). `folds`: the warp
// reductions' form (shared: softmax and RMSNorm for the interpreter;
// LayerNorm's merges are shuffles only).
// `chunks`: softmax's and RMSNorm's chunks a thread when not 0 (else
// chunks_per_thread; the benchmark compares forms with it), one that
// chunks_fit.
// `rows`: softmax's and RMSNorm's rows a block when not 0, else
// rows_per_block (each row its own THREADS threads; the block's last rows
// past T load nothing and store nothing).
inline std::string source(Kind kind, const std::string& element, long long hidden,
                          detail::WarpFolds folds = detail::WarpFolds::shuffles, long long chunks = 0,
                          long long rows = 0) {
  if (kind == Kind::layernorm) return detail::layernorm_source(element, hidden);
  if (rows == 0) rows = chunks == 0 ? rows_per_block(kind, hidden) : 1;
  if (chunks == 0) chunks = chunks_per_thread(kind, hidden);
  std::string s = "#define THREADS " + std::to_string(hidden / (8 * chunks)) + "\n";
  s += "#define CHUNKS " + std::to_string(chunks) + "\n";
  const bool several = rows > 1;
  if (several) s += "#define ROWS " + std::to_string(rows) + "\n";
  const std::string row = several ? "r # g" : "r", part_row = several ? "g, " : "", part_rows = several ? "ROWS, " : "";
  const std::string DT = element;
  if (kind == Kind::softmax) s += "__co__ void softmax(" + DT + " [T, H] x, " + DT + " [T, H] y) {\n";
  if (kind == Kind::rmsnorm)
    s += "__co__ void rmsnorm(" + DT + " [T, H] x, " + DT + " [H] w, " + DT + " [T, H] y) {\n";
  s += several ? "  parallel r by (T + ROWS - 1) / ROWS : block {\n" : "  parallel r by T : block {\n";
  s += "    shared f32 [" + part_rows + "THREADS / 32] part_a;\n";
  s += "    shared f32 [" + part_rows + "THREADS / 32] part_b;\n";
  if (folds == detail::WarpFolds::shared) s += "    shared f32 [" + part_rows + "THREADS] lanes;\n";
  s += several ? "    parallel {g, t} by [ROWS, THREADS] : thread {\n" : "    parallel t by THREADS : thread {\n";
  s += "      local f32 [CHUNKS * 8] v;\n";
  s += "      local " + DT + " [1, 8] out;\n";
  s += "      f32 other = 0.0f;\n";
  s += "      f32 acc = 0.0f;\n";
  if (kind == Kind::softmax) s += "      acc = -3.0e38f;\n";
  s += "      foreach c in [CHUNKS] {\n";
  // Several rows a block: the last block's rows past T read zeros (`.zfill`
  // says so) and store nothing.
  s += "        xv = dma.copy x.subspan(1, 8).at(" + row + ", c # t)" + (several ? ".zfill" : "") + " => local;\n";
  s += "        foreach e in [8] {\n";
  s += "          f32 a = xv.data.at(0, e);\n";
  s += "          v.at(c * 8 + e) = a;\n";
  if (kind == Kind::softmax) s += "          acc = __max(acc, a);\n";
  if (kind == Kind::rmsnorm) s += "          acc += a * a;\n";
  s += "        }\n";
  s += "      }\n";
  if (kind == Kind::softmax) {
    s += detail::block_fold("acc", "max", "part_a", "row_max", folds, part_row);
    s += "      f32 sum = 0.0f;\n";
    s += "      foreach i in [CHUNKS * 8] {\n";
    s += "        f32 p = __exp2f((v.at(i) - row_max) * 1.4426950408889634f);\n";
    s += "        v.at(i) = p;\n";
    s += "        sum += p;\n";
    s += "      }\n";
    s += detail::block_fold("sum", "sum", "part_b", "total", folds, part_row);
    s += "      f32 scale = 1.0f / total;\n";
  } else {
    s += detail::block_fold("acc", "sum", "part_a", "total", folds, part_row);
    s += "      f32 scale = __rsqrt(total / H + 1e-6f);\n";
  }
  s += "      foreach c in [CHUNKS] {\n";
  if (kind != Kind::softmax) s += "        wv = dma.copy w.subspan(8).at(c # t) => local;\n";
  s += "        foreach e in [8] {\n";
  if (kind == Kind::softmax) s += "          out.at(0, e) = v.at(c * 8 + e) * scale;\n";
  // The weights are read into f32 scalars first: an f32 times an element
  // of a local f16 tile has no single operator in CUDA.
  if (kind != Kind::softmax) s += "          f32 gain = wv.data.at(e);\n";
  if (kind == Kind::rmsnorm) s += "          out.at(0, e) = v.at(c * 8 + e) * scale * gain;\n";
  return s + detail::closing_store(row);
}

}  // namespace row_norm
