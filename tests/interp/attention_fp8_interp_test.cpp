// Interpret mode: the FP8 forward of samples/attention_source.hpp
// (attention::fp8_source: e4m3 Q, K and V^T with descale factors, P rounded
// to e4m3 as an RS-mode fp8 WGMMA lhs, f16 or bf16 output) on small shapes
// with tails in S and T, against samples/attention_check.hpp's
// double-precision reference of the stored inputs times their descales.
#include <gtest/gtest.h>

#include <string>

#include "interp/interp_test_util.hpp"
#include "../../samples/attention_check.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"

namespace {

template <typename Out>
void expect_fp8_attention(bool causal, const attention::Shape& s, int d, const std::string& output) {
  croq::Kernel kernel = croq::test::interpreted(attention::fp8_source(d, output, s.kv_heads != 0));
  auto q = croq::make_spandata<croq::f8_e4m3>(s.batch, s.heads, s.queries, d);
  auto k = croq::make_spandata<croq::f8_e4m3>(s.batch, s.key_heads(), s.keys, d);
  auto vt = croq::make_spandata<croq::f8_e4m3>(s.batch, s.key_heads(), d, s.keys);
  auto o = croq::make_spandata<Out>(s.batch, s.heads, s.queries, d);
  // Stored values of a few units, as a per-tensor scale would make them;
  // the descales bring the scores back to a softmax of some spread.
  q.fill_random(-8, 8, 31);
  k.fill_random(-8, 8, 32);
  vt.fill_random(-4, 4, 33);
  o.fill_random(1e4, 2e4, 34);  // poison: every element must be written
  const float q_descale = 0.25f, k_descale = 0.125f, v_descale = 0.5f;
  kernel(q.view(), k.view(), vt.view(), o.view(), q_descale, k_descale, v_descale, causal ? 1 : 0);
  const attention::Check c = attention::check_fp8(q, k, vt, o, s, d, causal, q_descale, k_descale, v_descale);
  EXPECT_TRUE(c.passed()) << "relative error " << c.relative_error << ", worst element " << c.worst_got << " (want "
                          << c.worst_want << ", " << c.worst_ratio << " of its tolerance)";
}

// T = 208: a full key tile and a partial one (T a multiple of 16: V^T's TMA
// row pitch); S = 150: a partial query tile.
TEST(InterpretAttentionFp8, HeadDim128MatchesTheReference) { expect_fp8_attention<croq::f16>(false, {1, 2, 150, 208}, 128, "f16"); }

TEST(InterpretAttentionFp8, CausalHeadDim128MatchesTheReference) {
  expect_fp8_attention<croq::f16>(true, {1, 1, 150, 208}, 128, "f16");
}

TEST(InterpretAttentionFp8, HeadDim64Bf16OutputMatchesTheReference) {
  expect_fp8_attention<croq::bf16>(false, {1, 1, 150, 208}, 64, "bf16");
}

// Head dim 256: 64-row key tiles (V^T's rows 64 bytes), two Q and K slabs.
TEST(InterpretAttentionFp8, CausalHeadDim256MatchesTheReference) {
  expect_fp8_attention<croq::f16>(true, {1, 1, 150, 208}, 256, "f16");
}

// Grouped-query attention: 4 query heads over 2 key/value heads; D = 192:
// a 128-column slab of Q and K and a 64-column one.
TEST(InterpretAttentionFp8, GroupedHeadDim192MatchesTheReference) {
  expect_fp8_attention<croq::f16>(false, {1, 4, 70, 96, 2}, 192, "f16");
}

}  // namespace
