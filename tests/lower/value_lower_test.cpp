// Lowering of values computed inside statements (tests/common/value_kernels.hpp):
// `yield` is a thread's exit from the kernel (`return;` in CUDA), a select
// of tiles a pointer declared at run time whose possible targets the IR
// names, and `++` inside an expression an update before its statement. The
// IR text of each reads back as printed.
#include <gtest/gtest.h>

#include "common/ir_test_util.hpp"
#include "common/value_kernels.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"

namespace croq::ir::test {
namespace {

// `source` through lowering and the passes with the full IR text (every
// fact the IR parser reads), for `arch`, `dynamic` dims named.
pipeline::GeneratedKernel generate_full(const std::string& source, const std::vector<abi::ArgSignature>& args,
                                        const std::string& arch = "sm_90a", std::vector<std::string> dynamic = {}) {
  pipeline::GenerateOptions g;
  g.ir_detail = IrDetail::full;
  g.dynamic_dims = std::move(dynamic);
  return lower_with(source, args, arch, std::move(g));
}

pipeline::GeneratedKernel updates_kernel() {
  return generate_full(croq::test::kValueUpdatesKernel,
                   {tensor(DType::s32, {4, 64}), tensor(DType::s32, {4, 64}), tensor(DType::s32, {4, 64})});
}

pipeline::GeneratedKernel select_kernel() {
  std::vector<abi::ArgSignature> args(5, tensor(DType::f32, {8, 64}));
  return generate_full(croq::test::kValueSelectKernel, args);
}

TEST(ValueLowering, YieldIsAReturnFromTheKernel) {
  const pipeline::GeneratedKernel k = updates_kernel();
  EXPECT_TRUE(contains(k.ir, " exit {pos=7:9")) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "return;")) << k.cuda_source;
  EXPECT_EQ(print_kernel(parse_kernel(k.ir), IrDetail::full), k.ir);
}

TEST(ValueLowering, PostIncrementKeepsTheOldValueInAConstant) {
  const pipeline::GeneratedKernel k = updates_kernel();
  EXPECT_TRUE(contains(k.cuda_source, "old_")) << k.cuda_source;
}

TEST(ValueLowering, SelectOfTilesIsAPointerToOneOfThem) {
  const pipeline::GeneratedKernel k = select_kernel();
  EXPECT_TRUE(contains(k.ir, "points_to=[")) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "selected_")) << k.cuda_source;
  EXPECT_EQ(print_kernel(parse_kernel(k.ir), IrDetail::full), k.ir);
}

// A block count known only at run time makes the threads loop over block
// indices outside sm_90 kernels: `yield` would end the later ones too.
TEST(ValueLowering, YieldInAGridStrideKernelIsRefused) {
  const std::string source = R"(__co__ void f(s32 [N] a) {
  parallel b by N : block {
    if (a.at(b) < 0) {
      yield;
    }
    a.at(b) = 1;
  }
}
)";
  try {
    generate_full(source, {tensor(DType::s32, {-1})}, "sm_80", {"N"});
    FAIL() << "yield in a grid-stride kernel was lowered";
  } catch (const CompileError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics()[0].line, 4);
    EXPECT_EQ(e.diagnostics()[0].message,
              "`yield` in a kernel whose threads loop over several block indices (a block count known only at run "
              "time, or past 2^31 - 1 blocks) is not supported yet by libcroqjit");
  }
}

}  // namespace
}  // namespace croq::ir::test
