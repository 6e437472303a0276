// L2 eviction priorities on TMA loads (`tma.load.evict_first` /
// `.evict_last`, tests/common/l2_eviction_sources.hpp): the IR keeps the
// priority through its text, the CUDA issues the `.L2::cache_hint` form of
// the load with a `createpolicy` of that priority (the multicast load too),
// and NVRTC compiles it for sm_90a. A load without a hint is unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/l2_eviction_sources.hpp"
#include "common/specialize_test_util.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::pipeline {
namespace {

using test::count;
using test::generate;
using test::tensor;

GeneratedKernel hinted(bool cluster) {
  return generate(croq::test::l2_eviction_source(cluster),
                  {tensor(DType::bf16, {256, 64}), tensor(DType::bf16, {64, 64}), tensor(DType::f32, {256, 64})},
                  "l2_eviction.co");
}

// The kernel's PTX through NVRTC for sm_90a, or empty (with the log as a
// failure) when it does not compile.
std::string ptx_of(const GeneratedKernel& k) {
  const jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "l2_eviction.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty()) << out.log;
  return out.cubin.empty() ? std::string() : out.ptx;
}

TEST(L2Eviction, LoadsCarryTheirPriorityIntoTheIrAndTheCuda) {
  const GeneratedKernel k = hinted(false);
  EXPECT_EQ(count(k.ir, " (L2 evict_first)"), 1u) << k.ir;
  EXPECT_EQ(count(k.ir, " (L2 evict_last)"), 1u) << k.ir;
  EXPECT_EQ(ir::print_kernel(ir::parse_kernel(k.ir)), k.ir);
  EXPECT_EQ(count(k.cuda_source, "croq_dev::tma_load_hint_2d("), 2u) << k.cuda_source;
  EXPECT_EQ(count(k.cuda_source, ", croq_dev::l2_policy_evict_first(), "), 1u) << k.cuda_source;
  EXPECT_EQ(count(k.cuda_source, ", croq_dev::l2_policy_evict_last(), "), 1u) << k.cuda_source;
  EXPECT_EQ(count(k.cuda_source, "croq_dev::tma_load_2d("), 0u);
  const std::string ptx = ptx_of(k);
  EXPECT_EQ(count(ptx, ".L2::cache_hint"), 2u) << ptx;
  EXPECT_EQ(count(ptx, "createpolicy.fractional.L2::evict_first.b64"), 1u) << ptx;
  EXPECT_EQ(count(ptx, "createpolicy.fractional.L2::evict_last.b64"), 1u) << ptx;
}

TEST(L2Eviction, AMulticastLoadKeepsItsPriority) {
  const GeneratedKernel k = hinted(true);
  EXPECT_EQ(count(k.ir, "(multicast in "), 1u) << k.ir;
  EXPECT_EQ(count(k.ir, " (L2 evict_last)"), 1u) << k.ir;
  EXPECT_EQ(ir::print_kernel(ir::parse_kernel(k.ir)), k.ir);
  EXPECT_EQ(count(k.cuda_source, "croq_dev::tma_load_multicast_hint_2d("), 1u) << k.cuda_source;
  const std::string ptx = ptx_of(k);
  EXPECT_EQ(count(ptx, ".multicast::cluster.L2::cache_hint"), 1u) << ptx;
}

}  // namespace
}  // namespace croq::pipeline
