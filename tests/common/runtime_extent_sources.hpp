// Kernels whose tiles have extents computed in the kernel (`view(n, 16)`,
// `subspan(n, 16)`, `foreach r in n`), shared by
// tests/lower/runtime_extent_test.cpp (generated code) and
// tests/gpu/runtime_extent_gpu_test.cpp (results).
#pragma once

namespace croq::test {

// out = 2 * x + y, in chunks of four rows per step; the last chunk has the
// rows that are left (R - 4k), a value the kernel computes.
inline const char* const kChunkedRows =
    "__co__ f32 [R, C] chunked(f32 [R, C] x, f32 [R, C] y) {\n"
    "  f32 [x.span] out;\n"
    "  parallel b by C / 16 : block {\n"
    "    foreach k in cdiv(R, 4) {\n"
    "      n = (k == cdiv(R, 4) - 1) ? R - 4 * k : 4;\n"
    "      shared f32 [4, 16] xs, ys, acc;\n"
    "      f = dma.copy.async x.view(n, 16).from(4 * k, 16 * b) => xs.subspan(n, 16).at(0, 0);\n"
    "      g = dma.copy.async y.view(n, 16).from(4 * k, 16 * b) => ys.subspan(n, 16).at(0, 0);\n"
    "      wait f, g;\n"
    "      parallel t by 16 : thread\n"
    "        foreach r in n\n"
    "          acc.at(r, t) = xs.at(r, t) * 2.0 + ys.at(r, t);\n"
    "      dma.copy acc => out.view(n, 16).from(4 * k, 16 * b);\n"
    "    }\n"
    "  }\n"
    "  return out;\n"
    "}\n";

}  // namespace croq::test
