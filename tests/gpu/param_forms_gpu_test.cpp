// Parameters whose dims the call gives (a rank only, `f32 mdspan<2>`, and
// dims without a name, `f32 [?]`) on a real device, against the host
// reference (the interpreter runs the same kernel in
// tests/interp/param_forms_interp_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "common/param_forms_kernel.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

TEST(GpuParamForms, RankOnlyAndUnnamedDimsTakeTheCallsExtents) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kParamFormsKernel);
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{1, 1}, {5, 33}, {300, 64}}) {
    auto x = make_spandata<f32>(rows, cols);
    auto factor = make_spandata<f32>(rows);
    auto bias = make_spandata<f32>(rows, cols);
    auto out = make_spandata<f32>(rows, cols);
    x.fill_random(-4, 4, test::next_seed());
    factor.fill_random(-2, 2, test::next_seed());
    bias.fill_random(-1, 1, test::next_seed());
    out.fill(-7);
    k(x.view(), factor.view(), bias.view(), out.view());
    const std::vector<float> want = test::param_forms_reference(
        std::vector<float>(x.data(), x.data() + rows * cols), std::vector<float>(factor.data(), factor.data() + rows),
        std::vector<float>(bias.data(), bias.data() + rows * cols), rows, cols);
    // The device may contract x * f + b into one fma (one rounding instead
    // of two): within a rounding of each term's size, not bit for bit.
    for (std::size_t i = 0; i < want.size(); ++i) {
      const float product = x.data()[i] * factor.data()[i / cols];
      const float bound = 2 * std::numeric_limits<float>::epsilon() * (std::fabs(product) + std::fabs(bias.data()[i]));
      ASSERT_NEAR(out.data()[i], want[i], bound) << rows << " x " << cols << ", element " << i;
    }
  }
}

}  // namespace
}  // namespace croq
