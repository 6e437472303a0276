// Row reductions written in Croqtile (samples/row_norm_source.hpp): softmax,
// RMSNorm and LayerNorm over x [T, H], f16 and bf16, each checked against a
// double-precision host reference on random data, with the output poisoned
// first so that an unwritten element fails.
//
//   row_norms [softmax|rmsnorm|layernorm] [f16|bf16]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <croq/croq.hpp>

#include "row_norm_check.hpp"
#include "row_norm_source.hpp"

namespace {

// Runs one kernel at [tokens, hidden]; true when every element is within
// 2 ulps of the element type (relative, 2^-7 for bf16, 2^-10 for f16) of the
// reference plus a small absolute term for values near zero.
template <typename T>
bool run(row_norm::Kind kind, const char* element, long long tokens, long long hidden) {
  croq::Kernel kernel = croq::compile(row_norm::source(kind, element, hidden));
  auto x = croq::make_spandata<T>(tokens, hidden);
  auto w = croq::make_spandata<T>(hidden);
  auto b = croq::make_spandata<T>(hidden);
  auto y = croq::make_spandata<T>(tokens, hidden);
  x.fill_random(-4, 4);
  w.fill_random(0.5, 1.5);
  b.fill_random(-1, 1);
  y.fill_random(1e4, 2e4);  // poison: every element must be written
  if (kind == row_norm::Kind::softmax) kernel(x.view(), y.view());
  else if (kind == row_norm::Kind::rmsnorm) kernel(x.view(), w.view(), y.view());
  else kernel(x.view(), w.view(), b.view(), y.view());
  const double ulp = std::string(element) == "bf16" ? 1.0 / 128 : 1.0 / 1024;
  const std::vector<double> wv = row_norm::values(w, 0, hidden), bv = row_norm::values(b, 0, hidden);
  double worst = 0, worst_got = 0, worst_want = 0;
  for (long long r = 0; r < tokens; ++r) {
    const std::vector<double> want = row_norm::reference_row(kind, row_norm::values(x, r * hidden, hidden), wv, bv);
    const std::vector<double> got = row_norm::values(y, r * hidden, hidden);
    const double floor = kind == row_norm::Kind::softmax ? 1e-6 : 1e-3;
    for (long long i = 0; i < hidden; ++i) {
      const double ratio = std::abs(got[i] - want[i]) / (2 * ulp * std::abs(want[i]) + floor);
      if (!(ratio <= worst)) {  // NaN too
        worst = std::isnan(ratio) ? INFINITY : ratio;
        worst_got = got[i];
        worst_want = want[i];
      }
    }
  }
  char line[256];
  std::snprintf(line, sizeof line, "row_norms %s %s [%lld, %lld]: worst element %.6g (want %.6g, %.2f of its tolerance)",
                row_norm::name(kind), element, tokens, hidden, worst_got, worst_want, worst);
  std::cout << line << "\n";
  return worst <= 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string only_kind = argc > 1 ? argv[1] : "", only_element = argc > 2 ? argv[2] : "";
  std::string why;
  const bool gpu = croq::cuda_available(&why);
  // One token, a few, and a count that no block size divides; the shortest,
  // a middle and the longest supported row, and two whose LayerNorm holds 4
  // and 7 chunks a thread (row_norm::chunks_per_thread).
  const long long shapes[][2] = {{1, 512}, {37, 1024}, {5, 4096}, {2, 5120}, {2, 14336}, {3, 16384}};
  bool ok = true;
  for (row_norm::Kind kind : {row_norm::Kind::softmax, row_norm::Kind::rmsnorm, row_norm::Kind::layernorm})
    for (const char* element : {"f16", "bf16"}) {
      if ((!only_kind.empty() && only_kind != row_norm::name(kind)) || (!only_element.empty() && only_element != element))
        continue;
      if (!gpu) {
        croq::Kernel kernel = croq::compile(row_norm::source(kind, element, 1024));
        std::cout << "row_norms: compiled `" << kernel.name() << "` (" << element
                  << "), but running it needs a CUDA GPU (" << why << ")\n";
        continue;
      }
      for (const auto& s : shapes)
        ok = (std::string(element) == "f16" ? run<croq::f16>(kind, element, s[0], s[1])
                                            : run<croq::bf16>(kind, element, s[0], s[1])) && ok;
    }
  croq::croq_assert(ok, "a row reduction differs from the host reference");
  if (gpu) std::cout << "Test Passed\n";
  return 0;
}
