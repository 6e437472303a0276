// Croqtile programs of several kernels, shared by tests/specialize/program_test.cpp
// (generated kernels and ABI) and tests/gpu/program_gpu_test.cpp (results).
#pragma once

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

}  // namespace croq::test
