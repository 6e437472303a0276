// Croqtile programs of several kernels, shared by tests/pipeline/program_test.cpp
// (generated kernels and ABI) and tests/gpu/program_gpu_test.cpp (results).
#pragma once

#include <cstddef>
#include <cstdint>

namespace croq::test {

// Two kernels through a global buffer: the second reads it reversed, so each
// element crosses blocks and only the kernel boundary orders the two.
inline const char* const kReverseTwice =
    "__co__ f32 [N] twice(f32 [N] a, f32 [N] b) {\n"
    "  global f32 [N] tmp;\n"
    "  f32 [N] out;\n"
    "  parallel i by N\n"
    "    tmp.at(i) = a.at(i) + b.at(i);\n"
    "  parallel j by N\n"
    "    out.at(j) = tmp.at(N - 1 - j) * 2.0 + a.at(j);\n"
    "  return out;\n"
    "}\n";

// Initial values of global tensors: the returned one starts at 0.5 and is
// updated in place, `plain` is written before it is read (no fill),
// `counts` is counted into by atomics (zero), `half` and `wide` start at
// -2 and 1.25 (an f64: its 8-byte pattern has two different halves).
// out[j] = 0.5 + 3 a[N-1-j] + 2 - 2 + 1.25.
inline const char* const kInitialValues =
    "__co__ f32 [N] starts(f32 [N] a) {\n"
    "  f32 [N] out{0.5f};\n"
    "  global f32 [N] plain;\n"
    "  global s32 [N] counts;\n"
    "  global f16 [N] half{-2};\n"
    "  global f64 [N] wide{1.25};\n"
    "  parallel i by N {\n"
    "    plain.at(i) = a.at(i) * 3.0f;\n"
    "    __atomic_add(counts.at(i), 2);\n"
    "  }\n"
    "  parallel j by N\n"
    "    out.at(j) += plain.at(N - 1 - j) + __to<f32>(counts.at(j)) + __to<f32>(half.at(j)) + __to<f32>(wide.at(j));\n"
    "  return out;\n"
    "}\n";

// Initial values of shared and local tiles: a 2-D shared tile of 1.5, a
// ring of two shared buffers of 3 (s32), a thread's local array of -0.25.
// out[b, t] = a[b, t] + 1.5 + 3 + 3 - 0.25 * 8.
inline const char* const kInitialTiles =
    "__co__ void tiles(f32 [B, 64] a, f32 [B, 64] &out) {\n"
    "  parallel b by B : block {\n"
    "    shared f32 [4, 64] base{1.5f};\n"
    "    shared s32 [64] ring[2]{3};\n"
    "    parallel t by 64 : thread {\n"
    "      local f32 [8] part{-0.25f};\n"
    "      mutable f32 sum = 0.0f;\n"
    "      foreach k in [8]\n"
    "        sum = sum + part.at(k);\n"
    "      out.at(b, t) = a.at(b, t) + base.at(b % 4, t) + __to<f32>(ring[0].at(t) + ring[1].at(63 - t)) + sum;\n"
    "    }\n"
    "  }\n"
    "}\n";

// Shared and local tensors filled with values computed at run time from
// scalar parameters (a float into an s8 tile truncates toward zero).
inline const char* const kComputedInitialTiles =
    "__co__ void computed(s32 [B, 32] a, s32 [B, 32] &out, float x, int k) {\n"
    "  parallel b by B : block {\n"
    "    shared s8 [4, 32] s{x};\n"
    "    parallel t by 32 : thread {\n"
    "      local s32 [4] l{k * 2 + b};\n"
    "      out.at(b, t) = a.at(b, t) + __to<s32>(s.at(b % 4, t)) + l.at(t % 4);\n"
    "    }\n"
    "  }\n"
    "}\n";

// What kComputedInitialTiles writes at (b, t) for a's element `v`.
inline std::int32_t computed_initial_reference(std::int32_t v, std::size_t b, float x, std::int32_t k) {
  return v + static_cast<std::int32_t>(static_cast<std::int8_t>(x)) + k * 2 + static_cast<std::int32_t>(b);
}

// Asynchronous regions (`parallel.async by 1 : device(...)`) and
// `sync.global`: one kernel per region, in order, with no host wait between
// them. The `: device(cpu)` region has no parallel level inside (one thread
// loops over it); the third region reads what the first two wrote.
inline const char* const kAsyncRegions =
    "__co__ void regions(f32 [N] a, f32 [N] &b, f32 [N] &c) {\n"
    "  parallel.async by 1 : device(cpu) {\n"
    "    foreach i in [N]\n"
    "      a.at(i) = a.at(i) * 3.0;\n"
    "  }\n"
    "  parallel.async by 1 : device(gpu) {\n"
    "    parallel p by N : block\n"
    "      b.at(p) = b.at(p) - 1.0;\n"
    "  }\n"
    "  sync.global;\n"
    "  parallel.async d by 1 : device(gpu) {\n"
    "    parallel p by N\n"
    "      c.at(p) = a.at(N - 1 - p) + b.at(p) + d;\n"
    "  }\n"
    "  sync.global;\n"
    "}\n";

// A cooperative launch: blocks exchange rows through function-scope tensors
// (global without saying so) across two grid barriers, so each read crosses
// blocks and only the barriers order it.
// With a = 2 * x and c(j, t) = a((j + 1) % B, t) + 1:
// out(b, t) = c(B - 1 - b, t) + a(b, t) = 2 * x((B - b) % B, t) + 1 + 2 * x(b, t).
inline const char* const kCooperativeExchange =
    "__co__ s32 [B, T] exchange(s32 [B, T] x) {\n"
    "  s32 [B, T] a;\n"
    "  s32 [B, T] c;\n"
    "  s32 [B, T] out;\n"
    "  parallel b by B : block<cooperative> {\n"
    "    parallel t by T : thread\n"
    "      a.at(b, t) = x.at(b, t) * 2;\n"
    "    sync.barrier : block;\n"
    "    parallel t by T : thread\n"
    "      c.at(b, t) = a.at((b + 1) % B, t) + 1;\n"
    "    sync.barrier : device;\n"
    "    parallel t by T : thread\n"
    "      out.at(b, t) = c.at(B - 1 - b, t) + a.at(b, t);\n"
    "  }\n"
    "  return out;\n"
    "}\n";

// Two kernels on two stream arguments (`parallel<s>`): the second reads what
// the first wrote, reversed, so the call must order the streams.
inline const char* const kTwoStreams =
    "__co__ void two_streams(f32 [N] a, f32 [N] &out, stream s0, stream s1) {\n"
    "  global f32 [N] tmp;\n"
    "  parallel<s0> i by N\n"
    "    tmp.at(i) = a.at(i) * 2.0;\n"
    "  parallel<s1> j by N\n"
    "    out.at(j) = tmp.at(N - 1 - j) + 1.0;\n"
    "}\n";

// Two kernels through a program buffer that TMA moves both ways: the first
// copies tiles of `a` into `mid` (a TMA load, then a TMA store of the
// shared tile), the second loads mid's tiles by TMA and writes
// out = 2 mid + a. M may leave a partial last tile (zero-filled on load,
// clipped on store). out[i, c] = 3 a[i, c].
inline const char* const kProgramBufferTma =
    "__co__ f32 [M, 64] through_buffer(f32 [M, 64] a) {\n"
    "  global f32 [M, 64] mid;\n"
    "  f32 [a.span] out;\n"
    "  parallel p by cdiv(M, 32) : block {\n"
    "    t = tma.copy.async a.subspan(32, 64).at(p, 0).zfill => shared;\n"
    "    wait t;\n"
    "    tma.copy t.data => mid.subspan(32, 64).at(p, 0);\n"
    "  }\n"
    "  parallel p by cdiv(M, 32) : block {\n"
    "    m = tma.copy.async mid.subspan(32, 64).at(p, 0).zfill => shared;\n"
    "    wait m;\n"
    "    parallel r by 32 : thread {\n"
    "      if (p * 32 + r < M)\n"
    "        foreach c in [64]\n"
    "          out.at(p * 32 + r, c) = m.data.at(r, c) * 2.0f + a.at(p * 32 + r, c);\n"
    "    }\n"
    "  }\n"
    "  return out;\n"
    "}\n";

}  // namespace croq::test
