// Grids counted at the launch on the GPU: the host computes each launch's
// grid from the call's scalars (and a host program's), the kernel the same
// count from its parameters; results as in interpret mode
// (tests/interp/runtime_grid_interp_test.cpp).
#include <gtest/gtest.h>

#include "common/host_statement_sources.hpp"
#include "common/runtime_grid_sources.hpp"
#include "croq/croq.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(RuntimeGridGpu, BlockCountFromArgumentsSizesTheGridPerCall) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kRuntimeRowsSource);
  for (auto [first, rows] : {std::pair{2, 700}, std::pair{0, 1024}, std::pair{5, 5}}) {
    std::vector<float> x = test::seeded_floats(1024 * 256, static_cast<unsigned>(rows));
    const std::vector<float> want = test::runtime_rows_reference(x, first, rows);
    k(TensorView::contiguous(x.data(), DType::f32, Shape{1024, 256}), std::int64_t{first}, std::int64_t{rows});
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], want[i]) << first << ".." << rows << " at " << i;
  }
  EXPECT_EQ(k.stats().specializations.size(), 1u);
}

TEST(RuntimeGridGpu, FlatCountFromAConditionalCoversPartialAndWholeBlocks) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kRuntimeFlatSource);
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{300}, std::int64_t{100003}, std::int64_t{1 << 20}}) {
    std::vector<float> x = test::seeded_floats(100003, static_cast<unsigned>(n) + 1);
    const std::vector<float> want = test::runtime_flat_reference(x, n, 0.75f);
    k(TensorView::contiguous(x.data(), DType::f32, Shape{100003}), n, 0.75);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], want[i]) << "n " << n << " at " << i;
  }
}

TEST(RuntimeGridGpu, HostLoopIndexCountsEachLaunch) {
  CROQ_REQUIRE_GPU();
  Kernel k = compile(test::kRuntimeStairsSource);
  for (int steps : {0, 3, 40}) {
    std::vector<std::int32_t> acc(33);
    for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<std::int32_t>(i * 7) - 50;
    const std::vector<std::int32_t> want = test::runtime_stairs_reference(acc, steps);
    k(TensorView::contiguous(acc.data(), DType::s32, Shape{33}), std::int64_t{steps});
    EXPECT_EQ(acc, want) << "steps " << steps;
  }
}

}  // namespace
}  // namespace croq
