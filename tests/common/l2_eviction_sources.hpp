// TMA loads with an L2 eviction priority (`tma.load.evict_first`,
// `.evict_last`, `.evict_normal`), shared by tests/lower/l2_eviction_test.cpp
// (IR, CUDA, NVRTC), tests/interp/l2_eviction_interp_test.cpp and
// tests/gpu/l2_eviction_gpu_test.cpp. The hint changes how L2 keeps the
// lines, never the values: out = q + 2 * kv, row tiles of 64 with a tail.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "croq/croq.hpp"

namespace croq::test {

// `cluster`: the kv tile is a `.multicast` load for clusters of two blocks.
inline std::string l2_eviction_source(bool cluster) {
  const std::string levels = cluster ? "  parallel c by 2 : cluster, b by cdiv(M, 64) : block {\n"
                                     : "  parallel b by cdiv(M, 64) : block {\n";
  const std::string kv_load = cluster ? "    tma.load.multicast.evict_last kv.subspan(64, 64).at(0, 0) => kv_s;\n"
                                      : "    tma.load.evict_last kv.subspan(64, 64).at(0, 0) => kv_s;\n";
  return "__co__ void hinted(global bf16 [M, 64] q, global bf16 [64, 64] kv, global f32 [M, 64] out) {\n" + levels +
         "    shared bf16 [64, 64] q_s;\n"
         "    shared bf16 [64, 64] kv_s;\n"
         "    tma.load.evict_first q.subspan(64, 64).at(b, 0).zfill => q_s;\n" +
         kv_load +
         "    parallel t by 64 : thread {\n"
         "      foreach j in [64] {\n"
         "        if (b # t < M) {\n"
         "          f32 a = q_s.at(t, j);\n"
         "          f32 v = kv_s.at(t, j);\n"
         "          out.at(b # t, j) = a + 2.0f * v;\n"
         "        }\n"
         "      }\n"
         "    }\n"
         "  }\n"
         "}\n";
}

// Runs l2_eviction_source(cluster) for M rows on random data (the output
// poisoned first) and checks every element against the host reference.
inline void check_l2_eviction(bool cluster, std::size_t m, const CompileOptions& options = {}) {
  SCOPED_TRACE(std::string(cluster ? "clusters of two, " : "") + "M " + std::to_string(m));
  Kernel k = compile(l2_eviction_source(cluster), options);
  auto q = make_spandata<bf16>(m, 64);
  auto kv = make_spandata<bf16>(64, 64);
  auto out = make_spandata<float>(m, 64);
  q.fill_random(-4, 4, 21);
  kv.fill_random(-4, 4, 22);
  out.fill(1e30f);
  k(q.view(), kv.view(), out.view());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < 64; ++j) {
      const float want = float(q.data()[i * 64 + j]) + 2.0f * float(kv.data()[i % 64 * 64 + j]);
      ASSERT_EQ(out.data()[i * 64 + j], want) << i << ", " << j;
    }
}

}  // namespace croq::test
