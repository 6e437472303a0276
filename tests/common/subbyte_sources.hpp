// Kernels over the sub-byte element types, shared by
// tests/lower/subbyte_test.cpp (generated CUDA, NVRTC) and
// tests/gpu/subbyte_gpu_test.cpp (results against the host conversions).
#pragma once

#include <string>
#include <vector>

namespace croq::test {

// Every sub-byte element type, by its Croqtile name.
inline const std::vector<std::string> kSubByteTypes = {"f6_e2m3", "f6_e3m2", "f4_e2m1", "u6", "s6",  "u4",
                                                        "s4",      "u2",      "s2",      "u1", "bin1"};

// A [M, 64] tensor of type `t` moved along every copy path, one output per
// path: global to shared (async) and back, shared to local (8 elements a
// thread) and on to global, and element by element.
inline std::string subbyte_moves(const std::string& t) {
  return "__co__ void moves(" + t + " [M, 64] a, " + t + " [M, 64] staged, " + t + " [M, 64] through_local, " + t +
         " [M, 64] elements) {\n"
         "  parallel p by M : block {\n"
         "    f = dma.copy.async a.chunkat(p, _) => shared;\n"
         "    wait f;\n"
         "    dma.copy f.data => staged.chunkat(p, _);\n"
         "    parallel q by 8 : thread {\n"
         "      l = dma.copy f.data.chunkat(_, q) => local;\n"
         "      dma.copy l.data => through_local.chunkat(p, q);\n"
         "      foreach j in [8]\n"
         "        elements.at(p, q # j) = a.at(p, q # j);\n"
         "    }\n"
         "  }\n"
         "}\n";
}

// A whole [A, 17, 33] tensor (rows of an odd number of bytes) staged in
// shared memory and returned.
inline std::string subbyte_odd_copy(const std::string& t) {
  return "__co__ auto odd_copy(" + t + " [A, 17, 33] input) {\n"
         "  " + t + " [input.span] output;\n"
         "  parallel by 1, by 1 {\n"
         "    s = dma.copy input => shared;\n"
         "    dma.copy s.data => output;\n"
         "  }\n"
         "  return output;\n"
         "}\n";
}

// Arithmetic computes through f32 (floats) or s32 (integers): a sum into
// f16 (a float type's sum is rounded to that type first), a compound assignment that rounds or wraps
// back into `t`, a comparison with element-to-element assignments, and a
// product with a float.
inline std::string subbyte_arithmetic(const std::string& t) {
  return "__co__ void arith(" + t + " [M, 64] a, " + t + " [M, 64] b, f16 [M, 64] sum, " + t + " [M, 64] rounded, " +
         t + " [M, 64] larger, f32 [M, 64] scaled) {\n"
         "  parallel p by M, q by 64 {\n"
         "    sum.at(p, q) = a.at(p, q) + b.at(p, q);\n"
         "    rounded.at(p, q) = a.at(p, q);\n"
         "    rounded.at(p, q) += b.at(p, q);\n"
         "    larger.at(p, q) = b.at(p, q);\n"
         "    if (a.at(p, q) > b.at(p, q)) larger.at(p, q) = a.at(p, q);\n"
         "    scaled.at(p, q) = a.at(p, q) * 0.5f;\n"
         "  }\n"
         "}\n";
}

// TMA (sm_90a) loads of [16, 128] tiles into shared memory, stored back
// with TMA and widened to f32 element by element.
inline std::string subbyte_tma(const std::string& t) {
  return "__co__ void tma_moves(" + t + " [64, 128] a, " + t + " [64, 128] b, f32 [64, 128] widened) {\n"
         "  parallel p by 4 : block {\n"
         "    s = tma.copy a.chunkat(p, _) => shared;\n"
         "    tma.copy s.data => b.chunkat(p, _);\n"
         "    parallel q by 128 : thread\n"
         "      foreach r in [16]\n"
         "        widened.at(p # r, q) = s.data.at(r, q);\n"
         "  }\n"
         "}\n";
}

}  // namespace croq::test
