// The Hopper GEMM samples (samples/matmul_{tma,wgmma,persistent}.cpp),
// specialized for square and tail shapes in f16 and bf16, must compile with
// NVRTC for sm_90a to PTX that uses TMA (cp.async.bulk.tensor with mbarrier
// completion) and WGMMA (wgmma.mma_async), and, where cuobjdump is at hand,
// to SASS with HGMMA instructions. This is what makes them fast: a lowering
// that silently fell back to plain loads or mma.sync would still pass the
// GPU correctness tests.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "common/specialize_test_util.hpp"
#include "common/process.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::count;

using test::generate;
using test::sample_source;
using test::tensor;

struct HopperSample {
  std::string sample;
  DType dtype;
  std::int64_t m, n, k;
  DType accumulator;
  bool warp_specialized;  // a producer warpgroup hands registers to the consumers
};

std::string case_name(const HopperSample& c) {
  return c.sample + "_" + std::string(dtype_name(c.dtype)) + "_" + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
         std::to_string(c.k);
}

// The samples are written for f16; bf16 is the same kernel with the element type swapped.
std::string source_for(const HopperSample& c) {
  std::string source = sample_source(c.sample);
  if (c.dtype == DType::bf16) source = std::regex_replace(source, std::regex(R"(\bf16 \[)"), "bf16 [");
  return source;
}

jit::NvrtcOutput compile_sample(const HopperSample& c, bool* needs_sm90) {
  GeneratedKernel k = generate(source_for(c), {tensor(c.dtype, {c.m, c.k}), tensor(c.dtype, {c.n, c.k}),
                                               tensor(c.dtype, {c.m, c.n})},
                               c.sample + ".co");
  *needs_sm90 = k.needs_sm90.has_value();
  return jit::nvrtc_compile(k.cuda_source, c.sample + ".cu", k.entry, {"sm_90a", false, {}});
}

class HopperSample90 : public ::testing::TestWithParam<HopperSample> {};

