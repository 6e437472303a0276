// Croqtile functions with host statements around their kernels (host
// programs: frontend/host_code.hpp), shared by the interpret-mode and GPU
// tests, with what each prints and computes.
#pragma once

#include <random>
#include <string>
#include <vector>

namespace croq::test {

// A kernel launched once per host iteration adds the loop index (a kernel
// parameter per launch) into `a`; the host sums the indices and prints.
inline const char* kHostLoopSource = R"(
__co__ void accumulate(f32 [N] a, int reps) {
  mutable int total = 0;
  println("start ", reps);
  foreach i in [reps] {
    parallel p by N : block
      a.at(p) = a.at(p) + i;
    total += i;
    if (i % 2 == 0) println("iteration ", i, " total ", total);
  }
  int biggest = __max(total, 3);
  println("done ", biggest, " ", cdiv(total, 4));
}
)";

// What kHostLoopSource prints for reps = 5.
inline const char* kHostLoopOutput =
    "start 5\niteration 0 total 0\niteration 2 total 3\niteration 4 total 10\ndone 10 3\n";

// a[p] after kHostLoopSource with reps launches: a[p] + 0 + 1 + ... + reps-1.
inline std::vector<float> host_loop_reference(std::vector<float> a, int reps) {
  for (float& x : a)
    for (int i = 0; i < reps; ++i) x += static_cast<float>(i);
  return a;
}

// Two kernels with a floating host scalar between them, a branch picking a
// kernel, and a returned tensor.
inline const char* kHostScaleSource = R"(
__co__ f32 [N] scaled(f32 [N] x, f32 factor) {
  f32 [x.span] out;
  mutable f32 scale = factor;
  parallel p by N
    out.at(p) = x.at(p) * scale;
  scale = scale * 2.0f;
  if (N > 4) {
    parallel q by N
      out.at(q) = out.at(q) + scale;
  } else {
    parallel q by N
      out.at(q) = out.at(q) - scale;
  }
  println("scale ", scale);
  return out;
}
)";

inline std::vector<float> host_scale_reference(const std::vector<float>& x, float factor) {
  std::vector<float> out;
  const double scale = static_cast<double>(factor) * 2.0;
  for (float v : x) {
    const float first = static_cast<float>(static_cast<double>(v) * factor);
    out.push_back(static_cast<float>(x.size() > 4 ? first + scale : first - scale));
  }
  return out;
}

// A function with no parallel statement: host scalars and prints only.
inline const char* kHostOnlySource = R"(
__co__ void hello(int n) {
  int half = n / 2;
  f32 ratio = 1.5f;
  println("Hello");
  print("min ", __min(half, 3), " max ", __max(n, 7), " ratio ", ratio * 2.0f, "\n");
}
)";
inline const char* kHostOnlyOutput = "Hello\nmin 3 max 10 ratio 3.000000\n";

// The tests' inputs: n floats in [-2, 2) from a fixed seed, the same in
// interpret mode and on the GPU.
inline std::vector<float> seeded_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace croq::test
