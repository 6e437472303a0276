// Register fragments on a GPU (tests/common/frag_thread_sources.hpp): a
// thread level's fragments (row softmax, copy and __fmaf) on any device,
// and a warpgroup's `mma.load src, frag`, `.async` mma and mma.store and
// all_reduce_sum on sm_90a, against double host references on random data,
// outputs poisoned first (the interpret-mode tests check the same on the CPU).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/frag_thread_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

Kernel compile_named(const std::string& source, const std::string& name) {
  CompileOptions options;
  options.source_name = name + ".co";
  return compile(source, options);
}

TEST(ThreadFragmentGpu, RowSoftmaxMatchesHostReference) {
  CROQ_REQUIRE_GPU();
  for (int threads : {32, 128}) {
    SCOPED_TRACE(threads);
    const Kernel k = compile_named(croq::test::thread_row_softmax(threads), "row_softmax");
    for (std::size_t rows : {64, 300}) {
      auto x = make_spandata<float>(rows, 64);
      auto y = make_spandata<float>(rows, 64);
      x.fill_random(-4, 4, croq::test::next_seed());
      y.fill_random(1e4, 2e4, croq::test::next_seed());  // poison
      k(x.view(), y.view());
      EXPECT_LT(croq::test::softmax_rows_error(x, y, rows), 1e-5) << rows << " rows";
    }
  }
}

TEST(ThreadFragmentGpu, CopyAndFmaMatchHost) {
  CROQ_REQUIRE_GPU();
  const Kernel k = compile_named(croq::test::kThreadFragmentFma, "frag_fma");
  auto a = make_spandata<float>(250);
  auto b = make_spandata<float>(250);
  auto out = make_spandata<float>(250);
  a.fill_random(-2, 2, croq::test::next_seed());
  b.fill_random(-2, 2, croq::test::next_seed());
  out.fill_random(1e4, 2e4, croq::test::next_seed());
  k(a.view(), b.view(), out.view());
  for (std::size_t i = 0; i < 250; ++i) ASSERT_FLOAT_EQ(out.data()[i], std::fma(a.data()[i], b.data()[i], 1.0f)) << i;
}

TEST(WarpgroupFragmentGpu, LoadedLhsAsyncMmaAndAllReduceSumNormalizeRows) {
  CROQ_REQUIRE_HOPPER("RS-mode WGMMA");
  const Kernel k = compile_named(croq::test::kRowNormalizedProduct, "row_normalized");
  auto a = make_spandata<f16>(64, 64);
  auto b = make_spandata<f16>(64, 64);
  auto out = make_spandata<float>(64, 64);
  a.fill_random(0, 1, croq::test::next_seed());  // positive: no row sums near 0
  b.fill_random(0, 1, croq::test::next_seed());
  out.fill_random(1e4, 2e4, croq::test::next_seed());
  k(a.view(), b.view(), out.view());
  EXPECT_LT(croq::test::row_normalized_error(a, b, out), 1e-5);
}

}  // namespace
}  // namespace croq
