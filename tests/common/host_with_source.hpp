// A host program whose kernels run inside a host `with` and the `foreach`
// loops over its names (a tuple name and a name of a second binding), with
// what it prints and computes; shared by tests/interp/host_with_interp_test.cpp
// and tests/gpu/host_with_gpu_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace croq::test {

inline const char* kHostWithSource = R"(
__co__ void with_loops(f32 [R, 2] a, int reps) {
  with index = {i, j} in [2, reps], k in 3 {
    println("before ", i, " ", j, " ", k);
    foreach index {
      parallel p by R : block
        a.at(p, 0) = a.at(p, 0) + i * 10 + j;
    }
    foreach k
      parallel p by R : block
        a.at(p, 1) = a.at(p, 1) + k;
    println("after ", i, " ", j, " ", k);
  }
}
)";

// What kHostWithSource prints: the names are 0 outside a `foreach` of them.
inline const char* kHostWithOutput = "before 0 0 0\nafter 0 0 0\n";

// `a` ([rows, 2], row-major) after kHostWithSource with `reps`: column 0
// gains 10 i + j for i < 2, j < reps; column 1 gains 0 + 1 + 2.
inline std::vector<float> host_with_reference(std::vector<float> a, std::int64_t reps) {
  for (std::size_t r = 0; r * 2 < a.size(); ++r) {
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < reps; ++j) a[r * 2] = a[r * 2] + static_cast<float>(i * 10 + j);
    for (int k = 0; k < 3; ++k) a[r * 2 + 1] = a[r * 2 + 1] + static_cast<float>(k);
  }
  return a;
}

// Host code between two kernels: a `with` with no statement, a `with`
// whose body (host code alone) runs once with its name 0, and a `with`
// whose `foreach` prints.
inline const char* kHostWithBetweenSource = R"(
__co__ void with_between(s32 [R] out, int n) {
  parallel p by R : block
    out.at(p) = p;
  with a in [2];
  with b in [3] {
    m = n * 2;
    println("once ", b, " ", m);
  }
  with c in [2] foreach c println("c ", c);
  parallel q by R : block
    out.at(q) = out.at(q) + n;
}
)";

// What kHostWithBetweenSource prints for `n`.
inline std::string host_with_between_output(std::int64_t n) {
  return "once 0 " + std::to_string(2 * n) + "\nc 0\nc 1\n";
}

// `with index in [3, reps]`: a name for a rank-2 bound without element
// names; `foreach index` loops over its unnamed elements (3 * reps rounds).
inline const char* kHostWithUnnamedSource = R"(
__co__ void with_unnamed(f32 [R] a, int reps) {
  mutable int t = 0;
  with index in [3, reps] {
    foreach index {
      t += 1;
      parallel p by R : block
        a.at(p) = a.at(p) + t;
    }
  }
  println("launches ", t);
}
)";

// What kHostWithUnnamedSource prints for `reps`.
inline std::string host_with_unnamed_output(std::int64_t reps) {
  return "launches " + std::to_string(3 * reps) + "\n";
}

// `a` after kHostWithUnnamedSource: round t (1, 2, ...) adds t.
inline std::vector<float> host_with_unnamed_reference(std::vector<float> a, std::int64_t reps) {
  for (float& x : a)
    for (std::int64_t t = 1; t <= 3 * reps; ++t) x = x + static_cast<float>(t);
  return a;
}

}  // namespace croq::test
