// Masked stores (`mma.store.mask acc, tile, rows[, cols]`) on a real GPU:
// the kernels of tests/common/mma_store_mask_sources.hpp (a warpgroup's
// accumulator into global and into shared memory, each warp's own into
// global) for the device's arch (WGMMA on Hopper) and for compute_80 PTX
// (mma.sync). Fresh random f16 inputs, a poisoned f32 output, compared with
// the host's A * B^T in double inside the guards and with the poison (or the
// staged tile's values) outside; guards inside the tensor, at its tail, and
// negative (nothing written).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "common/mma_store_mask_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq {
namespace {

using croq::test::MaskedStore;

class MaskedStoreGpu : public ::testing::TestWithParam<std::tuple<MaskedStore, std::string>> {};

TEST_P(MaskedStoreGpu, WritesOnlyInsideTheGuards) {
  CROQ_REQUIRE_GPU();
  const auto& [form, arch] = GetParam();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma needs sm_80 or newer";
  if (arch.empty() && form != MaskedStore::warp_rows_cols && jit::device_info(0).cc_major != 9)
    GTEST_SKIP() << "a warpgroup's mma for the device's arch is WGMMA: sm_90a (Hopper)";
  CompileOptions options;
  options.arch = arch;
  options.source_name = std::string(croq::test::masked_store_name(form)) + ".co";
  const Kernel kernel = compile(croq::test::masked_store_source(form), options);
  const bool shared = form == MaskedStore::warpgroup_shared;
  const std::size_t m = shared ? 384 : 300, n = shared ? 256 : 200, k = 192;
  struct Guards { int rows, cols; };
  for (const Guards g : {Guards{211, 77}, Guards{300, 200}, Guards{9, 190}, Guards{-1, 50}}) {
    SCOPED_TRACE("rows " + std::to_string(g.rows) + ", cols " + std::to_string(g.cols));
    croq::test::expect_masked_store(kernel, form, m, n, k, g.rows, g.cols, static_cast<unsigned>(croq::test::next_seed()),
                                    MemoryKind::device);
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<MaskedStore, std::string>>& info) {
  const std::string arch = std::get<1>(info.param);
  return std::string(croq::test::masked_store_name(std::get<0>(info.param))) + "_" + (arch.empty() ? "device" : arch);
}

INSTANTIATE_TEST_SUITE_P(Warpgroups, MaskedStoreGpu,
                         ::testing::Combine(::testing::Values(MaskedStore::warpgroup_rows, MaskedStore::warpgroup_rows_cols,
                                                              MaskedStore::warpgroup_shared),
                                            ::testing::Values("", "compute_80")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Warps, MaskedStoreGpu,
                         ::testing::Combine(::testing::Values(MaskedStore::warp_rows_cols), ::testing::Values("", "compute_80")),
                         case_name);

}  // namespace
}  // namespace croq
