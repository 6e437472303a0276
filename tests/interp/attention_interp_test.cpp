// Interpret mode: samples/attention_source.hpp's flash attention (a TMA
// producer, two ping-pong consumer warpgroups with turn events, WGMMA from
// shared memory and RS-mode WGMMA from register fragments, the online
// softmax in `apply` over accumulator registers, quad reductions) on a small
// shape with tails, against the sample's double-precision reference.
#include <gtest/gtest.h>

#include "interp/interp_test_util.hpp"
#include "../../samples/attention_check.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"

namespace {

void expect_attention(bool causal) {
  croq::Kernel kernel = croq::test::interpreted(attention::source("f16", 64));
  const attention::Shape s{1, 1, 150, 200};
  const int d = 64;
  auto q = croq::make_spandata<croq::f16>(s.batch, s.heads, s.queries, d);
  auto k = croq::make_spandata<croq::f16>(s.batch, s.heads, s.keys, d);
  auto v = croq::make_spandata<croq::f16>(s.batch, s.heads, s.keys, d);
  auto o = croq::make_spandata<croq::f16>(s.batch, s.heads, s.queries, d);
  q.fill_random(-2, 2, 11);
  k.fill_random(-2, 2, 12);
  v.fill_random(-1, 1, 13);
  o.fill_random(1e4, 2e4, 14);  // poison: every element must be written
  kernel(q.view(), k.view(), v.view(), o.view(), causal ? 1 : 0);
  const attention::Check c = attention::check(q, k, v, o, s, d, causal);
  EXPECT_TRUE(c.passed()) << "relative error " << c.relative_error << ", worst element " << c.worst_got << " (want "
                          << c.worst_want << ", " << c.worst_ratio << " of its tolerance)";
}

TEST(InterpretAttention, FlashAttentionMatchesTheReference) { expect_attention(false); }

TEST(InterpretAttention, CausalFlashAttentionMatchesTheReference) { expect_attention(true); }

}  // namespace
