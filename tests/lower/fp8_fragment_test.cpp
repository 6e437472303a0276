// An fp8 register fragment as an mma's lhs on sm_90a
// (tests/common/fp8_fragment_sources.hpp): RS-mode fp8 WGMMA (m64nNk32, A
// from four 32-bit registers) after the fragment is repacked across each
// quad's lanes from the accumulator layout; the CUDA compiles with NVRTC.
#include <gtest/gtest.h>

#include <string>

#include "common/fp8_fragment_sources.hpp"
#include "common/specialize_test_util.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::tensor;

GeneratedKernel chain_kernel(const std::string& frag_type) {
  CompileOptions options;
  options.source_name = "fp8_chain.co";
  const std::string source = croq::test::fp8_chain_source(frag_type);
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return test::generate_cuda(*program, fn,
                             {tensor(DType::f8_e4m3, {100, 96}), tensor(DType::f8_e4m3, {128, 96}),
                              tensor(DType::f8_e4m3, {80, 128}), tensor(DType::f32, {100, 80})},
                             227 * 1024, {}, "sm_90a");
}

std::string ptx_of(const GeneratedKernel& k) {
  try {
    return jit::nvrtc_compile(k.cuda_source, "fp8_chain.cu", k.entry, {"sm_90a", false, {}}).ptx;
  } catch (const CompileError& e) {
    ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what() << "\n" << k.cuda_source;
    return {};
  }
}

TEST(Fp8Fragment, E4m3FragmentIsRepackedAsTheLhsOfRsModeFp8Wgmma) {
  GeneratedKernel k = chain_kernel("f8_e4m3");
  // [64, 128] e4m3 in the accumulator layout: 64 bytes a thread, 16 registers of A.
  EXPECT_TRUE(contains(k.cuda_source, "__nv_fp8_e4m3 c1_8_")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::u32 a_packed[16];")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::pack_fragment_fp8(c1_8_")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk32_rs<64, 16, __nv_fp8_e4m3, __nv_fp8_e4m3>")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "for (int k32 = 0; k32 < 4; ++k32)")) << k.cuda_source;
  EXPECT_FALSE(contains(k.cuda_source, "wgmma_m64nNk16_rs<")) << "no 16-bit RS form for an fp8 lhs";
  const std::string ptx = ptx_of(k);
  EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3")) << ptx;
  EXPECT_TRUE(contains(ptx, "}, {%r")) << "A comes from registers";
  EXPECT_TRUE(contains(ptx, "shfl.sync.idx.b32")) << "the fragment is repacked across the quad's lanes";
  EXPECT_TRUE(contains(ptx, "prmt.b32")) << "each register keeps the pairs of its columns";
  EXPECT_FALSE(contains(ptx, "ld.local")) << "the fragments and the accumulators stay in registers";
}

TEST(Fp8Fragment, E5m2FragmentTimesE4m3TileHasMixedTypes) {
  GeneratedKernel k = chain_kernel("f8_e5m2");
  EXPECT_TRUE(contains(k.cuda_source, "croq_dev::wgmma_m64nNk32_rs<64, 16, __nv_fp8_e5m2, __nv_fp8_e4m3>")) << k.cuda_source;
  EXPECT_TRUE(contains(ptx_of(k), "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e4m3"));
}

}  // namespace
}  // namespace croq::pipeline
