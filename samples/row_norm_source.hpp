// Croqtile source of the row reductions over x [T, H] (T tokens, H hidden):
// softmax, RMSNorm and LayerNorm, f16 or bf16 in and out, f32 math. Shared
// by samples/row_norms.cpp, the GPU tests and bench/harness/bench_rows.py
// (through the kernel_sources tool).
//
// One block per row. Its THREADS = H / 16 threads (32 to 1024 for H from
// 512 to 16384) each load two 8-element chunks of the row, 16 bytes each
// (thread t takes chunks t and THREADS + t, so a warp reads 512 contiguous
// bytes per load), keep the row in registers (16 f32 values a thread) and
// read DRAM once: the row is reduced, then normalized from the registers.
// A reduction folds the thread's values, then the warp's 32 lanes with
// butterfly shuffles (`shfl.sync.bfly` in inline PTX), then the block's
// warps through one shared f32 per warp and a barrier.
//
// H must be a multiple of 512 (whole warps, two whole chunks a thread), from
// 512 to 16384 (a block holds 1024 threads); `supported` says so.
#pragma once

#include <string>

namespace row_norm {

enum class Kind { softmax, rmsnorm, layernorm };

inline bool supported(long long hidden) { return hidden >= 512 && hidden <= 16384 && hidden % 512 == 0; }

inline const char* name(Kind kind) {
  return kind == Kind::softmax ? "softmax" : kind == Kind::rmsnorm ? "rmsnorm" : "layernorm";
}

namespace detail {

// Folds `v` over the warp's lanes with `op` ("sum" or "max") into every lane.
inline std::string warp_fold(const std::string& v, const std::string& op) {
  std::string s;
  for (int lane : {16, 8, 4, 2, 1}) {
    s += "      __asm__ volatile(\"shfl.sync.bfly.b32 %0, %1, " + std::to_string(lane) +
         ", 31, -1;\" : \"=f\"(other) : \"f\"(" + v + "));\n";
    s += "      " + v + " = " + (op == "max" ? "__max(" + v + ", other)" : v + " + other") + ";\n";
  }
  return s;
}

// `v` folded over the block into `into` (every thread), through `part`.
inline std::string block_fold(const std::string& v, const std::string& op, const std::string& part,
                              const std::string& into) {
  std::string s = warp_fold(v, op);
  s += "      if (t % 32 == 0) " + part + ".at(t / 32) = " + v + ";\n";
  s += "      sync.shared;\n";
  s += "      f32 " + into + " = " + (op == "max" ? "-3.0e38f" : "0.0f") + ";\n";
  s += "      foreach q in [THREADS / 32]\n";
  s += "        " + into + " = " + (op == "max" ? "__max(" + into + ", " + part + ".at(q))" : into + " + " + part + ".at(q)") + ";\n";
  return s;
}

}  // namespace detail

// The kernel's text for `element` ("f16" or "bf16") and row length `hidden`
// (supported(hidden)). softmax(x, y); rmsnorm(x, w, y) with eps 1e-6;
// layernorm(x, w, b, y) with eps 1e-5 (w, b: [H]).
inline std::string source(Kind kind, const std::string& element, long long hidden) {
  const long long threads = hidden / 16;
  std::string s = "#define THREADS " + std::to_string(threads) + "\n";
  const std::string DT = element;
  if (kind == Kind::softmax) s += "__co__ void softmax(" + DT + " [T, H] x, " + DT + " [T, H] y) {\n";
  if (kind == Kind::rmsnorm)
    s += "__co__ void rmsnorm(" + DT + " [T, H] x, " + DT + " [H] w, " + DT + " [T, H] y) {\n";
  if (kind == Kind::layernorm)
    s += "__co__ void layernorm(" + DT + " [T, H] x, " + DT + " [H] w, " + DT + " [H] b, " + DT + " [T, H] y) {\n";
  s += "  parallel r by T : block {\n";
  s += "    shared f32 [THREADS / 32] part_a;\n";
  s += "    shared f32 [THREADS / 32] part_b;\n";
  s += "    parallel t by THREADS : thread {\n";
  s += "      local f32 [16] v;\n";
  s += "      local " + DT + " [1, 8] out;\n";
  s += "      f32 other = 0.0f;\n";
  s += "      f32 acc = 0.0f;\n";
  if (kind == Kind::softmax) s += "      acc = -3.0e38f;\n";
  s += "      foreach c in [2] {\n";
  s += "        xv = dma.copy x.subspan(1, 8).at(r, c # t) => local;\n";
  s += "        foreach e in [8] {\n";
  s += "          f32 a = xv.data.at(0, e);\n";
  s += "          v.at(c * 8 + e) = a;\n";
  if (kind == Kind::softmax) s += "          acc = __max(acc, a);\n";
  if (kind == Kind::rmsnorm) s += "          acc += a * a;\n";
  if (kind == Kind::layernorm) s += "          acc += a;\n";
  s += "        }\n";
  s += "      }\n";
  if (kind == Kind::softmax) {
    s += detail::block_fold("acc", "max", "part_a", "row_max");
    s += "      f32 sum = 0.0f;\n";
    s += "      foreach i in [16] {\n";
    s += "        f32 p = __exp(v.at(i) - row_max);\n";
    s += "        v.at(i) = p;\n";
    s += "        sum += p;\n";
    s += "      }\n";
    s += detail::block_fold("sum", "sum", "part_b", "total");
    s += "      f32 scale = 1.0f / total;\n";
  } else if (kind == Kind::rmsnorm) {
    s += detail::block_fold("acc", "sum", "part_a", "total");
    s += "      f32 scale = __rsqrt(total / H + 1e-6f);\n";
  } else {
    s += detail::block_fold("acc", "sum", "part_a", "total");
    s += "      f32 mean = total / H;\n";
    s += "      f32 dev = 0.0f;\n";
    s += "      foreach i in [16] {\n";
    s += "        f32 d = v.at(i) - mean;\n";
    s += "        v.at(i) = d;\n";
    s += "        dev += d * d;\n";
    s += "      }\n";
    s += detail::block_fold("dev", "sum", "part_b", "var_sum");
    s += "      f32 scale = __rsqrt(var_sum / H + 1e-5f);\n";
  }
  s += "      foreach c in [2] {\n";
  if (kind != Kind::softmax) s += "        wv = dma.copy w.subspan(8).at(c # t) => local;\n";
  if (kind == Kind::layernorm) s += "        bv = dma.copy b.subspan(8).at(c # t) => local;\n";
  s += "        foreach e in [8] {\n";
  if (kind == Kind::softmax) s += "          out.at(0, e) = v.at(c * 8 + e) * scale;\n";
  // The weights are read into f32 scalars first: an f32 times an element
  // of a local f16 tile has no single operator in CUDA.
  if (kind != Kind::softmax) s += "          f32 gain = wv.data.at(e);\n";
  if (kind == Kind::layernorm) s += "          f32 bias = bv.data.at(e);\n";
  if (kind == Kind::rmsnorm) s += "          out.at(0, e) = v.at(c * 8 + e) * scale * gain;\n";
  if (kind == Kind::layernorm) s += "          out.at(0, e) = v.at(c * 8 + e) * scale * gain + bias;\n";
  s += "        }\n";
  s += "        dma.copy out => y.subspan(1, 8).at(r, c # t);\n";
  s += "      }\n";
  s += "    }\n";
  s += "  }\n";
  s += "}\n";
  return s;
}

}  // namespace row_norm
