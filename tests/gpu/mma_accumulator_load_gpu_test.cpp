// Warp accumulators whose initial value is an mma.load of a tile, on a real
// GPU (tests/common/mma_accumulator_load_sources.hpp), against the host's
// C + A * B^T: f16 into f32 and s8 into s32 (exact) with tails in every dim,
// and a product accumulated into its own output one K tile at a time (f32
// and f16 outputs, integer-valued inputs: exact), for the device's arch and
// compute_80 PTX.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/mma_accumulator_load_sources.hpp"
#include "both_archs.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

using test::accumulated_product;

std::vector<Kernel> both_archs(const std::string& source) { return test::both_archs(source, "accumulator_load.co"); }

TEST(AccumulatorLoadGpu, WarpAccumulatorsStartFromTheOutputTile) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync needs sm_80 or newer";
  for (Kernel& kernel : both_archs(test::kAccumulateIntoOutput)) {
    const std::size_t m = 200, n = 120, k = 88;
    auto lhs = make_spandata<f16>(m, k);
    auto rhs = make_spandata<f16>(n, k);
    auto out = make_spandata<float>(m, n);
    lhs.fill_random(-1, 1, test::next_seed());
    rhs.fill_random(-1, 1, test::next_seed());
    out.fill_random(-100, 100, test::next_seed());
    const std::vector<float> before(out.data(), out.data() + m * n);
    kernel(lhs.view(), rhs.view(), out.view());
    const std::vector<double> want = accumulated_product(lhs.data(), rhs.data(), before.data(), m, n, k);
    for (std::size_t i = 0; i < m * n; ++i)
      ASSERT_NEAR(out.data()[i], want[i], 1e-3 * (1 + std::fabs(want[i]))) << i / n << ", " << i % n;
  }
}

TEST(AccumulatorLoadGpu, IntegerAccumulatorsStartFromAnS32TileExactly) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync s8 needs sm_80 or newer";
  for (Kernel& kernel : both_archs(test::kAccumulateIntegers)) {
    const std::size_t m = 72, n = 40, k = 96;
    auto lhs = make_spandata<s8>(m, k);
    auto rhs = make_spandata<s8>(n, k);
    auto out = make_spandata<s32>(m, n);
    lhs.fill_random(-128, 127, test::next_seed());
    rhs.fill_random(-128, 127, test::next_seed());
    out.fill_random(-100000, 100000, test::next_seed());
    const std::vector<s32> before(out.data(), out.data() + m * n);
    kernel(lhs.view(), rhs.view(), out.view());
    const std::vector<double> want = accumulated_product(lhs.data(), rhs.data(), before.data(), m, n, k);
    for (std::size_t i = 0; i < m * n; ++i) ASSERT_EQ(out.data()[i], static_cast<s32>(want[i])) << i / n << ", " << i % n;
  }
}

TEST(AccumulatorLoadGpu, StepwiseProductIntoItsOwnOutput) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync needs sm_80 or newer";
  for (const std::string type : {"f32", "f16"}) {
    std::string source = test::kAccumulateStepwise;
    source.replace(source.find("T [M, N]"), 1, type);
    for (Kernel& kernel : both_archs(source)) {
      const std::size_t m = 128, n = 96, k = 64;
      auto lhs = make_spandata<f16>(m, k);
      auto rhs = make_spandata<f16>(k, n);
      std::mt19937 gen(test::next_seed());
      std::uniform_int_distribution<int> small(-3, 3);
      for (std::size_t i = 0; i < m * k; ++i) lhs.data()[i] = f16(static_cast<float>(small(gen)));
      for (std::size_t i = 0; i < k * n; ++i) rhs.data()[i] = f16(static_cast<float>(small(gen)));
      Tensor out = kernel(lhs.view(), rhs.view()).to_host();
      const std::vector<double> want =
          accumulated_product(lhs.data(), rhs.data(), static_cast<const float*>(nullptr), m, n, k, true);
      for (std::size_t i = 0; i < m * n; ++i) {
        const double got = type == "f32" ? static_cast<const float*>(out.data())[i]
                                         : static_cast<float>(static_cast<const f16*>(out.data())[i]);
        ASSERT_EQ(got, want[i]) << type << " " << i / n << ", " << i % n;
      }
    }
  }
}

}  // namespace
}  // namespace croq
