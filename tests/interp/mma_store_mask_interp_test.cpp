// Interpret mode: masked stores (`mma.store.mask acc, tile, rows[, cols]`)
// of a warpgroup's accumulator (WGMMA on sm_90a, mma.sync on sm_80), into
// global and shared memory, and of each warp's own (`: group`), with guards
// that cut inside the tensor, at a tail, and past every tile (negative), on
// the GPU test's kernels (tests/common/mma_store_mask_sources.hpp).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "common/mma_store_mask_sources.hpp"
#include "croq/croq.hpp"

namespace {

using croq::test::MaskedStore;

class InterpretMaskedStore : public ::testing::TestWithParam<std::tuple<MaskedStore, std::string>> {};

TEST_P(InterpretMaskedStore, WritesOnlyInsideTheGuards) {
  const auto& [form, arch] = GetParam();
  croq::CompileOptions options;
  options.interpret = true;
  options.arch = arch;
  const croq::Kernel kernel = croq::compile(croq::test::masked_store_source(form), options);
  const bool shared = form == MaskedStore::warpgroup_shared;
  // Tails in M and N (none for the shared form, whose copy writes whole tiles).
  const std::size_t m = shared ? 128 : 136, n = shared ? 128 : 88, k = 64;
  struct Guards { int rows, cols; };
  for (const Guards g : {Guards{100, 37}, Guards{136, 88}, Guards{5, 70}, Guards{-3, 200}}) {
    SCOPED_TRACE("rows " + std::to_string(g.rows) + ", cols " + std::to_string(g.cols));
    croq::test::expect_masked_store(kernel, form, m, n, k, g.rows, g.cols, 7u + static_cast<unsigned>(g.rows & 0xff),
                                    croq::MemoryKind::host);
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<MaskedStore, std::string>>& info) {
  return std::string(croq::test::masked_store_name(std::get<0>(info.param))) + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Warpgroups, InterpretMaskedStore,
                         ::testing::Combine(::testing::Values(MaskedStore::warpgroup_rows, MaskedStore::warpgroup_rows_cols,
                                                              MaskedStore::warpgroup_shared),
                                            ::testing::Values("sm_90a", "sm_80")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Warps, InterpretMaskedStore,
                         ::testing::Combine(::testing::Values(MaskedStore::warp_rows_cols), ::testing::Values("sm_90a")),
                         case_name);

}  // namespace
