// Interpret mode: samples/attention_source.hpp's flash attention (a TMA
// producer, two ping-pong consumer warpgroups with turn events, WGMMA from
// shared memory and RS-mode WGMMA from register fragments, the online
// softmax in `apply` over accumulator registers, quad reductions) on a small
// shape with tails, against the sample's double-precision reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "interp/interp_test_util.hpp"
#include "../../samples/attention_check.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"

namespace {

void expect_attention(bool causal, const attention::Shape& s = {1, 1, 150, 200}, int d = 64) {
  croq::Kernel kernel = croq::test::interpreted(s.kv_heads != 0 ? attention::grouped_source("f16", d) : attention::source("f16", d));
  auto q = croq::make_spandata<croq::f16>(s.batch, s.heads, s.queries, d);
  auto k = croq::make_spandata<croq::f16>(s.batch, s.key_heads(), s.keys, d);
  auto v = croq::make_spandata<croq::f16>(s.batch, s.key_heads(), s.keys, d);
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

// Grouped-query attention: 4 query heads read 2 key/value heads (each pair
// one), and multi-query attention: 3 query heads read one.
TEST(InterpretAttention, GroupedQueryAttentionMatchesTheReference) { expect_attention(false, {1, 4, 70, 90, 2}); }

TEST(InterpretAttention, CausalMultiQueryAttentionMatchesTheReference) { expect_attention(true, {1, 3, 70, 90, 1}); }

// Head dim 256: 64-row key tiles and one output staging tile per consumer
// (the wide configuration); 192: three slabs; 96: a 64-column slab and a
// 32-column one (64-byte swizzle).
TEST(InterpretAttention, HeadDim256MatchesTheReference) { expect_attention(false, {1, 1, 150, 200}, 256); }

TEST(InterpretAttention, CausalHeadDim192MatchesTheReference) { expect_attention(true, {1, 1, 150, 200}, 192); }

TEST(InterpretAttention, HeadDim96MatchesTheReference) { expect_attention(false, {1, 2, 150, 200}, 96); }

TEST(InterpretAttention, CausalHeadDim96MatchesTheReference) { expect_attention(true, {1, 1, 150, 200}, 96); }

// Head dim 160: wide, with a last slab of 32 columns, which stages through
// a [64, 32] tile of its own (64-byte swizzle) after the 64-column ones.
TEST(InterpretAttention, HeadDim160MatchesTheReference) { expect_attention(false, {1, 1, 70, 90}, 160); }

// Packed sequences of variable lengths (one empty, one of a single query,
// tails), grouped key/value heads: each sequence against its own reference.
void expect_varlen(bool causal, int d, std::vector<int> cu_q = {}, std::vector<int> cu_k = {}) {
  croq::Kernel kernel = croq::test::interpreted(attention::varlen_source("f16", d, true));
  const int heads = 4, kv_heads = 2;
  if (cu_q.empty()) {
    cu_q = {0, 70, 71, 71, 211};
    cu_k = causal ? std::vector<int>{0, 90, 95, 115, 255} : std::vector<int>{0, 90, 95, 115, 155};
  }
  auto q = croq::make_spandata<croq::f16>(heads, cu_q.back(), d);
  auto k = croq::make_spandata<croq::f16>(kv_heads, cu_k.back(), d);
  auto v = croq::make_spandata<croq::f16>(kv_heads, cu_k.back(), d);
  auto o = croq::make_spandata<croq::f16>(heads, cu_q.back(), d);
  auto cq = croq::make_spandata<std::int32_t>(cu_q.size());
  auto ck = croq::make_spandata<std::int32_t>(cu_k.size());
  std::copy(cu_q.begin(), cu_q.end(), cq.data());
  std::copy(cu_k.begin(), cu_k.end(), ck.data());
  q.fill_random(-2, 2, 21);
  k.fill_random(-2, 2, 22);
  v.fill_random(-1, 1, 23);
  o.fill_random(1e4, 2e4, 24);  // poison: every element must be written
  kernel(q.view(), k.view(), v.view(), o.view(), cq.view(), ck.view(), causal ? 1 : 0);
  const attention::Check c = attention::check_varlen(q, k, v, o, cu_q, cu_k, heads, kv_heads, d, causal);
  EXPECT_TRUE(c.passed()) << "relative error " << c.relative_error << ", worst element " << c.worst_got << " (want "
                          << c.worst_want << ", " << c.worst_ratio << " of its tolerance)";
}

TEST(InterpretAttention, PackedSequencesMatchTheReference) { expect_varlen(false, 64); }

TEST(InterpretAttention, CausalPackedSequencesMatchTheReference) { expect_varlen(true, 64); }

TEST(InterpretAttention, PackedSequencesWithHeadDim96MatchTheReference) { expect_varlen(false, 96); }

// A sequence of 20 queries and no keys between two others: its output rows
// are zeros (the reference's), not NaN.
TEST(InterpretAttention, QueriesWithoutKeysGetZeros) {
  expect_varlen(false, 64, {0, 70, 90, 160}, {0, 90, 90, 150});
  expect_varlen(true, 64, {0, 70, 90, 160}, {0, 90, 90, 150});
}

// Key/value heads that do not divide the query heads are refused when the
// kernel is specialized, with the sample's own assertion.
TEST(InterpretAttention, KeyHeadsThatDoNotDivideTheQueryHeadsAreRefused) {
  croq::Kernel kernel = croq::test::interpreted(attention::grouped_source("f16", 64));
  auto q = croq::make_spandata<croq::f16>(1, 4, 64, 64);
  auto k = croq::make_spandata<croq::f16>(1, 3, 64, 64);
  auto v = croq::make_spandata<croq::f16>(1, 3, 64, 64);
  auto o = croq::make_spandata<croq::f16>(1, 4, 64, 64);
  try {
    kernel(q.view(), k.view(), v.view(), o.view(), 0);
    FAIL() << "expected a CompileError";
  } catch (const croq::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("the query heads H must be a multiple of the key/value heads HK"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
