// Lowering of shapes derived by selection (`x.span[(1), (2)]`,
// `plane : x.span[1, (2)]`): the dims sema recorded, built once the dims are
// bound, and the errors of extents only lowering can evaluate.
#include <gtest/gtest.h>

#include <string>

#include "common/shape_selection_kernel.hpp"
#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"

namespace croq::pipeline {
namespace {

using croq::test::integer_scalar;
using test::generate;
using test::tensor;

std::string replaced(std::string text, const std::string& what, const std::string& with) {
  text.replace(text.find(what), what.size(), with);
  return text;
}

// The tiles are [1, 32] and [2, 32]: as if written out.
TEST(ShapeSelectionLowering, ASelectedShapeIsTheOperandsDimsAndTheWrittenExtents) {
  const std::vector<abi::ArgSignature> args = {tensor(DType::f32, {5, 2, 32}), tensor(DType::f32, {5, 32})};
  GeneratedKernel k = generate(croq::test::kShapeSelectionKernel, args);
  std::string written = replaced(croq::test::kShapeSelectionKernel, "x.span[1, (2)]", "[1, 32]");
  written = replaced(written, "x.span[(1), (2)]", "2, 32");
  EXPECT_EQ(k.cuda_source, generate(written, args).cuda_source);
}

struct ExtentCase {
  const char* extent;
  std::vector<abi::ArgSignature> extra;
  std::string message;
};

TEST(ShapeSelectionLowering, AnExtentMustBeAKnownNonNegativeNumber) {
  const ExtentCase cases[] = {
      {"n", {integer_scalar()},
       "`n`, an extent of `x.span[(1), n]`, is known only when the kernel runs; a shape's dims are known when it is "
       "specialized"},
      {"2 - 5", {}, "a shape extent must not be negative; `2 - 5`, an extent of `x.span[(1), 2 - 5]`, is -3"},
  };
  for (const ExtentCase& c : cases) {
    const std::string source = std::string("__co__ void f(f32 [4, 8] x") + (c.extra.empty() ? "" : ", int n") +
                                ") {\n  parallel p by 4 : block {\n    shared f32 [x.span[(1), " + c.extent +
                                "]] t;\n  }\n}\n";
    std::vector<abi::ArgSignature> args = {tensor(DType::f32, {4, 8})};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    try {
      generate(source, args);
      ADD_FAILURE() << "expected a CompileError for " << c.extent;
    } catch (const CompileError& e) {
      ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
      EXPECT_EQ(e.diagnostics()[0].message, c.message) << e.what();
      EXPECT_EQ(e.diagnostics()[0].line, 3);
      EXPECT_EQ(e.diagnostics()[0].column, 29);  // the extent
    }
  }
}

}  // namespace
}  // namespace croq::pipeline
