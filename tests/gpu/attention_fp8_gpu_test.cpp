// The FP8 forward of samples/attention_source.hpp (attention::fp8_source)
// on a Hopper GPU: e4m3 Q, K and V^T with descale factors, f16 or bf16
// output poisoned first, per head dim (64, 128, 256; grouped at 128),
// causal and not, with tails in S and T, against attention_check.hpp's
// check_fp8 (the double-precision reference of the stored inputs times
// their descales).
#include <gtest/gtest.h>

#include <string>

#include "../../samples/attention_check.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

template <typename Out>
void expect_fp8_attention(const attention::Shape& s, int d, const std::string& output) {
  CROQ_REQUIRE_HOPPER("fp8 WGMMA");
  CompileOptions options;
  options.source_name = "attention_fp8.co";
  Kernel kernel = compile(attention::fp8_source(d, output, s.kv_heads != 0), options);
  auto q = make_spandata<f8_e4m3>(s.batch, s.heads, s.queries, d);
  auto k = make_spandata<f8_e4m3>(s.batch, s.key_heads(), s.keys, d);
  auto vt = make_spandata<f8_e4m3>(s.batch, s.key_heads(), d, s.keys);
  auto o = make_spandata<Out>(s.batch, s.heads, s.queries, d);
  q.fill_random(-8, 8, 41);
  k.fill_random(-8, 8, 42);
  vt.fill_random(-4, 4, 43);
  const float q_descale = 0.25f, k_descale = 0.125f, v_descale = 0.5f;
  for (const bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "non-causal");
    o.fill_random(1e4, 2e4, 44);  // poison: every element must be written
    kernel(q.view(), k.view(), vt.view(), o.view(), q_descale, k_descale, v_descale, causal ? 1 : 0);
    const attention::Check c = attention::check_fp8(q, k, vt, o, s, d, causal, q_descale, k_descale, v_descale);
    EXPECT_TRUE(c.passed()) << "relative error " << c.relative_error << ", worst element " << c.worst_got << " (want "
                            << c.worst_want << ", " << c.worst_ratio << " of its tolerance)";
  }
}

TEST(AttentionFp8Gpu, HeadDim128MatchesTheReference) { expect_fp8_attention<f16>({2, 3, 1000, 1200}, 128, "f16"); }

TEST(AttentionFp8Gpu, HeadDim64Bf16OutputMatchesTheReference) {
  expect_fp8_attention<bf16>({1, 4, 777, 528}, 64, "bf16");
}

TEST(AttentionFp8Gpu, HeadDim256MatchesTheReference) { expect_fp8_attention<f16>({1, 2, 300, 464}, 256, "f16"); }

TEST(AttentionFp8Gpu, GroupedHeadDim128MatchesTheReference) {
  expect_fp8_attention<f16>({1, 8, 520, 640, 2}, 128, "f16");
}

}  // namespace
}  // namespace croq
