// Interpret mode: samples/attention_backward_source.hpp's backward program
// (the rows' delta, then dK and dV per key tile and dQ per query tile, each
// with a TMA producer and WGMMA consumers) after the forward that writes
// the log-sum-exp, on small shapes with tails in every tile, against the
// sample's double-precision reference of the gradients: at D = 64, and at
// D = 256, the wide tiling (64-row block tiles, each consumer accumulating
// half of the slabs, walked tiles indexed by stage and slab); and packed
// sequences of variable lengths, one program over all of them.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "interp/interp_test_util.hpp"
#include "../../samples/attention_backward_check.hpp"
#include "../../samples/attention_backward_source.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"

namespace {

std::string failure(const attention::BackwardCheck& c);

template <typename T>
void expect_gradients(const char* element, const attention::Shape& s, bool causal, int d = 64) {
  croq::Kernel forward = croq::test::interpreted(attention::source(element, d, true, 2, true));
  croq::Kernel backward = croq::test::interpreted(attention::backward_source(element, d));
  const attention::BackwardCheck c = attention::BackwardRun<T>(s, d, 21).run(forward, backward, s, d, causal);
  EXPECT_TRUE(c.passed()) << failure(c);
}

std::string failure(const attention::BackwardCheck& c) {
  return c.summary() + "; worst dQ element " + std::to_string(c.dq.worst_got) + " (want " +
         std::to_string(c.dq.worst_want) + "), dK " + std::to_string(c.dk.worst_got) + " (want " +
         std::to_string(c.dk.worst_want) + "), dV " + std::to_string(c.dv.worst_got) + " (want " +
         std::to_string(c.dv.worst_want) + ")";
}

// Packed sequences: the forward with the lse and the packed backward over
// every sequence at once, two heads, each sequence against its own
// reference.
template <typename T>
void expect_packed_gradients(const char* element, int d, bool causal, std::vector<int> cu_q, std::vector<int> cu_k) {
  croq::Kernel forward = croq::test::interpreted(attention::varlen_source(element, d, false, true));
  croq::Kernel backward = croq::test::interpreted(attention::backward_source(element, d, true));
  attention::PackedBackwardRun<T> run(std::move(cu_q), std::move(cu_k), 2, d, 31);
  const attention::BackwardCheck c = run.run(forward, backward, d, causal);
  EXPECT_TRUE(c.passed()) << failure(c);
}

// 80 queries and keys: one full 64-row tile and a tail of 16, in blocks of
// 128 (a tail only); 80 queries against 144 keys: causal rows see 64
// earlier keys, and key tiles no query of a query tile sees are skipped.
TEST(InterpretAttentionBackward, GradientsMatchTheReference) {
  expect_gradients<croq::f16>("f16", {1, 1, 80, 80}, false);
}

TEST(InterpretAttentionBackward, CausalGradientsMatchTheReference) {
  expect_gradients<croq::f16>("f16", {1, 1, 80, 80}, true);
}

TEST(InterpretAttentionBackward, MoreKeysThanQueriesBf16) {
  expect_gradients<croq::bf16>("bf16", {1, 2, 80, 144}, false);
  expect_gradients<croq::bf16>("bf16", {1, 2, 80, 144}, true);
}

// 80 queries and keys at D = 256: blocks of 64 keys (kernel 2) and 64
// queries (kernel 3), each with a tail of 16; causal blocks skip the query
// tiles that see none of their keys.
TEST(InterpretAttentionBackward, WideHeadDimGradientsMatchTheReference) {
  expect_gradients<croq::f16>("f16", {1, 1, 80, 80}, false, 256);
  expect_gradients<croq::f16>("f16", {1, 1, 80, 80}, true, 256);
}

// More keys than queries (causal rows see 64 earlier keys; the first key
// block is seen by every query tile, the last by the last one only), two
// heads, bf16.
TEST(InterpretAttentionBackward, WideHeadDimMoreKeysThanQueriesBf16) {
  expect_gradients<croq::bf16>("bf16", {1, 2, 80, 144}, true, 256);
}

// Sequences of 70 queries on 90 keys (tails), 1 query on 5 keys, none on
// 20 keys (their dK and dV are zeros) and 140 on 140 (two query blocks and
// two key blocks, the second a tail of 12 rows that must not write into
// the rows after): packed rows of the other sequences are masked like a
// tail, and the gradients are stored row by row within the sequence.
const std::vector<int> packed_queries = {0, 70, 71, 71, 211}, packed_keys = {0, 90, 95, 115, 255};

TEST(InterpretAttentionBackward, PackedSequencesMatchEachSequencesReference) {
  expect_packed_gradients<croq::f16>("f16", 64, false, packed_queries, packed_keys);
}

TEST(InterpretAttentionBackward, CausalPackedSequencesMatchEachSequencesReferenceBf16) {
  expect_packed_gradients<croq::bf16>("bf16", 64, true, packed_queries, packed_keys);
}

// A sequence of 20 queries and no keys: its dQ rows (and the forward's
// output rows, which delta reads) are zeros, not NaN.
TEST(InterpretAttentionBackward, PackedQueriesWithoutKeysGetZeroGradients) {
  expect_packed_gradients<croq::f16>("f16", 64, false, {0, 70, 90, 160}, {0, 90, 90, 150});
  expect_packed_gradients<croq::f16>("f16", 64, true, {0, 70, 90, 160}, {0, 90, 90, 150});
}

// The atomic form (dQ added by kernel 2 into an f32 buffer) still runs:
// the bench times it against the default third pass.
TEST(InterpretAttentionBackward, AtomicDqFormMatchesTheReference) {
  croq::Kernel forward = croq::test::interpreted(attention::source("f16", 64, true, 2, true));
  croq::Kernel backward = croq::test::interpreted(attention::backward_source("f16", 64, false, false));
  const attention::Shape s{1, 1, 80, 144};
  const attention::BackwardCheck c = attention::BackwardRun<croq::f16>(s, 64, 21).run(forward, backward, s, 64, true);
  EXPECT_TRUE(c.passed()) << failure(c);
}

// The wide tiling packed: 64-row blocks of each sequence.
TEST(InterpretAttentionBackward, PackedSequencesAtTheWideHeadDimMatchEachSequencesReference) {
  expect_packed_gradients<croq::f16>("f16", 256, true, {0, 70, 71, 150}, {0, 90, 110, 190});
}

}  // namespace
