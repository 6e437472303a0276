// Shapes derived by selecting dims of another (`t.span[(0), (2), 4]`,
// `x[(1), (0)]` in a type): sema records each dim once
// (CheckedFunction::shape_selections), lowering builds the shape from it;
// picks inside an extent's arithmetic (`x.span[(1) / 2, 4]`), and sema's errors
// (lowering's: tests/lower/shape_selection_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "common/shape_selection_kernel.hpp"
#include "common/error_text.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

using test::compile_error;

TEST(ShapeSelectionSema, SelectedShapesOfTensorsAndFuturesCompile) {
  EXPECT_EQ(compile_error(test::kShapeSelectionKernel), "");
  // Croqtile's documentation form: dims picked from a future's shape.
  EXPECT_EQ(compile_error("__co__ void f(f32 [4, 3, 8, 32] input, f32 [4, 8, 32] out) {\n"
                          "  parallel q by 4 : block {\n"
                          "    tile = dma.copy input.chunkat(q, _, _, _) => shared;\n"
                          "    dims : tile.span[(0), (2), (3)];\n"
                          "    shared f32 [dims] gray;\n"
                          "    parallel t by 32 : thread\n"
                          "      foreach h in [8]\n"
                          "        gray.at(0, h, t) = tile.data.at(0, 0, h, t) + tile.data.at(0, 2, h, t);\n"
                          "    sync.barrier : block;\n"
                          "    dma.copy gray => out.chunkat(q, _, _);\n"
                          "  }\n"
                          "}\n"),
            "");
}

TEST(ShapeSelectionSema, ArithmeticOnPicksCompiles) {
  EXPECT_EQ(compile_error(test::kPickArithmeticKernel), "");
}

TEST(ShapeSelectionSema, APickInArithmeticPastTheOperandIsAnError) {
  const std::string e = compile_error("__co__ void f(f32 [4, 8] x) {\n"
                                      "  parallel p by 4 : block {\n"
                                      "    shared f32 [x.span[(2) / 2, 4]] t;\n"
                                      "  }\n"
                                      "}\n");
  EXPECT_NE(e.find(":3:25: error: `x.span` has 2 elements; `(2)` is not one of them [pick-index]"), std::string::npos)
      << e;
}

TEST(ShapeSelectionSema, AFloatExtentIsAnError) {
  const std::string e = compile_error("__co__ void f(f32 [4, 8] x) {\n"
                                      "  parallel p by 4 : block {\n"
                                      "    shared f32 [x.span[(1), 2.5f]] t;\n"
                                      "  }\n"
                                      "}\n");
  EXPECT_NE(e.find(":3:29: error: `2.5f` is a float; an extent of a derived shape is an integer [arithmetic-operand]"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace croq
