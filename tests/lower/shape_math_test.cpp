// Lowering of arithmetic on whole shapes (`x.span / {R, 2}`): dim by dim,
// once the dims are bound.
#include <gtest/gtest.h>

#include <string>

#include "common/shape_math_kernel.hpp"
#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::generate;
using test::tensor;

// The tile is x.span / {R, 2} = [1, 32]: as if written `shared f32 [1, 32] part;`.
TEST(ShapeMathLowering, AShapeDividedByATupleIsTheShapeOfItsRatios) {
  GeneratedKernel k = generate(croq::test::kShapeMathKernel, {tensor(DType::f32, {6, 64}), tensor(DType::f32, {6, 64})});
  std::string written = croq::test::kShapeMathKernel;
  written.replace(written.find("x.span / {R, 2}"), std::string("x.span / {R, 2}").size(), "1, 32");
  GeneratedKernel same = generate(written, {tensor(DType::f32, {6, 64}), tensor(DType::f32, {6, 64})});
  EXPECT_EQ(k.cuda_source, same.cuda_source);
}

TEST(ShapeMathLowering, ADynamicDimInShapeArithmeticIsRefusedAtTheExpression) {
  CompileOptions options;
  options.source_name = "sample.co";
  auto program = frontend::parse_program(croq::test::kShapeMathKernel, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  try {
    test::generate_cuda(*program, fn, {tensor(DType::f32, {6, 64}), tensor(DType::f32, {6, 64})}, 227 * 1024, {"R"});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.message,
              "`x.span / {R, 2}` involves the dynamic dim `R`; arithmetic on whole shapes takes dims known when the "
              "kernel is specialized")
        << e.what();
    EXPECT_EQ(d.hint, "remove `R` from CompileOptions::dynamic_dims, or write each dimension");
    EXPECT_EQ(d.line, 3);
    EXPECT_EQ(d.column, 19);  // `span` of `x.span`
  }
}

}  // namespace
}  // namespace croq::pipeline
