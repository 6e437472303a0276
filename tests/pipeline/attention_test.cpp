// The flash attention of samples/flash_attention.cpp, generated and compiled
// by NVRTC for sm_90a without a GPU: per element type and head dim, the
// heads are TMA boxes of the whole [B, H, S, D] tensors, P·V stays in flight
// during the next tile's softmax (partial WGMMA waits, never a full wait
// between the two multiplies and the first read of the scores; the wait
// for P V pinned after the softmax), the RS
// operand is packed before the fence, and nothing spills.
#include <gtest/gtest.h>

#include <string>

#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::generate_cuda;
using test::integer_scalar;
using test::tensor;

GeneratedKernel generate_attention(const std::string& element, int d, std::int64_t seq, int consumers = 2) {
  CompileOptions options;
  options.source_name = "attention.co";
  const std::string source = attention::source(element, d, true, consumers);
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  const DType t = element == "bf16" ? DType::bf16 : DType::f16;
  const auto qkv = tensor(t, {2, 4, seq, d});
  return generate_cuda(*program, fn, {qkv, qkv, qkv, qkv, integer_scalar()}, 227 * 1024, {}, "sm_90a");
}

TEST(Attention, PvStaysInFlightDuringTheNextSoftmax) {
  for (const char* element : {"f16", "bf16"})
    for (int d : {64, 128}) {
      SCOPED_TRACE(std::string(element) + " D=" + std::to_string(d));
      GeneratedKernel k = generate_attention(element, d, 300);
      const std::string& cuda = k.cuda_source;
      EXPECT_TRUE(contains(cuda, "croq_dev::tma_load_4d(")) << "heads are boxes of the whole tensor";
      EXPECT_TRUE(contains(cuda, "croq_dev::tma_store_4d("));
      EXPECT_TRUE(contains(cuda, "croq_dev::store_accum_shared_swizzled<64, 128>("))
          << "the output staged in swizzled tiles (mma.store.swiz<128>), as the TMA store reads them";
      // In the key loop: S (one group per 64-column slab of D), then P V
      // (one per slab), then the first read of the scores waits for S only.
      const std::size_t loop = cuda.find("for (int bn_");
      ASSERT_NE(loop, std::string::npos) << cuda;
      const std::size_t pv = cuda.find("wgmma_m64nNk16_rs<", loop);
      ASSERT_NE(pv, std::string::npos) << cuda;
      const std::size_t first_wait = cuda.find("croq_dev::wgmma_wait_group<", pv);
      const int slabs = d / 64;
      const std::string partial_wait = "croq_dev::wgmma_wait_group<" + std::to_string(slabs) + ">";
      EXPECT_EQ(cuda.substr(first_wait, partial_wait.size()), partial_wait)
          << "the scores wait with the P V groups still in flight\n" << cuda.substr(loop, 6000);
      // Then the other consumer's turn, given with S and P V in flight.
      const std::size_t turn = cuda.find("croq_dev::mbar_arrive(&turn1_", pv);
      EXPECT_LT(turn, first_wait) << "turns wait for no multiply\n" << cuda.substr(loop, 6000);
      // The mask's `if` opens with that wait: it is hoisted before the
      // branch (ptxas serializes every WGMMA when a wait sits in a branch).
      EXPECT_LT(first_wait, cuda.find("if (", turn)) << cuda.substr(loop, 6000);
      // The wait for P V comes after the softmax placed to overlap it, behind
      // a block boundary (pin_overlapped_waits), else ptxas moves it back
      // to the first read of the scores.
      const std::size_t exp2 = cuda.find("croq_exp2_approx(", first_wait);
      ASSERT_NE(exp2, std::string::npos);
      const std::size_t pv_wait = cuda.find("croq_dev::wgmma_wait_group<", exp2);
      const std::size_t boundary = cuda.find("croq_dev::schedule_boundary();", exp2);
      EXPECT_LT(boundary, pv_wait) << cuda.substr(exp2, 3000);
      EXPECT_EQ(cuda.substr(first_wait - 120, 120).find("schedule_boundary"), std::string::npos)
          << "the scores' wait, with nothing computed before it, is not pinned";
      const std::size_t pack = cuda.rfind("croq_dev::pack_fragment(", pv);
      EXPECT_LT(pack, cuda.rfind("croq_dev::wgmma_fence();", pv)) << "A is packed before the fence";
      std::string ptx;
      try {
        ptx = jit::nvrtc_compile(cuda, "attention.cu", k.entry, {"sm_90a", false, {}}).ptx;
      } catch (const CompileError& e) {
        ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what();
        continue;
      }
      EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32")) << "P V in RS mode, 64 columns per slab";
      EXPECT_TRUE(contains(ptx, "wgmma.wait_group.sync.aligned " + std::to_string(slabs) + ";"));
      EXPECT_FALSE(contains(ptx, "ld.local")) << "scores, probabilities and accumulators stay in registers";
      EXPECT_TRUE(contains(ptx, "%dynamic_smem_size")) << "the boundary's opaque condition";
    }
}

// Three consumer warpgroups (BM = 192): the producer keeps 32 registers so
// that each consumer has 160 (with 40, 152: ptxas serializes the WGMMAs).
// Their turns go round: 1, 2, 3, 1, ...
TEST(Attention, ThreeConsumersTakeTurnsWith160Registers) {
  GeneratedKernel k = generate_attention("f16", 64, 300, 3);
  const std::string& cuda = k.cuda_source;
  EXPECT_TRUE(contains(cuda, "croq_dev::setmaxnreg_dec<32>();")) << cuda;
  EXPECT_TRUE(contains(cuda, "croq_dev::setmaxnreg_inc<160>();")) << cuda;
  EXPECT_TRUE(contains(cuda, "__launch_bounds__(512, 1)")) << cuda;
  for (const char* turn : {"mbar_arrive(&turn2_", "mbar_arrive(&turn3_", "mbar_arrive(&turn1_"})
    EXPECT_TRUE(contains(cuda, turn)) << turn;
  EXPECT_NO_THROW(jit::nvrtc_compile(cuda, "attention.cu", k.entry, {"sm_90a", false, {}}));
}

}  // namespace
}  // namespace croq::pipeline
