// Interpret mode: register fragments inside thread levels (row softmax with
// more and fewer threads than rows, copy and __fmaf over a tile the threads
// do not divide), and a warpgroup's `mma.load src, frag`, `.async` mma and
// mma.store, and all_reduce_sum (tests/common/frag_thread_sources.hpp),
// against host references on random data with poisoned outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/frag_thread_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace {

TEST(InterpretThreadFragment, RowSoftmaxOverFewerAndMoreThreadsThanRows) {
  for (int threads : {32, 128}) {
    SCOPED_TRACE(threads);
    const croq::Kernel k = croq::test::interpreted(croq::test::thread_row_softmax(threads));
    const std::size_t rows = 100;  // a second block of 36 rows
    auto x = croq::make_spandata<float>(rows, 64);
    auto y = croq::make_spandata<float>(rows, 64);
    x.fill_random(-4, 4, 17 + threads);
    for (std::size_t i = 0; i < rows * 64; ++i) y.data()[i] = 1e4f;  // poison
    k(x.view(), y.view());
    EXPECT_LT(croq::test::softmax_rows_error(x, y, rows), 1e-6);
  }
}

TEST(InterpretThreadFragment, CopyAndFmaOverATileTheThreadsDoNotDivide) {
  const croq::Kernel k = croq::test::interpreted(croq::test::kThreadFragmentFma);
  auto a = croq::make_spandata<float>(250);
  auto b = croq::make_spandata<float>(250);
  auto out = croq::make_spandata<float>(250);
  a.fill_random(-2, 2, 3);
  b.fill_random(-2, 2, 4);
  for (std::size_t i = 0; i < 250; ++i) out.data()[i] = 1e4f;
  k(a.view(), b.view(), out.view());
  for (std::size_t i = 0; i < 250; ++i) ASSERT_FLOAT_EQ(out.data()[i], std::fma(a.data()[i], b.data()[i], 1.0f)) << i;
}

TEST(InterpretWarpgroupFragment, LoadedLhsAsyncMmaAndAllReduceSumNormalizeRows) {
  const croq::Kernel k = croq::test::interpreted(croq::test::kRowNormalizedProduct);
  auto a = croq::make_spandata<croq::f16>(64, 64);
  auto b = croq::make_spandata<croq::f16>(64, 64);
  auto out = croq::make_spandata<float>(64, 64);
  a.fill_random(0, 1, 5);  // positive: no row sums near 0
  b.fill_random(0, 1, 6);
  for (std::size_t i = 0; i < 64 * 64; ++i) out.data()[i] = 1e4f;
  k(a.view(), b.view(), out.view());
  EXPECT_LT(croq::test::row_normalized_error(a, b, out), 1e-5);
}

}  // namespace
