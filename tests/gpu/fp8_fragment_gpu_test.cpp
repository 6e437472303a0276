// An fp8 register fragment as an mma's lhs on a Hopper GPU
// (tests/common/fp8_fragment_sources.hpp: C1 = A B^T in f32, then
// C2 = fp8(C1) D^T with the fragment repacked for RS-mode fp8 WGMMA), on
// random data with tails in M, K and N, the output poisoned first, against
// the double-precision host reference of the chain.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "common/fp8_fragment_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

template <typename Frag>
void expect_chain(const std::string& frag_type) {
  CROQ_REQUIRE_HOPPER("fp8 WGMMA");
  CompileOptions options;
  options.source_name = "fp8_chain.co";
  Kernel kernel = compile(test::fp8_chain_source(frag_type), options);
  struct Shape {
    std::size_t m, k, n;
  };
  std::uint64_t seed = 31;
  for (const Shape s : {Shape{128, 128, 128}, Shape{100, 96, 80}, Shape{640, 512, 384}}) {
    SCOPED_TRACE("M " + std::to_string(s.m) + ", K " + std::to_string(s.k) + ", N " + std::to_string(s.n));
    auto [a, b, d] = test::fp8_chain_inputs(s.m, s.k, s.n, seed);
    auto out = make_spandata<float>(s.m, s.n);
    out.fill_random(1e4, 2e4, seed + 3);  // poison: every element must be written
    kernel(a.view(), b.view(), d.view(), out.view());
    const auto c = test::check_fp8_chain<Frag>(a, b, d, out, s.m, s.k, s.n);
    EXPECT_TRUE(c.passed()) << "relative error " << c.relative_error << ", worst element (" << c.worst_row << ", "
                            << c.worst_col << ") at " << c.worst_ratio << " of its tolerance";
    seed += 4;
  }
}

TEST(Fp8FragmentGpu, E4m3FragmentLhsMatchesHostReference) { expect_chain<f8_e4m3>("f8_e4m3"); }

TEST(Fp8FragmentGpu, E5m2FragmentLhsMatchesHostReference) { expect_chain<f8_e5m2>("f8_e5m2"); }

}  // namespace
}  // namespace croq
