// The FP8 forward of samples/attention_source.hpp (attention::fp8_source),
// generated and compiled by NVRTC for sm_90a without a GPU, per head dim:
// S = Q K^T as fp8 WGMMA from shared memory, P V as RS-mode fp8 WGMMA from
// the e4m3 probabilities, repacked once for the mmas of all slabs of D, and
// V^T (K-major), still in flight during
// the next tile's softmax (a partial wait before the scores are read), and
// nothing spills.
#include <gtest/gtest.h>

#include <string>

#include "../../samples/attention_source.hpp"
#include "common/arg_signature.hpp"
#include "common/specialize_test_util.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::tensor;

TEST(AttentionFp8, Fp8MultipliesOverlapAndNothingSpills) {
  for (int d : {64, 128, 256}) {
    SCOPED_TRACE("D=" + std::to_string(d));
    CompileOptions options;
    options.source_name = "attention_fp8.co";
    const std::string source = attention::fp8_source(d, d == 64 ? "bf16" : "f16");
    auto program = frontend::parse_program(source, options);
    const auto& fn = frontend::select_entry(*program, options, program->source);
    const auto qk = tensor(DType::f8_e4m3, {2, 4, 320, d});
    const GeneratedKernel k = test::generate_cuda(
        *program, fn,
        {qk, qk, tensor(DType::f8_e4m3, {2, 4, d, 320}), tensor(d == 64 ? DType::bf16 : DType::f16, {2, 4, 320, d}),
         croq::test::float_scalar(), croq::test::float_scalar(), croq::test::float_scalar(), test::integer_scalar()},
        227 * 1024, {}, "sm_90a");
    const std::string& cuda = k.cuda_source;
    const std::size_t loop = cuda.find("for (int bn_");
    ASSERT_NE(loop, std::string::npos) << cuda;
    const std::size_t pv = cuda.find("croq_dev::wgmma_m64nNk32_rs<64, ", loop);
    ASSERT_NE(pv, std::string::npos) << "P V from the probabilities' registers, 64 columns a slab\n" << cuda;
    EXPECT_LT(cuda.rfind("croq_dev::pack_fragment_fp8(probs_", pv), cuda.rfind("croq_dev::wgmma_fence();", pv))
        << "A is repacked before the fence";
    // Once for the P V of every slab (D / 64 mmas one after another): in the
    // loop and after it.
    std::size_t packs = 0;
    for (std::size_t at = 0; (at = cuda.find("croq_dev::pack_fragment_fp8(probs_", at)) != std::string::npos; ++at) ++packs;
    EXPECT_EQ(packs, 2u) << cuda.substr(loop, 8000);
    const std::string partial_wait = "croq_dev::wgmma_wait_group<" + std::to_string(d / 64) + ">";
    const std::size_t first_wait = cuda.find("croq_dev::wgmma_wait_group<", pv);
    EXPECT_EQ(cuda.substr(first_wait, partial_wait.size()), partial_wait)
        << "the scores wait with the P V groups still in flight\n" << cuda.substr(loop, 6000);
    std::string ptx;
    try {
      ptx = jit::nvrtc_compile(cuda, "attention_fp8.cu", k.entry, {"sm_90a", false, {}}).ptx;
    } catch (const CompileError& e) {
      ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what();
      continue;
    }
    const std::string bn = d > 128 ? "64" : "128";
    EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n" + bn + "k32.f32.e4m3.e4m3")) << "S = Q K^T";
    EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3")) << "P V";
    EXPECT_TRUE(contains(ptx, "}, {%r")) << "P V's A from registers";
    EXPECT_FALSE(contains(ptx, "ld.local")) << "scores, probabilities and accumulators stay in registers";
  }
}

}  // namespace
}  // namespace croq::pipeline
