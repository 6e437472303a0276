// The tiled add that the tuning tests tune: TM x TN threads per block.
// BIAS != 0 gives wrong sums; TM = 3 leaves the last of 64 rows unwritten;
// TM = 0 divides by zero (a compile error).
#pragma once

namespace croq::test {

inline const char* const kTunedAdd =
    "#define TM 16\n"
    "#define TN 16\n"
    "#define BIAS 0\n"
    "__co__ f32 [M, N] tuned_add(f32 [M, N] lhs, f32 [M, N] rhs) {\n"
    "  f32 [M, N] out;\n"
    "  parallel {p, q} by [M / TM, N / TN] : block {\n"
    "    parallel {i, j} by [TM, TN] : thread {\n"
    "      out.at(p # i, q # j) = lhs.at(p # i, q # j) + rhs.at(p # i, q # j) + BIAS;\n"
    "    }\n"
    "  }\n"
    "  return out;\n"
    "}\n";

}  // namespace croq::test
