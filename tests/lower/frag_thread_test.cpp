// Register fragments inside thread levels lower to plain per-thread arrays
// of ceil(rows / threads) rows (any arch), their applies to unrolled loops
// over those registers guarded by the row; a warpgroup's `mma.load src,
// frag` feeds RS-mode WGMMA, `.async` mma is waited where its future is,
// and all_reduce_sum sums each row register over the quad. The CUDA
// compiles with NVRTC.
#include <gtest/gtest.h>

#include <string>

#include "common/frag_thread_sources.hpp"
#include "common/specialize_test_util.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::generate_cuda;
using test::tensor;

GeneratedKernel generate_for(const std::string& source, const std::vector<ArgSignature>& args, const std::string& arch) {
  CompileOptions options;
  options.source_name = "frag_thread.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, args, 227 * 1024, {}, arch);
}

std::string ptx_of(const GeneratedKernel& k, const std::string& arch) {
  try {
    return jit::nvrtc_compile(k.cuda_source, "frag_thread.cu", k.entry, {arch, false, {}}).ptx;
  } catch (const CompileError& e) {
    ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what() << "\n" << k.cuda_source;
    return {};
  }
}

TEST(FragThread, FragmentsOfAThreadLevelArePerThreadRegistersOnSm80) {
  GeneratedKernel k = generate_for(croq::test::kThreadFragmentFma,
                                   {tensor(DType::f32, {250}), tensor(DType::f32, {250}), tensor(DType::f32, {250})}, "sm_80");
  const std::string& cuda = k.cuda_source;
  // 250 rows over 96 threads: 3 each, the last past the tile for some.
  EXPECT_TRUE(contains(cuda, "float x_2[3];")) << cuda;
  EXPECT_TRUE(contains(cuda, "< 250)) {")) << "each register's row is guarded\n" << cuda;
  EXPECT_TRUE(contains(cuda, "fmaf(")) << cuda;
  const std::string ptx = ptx_of(k, "sm_80");
  EXPECT_FALSE(contains(ptx, "ld.local")) << "the fragments stay in registers\n" << ptx;
}

TEST(FragThread, RowReductionsFoldEachThreadsOwnRows) {
  for (int threads : {32, 128}) {
    SCOPED_TRACE(threads);
    GeneratedKernel k = generate_for(croq::test::thread_row_softmax(threads),
                                     {tensor(DType::f32, {100, 64}), tensor(DType::f32, {100, 64})}, "sm_80");
    const std::string& cuda = k.cuda_source;
    // [64, 64] by rows: 2 rows of 64 a thread for 32 threads, 1 for 128.
    EXPECT_TRUE(contains(cuda, threads == 32 ? "float s_4[128];" : "float s_4[64];")) << cuda;
    EXPECT_TRUE(contains(cuda, "fmaxf(")) << cuda;
    EXPECT_FALSE(contains(cuda, "shfl")) << "a row is one thread's: no shuffles\n" << cuda;
    ptx_of(k, "sm_80");
  }
}

TEST(FragThread, LoadedFragmentAsyncMmaAndAllReduceSumOnSm90a) {
  GeneratedKernel k = generate_for(croq::test::kRowNormalizedProduct,
                                   {tensor(DType::f16, {64, 64}), tensor(DType::f16, {64, 64}), tensor(DType::f32, {64, 64})},
                                   "sm_90a");
  const std::string& cuda = k.cuda_source;
  const std::size_t mma = cuda.find("croq_dev::wgmma_m64nNk16_rs<");
  ASSERT_NE(mma, std::string::npos) << cuda;
  EXPECT_LT(cuda.find("a_frag_6[r_7] = "), mma) << "mma.load fills the declared fragment first\n" << cuda;
  const std::size_t wait = cuda.find("croq_dev::wgmma_wait_group<0>();", mma);
  const std::size_t reduce = cuda.find("= croq_dev::quad_sum(row_sum_");
  ASSERT_NE(reduce, std::string::npos) << cuda;
  EXPECT_LT(wait, cuda.find("row_sum_9[((r_11 >> 1) & 1)] = ")) << "`wait product` before the apply reads acc\n" << cuda;
  EXPECT_LT(reduce, cuda.find("store_accum_global<64>(")) << cuda;
  const std::string ptx = ptx_of(k, "sm_90a");
  EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16")) << ptx;
  EXPECT_TRUE(contains(ptx, "shfl.sync.bfly")) << ptx;
}

// Inside an apply over a thread level's tile, a fragment whose elements
// are other threads' is an error at the element, naming both shapes.
TEST(FragThread, AFragmentNotOfTheTilesLeadingDimsIsAnErrorInsideApply) {
  const std::string source =
      "__co__ void f(global f32 [64] out) {\n"
      "  parallel t by 32 : thread {\n"
      "    frag f32 [64, 64] s {0.0f};\n"
      "    frag f32 [32] b {0.0f};\n"
      "    apply {i, j} in s.span\n"
      "      s.at(i, j) = b.at(i);\n"
      "  }\n"
      "}\n";
  try {
    generate_for(source, {tensor(DType::f32, {64})}, "sm_80");
    FAIL() << "lowered";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.message, "`b` is [32] but the apply walks a tile of [64, 64]; inside it, a thread holds the elements of "
                         "fragments whose shape is the tile's leading dims");
    EXPECT_EQ(d.hint, "each thread holds whole rows: index fragments of the tile's shape or of its leading dims");
    EXPECT_EQ(d.line, 6);
    EXPECT_EQ(d.column, 22);  // the `.at`
  }
}

}  // namespace
}  // namespace croq::pipeline
