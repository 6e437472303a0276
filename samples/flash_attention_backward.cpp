// Flash attention backward in Croqtile (samples/attention_backward_source.hpp):
// the forward of samples/attention_source.hpp, writing its rows' log-sum-exp
// too, then dQ, dK and dV recomputed from it (TMA producers, consumer
// warpgroups multiplying with WGMMA from shared memory and from register
// fragments). For f16 and bf16, head dims 64, 128 and 256 (the program's:
// attention::backward_head_dims), causal and not, on
// shapes with tails in every tile (and one with more keys than queries), it
// fills Q, K, V and dO with random values, poisons the outputs, runs both
// programs and compares dQ, dK, dV and the log-sum-exp with a
// double-precision host reference (samples/attention_backward_check.hpp);
// and the packed forward and backward over sequences of variable lengths,
// each sequence against its own reference.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <croq/croq.hpp>

#include "attention_backward_check.hpp"
#include "attention_backward_source.hpp"
#include "attention_source.hpp"

namespace {

template <typename T>
void run(const croq::Kernel& forward, const croq::Kernel& backward, const char* element, int d,
         const attention::Shape& s, bool causal) {
  const attention::BackwardCheck c = attention::BackwardRun<T>(s, d).run(forward, backward, s, d, causal);
  std::printf("flash_attention_backward %s D=%d %s B=%d H=%d S=%d T=%d: %s\n", element, d,
              causal ? "causal" : "non-causal", s.batch, s.heads, s.queries, s.keys, c.summary().c_str());
  croq::croq_assert(c.passed(), "attention gradients differ from the host reference");
}

// Packed sequences of 300, 1, 0 and 200 queries on 317, 40, 20 and 330
// keys, three heads: one call of the packed forward and backward.
template <typename T>
void run_packed(const croq::Kernel& forward, const croq::Kernel& backward, const char* element, int d, bool causal) {
  attention::PackedBackwardRun<T> packed({0, 300, 301, 301, 501}, {0, 317, 357, 377, 707}, 3, d, 41);
  const attention::BackwardCheck c = packed.run(forward, backward, d, causal);
  std::printf("flash_attention_backward %s D=%d %s packed sequences: %s\n", element, d, causal ? "causal" : "non-causal",
              c.summary().c_str());
  croq::croq_assert(c.passed(), "packed attention gradients differ from the host reference");
}

}  // namespace

// flash_attention_backward [f16|bf16 [64|128|256]]: only that element type (and head dim).
int main(int argc, char** argv) {
  const std::string only_element = argc > 1 ? argv[1] : "";
  const int only_d = argc > 2 ? std::atoi(argv[2]) : 0;
  std::string why;
  const bool gpu = croq::cuda_available(&why);
  // Tails in every tile (300 = 2 x 128 + 44); more keys than queries.
  const attention::Shape shapes[] = {{2, 3, 300, 300}, {1, 2, 200, 328}};
  for (const char* element : {"f16", "bf16"})
    for (int d : attention::backward_head_dims) {
      if ((!only_element.empty() && only_element != element) || (only_d && only_d != d)) continue;
      croq::Kernel forward = croq::compile(attention::source(element, d, true, 2, true));
      croq::Kernel backward = croq::compile(attention::backward_source(element, d));
      croq::Kernel packed_forward = croq::compile(attention::varlen_source(element, d, false, true));
      croq::Kernel packed_backward = croq::compile(attention::backward_source(element, d, true));
      if (!gpu) {
        std::cout << "flash_attention_backward: compiled `" << forward.name() << "` and `" << backward.name() << "` ("
                  << element << ", D=" << d << ", dense and packed), but running them needs a CUDA GPU (" << why
                  << ")\n";
        continue;
      }
      const bool f16 = std::string(element) == "f16";
      for (bool causal : {false, true}) {
        for (const attention::Shape& s : shapes) {
          if (f16) run<croq::f16>(forward, backward, element, d, s, causal);
          else run<croq::bf16>(forward, backward, element, d, s, causal);
        }
        if (f16) run_packed<croq::f16>(packed_forward, packed_backward, element, d, causal);
        else run_packed<croq::bf16>(packed_forward, packed_backward, element, d, causal);
      }
    }
  if (gpu) std::cout << "Test Passed\n";
  return 0;
}
