// Lowering of `call f(args)` of a __co_device__ function: the body is
// expanded where the call stands, with the parameters bound per call.
#include <gtest/gtest.h>

#include <string>

#include "common/device_call_kernel.hpp"
#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::count;
using test::generate;
using test::tensor;

const std::string kTotal = R"(__co_device__ s32 total(s32 [N] v) {
  mutable s32 sum = 0;
  foreach i in [N] {
    sum += v.at(i);
  }
  return sum;
}

)";

TEST(DeviceCallLowering, EachCallExpandsTheBodyWithItsOwnExtents) {
  GeneratedKernel k = generate(kTotal + R"(__co__ void f(s32 [M] a, s32 [L] b, s32 [2] out) {
  parallel p by 1 : block {
    parallel t by 1 : thread {
      out.at(0) = call total(a);
      out.at(1) = call total(b);
    }
  }
}
)",
                               {tensor(DType::s32, {24}), tensor(DType::s32, {40}), tensor(DType::s32, {2})});
  // Two expansions, each with its result variable and a loop bound by its argument's extent.
  // Each declared, set by the `return` and read by the store.
  EXPECT_EQ(count(k.cuda_source, "total_result"), 6u) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "< 24")) << k.cuda_source;
  EXPECT_TRUE(contains(k.cuda_source, "< 40")) << k.cuda_source;
}

TEST(DeviceCallLowering, ArgumentsThatDisagreeOnADimAreRefusedAtTheCall) {
  const std::string source = R"(__co_device__ void copy_into(s32 [N] from, s32 [N] to) {
  foreach i in [N] {
    to.at(i) = from.at(i);
  }
}

__co__ void f(s32 [M] a, s32 [L] b) {
  parallel p by 1 : block {
    call copy_into(a, b);
  }
}
)";
  try {
    generate(source, {tensor(DType::s32, {24}), tensor(DType::s32, {40})});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.message, "`N` is 24 by an earlier argument of `call copy_into`, but 40 in dim 0 (`b`)") << e.what();
    EXPECT_EQ(d.hint, "pass tensors whose extents agree on `N`");
    EXPECT_EQ(d.line, 9);
    EXPECT_EQ(d.column, 23);
  }
}

// The kernel has what a called body uses: TMA needs the Hopper prelude.
TEST(DeviceCallLowering, TheKernelHasWhatTheCalledBodyUses) {
  GeneratedKernel k =
      generate(croq::test::kDeviceCallTmaKernel, {tensor(DType::f16, {64, 64}), tensor(DType::f16, {64, 64})});
  EXPECT_TRUE(contains(k.cuda_source, "croq hopper prelude")) << k.cuda_source;
}

}  // namespace
}  // namespace croq::pipeline
