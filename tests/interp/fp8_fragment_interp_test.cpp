// Interpret mode: an f32 accumulator converted to an fp8 register fragment
// and multiplied as the lhs of an RS-mode fp8 WGMMA
// (tests/common/fp8_fragment_sources.hpp), on random data with tails in M,
// K and N, against the double-precision host reference of the chain.
#include <gtest/gtest.h>

#include "common/fp8_fragment_sources.hpp"
#include "interp/interp_test_util.hpp"

namespace {

template <typename Frag>
void expect_chain(const std::string& frag_type) {
  croq::Kernel kernel = croq::test::interpreted(croq::test::fp8_chain_source(frag_type));
  const std::size_t m = 100, k = 96, n = 80;
  auto a = croq::make_spandata<croq::f8_e4m3>(m, k);
  auto b = croq::make_spandata<croq::f8_e4m3>(128, k);
  auto d = croq::make_spandata<croq::f8_e4m3>(n, 128);
  auto out = croq::make_spandata<float>(m, n);
  a.fill_random(-1, 1, 21);
  b.fill_random(-1, 1, 22);
  d.fill_random(-1, 1, 23);
  out.fill_random(1e4, 2e4, 24);  // poison: every element must be written
  kernel(a.view(), b.view(), d.view(), out.view());
  const auto c = croq::test::check_fp8_chain<Frag>(a, b, d, out, m, k, n);
  EXPECT_TRUE(c.passed()) << "relative error " << c.relative_error << ", worst element (" << c.worst_row << ", "
                          << c.worst_col << ") at " << c.worst_ratio << " of its tolerance";
}

TEST(InterpretFp8Fragment, E4m3FragmentLhsMatchesTheReference) { expect_chain<croq::f8_e4m3>("f8_e4m3"); }

TEST(InterpretFp8Fragment, E5m2FragmentLhsMatchesTheReference) { expect_chain<croq::f8_e5m2>("f8_e5m2"); }

}  // namespace