TEST_P(HopperSample90, PtxUsesTmaAndWgmma) {
  const HopperSample& c = GetParam();
  bool needs_sm90 = false;
  jit::NvrtcOutput out = compile_sample(c, &needs_sm90);
  EXPECT_TRUE(needs_sm90) << "a TMA kernel must refuse pre-Hopper targets";
  ASSERT_FALSE(out.cubin.empty());
  const std::string& ptx = out.ptx;
  ASSERT_FALSE(ptx.empty());

  // TMA loads of A and B tiles complete on an mbarrier.
  EXPECT_GE(count(ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"), 2u);
  EXPECT_GE(count(ptx, "mbarrier.try_wait.parity"), 1u);
  // WGMMA with the sample's accumulator type and the case's input type,
  // operands from shared-memory descriptors.
  const std::string in(dtype_name(c.dtype));
  const std::string types = "." + std::string(dtype_name(c.accumulator)) + "." + in + "." + in;
  std::regex wgmma(R"(wgmma\.mma_async\.sync\.aligned\.m64n\d+k16)" + std::regex_replace(types, std::regex(R"(\.)"), R"(\.)"));
  EXPECT_TRUE(std::regex_search(ptx, wgmma)) << "no wgmma.mma_async.sync.aligned.m64nNk16" << types << " in the PTX";
  EXPECT_GE(count(ptx, "wgmma.commit_group.sync.aligned"), 1u);
  EXPECT_GE(count(ptx, "wgmma.wait_group.sync.aligned"), 1u);
  EXPECT_EQ(count(ptx, "mma.sync"), 0u) << "the sm_90a path must not fall back to mma.sync";
  EXPECT_EQ(count(ptx, "setmaxnreg.dec.sync.aligned.u32") > 0, c.warp_specialized);
  EXPECT_EQ(count(ptx, "setmaxnreg.inc.sync.aligned.u32") > 0, c.warp_specialized);
}

// matmul_persistent's epilogue: each consumer warpgroup stores its half
// tile through shared memory with its own TMA store, commits it without
// waiting, and waits for the copy engine's read only before the next tile's
// mma.store; every thread drains its stores before it exits.
TEST(HopperPersistentEpilogue, TmaStoresOverlapTheNextTile) {
  GeneratedKernel k = generate(sample_source("matmul_persistent"),
                               {tensor(DType::f16, {4096, 4096}), tensor(DType::f16, {4096, 4096}),
                                tensor(DType::f16, {4096, 4096})},
                               "matmul_persistent.co");
  const std::string& cu = k.cuda_source;
  const std::size_t wait_read = cu.find("croq_dev::bulk_wait_group_read<0>();");
  const std::size_t store_to_shared = cu.find("croq_dev::store_accum_shared<");
  const std::size_t tma_store = cu.find("croq_dev::tma_store_2d(");
  const std::size_t commit = cu.find("croq_dev::bulk_commit_group();", tma_store);
  const std::size_t drain = cu.rfind("croq_dev::bulk_wait_group<0>();");
  ASSERT_NE(wait_read, std::string::npos) << cu;
  ASSERT_NE(tma_store, std::string::npos) << cu;
  ASSERT_NE(commit, std::string::npos) << cu;
  EXPECT_LT(wait_read, store_to_shared) << cu;
  EXPECT_LT(store_to_shared, tma_store) << cu;
  // Committed, not waited: the next statement after the commit closes the leader's block.
  EXPECT_EQ(cu.find("croq_dev::bulk_wait_group<0>();", commit), drain) << cu;
  EXPECT_GT(drain, commit) << cu;
  // One leader per warpgroup, one named barrier per warpgroup.
  EXPECT_NE(cu.find("if ((((threadIdx.x - 128) % 128) == 0)) {\n"), std::string::npos) << cu;
  EXPECT_NE(cu.find("+ threadIdx.x / 128, 128);"), std::string::npos) << cu;
  jit::NvrtcOutput out = jit::nvrtc_compile(cu, "matmul_persistent.cu", k.entry, {"sm_90a", false, {}});
  ASSERT_FALSE(out.cubin.empty());
  EXPECT_GE(count(out.ptx, "cp.async.bulk.tensor.2d.global.shared::cta"), 1u);
  EXPECT_GE(count(out.ptx, "cp.async.bulk.wait_group.read 0"), 1u);
}

// The cubin's instructions, where the toolkit has cuobjdump (the GPU machine
// does; the CI machine's toolkit lacks it).
TEST_P(HopperSample90, SassHasHgmmaAndTmaLoads) {
  const std::filesystem::path cuobjdump = "/usr/local/cuda/bin/cuobjdump";
  if (!std::filesystem::exists(cuobjdump)) GTEST_SKIP() << "no " << cuobjdump << " to disassemble the cubin";
  const HopperSample& c = GetParam();
  bool needs_sm90 = false;
  jit::NvrtcOutput out = compile_sample(c, &needs_sm90);
  ASSERT_FALSE(out.cubin.empty());
  croq::test::TempDir dir;
  const std::filesystem::path cubin = dir.path() / (case_name(c) + ".cubin");
  std::ofstream(cubin, std::ios::binary).write(out.cubin.data(), static_cast<std::streamsize>(out.cubin.size()));
  croq::test::Child child({cuobjdump.string(), "-sass", cubin.string()}, {}, dir.path());
  croq::test::ProcessResult r = child.wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(count(r.out, "HGMMA.64x"), 1u) << "no HGMMA in the SASS";
  EXPECT_GE(count(r.out, "UTMALDG.2D"), 1u) << "no TMA load in the SASS";
}

INSTANTIATE_TEST_SUITE_P(
    Samples, HopperSample90,
    ::testing::Values(HopperSample{"matmul_tma", DType::f16, 512, 512, 512, DType::f16, false},
                      HopperSample{"matmul_tma", DType::f16, 300, 200, 136, DType::f16, false},
                      HopperSample{"matmul_wgmma", DType::f16, 256, 256, 256, DType::f32, false},
                      HopperSample{"matmul_wgmma", DType::bf16, 300, 200, 136, DType::f32, false},
                      HopperSample{"matmul_persistent", DType::f16, 4096, 4096, 4096, DType::f32, true},
                      HopperSample{"matmul_persistent", DType::bf16, 4096, 4096, 4096, DType::f32, true},
                      HopperSample{"matmul_persistent", DType::f16, 300, 520, 200, DType::f32, true}),
    [](const auto& info) { return case_name(info.param); });

}  // namespace
}  // namespace croq::pipeline
