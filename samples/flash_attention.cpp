// Flash attention forward in Croqtile (samples/attention_source.hpp): TMA
// loads of Q, K and V, a producer and two consumer warpgroups, the online
// softmax in registers and P V as RS-mode WGMMA.
// For f16 and bf16, head dims 64, 96, 128 and 256, causal and not, on shapes whose
// sequence lengths are not multiples of the 128-row tiles (and one with
// more keys than queries), it fills Q, K and V with random values, poisons
// O, runs the kernel and compares O with a double-precision host reference
// of softmax(Q K^T / sqrt(D)) V (samples/attention_check.hpp). The grouped
// kernel (GQA: 8 query heads over 2 key/value heads; MQA: over 1) runs too,
// and the packed kernel of variable lengths (five sequences, one empty and
// one of a single query).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <croq/croq.hpp>

#include "attention_check.hpp"
#include "attention_source.hpp"

namespace {

template <typename T>
void run(const croq::Kernel& kernel, const char* element, int d, const attention::Shape& s, bool causal) {
  auto q = croq::make_spandata<T>(s.batch, s.heads, s.queries, d);
  auto k = croq::make_spandata<T>(s.batch, s.key_heads(), s.keys, d);
  auto v = croq::make_spandata<T>(s.batch, s.key_heads(), s.keys, d);
  auto o = croq::make_spandata<T>(s.batch, s.heads, s.queries, d);
  // Scores of a few units: a peaked softmax, so a wrong key or mask shows.
  q.fill_random(-2, 2);
  k.fill_random(-2, 2);
  v.fill_random(-1, 1);
  o.fill_random(1e4, 2e4);  // poison: every element must be written
  kernel(q.view(), k.view(), v.view(), o.view(), causal ? 1 : 0);
  const attention::Check c = attention::check(q, k, v, o, s, d, causal);
  char line[256];
  std::snprintf(line, sizeof line,
                "flash_attention %s D=%d %s B=%d H=%d HK=%d S=%d T=%d: relative error %.2e, worst element %.5f (want "
                "%.5f, %.2f of its tolerance)",
                element, d, causal ? "causal" : "non-causal", s.batch, s.heads, s.key_heads(), s.queries, s.keys,
                c.relative_error,
                c.worst_got, c.worst_want, c.worst_ratio);
  std::cout << line << "\n";
  croq::croq_assert(c.passed(), "attention output differs from the host reference");
}

// Five packed sequences of lengths that leave tails, one empty and one of a
// single query; causal sequences have at least as many keys as queries.
template <typename T>
void run_varlen(const croq::Kernel& kernel, const char* element, int d, bool causal) {
  const int heads = 4, kv_heads = 2;
  const std::vector<int> queries = {300, 1, 0, 129, 64}, keys_dense = {200, 7, 16, 300, 64};
  std::vector<int> cu_q{0}, cu_k{0};
  for (std::size_t b = 0; b < queries.size(); ++b) {
    cu_q.push_back(cu_q.back() + queries[b]);
    cu_k.push_back(cu_k.back() + (causal ? std::max(queries[b], keys_dense[b]) : keys_dense[b]));
  }
  auto q = croq::make_spandata<T>(heads, cu_q.back(), d);
  auto k = croq::make_spandata<T>(kv_heads, cu_k.back(), d);
  auto v = croq::make_spandata<T>(kv_heads, cu_k.back(), d);
  auto o = croq::make_spandata<T>(heads, cu_q.back(), d);
  auto cq = croq::make_spandata<std::int32_t>(cu_q.size());
  auto ck = croq::make_spandata<std::int32_t>(cu_k.size());
  std::copy(cu_q.begin(), cu_q.end(), cq.data());
  std::copy(cu_k.begin(), cu_k.end(), ck.data());
  q.fill_random(-2, 2);
  k.fill_random(-2, 2);
  v.fill_random(-1, 1);
  o.fill_random(1e4, 2e4);  // poison: every element must be written
  kernel(q.view(), k.view(), v.view(), o.view(), cq.view(), ck.view(), causal ? 1 : 0);
  const attention::Check c = attention::check_varlen(q, k, v, o, cu_q, cu_k, heads, kv_heads, d, causal);
  char line[256];
  std::snprintf(line, sizeof line,
                "flash_attention varlen %s D=%d %s H=%d HK=%d, 5 sequences (%d queries, %d keys): relative error %.2e, "
                "worst element %.5f (want %.5f, %.2f of its tolerance)",
                element, d, causal ? "causal" : "non-causal", heads, kv_heads, cu_q.back(), cu_k.back(),
                c.relative_error, c.worst_got, c.worst_want, c.worst_ratio);
  std::cout << line << "\n";
  croq::croq_assert(c.passed(), "varlen attention output differs from the host reference");
}

}  // namespace

// flash_attention [f16|bf16 [64|96|128|256]]: only that element type (and head dim).
int main(int argc, char** argv) {
  const std::string only_element = argc > 1 ? argv[1] : "";
  const int only_d = argc > 2 ? std::atoi(argv[2]) : 0;
  std::string why;
  const bool gpu = croq::cuda_available(&why);
  // Tails in every tile: 300 = 2 x 128 + 44 queries and keys; more keys
  // than queries (causal rows see T - S earlier keys).
  const attention::Shape shapes[] = {{2, 3, 300, 300}, {1, 2, 200, 328}};
  const attention::Shape grouped_shapes[] = {{1, 8, 300, 300, 2}, {2, 4, 200, 328, 1}};
  for (const char* element : {"f16", "bf16"})
    for (int d : {64, 96, 128, 256})
      for (bool grouped : {false, true}) {
        if ((!only_element.empty() && only_element != element) || (only_d && only_d != d)) continue;
        if (grouped && d != 64 && d != 128) continue;  // the grouping is independent of the head dim
        croq::Kernel kernel = croq::compile(grouped ? attention::grouped_source(element, d) : attention::source(element, d));
        if (!gpu) {
          std::cout << "flash_attention: compiled `" << kernel.name() << "` (" << element << ", D=" << d
                    << (grouped ? ", grouped" : "") << "), but running it needs a CUDA GPU (" << why << ")\n";
          continue;
        }
        for (const attention::Shape& s : grouped ? grouped_shapes : shapes)
          for (bool causal : {false, true}) {
            if (std::string(element) == "f16") run<croq::f16>(kernel, element, d, s, causal);
            else run<croq::bf16>(kernel, element, d, s, causal);
          }
      }
  for (const char* element : {"f16", "bf16"})
    for (int d : {64, 128}) {
      if ((!only_element.empty() && only_element != element) || (only_d && only_d != d)) continue;
      croq::Kernel kernel = croq::compile(attention::varlen_source(element, d, true));
      if (!gpu) {
        std::cout << "flash_attention: compiled `" << kernel.name() << "` (" << element << ", D=" << d
                  << ", packed sequences), but running it needs a CUDA GPU (" << why << ")\n";
        continue;
      }
      for (bool causal : {false, true}) {
        if (std::string(element) == "f16") run_varlen<croq::f16>(kernel, element, d, causal);
        else run_varlen<croq::bf16>(kernel, element, d, causal);
      }
    }
  if (gpu) std::cout << "Test Passed\n";
  return 0;
}
