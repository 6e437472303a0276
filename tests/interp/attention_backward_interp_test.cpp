// Interpret mode: samples/attention_backward_source.hpp's backward program
// (the rows' delta, then dK and dV per key tile and dQ per query tile, each
// with a TMA producer and WGMMA consumers) after the forward that writes
// the log-sum-exp, on small shapes with tails in every tile, against the
// sample's double-precision reference of the gradients.
#include <gtest/gtest.h>

#include "interp/interp_test_util.hpp"
#include "../../samples/attention_backward_check.hpp"
#include "../../samples/attention_backward_source.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"

namespace {

template <typename T>
void expect_gradients(const char* element, const attention::Shape& s, bool causal) {
  const int d = 64;
  croq::Kernel forward = croq::test::interpreted(attention::source(element, d, true, 2, true));
  croq::Kernel backward = croq::test::interpreted(attention::backward_source(element, d));
  const attention::BackwardCheck c = attention::BackwardRun<T>(s, d, 21).run(forward, backward, s, d, causal);
  EXPECT_TRUE(c.passed()) << c.summary() << "; worst dQ element " << c.dq.worst_got << " (want " << c.dq.worst_want
                          << "), dK " << c.dk.worst_got << " (want " << c.dk.worst_want << "), dV " << c.dv.worst_got
                          << " (want " << c.dv.worst_want << ")";
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

}  // namespace
