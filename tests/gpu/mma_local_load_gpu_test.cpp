// mma.load from local memory at warp level on a real GPU
// (tests/common/mma_local_load_sources.hpp): each lane reads its fragment's
// elements from its own copy of the local lhs tile. Fresh random f16 inputs,
// a poisoned f32 output, compared with the host's A * B^T in double, for the
// device's arch and compute_80 PTX, with tails in M, N and K.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/mma_local_load_sources.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "../../samples/gemm_check.hpp"

namespace croq {
namespace {

TEST(LocalLoadGpu, WarpMmaOfALocalLhsMatchesHostReference) {
  CROQ_REQUIRE_GPU();
  if (jit::device_info(0).cc_major < 8) GTEST_SKIP() << "mma.sync m16n8k16 needs sm_80 or newer";
  for (const std::string arch : {"", "compute_80"}) {
    SCOPED_TRACE(arch.empty() ? "device arch" : arch);
    CompileOptions options;
    options.arch = arch;
    options.source_name = "local_lhs.co";
    Kernel kernel = compile(croq::test::kLocalLhsGemm, options);
    for (const GemmShape& s : {GemmShape{64, 16, 16}, GemmShape{200, 120, 88}}) {
      auto lhs = make_spandata<f16>(s.m, s.k);
      auto rhs = make_spandata<f16>(s.n, s.k);
      auto out = make_spandata<float>(s.m, s.n);
      lhs.fill_random(-1, 1, croq::test::next_seed());
      rhs.fill_random(-1, 1, croq::test::next_seed());
      out.fill_random(1e4, 2e4, croq::test::next_seed());  // poison: every element must be written
      kernel(lhs.view(), rhs.view(), out.view());
      const GemmCheck check = check_gemm(lhs, rhs, out);
      EXPECT_TRUE(check.passed()) << describe(check);
    }
  }
}

}  // namespace
}  // namespace croq
