// Grids counted at the launch (tests/common/runtime_grid_sources.hpp) in
// interpret mode: one kernel serves every value of the scalars its count
// is computed from, against host references on random data.
#include <gtest/gtest.h>

#include <random>

#include "common/host_statement_sources.hpp"
#include "common/runtime_grid_sources.hpp"
#include "croq/croq.hpp"
#include "interp/interp_test_util.hpp"

namespace croq {
namespace {

TEST(RuntimeGridInterp, BlockCountFromArgumentsSizesTheGridPerCall) {
  Kernel k = test::interpreted(test::kRuntimeRowsSource);
  for (auto [first, rows] : {std::pair{2, 7}, std::pair{0, 12}, std::pair{5, 5}}) {
    std::vector<float> x = test::seeded_floats(12 * 256, static_cast<unsigned>(rows));
    const std::vector<float> want = test::runtime_rows_reference(x, first, rows);
    k(TensorView::contiguous(x.data(), DType::f32, Shape{12, 256}), std::int64_t{first}, std::int64_t{rows});
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], want[i]) << first << ".." << rows << " at " << i;
  }
}

TEST(RuntimeGridInterp, NegativeCountIsAnErrorNamingIt) {
  Kernel k = test::interpreted(test::kRuntimeRowsSource);
  std::vector<float> x(4 * 256, 1.0f);
  try {
    k(TensorView::contiguous(x.data(), DType::f32, Shape{4, 256}), std::int64_t{3}, std::int64_t{1});
    FAIL() << "no error";
  } catch (const ArgumentError& e) {
    EXPECT_STREQ(e.what(), "`double_rows`: the parallel count `count` is -2 at this call; a count is at least 0");
  }
}

TEST(RuntimeGridInterp, FlatCountFromAConditionalCoversPartialAndWholeBlocks) {
  Kernel k = test::interpreted(test::kRuntimeFlatSource);
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{300}, std::int64_t{517}, std::int64_t{4000}}) {
    std::vector<float> x = test::seeded_floats(517, static_cast<unsigned>(n) + 1);
    const std::vector<float> want = test::runtime_flat_reference(x, n, 0.75f);
    k(TensorView::contiguous(x.data(), DType::f32, Shape{517}), n, 0.75);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], want[i]) << "n " << n << " at " << i;
  }
}

TEST(RuntimeGridInterp, HostLoopIndexCountsEachLaunch) {
  Kernel k = test::interpreted(test::kRuntimeStairsSource);
  std::mt19937 rng(5);
  std::uniform_int_distribution<std::int32_t> d(-100, 100);
  for (int steps : {0, 3, 9}) {
    std::vector<std::int32_t> acc(6);
    for (auto& v : acc) v = d(rng);
    const std::vector<std::int32_t> want = test::runtime_stairs_reference(acc, steps);
    k(TensorView::contiguous(acc.data(), DType::s32, Shape{6}), std::int64_t{steps});
    EXPECT_EQ(acc, want) << "steps " << steps;
  }
}

}  // namespace
}  // namespace croq
