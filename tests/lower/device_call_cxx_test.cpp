// Lowering and printing of calls of C++ functions the source defines: the
// IR's device_call (its text, read back by the IR parser) and the CUDA call,
// tiles passed as element pointers through croq_device_arg.
#include <gtest/gtest.h>

#include <string>

#include "common/device_call_cxx_kernels.hpp"
#include "common/specialize_test_util.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "pipeline/specialize.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::count;
using test::generate;
using test::tensor;

TEST(DeviceFunctionCallLowering, TilesPassAsElementPointersAndTheCountAsANumber) {
  const auto arg = tensor(DType::f32, {6, 17, 128});
  GeneratedKernel k = generate(croq::test::kDeviceAddRows, {arg, arg, arg});
  // The user's function is pasted before the kernel, once, and called once per tile.
  EXPECT_EQ(count(k.cuda_source, "__device__ void add_rows("), 1u) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "add_rows(croq_device_arg(")) << k.cuda_source;
  // Three pointers (two loaded tiles, the shared result) and |lhs_load.span| = 1 * 1 * 32.
  EXPECT_EQ(count(k.cuda_source, "croq_device_arg((&"), 3u) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "])), 32);")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "struct croq_device_ptr")) << k.cuda_source;
}

TEST(DeviceFunctionCallLowering, TemplateArgumentsPrintAsTypesAndConstants) {
  GeneratedKernel k = generate(croq::test::kDeviceTemplate, {tensor(DType::f32, {256}), tensor(DType::f32, {256})});
  EXPECT_TRUE(contains(k.cuda_source, "bump<float, 64>(croq_device_arg(")) << k.cuda_source;
}

TEST(DeviceFunctionCallLowering, ValuesAreComputedOnceIntoAVariable) {
  GeneratedKernel k = generate(croq::test::kDeviceValues, {tensor(DType::f32, {256}), tensor(DType::s32, {256}),
                                                     tensor(DType::f32, {256}), tensor(DType::s32, {256})});
  EXPECT_TRUE(contains(k.cuda_source, "weighted<3>(")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "clamp_code(")) << k.cuda_source;
  EXPECT_EQ(count(k.cuda_source, "weighted_result"), 2u) << k.cuda_source;  // declared, then stored
  // No tile is passed: the pointer helper is left out.
  EXPECT_FALSE(contains(k.cuda_source, "croq_device_ptr")) << k.cuda_source;
}

TEST(DeviceFunctionCallLowering, KernelsWithoutCallsHaveNoPointerHelper) {
  GeneratedKernel k = generate("__device__ int unused(int v) { return v; }\n"
                               "__co__ void f(s32 [8] a) { parallel p by 8 : thread { a.at(p) = a.at(p) + 1; } }\n",
                               {tensor(DType::s32, {8})});
  EXPECT_FALSE(contains(k.cuda_source, "croq_device_ptr")) << k.cuda_source;
}

TEST(DeviceFunctionCallIrText, TheCallRoundTripsThroughTheIrText) {
  const auto arg = tensor(DType::f32, {6, 17, 128});
  const auto line = tensor(DType::f32, {256});
  for (const auto& [source, args] : {std::pair{&croq::test::kDeviceAddRows, std::vector<abi::ArgSignature>{arg, arg, arg}},
                                     std::pair{&croq::test::kDeviceTemplate, std::vector<abi::ArgSignature>{line, line}}}) {
    GeneratedKernel k = generate(*source, args);
    EXPECT_TRUE(contains(k.ir, "device_call<void> ")) << k.ir;
    EXPECT_EQ(ir::print_kernel(ir::parse_kernel(k.ir)), k.ir);
  }
}

TEST(DeviceFunctionCallLowering, IntrinsicsAreCalledVerbatim) {
  const auto line = tensor(DType::f32, {256});
  GeneratedKernel k = generate(croq::test::kIntrinsicCalls, {line, line});
  EXPECT_EQ(count(k.cuda_source, "hw_scale(croq_device_arg("), 1u) << k.cuda_source;
  EXPECT_EQ(count(k.cuda_source, "lanes::add(croq_device_arg("), 1u) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "namespace lanes {")) << k.cuda_source;
  EXPECT_EQ(ir::print_kernel(ir::parse_kernel(k.ir)), k.ir);
}

TEST(DeviceFunctionCallLowering, RegistersPassAsTheThreadsOwnArray) {
  const auto lhs = tensor(DType::f16, {128, 128});
  const auto rhs = tensor(DType::f16, {256, 128});
  GeneratedKernel k = generate(croq::test::kRegistersByReference, {lhs, rhs, tensor(DType::f32, {128, 256})});
  // The fragment's two registers and the accumulator's 64, from their first.
  const std::size_t fragment = k.cuda_source.find("add_bias(croq_device_arg((&quarter");
  const std::size_t accumulator = k.cuda_source.find("add_bias(croq_device_arg((&mc");
  ASSERT_NE(fragment, std::string::npos) << k.cuda_source;
  ASSERT_NE(accumulator, std::string::npos) << k.cuda_source;
  EXPECT_EQ(k.cuda_source.substr(k.cuda_source.find("])), ", fragment), 7), "])), 2,") << k.cuda_source;
  EXPECT_EQ(k.cuda_source.substr(k.cuda_source.find("])), ", accumulator), 8), "])), 64,") << k.cuda_source;
  // The accumulator's WGMMA groups complete before the call reads the registers.
  const std::size_t wait = k.cuda_source.rfind("croq_dev::wgmma_wait_group<0>();", accumulator);
  ASSERT_NE(wait, std::string::npos) << k.cuda_source;
  EXPECT_GT(wait, k.cuda_source.rfind("croq_dev::wgmma_commit_group();", accumulator)) << k.cuda_source;
  EXPECT_EQ(ir::print_kernel(ir::parse_kernel(k.ir)), k.ir);
}

}  // namespace
}  // namespace croq::pipeline
